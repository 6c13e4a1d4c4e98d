package logtest_test

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/brakinglab/codemode-go/internal/logtest"
)

// Writers on many goroutines lose no byte while a reader reads (run with
// -race).
func TestBufferConcurrent(t *testing.T) {
	var b logtest.Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				fmt.Fprintf(&b, "%d.%d\n", i, j)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := strings.Count(b.String(), "\n"); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
}

// Logger keeps records at its level and above only.
func TestLogger(t *testing.T) {
	log, b := logtest.Logger(slog.LevelWarn)
	log.Info("quiet")
	log.Warn("loud", "k", "v")
	if got := b.String(); strings.Contains(got, "quiet") || !strings.Contains(got, "level=WARN msg=loud k=v") {
		t.Fatalf("log %q", got)
	}
}
