package codemode_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// taggedApproval reports whether decls tags fn @approval: the JSDoc line
// right above its signature carries the tag.
func taggedApproval(t *testing.T, decls, fn string) bool {
	t.Helper()
	lines := strings.Split(decls, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "const "+fn+": ") || strings.HasPrefix(l, "function "+fn+"(") {
			return i > 0 && strings.HasPrefix(lines[i-1], "/**") && strings.Contains(lines[i-1], "@approval")
		}
	}
	t.Fatalf("%s is not declared:\n%s", fn, decls)
	return false
}

// indexedApproval reports whether the index line of fn carries the tag.
func indexedApproval(t *testing.T, index, fn string) bool {
	t.Helper()
	for _, l := range strings.Split(index, "\n") {
		if strings.HasPrefix(l, "- "+fn+": ") {
			return strings.HasSuffix(l, " @approval")
		}
	}
	t.Fatalf("%s is not in the index:\n%s", fn, index)
	return false
}

// TestApprovalMarks checks that exactly the functions whose calls wait
// for the user's approval under the effective options are tagged, in the
// full declarations, in the index and in codemode.describe, and that the
// rule is stated once, only when some function needs approval.
func TestApprovalMarks(t *testing.T) {
	for name, tc := range map[string]struct {
		tiers []catalog.Tier
		want  map[string]bool
	}{
		// renameRace is ApprovalNotRequired: the tier default does not reach it.
		"mutating tier": {[]catalog.Tier{catalog.Mutating}, map[string]bool{"listRaces": false, "deleteRace": true, "renameRace": false}},
		"no approvals":  {nil, map[string]bool{"listRaces": false, "deleteRace": false, "renameRace": false}},
	} {
		t.Run(name, func(t *testing.T) {
			b := newRaceBook(t)
			var some bool
			for _, m := range []codemode.Discovery{codemode.DiscoveryFull, codemode.DiscoveryIndex} {
				s, err := codemode.New(b.cat, &codemode.Options{Discovery: m, Approvals: approval.Options{Tiers: tc.tiers}, Principal: &catalog.Principal{Subject: "dev"}, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				d := s.ToolDescription()
				for fn, want := range tc.want {
					some = some || want
					var got bool
					if m == codemode.DiscoveryFull {
						got = taggedApproval(t, d, fn)
					} else {
						got = indexedApproval(t, d, fn)
					}
					if got != want {
						t.Errorf("%s description: %s tagged @approval = %v, want %v", m, fn, got, want)
					}
				}
				if n := strings.Count(d, "the call asks the user first"); (n == 1) != some || n > 1 {
					t.Errorf("%s description states the approval rule %d times:\n%s", m, n, d)
				}
			}
			ts := startServerFor(t, b.cat, func(o *codemode.Options) { o.Approvals.Tiers = tc.tiers })
			cs := ts.connect(t, ts.token("alice"), nil)
			res := run(t, cs, `const out = {}; for (const n of ["listRaces", "deleteRace", "renameRace"]) out[n] = await codemode.describe([n]); return out;`)
			var described map[string]string
			if err := json.Unmarshal(structuredOf(t, res).Result, &described); err != nil || res.IsError {
				t.Fatalf("describe failed: %s", text(res))
			}
			for fn, want := range tc.want {
				if got := taggedApproval(t, described[fn], fn); got != want {
					t.Errorf("describe: %s tagged @approval = %v, want %v", fn, got, want)
				}
			}
		})
	}
}
