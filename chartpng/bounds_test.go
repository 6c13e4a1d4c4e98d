//go:build linux

package chartpng

import (
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/chart"
)

// threadCPU is the CPU time of the calling OS thread (RUSAGE_THREAD): with
// the goroutine locked to its thread, the cost of one rendering alone,
// whatever else the machine runs.
func threadCPU(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// hostileSpecs are the most expensive shapes a checked spec may take.
func hostileSpecs() map[string]*chart.Spec {
	rng := rand.New(rand.NewPCG(1, 2))
	zig := func(i int) float64 {
		if i%2 == 0 {
			return 0
		}
		return 1e6
	}
	series := func(n, points int, kind string, x func(i, j int) float64, y func(i, j int) float64) []chart.Series {
		var out []chart.Series
		for i := range n {
			se := chart.Series{Name: "s", Kind: kind}
			for j := range points {
				if x != nil {
					se.X = append(se.X, x(i, j))
				}
				se.Y = append(se.Y, y(i, j))
			}
			out = append(out, se)
		}
		return out
	}
	idx := func(_, j int) float64 { return float64(j) }
	full := func(_, j int) float64 { return 1e6 + float64(j%2) }
	specs := map[string]*chart.Spec{
		"bars 1x10000 full height": {Series: series(1, 10000, chart.Bar, idx, full)},
		"bars 8x1250 full height":  {Series: series(8, 1250, chart.Bar, idx, full)},
		"bars 8x200 categorical":   {X: chart.Axis{Categories: make([]string, 200)}, Series: series(8, 200, chart.Bar, nil, full)},
		"scatter 1x10000 random":   {Series: series(1, 10000, chart.Scatter, func(_, _ int) float64 { return rng.Float64() }, func(_, _ int) float64 { return rng.Float64() })},
		"scatter 8x1250 random":    {Series: series(8, 1250, chart.Scatter, func(_, _ int) float64 { return rng.Float64() }, func(_, _ int) float64 { return rng.Float64() })},
		"line 1x10000 zigzag":      {Series: series(1, 10000, chart.Line, idx, func(_, j int) float64 { return zig(j) })},
		"line 8x1250 zigzag":       {Series: series(8, 1250, chart.Line, idx, func(_, j int) float64 { return zig(j) })},
		"line 1x10000 scribble":    {Series: series(1, 10000, chart.Line, func(_, _ int) float64 { return rng.Float64() }, func(_, _ int) float64 { return rng.Float64() })},
		"area 1x10000 zigzag":      {Series: series(1, 10000, chart.Area, idx, func(_, j int) float64 { return zig(j) })},
		"area 8x1250 zigzag":       {Series: series(8, 1250, chart.Area, idx, func(_, j int) float64 { return zig(j) })},
		"line 4x2000 normal (lap)": lapSpec(4, 2000),
	}
	for i := range chart.MaxCategories {
		specs["bars 8x200 categorical"].X.Categories[i] = "category with a long name " + string(rune('A'+i%26))
	}
	ann := specs["line 1x10000 zigzag"]
	for i := range chart.MaxAnnotations {
		ann.Annotations = append(ann.Annotations, chart.Annotation{X: float64(i * 250), Label: "an annotation label that is long enough to cost"})
	}
	return specs
}

// maxPaths bounds the strokes and fills of one chart: pieces of
// pieceSegments segments of at most MaxPoints points, plus clipping splits
// and a fill per piece.
const maxPaths = 4 * (chart.MaxPoints/pieceSegments + chart.MaxSeries)

// TestRenderCostBound renders each hostile spec, asserts that what is
// drawn stays capped and logs the thread CPU time it took.
func TestRenderCostBound(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for name, s := range hostileSpecs() {
		t.Run(name, func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if issues := s.Check(); len(issues) > 0 {
				t.Fatalf("%s: %v", name, issues)
			}
			var st stats
			cpu0 := threadCPU(t)
			b, err := plotPNG(s, &st)
			cpu := threadCPU(t) - cpu0
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			decode(t, b)
			t.Logf("%-28s %6.1f ms CPU, %5d primitives (%d strokes, %d fills, %d rects, %d stamps, %d direct), %6.0f px antialiased ink",
				name, float64(cpu.Microseconds())/1000, st.total(), st.strokes, st.fills, st.rects, st.stamps, st.direct, st.ink)
			// What is drawn is capped whatever the spec; the time follows
			// (logged above: under 100 ms each on a 2-core machine).
			if st.ink > inkBudget {
				t.Errorf("%.0f px of antialiased ink, over the %d budget", st.ink, inkBudget)
			}
			if st.rects > chart.MaxSeries*columns {
				t.Errorf("%d bar rectangles, over %d", st.rects, chart.MaxSeries*columns)
			}
			if st.strokes+st.fills > maxPaths {
				t.Errorf("%d strokes and fills, over %d", st.strokes+st.fills, maxPaths)
			}
			if st.stamps > chart.MaxPoints {
				t.Errorf("%d markers, over %d", st.stamps, chart.MaxPoints)
			}
		})
	}
}

func BenchmarkRenderHostile(b *testing.B) {
	s := hostileSpecs()["area 8x1250 zigzag"]
	for b.Loop() {
		if _, err := plotPNG(s, &stats{}); err != nil {
			b.Fatal(err)
		}
	}
}

// reduce keeps every peak and trough: a single spike among 10,000 flat
// points survives, in order, and at most four points per column remain.
func TestReduceKeepsPeaks(t *testing.T) {
	pts := make([]xy, 10000)
	for i := range pts {
		pts[i] = xy{float64(i), 0}
	}
	pts[5000].y, pts[7001].y = 1, -1
	got := reduce(pts, 0, 9999)
	if len(got) > 4*columns {
		t.Fatalf("%d points, over %d", len(got), 4*columns)
	}
	var spike, dip bool
	for i, p := range got {
		if i > 0 && p.x < got[i-1].x {
			t.Fatalf("out of order at %d: %v after %v", i, p, got[i-1])
		}
		spike = spike || p == xy{5000, 1}
		dip = dip || p == xy{7001, -1}
	}
	if !spike || !dip || got[0] != pts[0] || got[len(got)-1] != pts[len(pts)-1] {
		t.Fatalf("spike %v, dip %v, ends %v %v", spike, dip, got[0], got[len(got)-1])
	}
	// Out of order: every n-th point, at most maxUnordered and the last.
	pts[1], pts[2] = pts[2], pts[1]
	if got := reduce(pts, 0, 9999); len(got) > maxUnordered+1 || got[len(got)-1] != pts[len(pts)-1] {
		t.Fatalf("unordered: %d points, last %v", len(got), got[len(got)-1])
	}
}

// A series drawn straight into the image (over the ink budget) is where
// its data is: the colour reaches the top of the zigzag and not above it.
func TestDirectLineIsWhereTheDataIs(t *testing.T) {
	s := hostileSpecs()["line 8x1250 zigzag"]
	s.Series = s.Series[:1]
	s.Series[0].Y = s.Series[0].Y[:1250]
	var st stats
	b, err := plotPNG(s, &st)
	if err != nil {
		t.Fatal(err)
	}
	if st.direct != 1 {
		t.Fatalf("stats %+v: want the line drawn straight into the image", st)
	}
	img := decode(t, b)
	blue := palette[0]
	column := func(x int) (top, bottom int) {
		top, bottom = -1, -1
		for y := range Height {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(uint8(r>>8), blue.R) && near(uint8(g>>8), blue.G) && near(uint8(bl>>8), blue.B) {
				if top < 0 {
					top = y
				}
				bottom = y
			}
		}
		return top, bottom
	}
	top, bottom := column(Width / 2)
	// The y axis runs from 0 to 1e6 plus 5% and the legend's headroom:
	// the zigzag fills most of the height, and leaves the top eighth.
	if top < Height/16 || bottom-top < Height/2 {
		t.Fatalf("middle column painted from row %d to %d", top, bottom)
	}
}
