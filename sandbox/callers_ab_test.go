package sandbox_test

// An A/B benchmark of in-process throughput with 4 callers of one
// partition. It uses only the public API and testdata/bench, so the same
// file runs at older commits too (copy it into a worktree of one):
//
//	go test -run '^$' -bench 'InProcessFourCallers' -benchtime 2000x ./sandbox/

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/sandbox"
)

// abHost answers the coaching script's functions from the fixture, after
// delay (zero: at once).
type abHost struct {
	answers map[string]json.RawMessage
	delay   time.Duration
}

func (h abHost) Functions() map[string][]string {
	var fs []string
	for n := range h.answers {
		fs = append(fs, n)
	}
	return map[string][]string{"brakinglab": fs}
}

func (h abHost) Call(ctx context.Context, name string, _ json.RawMessage) (json.RawMessage, error) {
	if h.delay > 0 {
		select {
		case <-time.After(h.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h.answers[name[len("brakinglab."):]], nil
}

// BenchmarkInProcessFourCallers runs never-seen coaching code from 4
// callers of one partition in process and reports execs/s: with a host
// that answers at once, and with one that takes 1 ms per call, as a host
// that does I/O does.
func BenchmarkInProcessFourCallers(b *testing.B) {
	src, err := os.ReadFile("testdata/bench/coaching.ts")
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/bench/fixture.json")
	if err != nil {
		b.Fatal(err)
	}
	answers := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &answers); err != nil {
		b.Fatal(err)
	}
	for _, delay := range []time.Duration{0, time.Millisecond} {
		b.Run("host-"+delay.String(), func(b *testing.B) {
			h := abHost{answers: answers, delay: delay}
			sb, err := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess})
			if err != nil {
				b.Fatal(err)
			}
			defer sb.Close()
			var n atomic.Int64
			ctx := context.Background()
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := n.Add(1); i <= int64(b.N); i = n.Add(1) {
						code := string(src) + "\n// " + strconv.FormatInt(i, 10)
						if _, err := sb.Run(ctx, code, h); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "execs/s")
		})
	}
}
