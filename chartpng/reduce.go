package chartpng

// Bounding the cost of a rendering by what is drawn, not by the points.
//
// The rasterizer under gonum/plot (gg, freetype's) slows down with the
// number of edges one path has on a pixel row: 10,000 points of a line
// that swings over the full height put 10,000 edges on every row and took
// minutes. So, before drawing:
//
//   - a series with more points than the plot has pixel columns is reduced
//     to the pixel grid: with x in order, to the first, lowest, highest and
//     last point of each column, which keeps the drawn shape (every peak
//     and trough) of a line, an area or a set of markers; with x out of
//     order (a track map), to every n-th point, at most maxUnordered;
//   - lines and areas are stroked and filled in pieces of at most
//     pieceSegments segments, so no path has many edges on a row;
//   - bars are merged per pixel column (the highest and lowest of the bars
//     that share it) and filled as rectangles straight into the image;
//   - markers are stamped from one pre-drawn circle.
//
// A rendering therefore draws at most about maxPrimitives strokes, fills
// and stamps, whatever the spec (TestRenderCostBound).

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"gonum.org/v1/plot/vg"
)

const (
	// columns is the pixel grid a series is reduced to: the image width,
	// at least the width of any data area.
	columns = Width
	// maxUnordered is the most points drawn of a series whose x values are
	// not in order.
	maxUnordered = 2000
	// pieceSegments is the most segments one stroke or fill has.
	pieceSegments = 32
)

// reduce returns the points of a series to draw: all of them when there
// are at most two per column of the x range [lo, hi], else the first,
// lowest, highest and last of each column, in order.
func reduce(xys []xy, lo, hi float64) []xy {
	if len(xys) <= 2*columns {
		return xys
	}
	ordered := true
	for i := 1; i < len(xys); i++ {
		if xys[i].x < xys[i-1].x {
			ordered = false
			break
		}
	}
	if !ordered {
		step := (len(xys) + maxUnordered - 1) / maxUnordered
		out := make([]xy, 0, maxUnordered+1)
		for i := 0; i < len(xys); i += step {
			out = append(out, xys[i])
		}
		if last := xys[len(xys)-1]; out[len(out)-1] != last {
			out = append(out, last)
		}
		return out
	}
	col := func(x float64) int {
		if hi <= lo {
			return 0
		}
		return min(int((x-lo)/(hi-lo)*columns), columns-1)
	}
	out := make([]xy, 0, 4*columns)
	for i := 0; i < len(xys); {
		c := col(xys[i].x)
		j, lowest, highest := i, i, i
		for j < len(xys) && col(xys[j].x) == c {
			if xys[j].y < xys[lowest].y {
				lowest = j
			}
			if xys[j].y > xys[highest].y {
				highest = j
			}
			j++
		}
		// The four in the order they come, without repeats.
		keep := []int{i, lowest, highest, j - 1}
		if lowest > highest {
			keep[1], keep[2] = highest, lowest
		}
		prev := -1
		for _, k := range keep {
			if k != prev {
				out = append(out, xys[k])
				prev = k
			}
		}
		i = j
	}
	return out
}

// xy is one data point.
type xy struct{ x, y float64 }

// pieces splits a polyline into runs of at most pieceSegments segments
// that share their end points.
func pieces(pts []vg.Point) [][]vg.Point {
	if len(pts) <= pieceSegments+1 {
		return [][]vg.Point{pts}
	}
	var out [][]vg.Point
	for i := 0; i < len(pts)-1; i += pieceSegments {
		out = append(out, pts[i:min(i+pieceSegments+1, len(pts))])
	}
	return out
}

// pixel converts a point of the canvas to image coordinates: vgimg scales
// points by dpi/72 and puts y = 0 at the bottom.
func pixel(p vg.Point) (x, y float64) {
	return p.X.Dots(dpi), Height - p.Y.Dots(dpi)
}

// fillRect fills the pixels covered by the rectangle between two canvas
// points, blending col over the image.
func fillRect(img *image.RGBA, a, b vg.Point, col color.Color) {
	x0, y0 := pixel(a)
	x1, y1 := pixel(b)
	r := image.Rect(int(math.Round(min(x0, x1))), int(math.Round(min(y0, y1))), int(math.Round(max(x0, x1))), int(math.Round(max(y0, y1))))
	if r.Dx() == 0 {
		r.Max.X++ // a bar narrower than a pixel still shows
	}
	if r.Dy() == 0 {
		r.Max.Y++
	}
	draw.Draw(img, r.Intersect(img.Rect), image.NewUniform(col), image.Point{}, draw.Over)
}

// stamp is a pre-drawn marker: its coverage mask, centred on (cx, cy).
type stamp struct {
	mask   *image.Alpha
	cx, cy int
}

// circleStamp draws a filled circle of radius r pixels, antialiased, once.
func circleStamp(r float64) stamp {
	n := int(math.Ceil(r))*2 + 2
	m := image.NewAlpha(image.Rect(0, 0, n, n))
	c := float64(n) / 2
	const sub = 4 // subsamples per pixel side
	for y := range n {
		for x := range n {
			in := 0
			for sy := range sub {
				for sx := range sub {
					dx := float64(x) + (float64(sx)+0.5)/sub - c
					dy := float64(y) + (float64(sy)+0.5)/sub - c
					if dx*dx+dy*dy <= r*r {
						in++
					}
				}
			}
			m.Pix[y*m.Stride+x] = uint8(in * 255 / (sub * sub))
		}
	}
	return stamp{mask: m, cx: n / 2, cy: n / 2}
}

// draw stamps the marker in col at the canvas point p.
func (s stamp) draw(img *image.RGBA, p vg.Point, col color.Color) {
	x, y := pixel(p)
	at := image.Pt(int(math.Round(x))-s.cx, int(math.Round(y))-s.cy)
	r := s.mask.Rect.Add(at)
	draw.DrawMask(img, r, image.NewUniform(col), image.Point{}, s.mask, image.Point{}, draw.Over)
}

// inkBudget is how many pixels of line length one chart strokes through
// the antialiasing rasterizer, about 25 ms of its time. Lines beyond it
// (series so dense that they are bands of colour) are drawn straight into
// the image: 2 pixels wide, without antialiasing, at a few nanoseconds a
// pixel.
const inkBudget = 300_000

// ink is the length in pixels of a polyline, as the rasterizer walks it.
func ink(pts []vg.Point) float64 {
	n := 0.0
	for i := 1; i < len(pts); i++ {
		x0, y0 := pixel(pts[i-1])
		x1, y1 := pixel(pts[i])
		n += max(math.Abs(x1-x0), math.Abs(y1-y0)) + 1
	}
	return n
}

// clipRect is the canvas rectangle in image pixels.
func clipRect(c vg.Rectangle) image.Rectangle {
	x0, y0 := pixel(c.Min)
	x1, y1 := pixel(c.Max)
	return image.Rect(int(math.Floor(min(x0, x1))), int(math.Floor(min(y0, y1))), int(math.Ceil(max(x0, x1))), int(math.Ceil(max(y0, y1)))).Intersect(image.Rect(0, 0, Width, Height))
}

// plotDirect draws a polyline about 2 pixels wide in an opaque colour
// straight into img, inside clip. With x in order the line is a function
// graph, so what it covers in each pixel column is one interval: each
// column is painted once, from the lowest to the highest point of the
// line in it. Otherwise each segment is walked pixel by pixel (reduce
// leaves at most maxUnordered points of such a series).
func plotDirect(img *image.RGBA, clip image.Rectangle, pts []vg.Point, col color.RGBA) {
	if clip.Empty() || len(pts) == 0 {
		return
	}
	px := make([][2]float64, len(pts))
	ordered := true
	for i, p := range pts {
		x, y := pixel(p)
		px[i] = [2]float64{x, y}
		if i > 0 && x < px[i-1][0] {
			ordered = false
		}
	}
	paint := func(cx, y0, y1 int) { // rows y0..y1 of columns cx and cx+1
		y0, y1 = max(y0, clip.Min.Y), min(y1, clip.Max.Y-1)
		if y0 > y1 {
			return
		}
		for x := max(cx, clip.Min.X); x <= min(cx+1, clip.Max.X-1); x++ {
			i := img.PixOffset(x, y0)
			for y := y0; y <= y1; y++ {
				img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = col.R, col.G, col.B, 0xff
				i += img.Stride
			}
		}
	}
	if !ordered {
		for i := 1; i < len(px); i++ {
			x0, y0, x1, y1 := px[i-1][0], px[i-1][1], px[i][0], px[i][1]
			steps := int(max(math.Abs(x1-x0), math.Abs(y1-y0))) + 1
			for s := 0; s <= steps; s++ {
				t := float64(s) / float64(steps)
				x, y := int(x0+(x1-x0)*t-0.5), int(y0+(y1-y0)*t-0.5)
				paint(x, y, y+1)
			}
		}
		return
	}
	lo := make([]float64, clip.Dx())
	hi := make([]float64, clip.Dx())
	for i := range lo {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
	}
	cover := func(x int, y0, y1 float64) {
		if x < clip.Min.X || x >= clip.Max.X {
			return
		}
		i := x - clip.Min.X
		lo[i], hi[i] = min(lo[i], y0, y1), max(hi[i], y0, y1)
	}
	at := func(x0, y0, x1, y1, x float64) float64 {
		if x1 == x0 {
			return y0
		}
		return y0 + (y1-y0)*(x-x0)/(x1-x0)
	}
	for i := 1; i < len(px); i++ {
		x0, y0, x1, y1 := px[i-1][0], px[i-1][1], px[i][0], px[i][1]
		for c := int(math.Floor(x0)); c <= int(math.Floor(x1)); c++ {
			a, b := max(x0, float64(c)), min(x1, float64(c+1))
			cover(c, at(x0, y0, x1, y1, a), at(x0, y0, x1, y1, b))
		}
	}
	for i := range lo {
		if lo[i] <= hi[i] {
			paint(clip.Min.X+i, int(math.Round(lo[i]))-1, int(math.Round(hi[i])))
		}
	}
}

// fillDirect fills the area between a polyline and the pixel row bottom,
// straight into img inside clip: each column once, from the highest point
// of the line over it, blending col.
func fillDirect(img *image.RGBA, clip image.Rectangle, pts []vg.Point, bottom float64, col color.Color) {
	top := make([]float64, clip.Dx())
	for i := range top {
		top[i] = math.Inf(1)
	}
	for i := 1; i < len(pts); i++ {
		x0, y0 := pixel(pts[i-1])
		x1, y1 := pixel(pts[i])
		if x1 < x0 {
			x0, y0, x1, y1 = x1, y1, x0, y0
		}
		for x := int(math.Round(x0)); x <= int(math.Round(x1)); x++ {
			if x < clip.Min.X || x >= clip.Max.X {
				continue
			}
			y := min(y0, y1) // a segment within one column
			if int(math.Round(x0)) != int(math.Round(x1)) {
				// At the column's centre, kept on the segment: a steep
				// segment extrapolated half a pixel would overshoot.
				xc := min(max(float64(x), x0), x1)
				y = y0 + (y1-y0)*(xc-x0)/(x1-x0)
			}
			top[x-clip.Min.X] = min(top[x-clip.Min.X], y)
		}
	}
	u := image.NewUniform(col)
	for i, y := range top {
		if math.IsInf(y, 1) {
			continue
		}
		x := clip.Min.X + i
		r := image.Rect(x, int(math.Round(y)), x+1, int(math.Round(bottom))).Intersect(clip)
		draw.Draw(img, r, u, image.Point{}, draw.Over)
	}
}
