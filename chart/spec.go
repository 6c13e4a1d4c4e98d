// Package chart is the chart a script adds to its result with
// codemode.chart(spec): the spec, its bounds, and the [Renderer] a server
// may be given to draw it as an image.
//
// A spec is model-controlled input, so everything about it is bounded
// before any work is done: series, points, categories, annotations and the
// length of every label (see the Max constants). The codemode package
// decodes and validates a spec with the catalog, as it does a host call's
// arguments (the validate tags below give path-carrying issues), then
// calls [Spec.Check] for what tags cannot state (lengths that must agree,
// the total of points). A [Renderer] is given only checked specs, so its
// cost is bounded by the caps: at most [MaxPoints] points.
//
// This package draws nothing and imports no plotting library. A client
// that declares the MCP Apps extension draws the charts itself, in the
// view codemode serves; for other clients, a server draws them as PNG
// images only when codemode.Options.ChartRenderer is set, for example to
// the renderer of the module github.com/brakinglab/codemode-go/chartpng
// (gonum/plot and its fonts, about 5 MiB of binary):
//
//	opts.ChartRenderer = chartpng.New()
//
// Without one, such a client gets the specs in the result's
// structuredContent.charts and a line of text per chart.
//
// Rendering runs in the host, so its CPU is bounded at three levels: a
// renderer keeps one chart under [RenderCPU] whatever the spec (chartpng
// reduces what it draws to the pixel grid), a [Budget] keeps one
// execution's charts under [ExecutionCPU], and [Slots] bounds the
// renderings running at once in the process, shared fairly between
// principals.
package chart

import (
	"fmt"
	"math"
)

// Bounds of one chart. A spec over them is refused, not cut: the model
// learns what to aggregate.
const (
	MaxSeries      = 8
	MaxPoints      = 10000 // over all series of a chart
	MaxCategories  = 200
	MaxAnnotations = 40
	MaxLabel       = 80 // runes in a title, name, unit, category or annotation
	// MaxMagnitude bounds every number, so that every range the
	// renderer computes stays finite.
	MaxMagnitude = 1e15
)

// Kinds of series.
const (
	Line    = "line"
	Scatter = "scatter"
	Bar     = "bar"
	Area    = "area"
)

// Spec is one chart: series over a shared x axis, on one or two y axes.
type Spec struct {
	Title       string       `json:"title,omitempty" validate:"max=80" jsonschema:"Chart title"`
	X           Axis         `json:"x,omitzero" jsonschema:"The x axis; categories make it categorical"`
	Y           Axis         `json:"y,omitzero" jsonschema:"The left y axis"`
	Y2          *Axis        `json:"y2,omitempty" jsonschema:"A right y axis, for series with axis: \"y2\""`
	Series      []Series     `json:"series" validate:"required,min=1,max=8,dive" jsonschema:"The data, drawn in order"`
	Annotations []Annotation `json:"annotations,omitempty" validate:"max=40,dive" jsonschema:"Labels at x positions, e.g. corner names at distances"`
}

// Axis is an axis's title and unit; for x, optionally its categories.
type Axis struct {
	Title      string   `json:"title,omitempty" validate:"max=80"`
	Unit       string   `json:"unit,omitempty" validate:"max=80"`
	Categories []string `json:"categories,omitempty" validate:"max=200,dive,max=80" jsonschema:"x only: the category names; each series then has one y per category and no x"`
}

// Series is one line, set of markers, set of bars or filled area.
type Series struct {
	Name string    `json:"name" validate:"required,max=80"`
	Kind string    `json:"kind,omitempty" validate:"omitempty,oneof=line scatter bar area" jsonschema:"Default line"`
	Axis string    `json:"axis,omitempty" validate:"omitempty,oneof=y y2" jsonschema:"Default y"`
	X    []float64 `json:"x,omitempty" validate:"max=10000" jsonschema:"x values, as many as y (numeric x only)"`
	Y    []float64 `json:"y" validate:"required,max=10000" jsonschema:"y values"`
}

// Annotation labels a position on the x axis.
type Annotation struct {
	X     float64 `json:"x" jsonschema:"The x value; for categorical x, the category's index"`
	Label string  `json:"label" validate:"required,max=80"`
}

// Issue is one problem [Spec.Check] found: the path into the spec and what
// to do.
type Issue struct {
	Path    []any
	Message string
}

// Check finds what the validate tags cannot: x and y of unequal length, a
// categorical chart whose series carry x or the wrong number of values,
// too many points in all, a y2 series without a y2 axis, and values that
// are not finite (JSON cannot carry NaN, but a Go caller can).
func (s *Spec) Check() []Issue {
	var out []Issue
	add := func(msg string, path ...any) { out = append(out, Issue{Path: path, Message: msg}) }
	cat := len(s.X.Categories) > 0
	total := 0
	for i, se := range s.Series {
		total += len(se.Y)
		switch {
		case len(se.Y) == 0:
			add("is empty: give at least one value, or leave the series out", "series", i, "y")
		case cat && len(se.X) > 0:
			add("leave x out: the chart's x axis has categories, so y holds one value per category", "series", i, "x")
		case cat && len(se.Y) != len(s.X.Categories):
			add(fmt.Sprintf("has %d values for %d categories: give one y per category, in order", len(se.Y), len(s.X.Categories)), "series", i, "y")
		case !cat && len(se.X) != len(se.Y):
			add(fmt.Sprintf("x has %d values and y %d: give one x per y (or x.categories for a categorical axis)", len(se.X), len(se.Y)), "series", i, "x")
		}
		if se.Axis == "y2" && s.Y2 == nil {
			add(`uses axis "y2", which the chart does not declare: add y2: { title: "…" }`, "series", i, "axis")
		}
		if cat && se.Kind == Area {
			add(`an area needs a numeric x axis: use "bar" or "line" over categories`, "series", i, "kind")
		}
		if j := badNumber(se.X); j >= 0 {
			add(numberMessage, "series", i, "x", j)
		}
		if j := badNumber(se.Y); j >= 0 {
			add(numberMessage, "series", i, "y", j)
		}
	}
	if total > MaxPoints {
		add(fmt.Sprintf("the series hold %d points in all, over the limit of %d: sample or aggregate the data in the script (every n-th point, or per corner or lap)", total, MaxPoints), "series")
	}
	for i, a := range s.Annotations {
		if badNumber([]float64{a.X}) >= 0 {
			add(numberMessage, "annotations", i, "x")
		}
	}
	return out
}

const numberMessage = "must be a finite number between -1e15 and 1e15"

// badNumber is the index of the first number of vs that is not finite or
// is over MaxMagnitude, or -1.
func badNumber(vs []float64) int {
	for j, v := range vs {
		if math.IsNaN(v) || math.Abs(v) > MaxMagnitude {
			return j
		}
	}
	return -1
}

// Points is how many points the chart draws.
func (s *Spec) Points() int {
	n := 0
	for _, se := range s.Series {
		n += len(se.Y)
	}
	return n
}

// Summary is one line for the model: what the chart shows.
func (s *Spec) Summary() string {
	title := s.Title
	if title == "" {
		title = "untitled chart"
	}
	kinds := map[string]bool{}
	for _, se := range s.Series {
		kinds[kindOf(se)] = true
	}
	kind := "mixed"
	if len(kinds) == 1 {
		for k := range kinds {
			kind = k
		}
	}
	return fmt.Sprintf("%q: %s chart, %d series, %d points", title, kind, len(s.Series), s.Points())
}

func kindOf(se Series) string {
	if se.Kind == "" {
		return Line
	}
	return se.Kind
}

// A Renderer draws a chart as a PNG image, for a client that cannot show
// the chart view (one that did not declare the MCP Apps extension). It is
// given only specs that passed [Spec.Check]. It is called concurrently,
// from the goroutine of the request whose result the chart joins; codemode
// bounds how many charts are drawn at once in the process to GOMAXPROCS.
// One rendering should take at most [RenderCPU] of CPU, whatever the spec.
// An error leaves that chart out of the images (the model is told it
// could not be drawn, and the error is logged); a panic is the renderer's
// to recover.
type Renderer interface {
	RenderPNG(s *Spec) (png []byte, err error)
}
