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

// Slots is the process's render slots: rendering runs in the host after
// the worker is free, so without them the number of concurrent requests
// alone would bound its CPU and memory. They are shared fairly between
// principals (chart.Slots): one user's executions full of heavy charts
// cannot keep another user's chart waiting behind them.
var Slots = chart.NewSlots(0)

// Shown is what of a run's charts goes into its result.
type Shown struct {
	// Charts are the specs that fit, as JSON, for the view.
	Charts []json.RawMessage
	// Lines are the text for the model: one line per chart, and the
	// warnings.
	Lines []string
	// Warnings are the CHART warnings: charts left out of the output
	// limit, or not drawn because the execution's drawing time was spent.
	Warnings []string
	// Images are the PNGs drawn, in order.
	Images [][]byte
}

// Show says how to show a run's charts.
type Show struct {
	// Used is the bytes of the result's value and logs; Max the output
	// limit they share with the charts.
	Used, Max int
	// Apps is whether the client declared the MCP Apps extension (it
	// draws the charts itself).
	Apps bool
	// Renderer draws PNGs for other clients; nil draws none.
	Renderer chart.Renderer
	// Slots are the render slots; nil means the process's [Slots].
	Slots *chart.Slots
	// Principal is whose execution it is (its subject, "" for anonymous),
	// for the slots' fairness.
	Principal string
	// Logger logs rendering errors.
	Logger *slog.Logger
}

// Show chooses what of the run's charts goes into its result:
// the charts that still fit the output limit next to the value and logs
// (the value comes first: the rest are left out with a warning), a line
// per chart for the model and, for a client without the MCP Apps
// extension, each chart as a PNG when there is a renderer. The renderings
// of one execution share one chart.Budget (chart.ExecutionCPU, at most
// chart.RenderCPU each): once it is spent, that chart's line says so, a
// warning is added, and the remaining charts are not drawn. Each rendering
// waits for one of the slots, or for ctx to end. A rendering error is
// logged and said in the chart's line.
func (cs *Run) Show(ctx context.Context, o Show) Shown {
	var out Shown
	list, specs := cs.taken()
	slots := o.Slots
	if slots == nil {
		slots = Slots
	}
	budget := chart.NewBudget(chart.ExecutionCPU, chart.RenderCPU)
	used := o.Used
	stop := "" // why the remaining charts are not drawn
	for i, b := range list {
		if used+len(b) > o.Max {
			left := fmt.Sprintf("Charts %d to %d were left out: with the logs and the return value they exceed the %d-byte output limit; return less or plot fewer points.", i+1, len(list), o.Max)
			out.Warnings = append(out.Warnings, left)
			out.Lines = append(out.Lines, left)
			break
		}
		used += len(b)
		out.Charts = append(out.Charts, b)
		line := fmt.Sprintf("Chart %d: %s", i+1, specs[i].Summary())
		switch {
		case o.Apps:
			out.Lines = append(out.Lines, line+", shown to the user.")
			continue
		case o.Renderer == nil:
			out.Lines = append(out.Lines, line+", not shown to the user: their client does not display charts and this server draws no images.")
			continue
		case stop != "":
			out.Lines = append(out.Lines, line+", not drawn: "+stop+".")
			continue
		}
		png, err := render(ctx, slots, o.Principal, budget, o.Renderer, &specs[i])
		switch {
		case errors.Is(err, chart.ErrBudgetSpent):
			stop = err.Error()
			out.Lines = append(out.Lines, line+", not drawn: "+stop+".")
			out.Warnings = append(out.Warnings, fmt.Sprintf("Charts %d to %d were not drawn: %s.", i+1, len(list), stop))
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			stop = "the request ended before it could be drawn"
			out.Lines = append(out.Lines, line+", not drawn: "+stop+".")
		case err != nil:
			o.Logger.Error("codemode: chart rendering", "err", err)
			out.Lines = append(out.Lines, line+", could not be drawn.")
		default:
			out.Lines = append(out.Lines, line+", shown to the user as an image.")
			out.Images = append(out.Images, png)
		}
	}
	return out
}

// render draws s in one of slots, for principal, within budget.
func render(ctx context.Context, slots *chart.Slots, principal string, budget *chart.Budget, r chart.Renderer, s *chart.Spec) ([]byte, error) {
	release, err := slots.Acquire(ctx, principal)
	if err != nil {
		return nil, err
	}
	defer release()
	return budget.Render(r, s)
}
