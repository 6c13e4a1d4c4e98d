package main

import (
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// The gateway binary over Streamable HTTP with tokens from an issuer, and
// the official TypeScript SDK client on its default revision (2025-11-25)
// declaring elicitation: deleting an entity in server-memory (a
// destructive tool) asks the user once, in the call. Accept deletes it,
// once; decline leaves it.
func TestGatewayHTTPTypeScriptClientApproval(t *testing.T) {
	tsclienttest.Need(t, tsclienttest.SDK)
	bin := buildGateway(t)
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			f := newFixture(t)
			issuer := oauthmetatest.NewIssuer(t, nil)
			url := startGateway(t, bin, "-config", f.config, "-addr", "127.0.0.1:0", "-issuer", issuer.URL)
			tok := issuer.Mint(url, oauthmetatest.WithClaim("sub", "ts-user"))

			// Store an entity, delete it (a destructive tool, so the user
			// is asked) and read the graph back, in one session.
			got := tsclienttest.RunApproval(t, t.Context(), url, tok, action,
				`await memory.create_entities({ entities: [{ name: "draft", entityType: "note", observations: ["to delete"] }] }); return "created";`,
				`await memory.delete_entities({ entityNames: ["draft"] }); return "deleted";`,
				`return (await memory.read_graph({})).entities.map((e) => e.name);`)
			created, deleted, graph := got.Calls[0], got.Calls[1], got.Calls[2]
			if got.ProtocolVersion != "2025-11-25" || got.SessionID == nil || *got.SessionID == "" {
				t.Fatalf("revision %q, session %v: want 2025-11-25 in a session", got.ProtocolVersion, got.SessionID)
			}
			if created.IsError || graph.IsError {
				t.Fatalf("create: %s\nread: %s", created.Text, graph.Text)
			}
			if len(got.Asked) != 1 || !strings.Contains(got.Asked[0], "memory.delete_entities (MUTATING)") || !strings.Contains(got.Asked[0], "draft") {
				t.Fatalf("asked %q, want once about deleting draft", got.Asked)
			}
			names := string(graph.Result.Result)
			if action == "accept" {
				if deleted.IsError || string(deleted.Result.Result) != `"deleted"` || len(deleted.Result.Writes) != 1 || strings.Contains(names, `"draft"`) {
					t.Fatalf("accept: %s; writes %d; graph %s", deleted.Text, len(deleted.Result.Writes), names)
				}
				return
			}
			if !deleted.IsError || deleted.Result.Error.Kind != "APPROVAL_DECLINED" || !strings.Contains(names, `"draft"`) {
				t.Fatalf("decline: %s; graph %s", deleted.Text, names)
			}
		})
	}
}
