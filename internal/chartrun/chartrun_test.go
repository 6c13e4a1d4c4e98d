package chartrun

import (
	"reflect"
	"strings"
	"testing"

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
