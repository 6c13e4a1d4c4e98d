package codemode_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/chart"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/chartrun"
	"github.com/brakinglab/codemode-go/internal/threadcpu"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gatedRenderer draws a chart only when the test lets it finish, and
// reports each rendering as it starts: the test frees the render slots
// itself, so who gets a freed slot is the slots' choice alone.
type gatedRenderer struct {
	started chan string // the title of each chart as its rendering starts
	finish  chan struct{}
}

func (g *gatedRenderer) RenderPNG(s *chart.Spec) ([]byte, error) {
	g.started <- s.Title
	<-g.finish
	return stubPNG(), nil
}

// Through a real server, on two render slots: alice runs three
// executions of six heavy charts each, two drawing and one waiting for a
// slot; carol's 3-point chart, asked for after, is the next one drawn.
// The freed slot goes to the principal with no rendering running
// (chart.Slots); a first-come queue, as the slots were before, gave it to
// alice's waiting execution, and carol waited behind all of alice's.
func TestChartSlotsFairBetweenUsers(t *testing.T) {
	saved := chartrun.Slots
	chartrun.Slots = chart.NewSlots(2)
	t.Cleanup(func() { chartrun.Slots = saved })
	g := &gatedRenderer{started: make(chan string, 64), finish: make(chan struct{})}
	ts := startServer(t, func(o *codemode.Options) { o.ChartRenderer = g })
	heavy := `for (let i = 1; i <= 6; i++) await codemode.chart({ title: "alice", series: [{ name: "s", kind: "bar", x: Array.from({ length: 1500 }, (_, j) => j), y: Array.from({ length: 1500 }, (_, j) => j % 97) }] });`
	var wg sync.WaitGroup
	var mu sync.Mutex
	var results []string
	runAs := func(who, code string) {
		cs := ts.connect(t, ts.token(who, allScopes...), nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := run(t, cs, code)
			mu.Lock()
			results = append(results, who+": "+text(res))
			mu.Unlock()
		}()
	}
	for range 3 {
		runAs("alice", heavy)
	}
	<-g.started // two of alice's executions draw, the third waits
	<-g.started
	for chartrun.Slots.Waiting() < 1 {
		runtime.Gosched()
	}
	runAs("carol", `await codemode.chart({ title: "carol", series: [{ name: "s", x: [1, 2, 3], y: [3, 1, 2] }] });`)
	for chartrun.Slots.Waiting() < 2 {
		runtime.Gosched()
	}
	g.finish <- struct{}{} // free one slot
	next := <-g.started
	close(g.finish) // every rendering may finish now
	go func() {
		for range g.started {
		}
	}()
	wg.Wait()
	close(g.started)
	if next != "carol" {
		t.Fatalf("the freed slot went to %s, want carol", next)
	}
	for _, r := range results {
		want := 6
		if strings.HasPrefix(r, "carol") {
			want = 1
		}
		if strings.Count(r, "shown to the user as an image") != want {
			t.Errorf("%s", r)
		}
	}
}

// burningRenderer spends cpu of its thread's CPU time per chart, what
// chart.Budget measures, however loaded the machine is.
type burningRenderer struct{ cpu time.Duration }

func (b burningRenderer) RenderPNG(*chart.Spec) ([]byte, error) {
	for start := threadcpu.Now(); threadcpu.Now()-start < b.cpu; {
	}
	return stubPNG(), nil
}

// An execution of six charts that each cost 150 ms to draw is cut by its
// drawing budget (chart.ExecutionCPU, 0.5 s): three are drawn, the fourth
// says it was not drawn and why, the rest are not drawn, and the result
// carries a CHART warning; the value is returned as usual.
func TestChartBudgetCutsExecution(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the renderer burns thread CPU time, read from RUSAGE_THREAD")
	}
	ts := startServer(t, func(o *codemode.Options) { o.ChartRenderer = burningRenderer{150 * time.Millisecond} })
	cs := ts.connect(t, ts.token("alice", allScopes...), nil)
	res := run(t, cs, `for (let i = 1; i <= 6; i++) await codemode.chart({ title: "c" + i, series: [{ name: "s", x: [1, 2, 3], y: [3, 1, 2] }] }); return 7`)
	if res.IsError || string(structuredOf(t, res).Result) != "7" {
		t.Fatalf("%s", text(res))
	}
	images := 0
	for _, c := range res.Content {
		if _, ok := c.(*mcp.ImageContent); ok {
			images++
		}
	}
	txt := text(res)
	if images != 3 || !strings.Contains(txt, `Chart 4: "c4"`) || !strings.Contains(txt, "not drawn: the charts of this run used their drawing time") || !strings.Contains(txt, "draw fewer charts, or fewer points in each") {
		t.Fatalf("%d images:\n%s", images, txt)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var st struct {
		Warnings []struct{ Kind, Message string } `json:"warnings"`
	}
	if err := json.Unmarshal(b, &st); err != nil || len(st.Warnings) != 1 || st.Warnings[0].Kind != "CHART" || !strings.HasPrefix(st.Warnings[0].Message, "Charts 4 to 6 were not drawn") {
		t.Errorf("warnings %v %+v", err, st.Warnings)
	}
}
