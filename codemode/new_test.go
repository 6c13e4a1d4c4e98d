package codemode_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/sandbox"
)

func TestNewRejectsBadConfiguration(t *testing.T) {
	empty, _ := catalog.New("empty", nil)
	cat := newTestCatalog(t).Catalog
	v, _ := bearer.NewIntrospectionVerifier("https://auth.example", "https://api.example/mcp", &bearer.IntrospectionOptions{ClientID: "rs", ClientSecret: "secret"})
	tests := []struct {
		name string
		cat  *catalog.Catalog
		opts *codemode.Options
		want string
		is   error
	}{
		{"nil catalog", nil, nil, "nil catalog", nil},
		{"no functions", empty, nil, "", codemode.ErrNoFunctions},
		{"allow every origin", cat, &codemode.Options{HTTP: codemode.HTTPOptions{AllowedOrigins: []string{"*"}}}, "", httpmw.ErrOrigin},
		{"origin with a path", cat, &codemode.Options{HTTP: codemode.HTTPOptions{AllowedOrigins: []string{"https://x.example/app"}}}, "", httpmw.ErrOrigin},
		{"relative MCP path", cat, &codemode.Options{HTTP: codemode.HTTPOptions{MCPPath: "mcp"}}, "MCPPath", nil},
		{"MCP path with a pattern", cat, &codemode.Options{HTTP: codemode.HTTPOptions{MCPPath: "/{x}"}}, "MCPPath", nil},
		{"auth without verifier", cat, &codemode.Options{Auth: &codemode.Auth{Resource: "https://api.example/mcp", AuthorizationServers: []string{"https://auth.example"}}}, "Verifier is required", nil},
		{"auth without issuer", cat, &codemode.Options{Auth: &codemode.Auth{Verifier: v, Resource: "https://api.example/mcp"}}, "AuthorizationServers", nil},
		{"auth with a relative resource", cat, &codemode.Options{Auth: &codemode.Auth{Verifier: v, Resource: "/mcp", AuthorizationServers: []string{"https://auth.example"}}}, "resource", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			if opts == nil {
				opts = &codemode.Options{}
			}
			opts.Sandbox.Mode = sandbox.ModeInProcess
			if opts.Auth == nil {
				opts.Principal = &catalog.Principal{Subject: "dev"}
			}
			s, err := codemode.New(tt.cat, opts)
			if err == nil {
				s.Close()
				t.Fatal("New succeeded")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("error %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestNilOptions(t *testing.T) {
	// Nil options mean no Auth and no Principal: nothing could authorize
	// an HTTP request, so New says how to fix it.
	s, err := codemode.New(newTestCatalog(t).Catalog, nil)
	if !errors.Is(err, codemode.ErrNoIdentity) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("New(cat, nil) = %v, want ErrNoIdentity", err)
	}
	for _, way := range []string{"Options.Auth", "Options.Principal"} {
		if !strings.Contains(err.Error(), way) {
			t.Errorf("error %q does not name %s", err, way)
		}
	}
	s = newServer(t, newTestCatalog(t), nil)
	if s.MCPServer() == nil || s.Handler() == nil || s.ToolDescription() == "" {
		t.Fatal("incomplete server")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestBadToolInput(t *testing.T) {
	ts := startServer(t, nil)
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	for _, args := range []map[string]any{{}, {"code": 42}, {"code": "1", "extra": true}} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(text(res), `{"code": "<TypeScript>"}`) {
			t.Errorf("%v: %s", args, text(res))
		}
	}
}
