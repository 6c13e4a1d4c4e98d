package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
)

// script calls both functions; want is the result the model reads.
const (
	script = `const g = await demo.greet({ name: "Ada" }); return { g, n: await demo.add({ A: 2, B: 40 }) };`
	want   = `{"g":"Hello, Ada!","n":42}`
)

// build compiles the example, as a user would run it.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "minimal")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// call runs the script over cs and returns the structured result.
func call(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": script}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent.(map[string]any)["result"])
	if res.IsError || string(b) != want {
		t.Fatalf("result %s, want %s; content %+v", b, want, res.Content[0])
	}
	return string(b)
}

// TestStdioAndHTTP runs the built example over stdio and over loopback
// HTTP with the go-sdk client.
func TestStdioAndHTTP(t *testing.T) {
	bin := build(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)

	t.Run("stdio", func(t *testing.T) {
		cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: exec.Command(bin, "-stdio")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		call(t, cs)
		if err := cs.Close(); err != nil {
			t.Fatalf("the server did not end with the session: %v", err)
		}
	})

	t.Run("http", func(t *testing.T) {
		cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		urls := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				if m := regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
					urls <- m[1]
				}
			}
		}()
		var url string
		select {
		case url = <-urls:
		case <-time.After(30 * time.Second):
			t.Fatal("the server did not say where it listens")
		}
		if !strings.HasPrefix(url, "http://127.0.0.1:") {
			t.Fatalf("url %s", url)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		call(t, cs)
	})
}
