package declres

import (
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A namespace's resources serve what the caller renders for the names
// it knows, unescaped, and a resource not found for any other; Remove
// takes them away.
func TestResources(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	known := func(name string) error {
		if name != "get sessions" {
			return errors.New("unknown")
		}
		return nil
	}
	Add(srv, Namespace{Name: "bl", Tool: "execute_code", Declarations: "declare namespace bl {}",
		Function: func(name string) (string, error) { return "decl of " + name, known(name) },
		Schemas:  func(name string) (string, error) { return `{"input":{},"output":{}}`, known(name) },
	})
	cs := connect(t, srv)
	for uri, want := range map[string]string{
		"codemode://types/bl.d.ts":                           "declare namespace bl {}",
		"codemode://functions/bl/get%20sessions.d.ts":        "decl of get sessions",
		"codemode://functions/bl/get%20sessions.schema.json": `{"input":{},"output":{}}`,
	} {
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != want {
			t.Errorf("%s: %+v, %v; want %q", uri, res, err, want)
		}
	}
	for _, uri := range []string{"codemode://functions/bl/other.d.ts", "codemode://functions/bl/get%20sessions.json", "codemode://functions/xx/get%20sessions.d.ts"} {
		if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s was served", uri)
		}
	}
	tmpl, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil || len(tmpl.ResourceTemplates) != 2 {
		t.Fatalf("templates: %+v, %v", tmpl, err)
	}
	Remove(srv, "bl")
	if res, err := cs.ListResources(t.Context(), nil); err != nil || len(res.Resources) != 0 {
		t.Errorf("after Remove: %+v, %v", res, err)
	}
	if tmpl, err := cs.ListResourceTemplates(t.Context(), nil); err != nil || len(tmpl.ResourceTemplates) != 0 {
		t.Errorf("templates after Remove: %+v, %v", tmpl, err)
	}
}
