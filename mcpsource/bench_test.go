package mcpsource_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/mcpsource"
)

// A host call to a go-sdk tool registered with AddTool, against the same
// handler registered as a typed catalogue function.
func BenchmarkHostCall(b *testing.B) {
	args := json.RawMessage(`{"id":"n2"}`)
	run := func(b *testing.B, c *catalog.Catalog) {
		for b.Loop() {
			if _, err := c.Call(alice, "get_note", args); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("typed", func(b *testing.B) {
		c := newCatalog(b, "notes")
		catalog.MustAdd(c, catalog.Func[getNoteIn, Note]{Name: "get_note", Tier: catalog.ReadOnly,
			Handler: func(ctx context.Context, in getNoteIn) (Note, error) {
				_, n, err := getNote(ctx, nil, in)
				return n, err
			}})
		run(b, c)
	})
	b.Run("gosdk-tool", func(b *testing.B) {
		c := newCatalog(b, "notes")
		if err := mcpsource.AddTool(c, &mcp.Tool{Name: "get-note", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, getNote, nil); err != nil {
			b.Fatal(err)
		}
		run(b, c)
	})
}

// A call to the reference memory server over stdio returning a small
// result: through the catalogue, against the same call made directly on
// a go-sdk client session (the upstream's own time, transport included).
// Reports p50 and p90 in µs.
func BenchmarkStdioUpstream(b *testing.B) {
	cmd, _ := memoryServer(b)
	args := `{"names":["Monza"]}`
	report := func(b *testing.B, ds []time.Duration) {
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(ds[len(ds)*9/10].Microseconds()), "p90-µs")
	}
	b.Run("direct", func(b *testing.B) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd()}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		var ds []time.Duration
		for b.Loop() {
			start := time.Now()
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "open_nodes", Arguments: json.RawMessage(args)}); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		report(b, ds)
	})
	b.Run("catalog", func(b *testing.B) {
		c := newCatalog(b, "memory")
		connect(b, c, &mcpsource.Options{Command: cmd})
		var ds []time.Duration
		for b.Loop() {
			start := time.Now()
			if _, err := c.Call(alice, "open_nodes", json.RawMessage(args)); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		report(b, ds)
	})
}
