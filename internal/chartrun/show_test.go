package chartrun

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/chart"
	"github.com/brakinglab/codemode-go/internal/threadcpu"
)

// gated is a renderer that records the title of each chart it draws and
// then waits for the test to let it finish: the test decides when a slot
// is freed, so the order of the renderings is the slots' choice alone.
type gated struct {
	mu      sync.Mutex
	order   []string
	started chan string
	finish  chan struct{}
}

func (g *gated) RenderPNG(s *chart.Spec) ([]byte, error) {
	g.mu.Lock()
	g.order = append(g.order, s.Title)
	g.mu.Unlock()
	g.started <- s.Title
	<-g.finish
	return []byte("\x89PNG"), nil
}

// filled returns a run of n charts titled prefix1…prefixN, each of points
// points (a hostile chart: many points; a normal one: three).
func filled(t *testing.T, prefix string, n, points int) *Run {
	t.Helper()
	r := New(10 << 20)
	for i := range n {
		xs, ys := make([]float64, points), make([]float64, points)
		for j := range xs {
			xs[j], ys[j] = float64(j), float64(j%7)
		}
		b, _ := json.Marshal([]chart.Spec{{Title: fmt.Sprintf("%s%d", prefix, i+1), Series: []chart.Series{{Name: "s", Kind: "bar", X: xs, Y: ys}}}})
		if _, err := r.Call(t.Context(), b); err != nil {
			t.Fatalf("chart %d: %v", i+1, err)
		}
	}
	return r
}

// Three executions of principal a, full of hostile charts, fill both
// render slots and a third waits; carol's 3-point chart, asked for after,
// gets the next free slot, ahead of a's waiting execution and the charts
// a still has to draw. A first-come queue, as the slots were before,
// gave the slot to a's waiting execution, and carol waited behind all of
// a's.
func TestShowSlotsFair(t *testing.T) {
	slots := chart.NewSlots(2)
	g := &gated{started: make(chan string, 32), finish: make(chan struct{})}
	var wg sync.WaitGroup
	show := func(who string, r *Run) {
		defer wg.Done()
		shown := r.Show(context.Background(), Show{Max: 10 << 20, Renderer: g, Slots: slots, Principal: who, Logger: slog.New(slog.DiscardHandler)})
		if len(shown.Images) != len(r.list) {
			t.Errorf("%s: %d images of %d: %q", who, len(shown.Images), len(r.list), shown.Lines)
		}
	}
	for _, run := range []string{"x", "y", "z"} {
		wg.Add(1)
		go show("a", filled(t, run, 3, 10_000))
	}
	<-g.started // two of a's runs hold both slots
	<-g.started
	for slots.Waiting() < 1 {
		runtime.Gosched()
	}
	wg.Add(1)
	go show("carol", filled(t, "carol", 1, 3))
	for slots.Waiting() < 2 {
		runtime.Gosched()
	}
	// Free one slot: carol has nothing running, so it is hers.
	g.finish <- struct{}{}
	next := <-g.started
	close(g.finish) // every rendering may finish now
	go func() {
		for range g.started {
		}
	}()
	wg.Wait()
	close(g.started)
	if next != "carol1" {
		t.Fatalf("the freed slot went to %s, want carol1", next)
	}
	t.Logf("rendering order: %v", g.order)
}

// burner is a renderer that spends cpu of its thread's CPU time per chart
// (what the budget measures), however loaded the machine is.
type burner struct{ cpu time.Duration }

func (b burner) RenderPNG(*chart.Spec) ([]byte, error) {
	start := threadcpu.Now()
	for threadcpu.Now()-start < b.cpu {
	}
	return []byte("\x89PNG"), nil
}

// An execution of many heavy charts is cut by its drawing budget: the
// charts drawn while at least chart.RenderCPU of chart.ExecutionCPU was
// left, then the chart that found the budget spent says so, with what to
// do, a CHART warning is added, and the remaining charts are not drawn.
func TestShowBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the renderer burns thread CPU time, read from RUSAGE_THREAD")
	}
	r := filled(t, "heavy", Max, 1000)
	shown := r.Show(t.Context(), Show{Max: 10 << 20, Renderer: burner{150 * time.Millisecond}, Principal: "a", Logger: slog.New(slog.DiscardHandler)})
	// 0, 150 and 300 ms spent leave at least 100 ms: three are drawn.
	if len(shown.Images) != 3 {
		t.Fatalf("%d charts drawn, want 3: %q", len(shown.Images), shown.Lines)
	}
	if want := "not drawn: the charts of this run used their drawing time"; !strings.Contains(shown.Lines[3], want) || !strings.Contains(shown.Lines[3], "draw fewer charts, or fewer points in each") {
		t.Errorf("line 4 %q does not say %q and what to do", shown.Lines[3], want)
	}
	for _, l := range shown.Lines[4:] {
		if !strings.Contains(l, "not drawn") {
			t.Errorf("a chart after the budget: %q", l)
		}
	}
	if len(shown.Warnings) != 1 || !strings.HasPrefix(shown.Warnings[0], "Charts 4 to 6 were not drawn") {
		t.Errorf("warnings %q", shown.Warnings)
	}
	if len(shown.Charts) != Max {
		t.Errorf("%d charts for the view, want all %d", len(shown.Charts), Max)
	}
}
