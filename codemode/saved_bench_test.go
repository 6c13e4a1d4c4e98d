package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/saved"
)

// BenchmarkSavedToolsList is tools/list over an in-memory session without
// saved functions, and with 20 of the principal's in the index and as
// tools (the middleware's cost: a store List and copied tools).
func BenchmarkSavedToolsList(b *testing.B) {
	for _, withSaved := range []bool{false, true} {
		b.Run(fmt.Sprintf("saved=%v", withSaved), func(b *testing.B) {
			dev := principal("http-dev")
			o := &codemode.Options{Audit: codemode.AuditOptions{Sink: codemode.NoAudit}, Principal: &dev}
			if withSaved {
				lib := saved.New(&saved.Options{Tools: true})
				for i := range 20 {
					d := saved.Draft{Name: fmt.Sprintf("f%02d", i), Description: "Returns a number.", Code: "return 1", Input: json.RawMessage(`{"type":"object"}`)}
					if _, err := lib.Save(context.Background(), saved.NewEnv("alice", nil, false), d); err != nil {
						b.Fatal(err)
					}
				}
				o.Saved = lib
			}
			srv, err := codemode.New(newTestCatalog(b).Catalog, o)
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st, ct := mcp.NewInMemoryTransports()
			go srv.ServeTransport(ctx, principal("alice"), st)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ResetTimer()
			for b.Loop() {
				if _, err := cs.ListTools(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
