package chartpng

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/chart"
)

// lapSpec is a speed trace of n laps of points points each, the shape
// BrakingLab draws most: lines over distance with corner annotations and
// the time delta on a second axis.
func lapSpec(n, points int) *chart.Spec {
	s := &chart.Spec{
		Title:       "Speed trace: lap 3 vs lap 7",
		X:           chart.Axis{Title: "Distance", Unit: "m"},
		Y:           chart.Axis{Title: "Speed", Unit: "km/h"},
		Y2:          &chart.Axis{Title: "Delta", Unit: "s"},
		Annotations: []chart.Annotation{{X: 400, Label: "T1"}, {X: 1800, Label: "T2"}, {X: 3300, Label: "T3"}},
	}
	for i := range n {
		se := chart.Series{Name: "lap " + string(rune('1'+i))}
		if i == n-1 && n > 1 {
			se.Name, se.Axis = "delta", "y2"
		}
		for j := range points {
			x := float64(j) * 4000 / float64(points)
			se.X = append(se.X, x)
			if se.Axis == "y2" {
				se.Y = append(se.Y, 0.4*math.Sin(x/700))
			} else {
				se.Y = append(se.Y, 180+90*math.Sin(x/300+float64(i)*0.1))
			}
		}
		s.Series = append(s.Series, se)
	}
	return s
}

// decode checks that b is a PNG of the chart's size that is not blank:
// more than a few per cent of its pixels are not white, and several
// palette colours appear.
func decode(t *testing.T, b []byte, wantColors ...color.RGBA) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if got := img.Bounds().Size(); got != (image.Point{Width, Height}) {
		t.Fatalf("size %v, want %dx%d", got, Width, Height)
	}
	inked := 0
	found := map[color.RGBA]bool{}
	for y := 0; y < Height; y++ {
		for x := 0; x < Width; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 < 250 || g>>8 < 250 || b>>8 < 250 {
				inked++
			}
			for _, c := range wantColors {
				if near(uint8(r>>8), c.R) && near(uint8(g>>8), c.G) && near(uint8(b>>8), c.B) {
					found[c] = true
				}
			}
		}
	}
	if inked < Width*Height/50 {
		t.Errorf("only %d of %d pixels are not white: the chart looks blank", inked, Width*Height)
	}
	for _, c := range wantColors {
		if !found[c] {
			t.Errorf("no pixel of the series colour %v: a series was not drawn", c)
		}
	}
	return img
}

func near(a, b uint8) bool { return a >= b-6 && a <= b+6 || a <= b+6 && b < 6 }

func TestRenderLines(t *testing.T) {
	b, err := New().RenderPNG(lapSpec(3, 500))
	if err != nil {
		t.Fatal(err)
	}
	decode(t, b, palette[0], palette[1], palette[2])
	if out := os.Getenv("CHART_PNG"); out != "" {
		_ = os.WriteFile(out, b, 0o644)
	}
}

func TestRenderKinds(t *testing.T) {
	s := &chart.Spec{
		Title: "Braking point by corner",
		X:     chart.Axis{Title: "Corner", Categories: []string{"T1", "T2", "T3", "T4"}},
		Y:     chart.Axis{Title: "Brake point", Unit: "m before apex"},
		Series: []chart.Series{
			{Name: "best lap", Kind: chart.Bar, Y: []float64{110, 80, 95, 60}},
			{Name: "average", Kind: chart.Bar, Y: []float64{104, 85, 90, 66}},
			{Name: "spread", Kind: chart.Scatter, Y: []float64{6, 9, 4, 12}},
		},
	}
	b, err := New().RenderPNG(s)
	if err != nil {
		t.Fatal(err)
	}
	decode(t, b, palette[0], palette[1], palette[2])
	a := &chart.Spec{X: chart.Axis{Title: "Session"}, Series: []chart.Series{{Name: "lap time", Kind: chart.Area, X: []float64{1, 2, 3, 4}, Y: []float64{92.1, 91.4, 90.8, 90.9}}}}
	b, err = New().RenderPNG(a)
	if err != nil {
		t.Fatal(err)
	}
	decode(t, b, palette[0])
}

func TestRenderRefusesUnchecked(t *testing.T) {
	for name, s := range map[string]*chart.Spec{
		"no series":    {},
		"nan":          {Series: []chart.Series{{Name: "a", X: []float64{1}, Y: []float64{math.NaN()}}}},
		"x and y":      {Series: []chart.Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}},
		"many points":  {Series: []chart.Series{{Name: "a", X: make([]float64, chart.MaxPoints+1), Y: make([]float64, chart.MaxPoints+1)}}},
		"missing y2":   {Series: []chart.Series{{Name: "a", Axis: "y2", X: []float64{1}, Y: []float64{1}}}},
		"cat x given":  {X: chart.Axis{Categories: []string{"a"}}, Series: []chart.Series{{Name: "a", X: []float64{1}, Y: []float64{1}}}},
		"cat y length": {X: chart.Axis{Categories: []string{"a", "b"}}, Series: []chart.Series{{Name: "a", Y: []float64{1}}}},
		"empty y":      {Series: []chart.Series{{Name: "a", Y: []float64{}}}},
	} {
		if _, err := New().RenderPNG(s); err == nil {
			t.Errorf("%s: rendered", name)
		}
	}
}

// BenchmarkRender is the speed target: 4 series of 2,000 points each to
// PNG (p50 ≤ 20 ms).
// It reports the median wall time as p50-ms beside the mean, and the CPU
// time per rendering as cpu-ms (on a loaded machine wall time also counts
// the waits for a core).
func BenchmarkRender(b *testing.B) {
	s := lapSpec(4, 2000)
	var times []time.Duration
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		if _, err := New().RenderPNG(s); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	cpu := cpuTime() - cpu0
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(times)), "cpu-ms")
}

// TestRenderDegenerate: ranges that are tiny, huge or a single point
// render (gonum's tick search must end on every range a checked spec
// allows).
func TestRenderDegenerate(t *testing.T) {
	for name, s := range map[string]*chart.Spec{
		"tiny":       {Series: []chart.Series{{Name: "a", X: []float64{0, 1e-300}, Y: []float64{1e-300, 2e-300}}}},
		"huge":       {Series: []chart.Series{{Name: "a", X: []float64{-1e15, 1e15}, Y: []float64{-1e15, 1e15}}}, Y2: &chart.Axis{}},
		"one point":  {Series: []chart.Series{{Name: "a", X: []float64{5}, Y: []float64{5}}}},
		"same x":     {Series: []chart.Series{{Name: "a", Kind: chart.Bar, X: []float64{1, 1, 1}, Y: []float64{1, 2, 3}}}},
		"y2 only":    {Y2: &chart.Axis{Title: "r"}, Series: []chart.Series{{Name: "a", Axis: "y2", X: []float64{1, 2}, Y: []float64{3, 4}}}},
		"near equal": {Series: []chart.Series{{Name: "a", X: []float64{1, 1 + 1e-15}, Y: []float64{1e15, 1e15 - 1}}}},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := New().RenderPNG(s)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Logf("%s: %v", name, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: rendering did not end", name)
		}
	}
}

// TestRenderConcurrent: renderings share pooled images and compressors,
// yet each gives the bytes a lone one gives.
func TestRenderConcurrent(t *testing.T) {
	specs := []*chart.Spec{lapSpec(2, 300), lapSpec(3, 100), {Series: []chart.Series{{Name: "a", Kind: chart.Bar, X: []float64{1, 2}, Y: []float64{3, 4}}}}}
	want := make([][]byte, len(specs))
	for i, s := range specs {
		b, err := New().RenderPNG(s)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = b
	}
	errs := make(chan error, 12)
	for g := range 12 {
		go func() {
			b, err := New().RenderPNG(specs[g%len(specs)])
			if err == nil && !bytes.Equal(b, want[g%len(specs)]) {
				err = fmt.Errorf("spec %d: concurrent rendering differs", g%len(specs))
			}
			errs <- err
		}()
	}
	for range 12 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
