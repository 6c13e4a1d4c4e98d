package functions_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/demo"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb/sqldbtest"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

// BenchmarkCoachingReads runs the reads of the coaching script
// (testdata/coaching.ts: getSessions, getWeakCorners, getBrakingZones of
// the latest session) as demo on the same seeded data in SQLite and in
// PostgreSQL, in one run, and reports the median (p50) and p90 of one set
// of reads on each engine.
func BenchmarkCoachingReads(b *testing.B) {
	pgStore, err := store.Open(context.Background(), sqldbtest.DSNOn(b, sqldbtest.Server(b)))
	if err != nil {
		b.Fatal(err)
	}
	defer pgStore.Close()
	if _, err := demo.SeedStore(context.Background(), pgStore, &demo.Options{Now: seedDay}); err != nil {
		b.Fatal(err)
	}
	pgCat, err := functions.New(pgStore)
	if err != nil {
		b.Fatal(err)
	}
	pgDemo, err := pgStore.UserByUsername(context.Background(), "demo")
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range []struct {
		name string
		cat  *catalog.Catalog
		user store.User
	}{{"sqlite", cat, demoU}, {"postgres", pgCat, pgDemo}} {
		b.Run(e.name, func(b *testing.B) {
			ctx := as(e.user)
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				raw, err := e.cat.Call(ctx, "getSessions", json.RawMessage(`{"trackName":"Spa","limit":5}`))
				if err != nil {
					b.Fatal(err)
				}
				var sessions []struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(raw, &sessions); err != nil || len(sessions) == 0 {
					b.Fatalf("getSessions: %s %v", raw, err)
				}
				if _, err := e.cat.Call(ctx, "getWeakCorners", json.RawMessage(`{"trackName":"Spa","limit":5}`)); err != nil {
					b.Fatal(err)
				}
				arg, _ := json.Marshal(map[string]string{"sessionId": sessions[0].ID})
				if _, err := e.cat.Call(ctx, "getBrakingZones", arg); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "p90-ms")
		})
	}
}
