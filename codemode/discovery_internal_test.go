package codemode

import (
	"encoding/json"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/testdata/ghcatalog"
)

// BenchmarkDiscoverySearch is codemode.search's own work on the
// generated GitHub catalog, without the sandbox around it.
func BenchmarkDiscoverySearch(b *testing.B) {
	cat, err := ghcatalog.New()
	if err != nil {
		b.Fatal(err)
	}
	var fns []boundFunc
	for _, f := range cat.Functions() {
		fns = append(fns, boundFunc{ns: cat.Namespace(), FuncInfo: f})
	}
	v := &view{namespaces: []string{cat.Namespace()}, disc: newDiscovery(fns)}
	s := &Server{}
	sp := &toolSpec{v: v, tiers: map[string]catalog.Tier{}}
	for _, f := range fns {
		sp.tiers[f.qualified()] = f.Tier
	}
	args := json.RawMessage(`["add a reaction emoji to an issue", {"limit":5}]`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.discoveryCall(sp, "search", args); err != nil {
			b.Fatal(err)
		}
	}
}

// ghDiscoveryHost is an execution host over the generated GitHub catalog
// with its discovery index, without a sandbox.
func ghDiscoveryHost(tb testing.TB) *execHost {
	cat, err := ghcatalog.New()
	if err != nil {
		tb.Fatal(err)
	}
	var fns []boundFunc
	for _, f := range cat.Functions() {
		fns = append(fns, boundFunc{ns: cat.Namespace(), FuncInfo: f})
	}
	v := &view{gen: 1, namespaces: []string{cat.Namespace()}, disc: newDiscovery(fns)}
	sp := &toolSpec{name: ToolName, v: v, tiers: map[string]catalog.Tier{}}
	for _, f := range fns {
		sp.tiers[f.qualified()] = f.Tier
		sp.names = append(sp.names, f.qualified())
	}
	return &execHost{s: &Server{}, spec: sp}
}

// An answer is computed once per catalogue version and tool, errors
// included (the budget's own bounds are internal/discover's TestBudget).
func TestDiscoveryCache(t *testing.T) {
	h := ghDiscoveryHost(t)
	args := json.RawMessage(`[["issuesCreate", "issuesAddLabels"]]`)
	first, err := h.discover("describe", args)
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.discover("describe", args)
	if err != nil || string(again) != string(first) {
		t.Fatalf("second answer differs: %v", err)
	}
	if _, err := h.discover("describe", json.RawMessage(`["no_such_function"]`)); err == nil {
		t.Fatal("unknown function described")
	}
	if n := h.s.discCache.Len(); n != 2 {
		t.Fatalf("%d cached answers, want 2 (one answer, one error)", n)
	}
	other := &execHost{s: h.s, spec: &toolSpec{name: ReadOnlyToolName, v: h.spec.v, tiers: h.spec.tiers, names: h.spec.names}}
	if _, err := other.discover("describe", args); err != nil {
		t.Fatal(err)
	}
	if n := h.s.discCache.Len(); n != 3 {
		t.Fatalf("%d cached answers after another tool asked, want 3: tools bind different functions", n)
	}
}

// BenchmarkDiscoveryDescribe is one codemode.describe of ten GitHub
// functions, computed (uncached) and answered from the cache (cached).
func BenchmarkDiscoveryDescribe(b *testing.B) {
	args := json.RawMessage(`[["issuesCreate", "issuesAddLabels", "issuesAddAssignees", "issuesCreateComment", "issuesAddSubIssue", "activityGetFeeds", "activityGetThread", "activityListPublicEvents", "activityGetRepoSubscription", "issuesCheckUserCanBeAssigned"]]`)
	b.Run("uncached", func(b *testing.B) {
		h := ghDiscoveryHost(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.s.discoveryCall(h.spec, "describe", args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		h := ghDiscoveryHost(b)
		b.ReportAllocs()
		for b.Loop() {
			h.disc.Reset()
			if _, err := h.discover("describe", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
