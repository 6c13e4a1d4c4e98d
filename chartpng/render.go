// Package chartpng draws the charts of codemode.chart as PNG images, with
// gonum/plot, for clients that cannot show the chart view (those that did
// not declare the MCP Apps extension). It is a module of its own,
// github.com/brakinglab/codemode-go/chartpng, so that gonum/plot, its
// fonts and its PDF, SVG and LaTeX back-ends stay out of the module graph
// and the binary of a service that does not draw charts. A server draws
// them when given the renderer, in one line:
//
//	opts.ChartRenderer = chartpng.New()
//
// Every image is [Width]×[Height] pixels, whatever the spec: the memory a
// rendering takes does not depend on the model's input. Its time is
// bounded by what is drawn, not by the points: series are reduced to the
// pixel grid, lines are stroked in short pieces within an antialiasing
// budget and drawn straight into the image beyond it, bars merge per
// pixel column, markers are stamped (see reduce.go). A usual chart takes
// about 15 ms of CPU and 2 MB; the costliest spec the caps allow stays
// under 100 ms.
package chartpng

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"sync"

	"git.sr.ht/~sbinet/gg"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/brakinglab/codemode-go/chart"
)

// Width and Height are the size of a rendered chart, in pixels. The size
// is fixed, so the memory a rendering takes does not depend on the spec.
const (
	Width  = 960
	Height = 540
	dpi    = 96
)

// palette colours series in order; the view (internal/chartview's
// view.html) uses the same.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xff, 0x7f, 0x0e, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

// Renderer draws charts as PNG images; it implements chart.Renderer. It
// holds no state: one serves any number of servers and goroutines.
type Renderer struct{}

// New returns a renderer, for codemode.Options.ChartRenderer.
func New() *Renderer { return &Renderer{} }

// RenderPNG draws a checked spec as a PNG of [Width]×[Height] pixels. Its
// cost is bounded by the spec's caps; a spec that fails chart.Spec.Check
// is refused. A panic inside gonum/plot (it has some on degenerate input)
// is returned as an error.
func (*Renderer) RenderPNG(s *chart.Spec) ([]byte, error) { return render(s) }

var _ chart.Renderer = (*Renderer)(nil)

// render checks s and draws it, recovering a panic.
func render(s *chart.Spec) (png []byte, err error) {
	if len(s.Series) == 0 || len(s.Series) > chart.MaxSeries || s.Points() > chart.MaxPoints {
		return nil, errors.New("chart: spec out of bounds")
	}
	if issues := s.Check(); len(issues) > 0 {
		return nil, fmt.Errorf("chart: %v: %s", issues[0].Path, issues[0].Message)
	}
	defer func() {
		// gonum panics on some degenerate input; a chart must not cost
		// the process.
		if r := recover(); r != nil {
			png, err = nil, fmt.Errorf("chart: rendering failed: %v", r)
		}
	}()
	return plotPNG(s, &stats{})
}

// yRange is the extent of the series on one axis, padded by 5%.
func yRange(s *chart.Spec, axis string) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, se := range s.Series {
		if (se.Axis == "y2") != (axis == "y2") {
			continue
		}
		for _, v := range se.Y {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if k := kindOf(se); k == chart.Bar || k == chart.Area {
			lo, hi = math.Min(lo, 0), math.Max(hi, 0)
		}
	}
	if lo > hi {
		return 0, 1, false
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.05
	if lo != 0 {
		lo -= pad
	}
	if hi != 0 {
		hi += pad
	}
	return lo, hi, true
}

func axisLabel(a chart.Axis) string {
	switch {
	case a.Unit == "":
		return a.Title
	case a.Title == "":
		return a.Unit
	}
	return a.Title + " (" + a.Unit + ")"
}

// stats counts what a rendering drew, for the cost bound's test.
type stats struct {
	strokes, fills, rects, stamps int
	direct                        int     // lines drawn straight into the image
	ink                           float64 // pixels of line stroked by the rasterizer
}

// total is the number of primitives drawn.
func (st *stats) total() int { return st.strokes + st.fills + st.rects + st.stamps + st.direct }

// imageTarget is the image the plotters that draw straight into pixels
// (bars, markers) paint; it is set once the image is taken from the pool.
type imageTarget struct{ img *image.RGBA }

func plotPNG(s *chart.Spec, st *stats) ([]byte, error) {
	target := &imageTarget{}
	p := plot.New()
	p.Title.Text = s.Title
	p.X.Label.Text = axisLabel(s.X)
	p.Y.Label.Text = axisLabel(s.Y)
	p.Legend.Top = true
	p.Legend.Left = false
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 225}
	grid.Horizontal.Color = color.Gray{Y: 225}
	p.Add(grid)

	lo, hi, hasY := yRange(s, "y")
	lo2, hi2, hasY2 := yRange(s, "y2")
	if !hasY {
		lo, hi = lo2, hi2
	}
	// Headroom above the data for the legend and annotation labels.
	if head := 0.04 * float64(min(len(s.Series), 3)+min(len(s.Annotations), 3)); head > 0 {
		hi += (hi - lo) * head
		hi2 += (hi2 - lo2) * head
	}
	p.Y.Min, p.Y.Max = lo, hi
	// A y2 value is drawn at the height its axis gives it, in y's units.
	toY := func(se chart.Series, v float64) float64 {
		if se.Axis != "y2" {
			return v
		}
		return lo + (v-lo2)/(hi2-lo2)*(hi-lo)
	}

	cat := len(s.X.Categories) > 0
	bars := 0
	for _, se := range s.Series {
		if kindOf(se) == chart.Bar {
			bars++
		}
	}
	// The x range the series are reduced over: the chart's, so that the
	// columns of every series line up.
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, se := range s.Series {
		for j := range se.Y {
			x := float64(j)
			if !cat {
				x = se.X[j]
			}
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
		}
	}
	barIdx := 0
	for i, se := range s.Series {
		col := palette[i%len(palette)]
		all := make([]xy, len(se.Y))
		for j, v := range se.Y {
			x := float64(j)
			if !cat {
				x = se.X[j]
			}
			all[j] = xy{x, toY(se, v)}
		}
		kind := kindOf(se)
		pts := all
		if kind != chart.Bar {
			pts = reduce(all, xlo, xhi)
		}
		xys := make(plotter.XYs, len(pts))
		for j, pt := range pts {
			xys[j] = plotter.XY{X: pt.x, Y: pt.y}
		}
		name := se.Name
		if se.Axis == "y2" && hasY {
			name += " (right axis)"
		}
		switch kind {
		case chart.Scatter:
			sc := &markerSeries{xys: xys, color: col, target: target, st: st}
			p.Add(sc)
			p.Legend.Add(name, sc)
		case chart.Bar:
			b := &barSeries{xys: xys, color: col, index: barIdx, of: bars, base: math.Max(lo, math.Min(0, hi)), target: target, st: st}
			barIdx++
			p.Add(b)
			p.Legend.Add(name, b)
		default: // line, area
			l := &lineSeries{xys: xys, color: col, area: kind == chart.Area, target: target, st: st}
			p.Add(l)
			p.Legend.Add(name, l)
		}
	}
	if cat {
		p.NominalX(s.X.Categories...)
	}
	if len(s.Annotations) > 0 {
		p.Add(&annotations{list: s.Annotations})
	}
	if !cat && s.Points() > 0 {
		// Room at the sides, so that end markers are not cut.
		pad := (p.X.Max - p.X.Min) * 0.02
		p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
	}
	// The plotters widened the ranges; y is ours. gonum's tick search
	// never ends on a NaN or infinite range, so no such range reaches it.
	p.Y.Min, p.Y.Max = lo, hi
	for _, r := range [][2]float64{{p.X.Min, p.X.Max}, {lo, hi}, {lo2, hi2}} {
		if !finite(r[0]) || !finite(r[1]) || !finite(r[1]-r[0]) {
			return nil, errors.New("chart: the data spans no finite range")
		}
	}

	// The image and its context are reused: allocating and copying 2 MB
	// twice per chart took a fifth of the time. vgimg paints it white.
	rgba := imagePool.Get().(*image.RGBA)
	defer imagePool.Put(rgba)
	target.img = rgba
	gc := gg.NewContextForRGBA(rgba)
	gc.SetLineCapButt()
	gc.InvertY()
	img := vgimg.NewWith(vgimg.UseImageWithContext(rgba, gc), vgimg.UseDPI(dpi))
	c := draw.New(img)
	c = draw.Crop(c, vg.Points(4), -vg.Points(8), vg.Points(4), -vg.Points(6))
	if hasY2 {
		right := drawRightAxis(p, c, lo2, hi2, axisLabel(derefAxis(s.Y2)))
		c = draw.Crop(c, 0, -right, 0, 0)
	}
	p.Draw(c)

	return encodePNG(rgba)
}

var imagePool = sync.Pool{New: func() any { return image.NewRGBA(image.Rect(0, 0, Width, Height)) }}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func derefAxis(a *chart.Axis) chart.Axis {
	if a == nil {
		return chart.Axis{}
	}
	return *a
}

// drawRightAxis draws the y2 axis at the right edge of c, where the plot's
// data area will end once c is cropped by the width it returns.
func drawRightAxis(p *plot.Plot, c draw.Canvas, lo, hi float64, title string) vg.Length {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	sty := p.Y.Tick.Label
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YCenter
	width := vg.Length(0)
	for _, t := range ticks {
		if t.Label != "" {
			width = max(width, sty.Width(t.Label))
		}
	}
	tsty := p.Y.Label.TextStyle
	tsty.Rotation = -math.Pi / 2
	tsty.XAlign = draw.XCenter
	tsty.YAlign = draw.YCenter
	titleW := vg.Length(0)
	if title != "" {
		titleW = tsty.Height(title) + vg.Points(4)
	}
	tickLen := p.Y.Tick.Length
	right := tickLen + vg.Points(3) + width + titleW + vg.Points(4)
	da := p.DataCanvas(draw.Crop(c, 0, -right, 0, 0))
	x0 := da.Max.X
	for _, t := range ticks {
		if t.Value < lo || t.Value > hi {
			continue
		}
		y := da.Min.Y + vg.Length((t.Value-lo)/(hi-lo))*(da.Max.Y-da.Min.Y)
		l := tickLen
		if t.Label == "" {
			l /= 2
		}
		c.StrokeLine2(p.Y.Tick.LineStyle, x0, y, x0+l, y)
		if t.Label != "" {
			c.FillText(sty, vg.Point{X: x0 + tickLen + vg.Points(3), Y: y}, t.Label)
		}
	}
	c.StrokeLine2(p.Y.LineStyle, x0, da.Min.Y, x0, da.Max.Y)
	if title != "" {
		c.FillText(tsty, vg.Point{X: c.Max.X - titleW/2, Y: (da.Min.Y + da.Max.Y) / 2}, title)
	}
	return right
}

// barSeries draws one series of bars; the series of a chart that has
// several stand side by side.
type barSeries struct {
	xys       plotter.XYs
	color     color.Color
	index, of int
	base      float64
	target    *imageTarget
	st        *stats
}

// width is the room one x value gives its group of bars, in x units.
func (b *barSeries) width() float64 {
	w := math.Inf(1)
	for i := 1; i < len(b.xys); i++ {
		if d := math.Abs(b.xys[i].X - b.xys[i-1].X); d > 0 {
			w = math.Min(w, d)
		}
	}
	if math.IsInf(w, 1) {
		w = 1
	}
	return w * 0.8
}

func (b *barSeries) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	w := b.width()
	one := w / float64(b.of)
	// Bars that cover the same pixel columns merge into one rectangle
	// from the lowest to the highest of them: what the eye sees anyway.
	type span struct{ l, r, lo, hi vg.Length }
	var order [][2]int
	merged := map[[2]int]*span{}
	for _, xy := range b.xys {
		x0 := xy.X - w/2 + float64(b.index)*one
		lo, hi := trY(b.base), trY(xy.Y)
		if lo > hi {
			lo, hi = hi, lo
		}
		l, r := trX(x0), trX(x0+one)
		pl, _ := pixel(vg.Point{X: l})
		pr, _ := pixel(vg.Point{X: r})
		key := [2]int{int(math.Round(pl)), int(math.Round(pr))}
		if m, ok := merged[key]; ok {
			m.lo, m.hi = min(m.lo, lo), max(m.hi, hi)
			continue
		}
		merged[key] = &span{l, r, lo, hi}
		order = append(order, key)
	}
	for _, k := range order {
		m := merged[k]
		fillRect(b.target.img, vg.Point{X: m.l, Y: m.lo}, vg.Point{X: m.r, Y: m.hi}, b.color)
		b.st.rects++
	}
}

// DataRange implements plot.DataRanger.
func (b *barSeries) DataRange() (xmin, xmax, ymin, ymax float64) {
	w := b.width()
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, xy := range b.xys {
		xmin, xmax = math.Min(xmin, xy.X-w/2), math.Max(xmax, xy.X+w/2)
	}
	ymin, ymax = b.base, b.base
	for _, xy := range b.xys {
		ymin, ymax = math.Min(ymin, xy.Y), math.Max(ymax, xy.Y)
	}
	return xmin, xmax, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (b *barSeries) Thumbnail(c *draw.Canvas) {
	c.SetColor(b.color)
	c.Fill(c.Rectangle.Path())
}

// annotations draws each annotation as a dashed vertical line with its
// label at the top, on three staggered rows so that close labels do not
// overlap.
type annotations struct{ list []chart.Annotation }

func (a *annotations) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	ls := draw.LineStyle{Color: color.Gray{Y: 120}, Width: vg.Points(0.75), Dashes: []vg.Length{vg.Points(3), vg.Points(3)}}
	sty := p.X.Tick.Label
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YTop
	sty.Color = color.Gray{Y: 60}
	h := sty.Height("M")
	for i, an := range a.list {
		if an.X < p.X.Min || an.X > p.X.Max {
			continue
		}
		x := trX(an.X)
		c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
		c.FillText(sty, vg.Point{X: x, Y: c.Max.Y - vg.Length(i%3)*h}, an.Label)
	}
}

func kindOf(se chart.Series) string {
	if se.Kind == "" {
		return chart.Line
	}
	return se.Kind
}
