package chartrun

import (
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/chart"
)

// TestChartDeclaration checks the hand-written declaration of
// codemode.chart against chart.Spec: every member the decoder accepts is
// declared, optional exactly when the Go field may be absent.
func TestChartDeclaration(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for f := range typ.Fields() {
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			optional := strings.Contains(opts, "omit")
			want := name + ": "
			if optional {
				want = name + "?: "
			}
			if !strings.Contains(Declaration, want) {
				t.Errorf("%s.%s: the declaration lacks %q", typ.Name(), f.Name, want)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[chart.Spec]())
	for _, kind := range []string{chart.Line, chart.Scatter, chart.Bar, chart.Area} {
		if !strings.Contains(Declaration, `"`+kind+`"`) {
			t.Errorf("the declaration lacks the kind %q", kind)
		}
	}
}

type failing struct{}

func (failing) RenderPNG(*chart.Spec) ([]byte, error) { return nil, errors.New("no fonts") }

type png struct{}

func (png) RenderPNG(*chart.Spec) ([]byte, error) { return []byte("png"), nil }

// A run keeps at most Max charts and its output limit in bytes; what it
// shows leaves out the charts past the limit, with a warning, and says
// per chart how the user sees it.
func TestRun(t *testing.T) {
	spec := `[{"title":"Laps","series":[{"name":"lap","x":[1,2,3],"y":[1,2,3]}]}]`
	r := New(10_000)
	for i := range Max {
		if _, err := r.Call(t.Context(), json.RawMessage(spec)); err != nil {
			t.Fatalf("chart %d: %v", i+1, err)
		}
	}
	if _, err := r.Call(t.Context(), json.RawMessage(spec)); err == nil || !strings.Contains(err.Error(), "combine series") {
		t.Fatalf("chart past Max: %v", err)
	}
	_, err := r.Call(t.Context(), json.RawMessage(`[{"series":[{"name":"s","x":[1,2],"y":[1,null]}]}]`))
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Issues[0].Message, "NaN and Infinity arrive as null") {
		t.Fatalf("a null point: %v", err)
	}
	if _, err := New(10).Call(t.Context(), json.RawMessage(spec)); err == nil || !strings.Contains(err.Error(), "plot fewer points") {
		t.Fatalf("a chart over the output limit: %v", err)
	}
	size := len(r.list[0])
	shown := r.Show(t.Context(), Show{Used: 10_000 - 2*size, Max: 10_000, Renderer: png{}, Logger: slog.New(slog.DiscardHandler)})
	if len(shown.Charts) != 2 || len(shown.Images) != 2 || len(shown.Warnings) != 1 || !strings.HasPrefix(shown.Warnings[0], "Charts 3 to 6 were left out") || len(shown.Lines) != 3 || !strings.HasSuffix(shown.Lines[0], "shown to the user as an image.") {
		t.Fatalf("shown: %+v", shown)
	}
	for _, tt := range []struct {
		apps bool
		r    chart.Renderer
		want string
	}{{true, png{}, ", shown to the user."}, {false, nil, "this server draws no images."}, {false, failing{}, ", could not be drawn."}} {
		shown := r.Show(t.Context(), Show{Max: 10_000, Apps: tt.apps, Renderer: tt.r, Logger: slog.New(slog.DiscardHandler)})
		if len(shown.Lines) != Max || !strings.HasSuffix(shown.Lines[0], tt.want) || len(shown.Images) != 0 {
			t.Errorf("apps %v, renderer %T: %q", tt.apps, tt.r, shown.Lines[0])
		}
	}
}
