package mcpsource_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/mcpsource"
)

// tiers returns each function of c as "TIER/approval".
func tiers(c *catalog.Catalog) map[string]string {
	got := map[string]string{}
	for _, f := range c.Functions() {
		got[f.Name] = f.Tier.String() + "/" + f.Approval.String()
	}
	return got
}

// An upstream tool that does not say whether it is destructive is
// MUTATING and asks before every call, as the MCP specification's
// defaults have it; the host trusts a server's such tools with
// Options.UnannotatedTier and UnannotatedApproval, and one tool with
// Options.Tools, which wins. Tools that describe themselves keep what
// their annotations say.
func TestUpstreamUnannotatedTiers(t *testing.T) {
	cmd, log := fakeLogging(t)
	for _, tc := range []struct {
		name string
		opts mcpsource.Options
		want map[string]string
	}{
		{"default", mcpsource.Options{}, map[string]string{
			"forget": "MUTATING/required", "hangwrite": "MUTATING/required", "remember": "CREATIVE/default", "ok": "READ-ONLY/default"}},
		{"server trusted", mcpsource.Options{UnannotatedTier: catalog.Creative}, map[string]string{
			"forget": "CREATIVE/default", "hangwrite": "CREATIVE/default", "remember": "CREATIVE/default", "ok": "READ-ONLY/default"}},
		{"server trusted, one tool not", mcpsource.Options{UnannotatedTier: catalog.Creative,
			Tools: map[string]mcpsource.ToolConfig{"forget": {Approval: catalog.ApprovalRequired}}}, map[string]string{
			"forget": "CREATIVE/required", "hangwrite": "CREATIVE/default", "remember": "CREATIVE/default"}},
		{"server reads", mcpsource.Options{UnannotatedTier: catalog.ReadOnly}, map[string]string{
			"forget": "READ-ONLY/default", "remember": "CREATIVE/default", "ok": "READ-ONLY/default"}},
		{"no approval, still MUTATING", mcpsource.Options{UnannotatedApproval: catalog.ApprovalNotRequired}, map[string]string{
			"forget": "MUTATING/not required", "remember": "CREATIVE/default"}},
		{"one tool trusted", mcpsource.Options{Tools: map[string]mcpsource.ToolConfig{"forget": {Tier: catalog.Creative}}}, map[string]string{
			"forget": "CREATIVE/default", "hangwrite": "MUTATING/required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCatalog(t, "fake")
			o := tc.opts
			o.Command = cmd
			connect(t, c, &o)
			got := tiers(c)
			for n, w := range tc.want {
				if got[n] != w {
					t.Errorf("%s: %s, want %s", n, got[n], w)
				}
			}
		})
	}
	// The tiers are only labels until a call: the tools still run through
	// the catalogue, which has no user to ask.
	c := newCatalog(t, "fake")
	connect(t, c, &mcpsource.Options{Command: cmd})
	if out := mustCall(t, c, "forget", `{"id":"n1"}`); out != `"done"` {
		t.Fatalf("forget: %s", out)
	}
	if b, _ := os.ReadFile(log); string(b) != `forget {"id":"n1"}`+"\n" {
		t.Fatalf("log %q", b)
	}
}

// A setting for unannotated tools that no tool could be registered with
// fails Connect, naming the field.
func TestUpstreamUnannotatedRefused(t *testing.T) {
	for _, tc := range []struct {
		opts mcpsource.Options
		want string
	}{
		{mcpsource.Options{UnannotatedTier: catalog.Tier(7)}, "Options.UnannotatedTier: unknown tier 7"},
		{mcpsource.Options{UnannotatedApproval: catalog.Approval(9)}, "Options.UnannotatedApproval: unknown approval setting 9"},
		{mcpsource.Options{UnannotatedTier: catalog.ReadOnly, UnannotatedApproval: catalog.ApprovalRequired}, "a READ-ONLY function cannot require approval"},
	} {
		o := tc.opts
		o.Command = fakeCommand
		u, err := mcpsource.Connect(context.Background(), newCatalog(t, "fake"), &o)
		if err == nil {
			u.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "mcpsource: fake: ") {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
}
