package chartpng

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// lineWidth is the stroke of a line or an area's edge.
var lineWidth = vg.Points(1.5)

// lineSeries draws a line, or an area (a line filled down to the bottom
// of the data area), in pieces of at most pieceSegments segments (see
// reduce.go). It has no GlyphBoxes: plot would ask for a box per point to
// pad the data area for markers a line does not draw.
type lineSeries struct {
	xys    plotter.XYs
	color  color.RGBA
	area   bool
	target *imageTarget
	st     *stats
}

func (l *lineSeries) style() draw.LineStyle {
	return draw.LineStyle{Color: l.color, Width: lineWidth}
}

// fillColor is the series colour at a third of its opacity. It is
// NRGBA: the same values as a premultiplied RGBA (what this was before)
// overflow when blended and showed areas in the wrong hue.
func (l *lineSeries) fillColor() color.NRGBA {
	return color.NRGBA{l.color.R, l.color.G, l.color.B, 0x55}
}

func (l *lineSeries) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pts := make([]vg.Point, len(l.xys))
	for i, v := range l.xys {
		pts[i] = vg.Point{X: trX(v.X), Y: trY(v.Y)}
	}
	n := ink(pts)
	if l.area {
		n *= 2 // the fill's edges cost as much again
	}
	if l.st.ink+n > inkBudget {
		// Too dense to antialias within the budget: a band of colour.
		clip := clipRect(c.Rectangle)
		if l.area {
			_, bottom := pixel(vg.Point{Y: trY(p.Y.Min)})
			fillDirect(l.target.img, clip, pts, bottom, l.fillColor())
			l.st.fills++
		}
		plotDirect(l.target.img, clip, pts, l.color)
		l.st.direct++
		return
	}
	l.st.ink += n
	parts := pieces(pts)
	if l.area {
		bottom := trY(p.Y.Min)
		fill := l.fillColor()
		for _, part := range parts {
			poly := make([]vg.Point, 0, len(part)+2)
			poly = append(poly, vg.Point{X: part[0].X, Y: bottom})
			poly = append(poly, part...)
			poly = append(poly, vg.Point{X: part[len(part)-1].X, Y: bottom})
			c.FillPolygon(fill, c.ClipPolygonXY(poly))
			l.st.fills++
		}
	}
	for _, part := range parts {
		lines := c.ClipLinesXY(part)
		c.StrokeLines(l.style(), lines...)
		l.st.strokes += len(lines)
	}
}

// DataRange implements plot.DataRanger.
func (l *lineSeries) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(l.xys)
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (l *lineSeries) Thumbnail(c *draw.Canvas) {
	if l.area {
		pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
		c.FillPolygon(l.fillColor(), c.ClipPolygonY(pts))
	}
	y := c.Center().Y
	c.StrokeLine2(l.style(), c.Min.X, y, c.Max.X, y)
}

// markerRadius is the radius of a scatter marker.
var markerRadius = vg.Points(2)

// markerSeries draws a scatter series by stamping one pre-drawn circle
// per point straight into the image.
type markerSeries struct {
	xys    plotter.XYs
	color  color.RGBA
	target *imageTarget
	st     *stats
}

func (m *markerSeries) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	st := circleStamp(markerRadius.Dots(dpi))
	for _, v := range m.xys {
		x, y := trX(v.X), trY(v.Y)
		if math.IsNaN(float64(x)) || math.IsNaN(float64(y)) {
			continue
		}
		st.draw(m.target.img, vg.Point{X: x, Y: y}, m.color)
		m.st.stamps++
	}
}

// DataRange implements plot.DataRanger.
func (m *markerSeries) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(m.xys)
}

// GlyphBoxes implements plot.GlyphBoxer: one box for the whole series, the
// markers' radius around its extremes, so end markers are not cut.
func (m *markerSeries) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	xmin, xmax, ymin, ymax := m.DataRange()
	r := vg.Rectangle{Min: vg.Point{X: -markerRadius, Y: -markerRadius}, Max: vg.Point{X: markerRadius, Y: markerRadius}}
	return []plot.GlyphBox{
		{X: p.X.Norm(xmin), Y: p.Y.Norm(ymin), Rectangle: r},
		{X: p.X.Norm(xmax), Y: p.Y.Norm(ymax), Rectangle: r},
	}
}

// Thumbnail implements plot.Thumbnailer for the legend.
func (m *markerSeries) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(draw.GlyphStyle{Color: m.color, Radius: markerRadius, Shape: draw.CircleGlyph{}}, c.Center())
}
