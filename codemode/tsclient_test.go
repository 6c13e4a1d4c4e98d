package codemode_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// The official TypeScript SDK client (which speaks 2025-11-25 and cancels
// by POSTing notifications/cancelled) interrupts its execution on the
// default stateless endpoint, and its next call works.
func TestTypeScriptClientCancels(t *testing.T) {
	b := newBlocker(t)
	ts := startServerFor(t, b.cat, b.configure)
	cmd := tsclienttest.Command(t, t.Context(), "testdata/ts-cancel.mjs", []string{"MCP_URL=" + ts.URL, "MCP_TOKEN=" + ts.token("alice")})
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-b.running:
	case err := <-exited:
		t.Fatalf("client exited before the call ran: %v\n%s", err, stderr.String())
	}
	_, _ = io.WriteString(stdin, "go\n")

	if err := <-b.stopped; !errors.Is(err, context.Canceled) {
		t.Fatalf("host function context: %v", err)
	}
	if err := <-exited; err != nil {
		t.Fatalf("client: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	// The client does not wait for the server to stop the cancelled
	// execution before its next call, so the two may end in either order.
	ends := map[string]int{}
	for range 2 {
		ev := <-b.ended
		ends[string(ev.Kind)+" "+ev.ErrorKind]++
	}
	if want := map[string]int{string(codemode.ExecutionFailed) + " CANCELLED": 1, string(codemode.ExecutionFinished) + " ": 1}; !maps.Equal(ends, want) {
		t.Fatalf("executions ended %v, want %v", ends, want)
	}
	var got struct {
		ProtocolVersion string
		Aborted         bool
		Next            struct {
			Result json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
		t.Fatalf("client output %q: %v", stdout.String(), err)
	}
	if got.ProtocolVersion != "2025-11-25" || !got.Aborted || string(got.Next.Result) != "1" {
		t.Fatalf("client saw %+v", got)
	}
	if n := codemode.CancelledCalls(ts.Server); n != 1 {
		t.Fatalf("registry cancelled %d calls, want 1", n)
	}
}

// The official TypeScript SDK client gets the charts of a script as a PNG
// when it does not declare the MCP Apps extension, and the view reference
// (no image) when it does.
func TestTypeScriptClientCharts(t *testing.T) {
	// Stateful: a 2025-11-25 client declares its capabilities once, at
	// initialize, which a stateless endpoint does not keep.
	// The stub renderer draws for the client without Apps (chartpng's
	// tests draw real charts).
	ts := startServer(t, func(o *codemode.Options) { o.HTTP.Stateful = true; o.ChartRenderer = &stubRenderer{} })
	type result struct {
		ResourceURI *string
		Content     []string
		ImageBytes  []int
		Charts      int
		Text        string
		View        *struct {
			MIMEType string
			Bytes    int
			CSP      map[string][]string
		}
	}
	for _, apps := range []string{"0", "1"} {
		t.Run("APPS="+apps, func(t *testing.T) {
			out := tsclienttest.Run(t, t.Context(), "testdata/ts-charts.mjs", []string{"MCP_URL=" + ts.URL, "MCP_TOKEN=" + ts.token("alice", allScopes...), "APPS=" + apps})
			var got result
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("APPS=%s: %v: %s", apps, err, out)
			}
			if got.Charts != 1 || !strings.HasPrefix(got.Text, `Chart 1: "Lap times": line chart, 1 series, 4 points, shown to the user`) {
				t.Errorf("APPS=%s: %s", apps, out)
			}
			if apps == "0" {
				if got.ResourceURI != nil || len(got.ImageBytes) != 1 || got.ImageBytes[0] != len(stubPNG()) || !slicesContains(got.Content, "image:image/png") {
					t.Errorf("without Apps: want one PNG and no view: %s", out)
				}
				return
			}
			if got.ResourceURI == nil || *got.ResourceURI != codemode.ChartViewURI || len(got.ImageBytes) != 0 {
				t.Errorf("with Apps: want the view and no image: %s", out)
			}
			if v := got.View; v == nil || v.MIMEType != "text/html;profile=mcp-app" || v.Bytes < 1000 || v.CSP == nil || len(v.CSP["connectDomains"]) != 0 {
				t.Errorf("with Apps: the view: %s", out)
			}
		})
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
