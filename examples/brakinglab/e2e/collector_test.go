package e2e

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/testtool"
	"github.com/brakinglab/codemode-go/internal/logtest"
)

// collectorConfig receives OTLP over HTTP on a loopback port and prints
// every span with the debug exporter.
const collectorConfig = `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%s
exporters:
  debug:
    verbosity: detailed
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [debug]
`

// BrakingLab exporting with otlp to a real OpenTelemetry Collector: the
// collector receives one trace running from the client's traceparent
// through execute_code and the host call to the SQLite query.
func TestCollectorReceivesOneTrace(t *testing.T) {
	bin := filepath.Join(repoRoot, ".ci", "otelcol", "out", "otelcol-codemode")
	testtool.Need(t, bin, "the OpenTelemetry Collector (.ci/otelcol)")
	port := freePort(t)
	cfg := filepath.Join(t.TempDir(), "collector.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, collectorConfig, port), 0o600); err != nil {
		t.Fatal(err)
	}
	col := exec.Command(bin, "--config", "file:"+cfg)
	var logs logtest.Buffer
	col.Stdout, col.Stderr = &logs, &logs
	if err := col.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		col.Process.Kill()
		col.Wait()
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector did not listen within a minute:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	s := startServerEnv(t, []string{
		"OTEL_TRACES_EXPORTER=otlp", "OTEL_METRICS_EXPORTER=none",
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:" + port,
	}, "-insecure-no-auth")
	if v := callWithTraceparent(t, s, `return (await brakinglab.getSessions({ trackName: "Spa", limit: 2 })).length`); string(v) != "2" {
		t.Fatalf("getSessions returned %s", v)
	}
	s.stop(t) // flushes the batch to the collector

	deadline = time.Now().Add(30 * time.Second)
	for {
		spans := debugSpans(logs.String())
		if hasSQLInTrace(spans) {
			t.Logf("trace at the collector: %q", traceChain(t, spans))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector received no SQL span in the client's trace:\n%s", logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// hasSQLInTrace reports whether spans hold an SQL span of the client's trace.
func hasSQLInTrace(spans []consoleSpan) bool {
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "sql.") && s.SpanContext.TraceID == clientTraceID {
			return true
		}
	}
	return false
}

// debugSpans reads the spans the debug exporter printed at detailed
// verbosity ("Trace ID : …", "Parent ID : …", "ID : …", "Name : …").
func debugSpans(logs string) []consoleSpan {
	var spans []consoleSpan
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "Trace ID":
			spans = append(spans, consoleSpan{})
			spans[len(spans)-1].SpanContext.TraceID = value
			spans[len(spans)-1].Parent.TraceID = value
		case "Parent ID":
			if len(spans) > 0 {
				spans[len(spans)-1].Parent.SpanID = value
			}
		case "ID":
			if len(spans) > 0 {
				spans[len(spans)-1].SpanContext.SpanID = value
			}
		case "Name":
			if len(spans) > 0 && spans[len(spans)-1].Name == "" {
				spans[len(spans)-1].Name = value
			}
		}
	}
	return spans
}
