package codemode_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
)

// notesCatalog holds functions known only by JSON Schema, as an upstream
// MCP server's tools are.
func notesCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New("notes", nil)
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAddSchema(c, catalog.SchemaFunc{
		Name: "findNotes", Description: "Finds notes whose text matches a query.", Tier: catalog.ReadOnly, Scopes: []string{"notes:read"},
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"query":{"type":"string","description":"Words the note must contain"},
			"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"notes":{"type":"array","items":{"$ref":"#/$defs/Note"}}},"required":["notes"],
			"$defs":{"Note":{"type":"object","properties":{"id":{"type":"string"},"text":{"type":"string"}},"required":["id","text"]}}}`),
		Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var a struct{ Query string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return json.RawMessage(`{"notes":[{"id":"n1","text":"brake later into ` + a.Query + `"}]}`), nil
		},
	})
	catalog.MustAddSchema(c, catalog.SchemaFunc{
		Name: "addNote", Description: "Adds a note.", Tier: catalog.Creative, Scopes: []string{"notes:write"},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":20}},"required":["text"],"additionalProperties":false}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"id":"n2"}`), nil
		},
	})
	return c
}

// TestSchemaFunctionsEndToEnd drives schema functions through a real
// server and the go-sdk client: search finds one by its members, describe
// declares it from its schema, calls are validated (issues with paths,
// warnings for ignored members, dry runs), audited, and its JSON Schema
// resource serves the schema it was given.
func TestSchemaFunctionsEndToEnd(t *testing.T) {
	ts := startServerFor(t, notesCatalog(t), func(o *codemode.Options) { o.Discovery = codemode.DiscoveryIndex })
	cs := ts.connect(t, ts.token("driver", "notes:read", "notes:write"), nil)
	res := run(t, cs, `
const hits = await codemode.search("words the note must contain", { limit: 1 });
const decl = await codemode.describe(["findNotes"]);
const found = await notes.findNotes({ query: "T4", limt: 3 });
const dry = await notes.addNote({ text: "late apex", _validateOnly: true });
let issue = "";
try { await notes.addNote({ text: "x".repeat(21) }); } catch (e) { issue = JSON.stringify(e.issues); }
return { hit: hits[0].name, decl, found, dry, issue };`)
	if res.IsError {
		t.Fatalf("execution failed: %s", text(res))
	}
	st := structuredOf(t, res)
	var got struct {
		Hit   string
		Decl  string
		Found struct{ Notes []struct{ ID, Text string } }
		Dry   struct{ Valid bool }
		Issue string
	}
	if err := json.Unmarshal(st.Result, &got); err != nil {
		t.Fatal(err)
	}
	if got.Hit != "findNotes" {
		t.Errorf("search hit %q, want findNotes", got.Hit)
	}
	for _, w := range []string{"function findNotes(args: {", "query: string; // Words the note must contain", "limit?: int; // @minimum 1 @maximum 50", "}): Promise<FindNotesResult>;", "interface Note { id: string; text: string }"} {
		if !strings.Contains(got.Decl, w) {
			t.Errorf("describe lacks %q:\n%s", w, got.Decl)
		}
	}
	if len(got.Found.Notes) != 1 || got.Found.Notes[0].Text != "brake later into T4" || !got.Dry.Valid {
		t.Errorf("results: %s", st.Result)
	}
	if got.Issue != `[{"path":["text"],"message":"Must be at most 20 characters"}]` {
		t.Errorf("issues = %s", got.Issue)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `findNotes ignored unknown field \"limt\" (did you mean \"limit\"?)`) {
		t.Errorf("no warning for the ignored member: %s", b)
	}
	called := 0
	for _, ev := range ts.audit.all() {
		if ev.Kind == codemode.FunctionCalled && strings.HasPrefix(ev.Function, "notes.") {
			called++
		}
	}
	if called != 3 {
		t.Errorf("audited %d schema function calls, want 3", called)
	}

	r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "codemode://functions/notes/addNote.schema.json"})
	if err != nil {
		t.Fatal(err)
	}
	var schemas struct{ Input, Output json.RawMessage }
	if err := json.Unmarshal([]byte(r.Contents[0].Text), &schemas); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(schemas.Input), `"maxLength":20`) || string(schemas.Output) != `{}` {
		t.Errorf("schema resource: %s", r.Contents[0].Text)
	}
}

// TestSchemaFunctionApproval checks that a schema function requiring
// approval asks the user with its validated arguments, runs only once
// accepted, and never runs when declined.
func TestSchemaFunctionApproval(t *testing.T) {
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			c, err := catalog.New("notes", nil)
			if err != nil {
				t.Fatal(err)
			}
			var ran atomic.Int32
			catalog.MustAddSchema(c, catalog.SchemaFunc{
				Name: "deleteNote", Description: "Deletes a note.", Tier: catalog.Mutating, Approval: catalog.ApprovalRequired,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
				Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
					ran.Add(1)
					return json.RawMessage(`{"deleted":true}`), nil
				},
			})
			ts := startServerFor(t, c, nil)
			e := &elicitor{action: always(action)}
			cs := ts.connectAt(t, ts.token("alice"), "2026-07-28", &mcp.ClientOptions{ElicitationHandler: e.handle})
			res := run(t, cs, `return await notes.deleteNote({ id: "n1" });`)
			asked := e.asked()
			if len(asked) != 1 || !strings.Contains(asked[0], "notes.deleteNote (MUTATING)\n   id: \"n1\"") {
				t.Fatalf("asked %q", asked)
			}
			switch action {
			case "accept":
				if res.IsError || string(structuredOf(t, res).Result) != `{"deleted":true}` || ran.Load() != 1 {
					t.Errorf("accepted: %s, handler ran %d times", text(res), ran.Load())
				}
			default:
				st := structuredOf(t, res)
				if !res.IsError || st.Error == nil || st.Error.Kind != "APPROVAL_DECLINED" || ran.Load() != 0 {
					t.Errorf("declined: %s, handler ran %d times", text(res), ran.Load())
				}
			}
		})
	}
}
