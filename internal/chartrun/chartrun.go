// Package chartrun is codemode.chart within one execution: the
// declaration the model reads, the spec decoded and validated exactly as
// host-call arguments are (a private catalog: the same decoder, validate
// tags and issue paths, then chart.Spec.Check), the charts one run adds,
// bounded in number ([Max]) and in bytes (the run's output limit), and
// which of them fit the result next to the value and logs, each drawn as
// a PNG by the server's renderer for a client that cannot show the view.
// It knows neither MCP nor the sandbox.
package chartrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/chart"
)

// Max is how many charts one execution may add with codemode.chart.
const Max = 6

// Declaration declares codemode.chart for the model, as a member of the
// codemode namespace. It is written
// by hand, compact, because every character counts against the
// description's budget; TestChartDeclaration checks it against chart.Spec.
const Declaration = `  /** Shows the user a chart. Categorical x: x.categories, one y each. */
  function chart(spec: { title?: string; x?: Ax & { categories?: string[] }; y?: Ax; y2?: Ax; series: { name: string; kind?: "line"|"scatter"|"bar"|"area"; axis?: "y"|"y2"; x?: number[]; y: number[] }[]; annotations?: { x: number; label: string }[] }): Promise<string>;
  type Ax = { title?: string; unit?: string };`

// chartCatalog decodes and validates chart specs exactly as host-call
// arguments are: the same decoder, validate tags and issues with paths.
var chartCatalog = func() *catalog.Catalog {
	c, err := catalog.New("codemode", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		panic(err)
	}
	catalog.MustAdd(c, catalog.Func[chart.Spec, string]{
		Name:        "chart",
		Description: "Adds a chart to the result.",
		// Mutating: a chart adds to the result, and a member the spec
		// does not know (a misspelt field) is refused, not ignored.
		Tier: catalog.Mutating,
		Validate: func(_ context.Context, s chart.Spec) error {
			issues := s.Check()
			if len(issues) == 0 {
				return nil
			}
			ve := &catalog.ValidationError{}
			for _, is := range issues {
				ve.Issues = append(ve.Issues, catalog.Issue{Path: is.Path, Message: is.Message})
			}
			return ve
		},
		Handler: func(ctx context.Context, s chart.Spec) (string, error) {
			cs, ok := ctx.Value(chartsKey{}).(*Run)
			if !ok {
				return "", catalog.Invalid("codemode.chart works only inside an execution")
			}
			return cs.add(s)
		},
	})
	return c
}()

type chartsKey struct{}

// Run collects the charts of one run of a script. Their JSON shares the
// output limit with the logs and the return value (see Run.Show).
type Run struct {
	max   int // the output limit, in bytes
	mu    sync.Mutex
	list  []json.RawMessage
	specs []chart.Spec
	bytes int
}

// New returns the charts of a run whose output limit is maxBytes.
func New(maxBytes int) *Run { return &Run{max: maxBytes} }

func (cs *Run) add(s chart.Spec) (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.list) == Max {
		return "", catalog.Invalid("this run already has %d charts, the most one run may add: combine series into fewer charts", Max)
	}
	if cs.bytes+len(b) > cs.max {
		return "", catalog.Invalid("this chart's data is %d bytes and the run's charts may total %d (the output limit): plot fewer points (every n-th point, or one per corner or lap) or round the values", len(b), cs.max-cs.bytes)
	}
	cs.bytes += len(b)
	cs.list = append(cs.list, b)
	cs.specs = append(cs.specs, s)
	return fmt.Sprintf("chart %d added: %s", len(cs.list), s.Summary()), nil
}

// Call runs codemode.chart(spec) for a script, adding the chart to cs;
// args is the JSON array of its arguments. A bad spec is a
// catalog.ValidationError with an issue per problem.
func (cs *Run) Call(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var list []json.RawMessage
	if json.Unmarshal(args, &list) != nil || len(list) != 1 {
		return nil, catalog.Invalid(`codemode.chart takes one spec object, for example codemode.chart({ title: "Lap times", x: { title: "Lap" }, series: [{ name: "lap time", x: [1, 2, 3], y: [92.4, 91.8, 91.5] }] })`)
	}
	out, err := chartCatalog.Call(context.WithValue(ctx, chartsKey{}, cs), "chart", list[0])
	var ve *catalog.ValidationError
	if errors.As(err, &ve) {
		for i, is := range ve.Issues {
			// JSON has no NaN or Infinity: the script's value arrived as null.
			if strings.HasSuffix(is.Message, "got null") {
				ve.Issues[i].Message += ": NaN and Infinity arrive as null, so leave such points out or replace them"
			}
		}
	}
	return out, err
}

// taken returns the charts of the execution.
func (cs *Run) taken() ([]json.RawMessage, []chart.Spec) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.list, cs.specs
}

// renderSlots bounds how many charts are drawn at once in the process:
// rendering runs in the host after the worker is free, so without it the
// number of concurrent requests alone would bound its CPU and memory (about
// 15 ms and 2 MB a chart).
var renderSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// Shown is what of a run's charts goes into its result.
type Shown struct {
	// Charts are the specs that fit, as JSON, for the view.
	Charts []json.RawMessage
	// Lines are the text for the model: one line per chart, and the
	// warning if some were left out.
	Lines []string
	// Left is a warning that the charts from some index on were left
	// out, or "".
	Left string
	// Images are the PNGs drawn, in order.
	Images [][]byte
}

// Show chooses what of the run's charts goes into its result:
// the charts that still fit the output limit max next to used bytes of
// value and logs (the value comes first: the rest are left out with a
// warning), a line per chart for the model and, for a client without the
// MCP Apps extension (apps false), each chart as a PNG when r is not nil.
// A rendering error is logged to logger and said in the chart's line.
func (cs *Run) Show(used, max int, apps bool, r chart.Renderer, logger *slog.Logger) Shown {
	var out Shown
	list, specs := cs.taken()
	for i, b := range list {
		if used+len(b) > max {
			out.Left = fmt.Sprintf("Charts %d to %d were left out: with the logs and the return value they exceed the %d-byte output limit; return less or plot fewer points.", i+1, len(list), max)
			out.Lines = append(out.Lines, out.Left)
			break
		}
		used += len(b)
		out.Charts = append(out.Charts, b)
		line := fmt.Sprintf("Chart %d: %s", i+1, specs[i].Summary())
		if apps {
			out.Lines = append(out.Lines, line+", shown to the user.")
			continue
		}
		if r == nil {
			out.Lines = append(out.Lines, line+", not shown to the user: their client does not display charts and this server draws no images.")
			continue
		}
		renderSlots <- struct{}{}
		png, err := r.RenderPNG(&specs[i])
		<-renderSlots
		if err != nil {
			logger.Error("codemode: chart rendering", "err", err)
			out.Lines = append(out.Lines, line+", could not be drawn.")
			continue
		}
		out.Lines = append(out.Lines, line+", shown to the user as an image.")
		out.Images = append(out.Images, png)
	}
	return out
}
