package codemode

import (
	"encoding/json"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/ghcatalog"
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
	args := []json.RawMessage{json.RawMessage(`"add a reaction emoji to an issue"`), json.RawMessage(`{"limit":5}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.search(sp, args); err != nil {
			b.Fatal(err)
		}
	}
}
