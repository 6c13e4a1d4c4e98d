package mcpsource_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/mcpsource"
)

type noteIn struct {
	ID string `json:"id" jsonschema:"the note's id"`
}

type note struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func TestFuncName(t *testing.T) {
	for in, want := range map[string]string{
		"get_note": "get_note", "getNote": "getNote", "get-note": "get_note", "files.read--all": "files_read_all",
		"3d": "_3d", "delete": "delete_", "-x-": "x", "é": "tool_", "a b": "a_b",
	} {
		if got := mcpsource.FuncName(in); got != want {
			t.Errorf("FuncName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTierOf(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		a    *mcp.ToolAnnotations
		tier catalog.Tier
		ap   catalog.Approval
	}{
		// Saying nothing is destructive, as the specification's defaults
		// (readOnlyHint false, destructiveHint true) have it.
		{nil, catalog.Mutating, catalog.ApprovalRequired},
		{&mcp.ToolAnnotations{}, catalog.Mutating, catalog.ApprovalRequired},
		{&mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: &no, Title: "Delete"}, catalog.Mutating, catalog.ApprovalRequired},
		{&mcp.ToolAnnotations{ReadOnlyHint: true}, catalog.ReadOnly, catalog.ApprovalDefault},
		{&mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, catalog.ReadOnly, catalog.ApprovalDefault},
		{&mcp.ToolAnnotations{DestructiveHint: &yes}, catalog.Mutating, catalog.ApprovalRequired},
		{&mcp.ToolAnnotations{DestructiveHint: &no}, catalog.Creative, catalog.ApprovalDefault},
		{&mcp.ToolAnnotations{DestructiveHint: &no, IdempotentHint: true}, catalog.Creative, catalog.ApprovalDefault},
	} {
		if tier, ap := mcpsource.TierOf(c.a); tier != c.tier || ap != c.ap {
			t.Errorf("TierOf(%+v) = %s/%s, want %s/%s", c.a, tier, ap, c.tier, c.ap)
		}
	}
}

// Tiers come from annotations unless overridden; a tool without
// annotations is MUTATING and asks; an override of a destructive tool's
// tier drops the derived approval.
func TestAddToolTiers(t *testing.T) {
	yes := true
	c := newCatalog(t, "notes")
	h := func(context.Context, *mcp.CallToolRequest, noteIn) (*mcp.CallToolResult, note, error) {
		return nil, note{}, nil
	}
	add := func(tool *mcp.Tool, o *mcpsource.ToolOptions) {
		t.Helper()
		if err := mcpsource.AddTool(c, tool, h, o); err != nil {
			t.Fatal(err)
		}
	}
	add(&mcp.Tool{Name: "read", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, nil)
	add(&mcp.Tool{Name: "erase", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, nil)
	add(&mcp.Tool{Name: "write"}, nil)
	add(&mcp.Tool{Name: "append", Annotations: &mcp.ToolAnnotations{DestructiveHint: new(bool)}}, nil)
	add(&mcp.Tool{Name: "trusted"}, &mcpsource.ToolOptions{ToolConfig: mcpsource.ToolConfig{Tier: catalog.Creative}})
	add(&mcp.Tool{Name: "wipe", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, &mcpsource.ToolOptions{ToolConfig: mcpsource.ToolConfig{Tier: catalog.Creative}})
	add(&mcp.Tool{Name: "peek", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, &mcpsource.ToolOptions{ToolConfig: mcpsource.ToolConfig{Name: "look", Scopes: []string{"notes:read"}}})
	got := map[string]string{}
	for _, f := range c.Functions() {
		got[f.Name] = f.Tier.String() + "/" + f.Approval.String() + "/" + strings.Join(f.Scopes, ",")
	}
	want := map[string]string{"read": "READ-ONLY/default/", "erase": "MUTATING/required/", "write": "MUTATING/required/", "append": "CREATIVE/default/", "trusted": "CREATIVE/default/", "wipe": "CREATIVE/default/", "look": "READ-ONLY/default/notes:read"}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: %q, want %q", n, got[n], w)
		}
	}
	// A tier the catalogue refuses with approval.
	err := mcpsource.AddTool(c, &mcp.Tool{Name: "odd"}, h, &mcpsource.ToolOptions{ToolConfig: mcpsource.ToolConfig{Tier: catalog.ReadOnly, Approval: catalog.ApprovalRequired}})
	if err == nil || !strings.Contains(err.Error(), `"odd"`) || has(c, "odd") {
		t.Fatalf("read-only with approval: %v", err)
	}
}

// Two tools whose names collide after conversion are an error naming the
// tool and the converted name, and change nothing.
func TestAddToolNameCollision(t *testing.T) {
	c := newCatalog(t, "notes")
	h := func(context.Context, *mcp.CallToolRequest, noteIn) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}
	if err := mcpsource.AddTool(c, &mcp.Tool{Name: "get_note"}, h, nil); err != nil {
		t.Fatal(err)
	}
	v := c.Version()
	err := mcpsource.AddTool(c, &mcp.Tool{Name: "get-note"}, h, nil)
	if err == nil || !strings.Contains(err.Error(), `"get-note"`) || !strings.Contains(err.Error(), "get_note") || !strings.Contains(err.Error(), "ToolOptions.Name") {
		t.Fatalf("collision: %v", err)
	}
	if c.Version() != v || len(c.Functions()) != 1 {
		t.Fatal("a refused tool changed the catalogue")
	}
	if err := mcpsource.AddTool(c, &mcp.Tool{Name: "get-note"}, h, &mcpsource.ToolOptions{ToolConfig: mcpsource.ToolConfig{Name: "getNoteById"}}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func() error{
		func() error { return mcpsource.AddTool[noteIn, any](c, nil, h, nil) },
		func() error { return mcpsource.AddTool[noteIn, any](c, &mcp.Tool{Name: "x"}, nil, nil) },
		func() error {
			return mcpsource.AddTool(c, &mcp.Tool{Name: "x", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/no"}}}}, h, nil)
		},
	} {
		if bad() == nil {
			t.Error("no error")
		}
	}
}

// What a handler returns, as a script receives it.
func TestAddToolResults(t *testing.T) {
	c := newCatalog(t, "r")
	png := []byte{0x89, 'P', 'N', 'G'}
	results := map[string]func() (*mcp.CallToolResult, any, error){
		"text": func() (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil, nil
		},
		"several": func() (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.ImageContent{MIMEType: "image/png", Data: png}}}, nil, nil
		},
		"audio": func() (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: png}}}, nil, nil
		},
		"resource": func() (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "note://1", MIMEType: "text/plain", Text: "body"}}, &mcp.ResourceLink{URI: "note://2", Name: "two"}}}, nil, nil
		},
		"structured": func() (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{StructuredContent: map[string]any{"n": 1}, Content: []mcp.Content{&mcp.TextContent{Text: "ignored"}}}, nil, nil
		},
		"typedOut": func() (*mcp.CallToolResult, any, error) { return nil, map[string]int{"n": 2}, nil },
		"empty":    func() (*mcp.CallToolResult, any, error) { return nil, nil, nil },
		"failed":   func() (*mcp.CallToolResult, any, error) { return nil, nil, errors.New("note n9 is locked") },
		"isError": func() (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "quota exceeded"}}}, nil, nil
		},
	}
	for name, r := range results {
		err := mcpsource.AddTool(c, &mcp.Tool{Name: name, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) { return r() }, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{
		"text":       `"hi"`,
		"several":    `["a",{"type":"image","mimeType":"image/png","data":"iVBORw=="}]`,
		"audio":      `{"type":"audio","mimeType":"audio/wav","data":"iVBORw=="}`,
		"resource":   `[{"type":"resource","uri":"note://1","mimeType":"text/plain","text":"body"},{"type":"resource_link","uri":"note://2","name":"two"}]`,
		"structured": `{"n":1}`,
		"typedOut":   `{"n":2}`,
		"empty":      `null`,
	} {
		if got := mustCall(t, c, name, `{}`); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	_, err := call(t, c, "failed", `{}`)
	wantCode(t, err, catalog.CodeToolError, "note n9 is locked")
	if err.Error() != "note n9 is locked" {
		t.Errorf("handler error shown as %q", err)
	}
	_, err = call(t, c, "isError", `{}`)
	wantCode(t, err, catalog.CodeToolError, "quota exceeded")
}

// Typed Out gives an output schema and typed results; defaults declared
// in the input schema are applied, as mcp.AddTool does.
func TestAddToolTypedAndDefaults(t *testing.T) {
	type in struct {
		ID    string `json:"id"`
		Limit int    `json:"limit,omitempty"`
	}
	c := newCatalog(t, "notes")
	schema := map[string]any{"type": "object", "required": []string{"id"}, "additionalProperties": false, "properties": map[string]any{
		"id": map[string]any{"type": "string"}, "limit": map[string]any{"type": "integer", "default": 10},
	}}
	err := mcpsource.AddTool(c, &mcp.Tool{Name: "get", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, note, error) {
			if req == nil || req.Params.Name != "get" || req.Session != nil {
				t.Errorf("request outside code mode: %+v", req)
			}
			return nil, note{ID: a.ID, Text: strings.Repeat("x", a.Limit)}, nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustCall(t, c, "get", `{"id":"n1"}`); got != `{"id":"n1","text":"xxxxxxxxxx"}` {
		t.Errorf("default not applied: %s", got)
	}
	if got := mustCall(t, c, "get", `{"id":"n1","limit":2}`); got != `{"id":"n1","text":"xx"}` {
		t.Errorf("given limit: %s", got)
	}
	_, err = call(t, c, "get", `{"limit":"2"}`)
	wantCode(t, err, catalog.CodeValidation, "Validation failed")
}
