package functions_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/internal/golden"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestMistakesGetReplies runs the corpus of first-contact mistakes in
// testdata/mistakes (issue 26: one or more scripts per class, written as
// a model writes them having read only the auto-mode description)
// through BrakingLab's execute_code in its default auto discovery mode,
// with the go-sdk client, in both sandbox modes. Each NAME.ts states in
// "// reply:" lines what the text the model reads must say, and in
// "// not:" lines what it must not; that text is compared with
// NAME.golden. NAME.fixed.ts is the script after the one change the reply
// asks for: it must succeed with no warning and no failed call, which is
// what "the model can fix its script in one step" means here.
func TestMistakesGetReplies(t *testing.T) {
	scripts, _ := filepath.Glob("testdata/mistakes/*.ts")
	var mistakes []string
	for _, s := range scripts {
		if !strings.HasSuffix(s, ".fixed.ts") {
			mistakes = append(mistakes, s)
		}
	}
	if len(mistakes) < 12 {
		t.Fatalf("%d mistakes in testdata/mistakes", len(mistakes))
	}
	for _, mode := range []sandbox.Mode{sandbox.ModeInProcess, sandbox.ModeWorker} {
		t.Run(mode.String(), func(t *testing.T) {
			cs := connectAuto(t, mode)
			for _, path := range mistakes {
				name := strings.TrimSuffix(filepath.Base(path), ".ts")
				t.Run(name, func(t *testing.T) {
					src := readFile(t, path)
					res := execute(t, cs, src)
					txt := res.Content[0].(*mcp.TextContent).Text
					for _, l := range strings.Split(src, "\n") {
						if want, ok := strings.CutPrefix(l, "// reply: "); ok && !strings.Contains(txt, want) {
							t.Errorf("the reply lacks %q", want)
						}
						if bad, ok := strings.CutPrefix(l, "// not: "); ok && strings.Contains(txt, bad) {
							t.Errorf("the reply says %q", bad)
						}
					}
					golden.Check(t, strings.TrimSuffix(path, ".ts")+".golden", []byte(txt+"\n"))
					if t.Failed() {
						t.Logf("the model reads:\n%s", txt)
					}

					fixed := execute(t, cs, readFile(t, strings.TrimSuffix(path, ".ts")+".fixed.ts"))
					ftxt := fixed.Content[0].(*mcp.TextContent).Text
					if fixed.IsError || strings.Contains(ftxt, "Warnings:") || strings.Contains(ftxt, "Calls that failed") {
						t.Errorf("the fixed script does not run cleanly:\n%s", ftxt)
					}
				})
			}
		})
	}
}

// connectAuto serves BrakingLab's catalog in the default (auto)
// discovery mode to a go-sdk client, as the demo user.
func connectAuto(t *testing.T, mode sandbox.Mode) *mcp.ClientSession {
	t.Helper()
	p := catalog.Principal{Subject: demoU.ID, ClientID: "test", Scopes: []string{functions.ScopeRead, functions.ScopeWrite}}
	srv, err := codemode.New(cat, &codemode.Options{Principal: &p, Sandbox: codemode.SandboxOptions{Mode: mode}, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	go srv.ServeTransport(ctx, p, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mistakes", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func execute(t *testing.T, cs *mcp.ClientSession, code string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
