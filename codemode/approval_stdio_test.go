package codemode_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
)

// stdioPeer is a raw MCP client on the ends of two pipes: it writes the
// exact bytes a test chooses and reads the server's messages line by line.
type stdioPeer struct {
	t     *testing.T
	w     io.WriteCloser
	lines chan string
}

func startStdioPeer(t *testing.T, srv *codemode.Server) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeIO(ctx, catalog.Principal{Subject: "alice"}, inR, outW) }()
	p := &stdioPeer{t: t, w: inW, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
		outW.Close()
	})
	return p
}

func (p *stdioPeer) send(msg string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, msg+"\n"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// next returns the next message from the server, failing after 10s or
// when the session has ended.
func (p *stdioPeer) next() map[string]any {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server ended the session")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			p.t.Fatalf("server sent %q: %v", l, err)
		}
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no message from the server within 10s")
	}
	return nil
}

// An elicitation answer too deep or too large fails that one tools/call
// with a clear error, and the session keeps serving.
func TestApprovalBadAnswerOverStdio(t *testing.T) {
	answers := map[string]string{
		"deep":  `{"jsonrpc":"2.0","id":ID,"result":{"action":"accept","content":{"x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}}`,
		"large": `{"jsonrpc":"2.0","id":ID,"result":{"action":"accept","content":{"x":"` + strings.Repeat("a", 8<<20) + `"}}}`,
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			ts, b := startApprovals(t, nil)
			b.add("alice", "Monza", "cancelled")
			p := startStdioPeer(t, ts.Server)
			p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"1"}}}`)
			if m := p.next(); m["result"] == nil {
				t.Fatalf("initialize: %v", m)
			}
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return await races.deleteRace({id: 1});"}}}`)
			req := p.next()
			if req["method"] != "elicitation/create" {
				t.Fatalf("want elicitation/create, got %v", req)
			}
			id, _ := json.Marshal(req["id"])
			p.send(strings.Replace(answer, "ID", string(id), 1))
			res := p.next()
			for res["id"] != float64(2) {
				res = p.next()
			}
			r, _ := res["result"].(map[string]any)
			sc, _ := r["structuredContent"].(map[string]any)
			xe, _ := sc["error"].(map[string]any)
			if r["isError"] != true || xe["kind"] != "APPROVAL_UNAVAILABLE" {
				t.Fatalf("tools/call: %v", res)
			}
			if b.deletes.Load() != 0 {
				t.Fatal("deleted")
			}
			t.Logf("message: %s", xe["message"])
			if msg, _ := xe["message"].(string); !strings.Contains(msg, "the server refused the answer: the message was") {
				t.Fatalf("message %q does not say why", msg)
			}
			// A request too deep fails alone, too.
			p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}}`)
			if m := p.next(); m["id"] != float64(3) || m["error"] == nil {
				t.Fatalf("deep request: %v", m)
			}
			p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"execute_code","arguments":{"code":"return 41 + 1;"}}}`)
			if m := p.next(); m["id"] != float64(4) || m["result"] == nil {
				t.Fatalf("the session did not keep serving: %v", m)
			}
		})
	}
}
