package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/internal/pgtest"
)

// The client's trace context, as a W3C traceparent.
const (
	clientTraceID = "0af7651916cd43dd8448eb211c80319c"
	clientSpanID  = "b7ad6b7169203331"
	traceparent   = "00-" + clientTraceID + "-" + clientSpanID + "-01"
)

// headerTransport adds a header to every request.
type headerTransport struct {
	key, value string
	base       http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.key, h.value)
	return h.base.RoundTrip(r)
}

// callWithTraceparent runs code on s (started with -insecure-no-auth)
// from a client whose requests carry traceparent.
func callWithTraceparent(t *testing.T, s *server, code string) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "trace-e2e", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   s.MCPURL,
		HTTPClient: &http.Client{Transport: headerTransport{"Traceparent", traceparent, http.DefaultTransport}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	value, _ := executeCode(t, ctx, cs, code)
	return value
}

// consoleSpan is the part of a span the console exporter prints that the
// test reads.
type consoleSpan struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ TraceID, SpanID string }
}

// traceChain checks that spans hold one trace from the client's span
// through execute_code and the host call to an SQL query, and returns the
// names along it, from the query up.
func traceChain(t *testing.T, spans []consoleSpan) []string {
	t.Helper()
	byID := map[string]consoleSpan{}
	var query *consoleSpan
	for i, s := range spans {
		byID[s.SpanContext.SpanID] = s
		if strings.HasPrefix(s.Name, "sql.") && s.SpanContext.TraceID == clientTraceID && query == nil {
			query = &spans[i]
		}
	}
	if query == nil {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name+" "+s.SpanContext.TraceID)
		}
		t.Fatalf("no SQL span in the client's trace among %d spans: %q", len(spans), names)
	}
	var chain []string
	for s, ok := *query, true; ok; s, ok = byID[s.Parent.SpanID] {
		if s.SpanContext.TraceID != clientTraceID {
			t.Fatalf("span %q is in trace %s, want %s", s.Name, s.SpanContext.TraceID, clientTraceID)
		}
		chain = append(chain, s.Name)
		if _, up := byID[s.Parent.SpanID]; !up && s.Parent.SpanID != clientSpanID {
			t.Fatalf("span %q has parent %s, neither recorded nor the client's %s (chain %q)", s.Name, s.Parent.SpanID, clientSpanID, chain)
		}
	}
	want := []string{"execute_tool brakinglab.getSessions", "codemode.run", "tools/call execute_code"}
	if got := chain[1:]; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("trace from the query up: %q, want %q above it", chain, want)
	}
	return chain
}

// OTEL_TRACES_EXPORTER=console prints the spans: one trace runs from the
// client's traceparent through execute_code and the host call to the
// SQLite query.
func TestConsoleTraceReachesSQL(t *testing.T) {
	s := startServerEnv(t, []string{"OTEL_TRACES_EXPORTER=console", "OTEL_BSP_SCHEDULE_DELAY=100"}, "-insecure-no-auth")
	if v := callWithTraceparent(t, s, `return (await brakinglab.getSessions({ trackName: "Spa", limit: 2 })).length`); string(v) != "2" {
		t.Fatalf("getSessions returned %s", v)
	}
	s.stop(t) // flushes the batch
	out := s.stdout.String()
	_, after, ok := strings.Cut(out, "Press Ctrl+C to stop.\n")
	if !ok {
		t.Fatalf("no banner in %q", out)
	}
	var spans []consoleSpan
	dec := json.NewDecoder(strings.NewReader(after))
	for {
		var sp consoleSpan
		if err := dec.Decode(&sp); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("console output after %d spans: %v\n%s", len(spans), err, after)
		}
		spans = append(spans, sp)
	}
	t.Logf("trace: %q", traceChain(t, spans))
}

// Without OTEL_* variables nothing is printed after the banner.
func TestNoExporterByDefault(t *testing.T) {
	s := startServer(t, "-insecure-no-auth")
	callWithTraceparent(t, s, `return (await brakinglab.getSessions({ limit: 1 })).length`)
	s.stop(t)
	if _, after, _ := strings.Cut(s.stdout.String(), "Press Ctrl+C to stop.\n"); strings.Contains(after, "{") {
		t.Fatalf("output after the banner without an exporter: %q", after)
	}
}

// /readyz follows the database: ready, then not ready once PostgreSQL
// stops, while /healthz stays up; an anonymous probe reads the verdict
// alone, never the driver's error.
func TestReadinessFollowsDatabase(t *testing.T) {
	pg := pgtest.Start(t)
	s := startServer(t, "-db", pg.NewDatabase(t), "-insecure-no-auth")
	probe := func(path string) (int, string) {
		res, err := http.Get(s.Base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(bytes.TrimSpace(b))
	}
	if code, body := probe("/readyz"); code != 200 || body != `{"status":"ready"}` {
		t.Fatalf("/readyz: %d %s", code, body)
	}
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := probe("/readyz")
		if code == 503 {
			// Nothing but the verdict: the driver's error names the
			// database user, name and host:port.
			if body != `{"status":"not ready"}` {
				t.Fatalf("/readyz with PostgreSQL stopped discloses more than its verdict: %s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz with PostgreSQL stopped: %d %s", code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code, body := probe("/healthz"); code != 200 || body != `{"status":"ok"}` {
		t.Fatalf("/healthz: %d %s", code, body)
	}
}
