package freecalls

import (
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/threadcpu"
)

func null() (json.RawMessage, error) { return json.RawMessage("null"), nil }

// Each bound refuses the call past it, answers nothing, and says what to
// do; Reset refills the budget.
func TestBudget(t *testing.T) {
	var b Budget
	var wg sync.WaitGroup
	for range 4 { // concurrent calls (Promise.all) share the count
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range MaxCalls / 4 {
				if _, err := b.Call("progress", json.RawMessage(`[1]`), null); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	answered := false
	_, err := b.Call("progress", json.RawMessage(`[1]`), func() (json.RawMessage, error) { answered = true; return null() })
	if err == nil || answered || !strings.Contains(err.Error(), "already made 1000 calls to codemode functions") || !strings.Contains(err.Error(), "every n-th item") {
		t.Fatalf("call %d: answered %v, %v", MaxCalls+1, answered, err)
	}

	b.Reset(nil)
	big := json.RawMessage(`["` + strings.Repeat("x", 1<<20) + `"]`)
	n := 0
	for ; n < 10; n++ {
		if _, err = b.Call("chart", big, null); err != nil {
			break
		}
	}
	if n != MaxBytes/len(big) || !strings.Contains(err.Error(), "over the 4 MiB one execution may pass") || !strings.Contains(err.Error(), "Plot fewer points") {
		t.Fatalf("after %d calls of 1 MiB: %v", n, err)
	}

	if runtime.GOOS != "linux" {
		return
	}
	b.Reset(nil)
	burn := func() (json.RawMessage, error) {
		start := threadcpu.Now()
		for threadcpu.Now()-start < 200*time.Millisecond {
		}
		return null()
	}
	for n = 0; n < 10; n++ {
		if _, err = b.Call("describe", json.RawMessage(`["a"]`), burn); err != nil {
			break
		}
	}
	// 0, 200, 400 ms spent are within 500 ms; 600 ms is not.
	if n != 3 || !strings.Contains(err.Error(), "used their 500ms of host CPU") {
		t.Fatalf("after %d calls of 200 ms: %v", n, err)
	}
	if calls, _, cpu := b.Spent(); calls != 4 || cpu < 600*time.Millisecond {
		t.Errorf("spent %d calls, %v", calls, cpu)
	}
}

// The MaxRefused-th refused call stops the run once, with ErrKeptCalling.
func TestBudgetStops(t *testing.T) {
	var b Budget
	var causes []error
	b.Reset(func(cause error) { causes = append(causes, cause) })
	for range MaxCalls + 2*MaxRefused {
		_, _ = b.Call("progress", json.RawMessage(`[1]`), null)
	}
	if len(causes) != 1 || causes[0] != ErrKeptCalling {
		t.Fatalf("stopped with %v", causes)
	}
}

// BenchmarkBudgetCall is what the budget adds to each free call (the
// count, two thread-CPU reads and the thread lock), beside the call
// alone.
func BenchmarkBudgetCall(b *testing.B) {
	args := json.RawMessage(`[1, 10, "rows"]`)
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			_, _ = null()
		}
	})
	b.Run("budget", func(b *testing.B) {
		var bu Budget
		for b.Loop() {
			bu.Reset(nil)
			_, _ = bu.Call("progress", args, null)
		}
	})
}
