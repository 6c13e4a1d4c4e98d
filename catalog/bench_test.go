package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// realisticReport is a coaching report for a 12-corner track, the kind of
// argument a model sends to a MUTATING function.
func realisticReport(extra string) json.RawMessage {
	verdicts := []string{"good", "needs_work", "critical"}
	tags := []string{"braking", "apex", "exit"}
	var corners []string
	for i := 1; i <= 12; i++ {
		corners = append(corners, fmt.Sprintf(`{"corner":%d,"verdict":%q,"advice":"brake 5 m later","tags":[%q]}`,
			i, verdicts[i%3], tags[i%3]))
	}
	return json.RawMessage(`{"sessionId":"ses_1","summary":"Consistent laps, late apexes in the slow corners",` +
		`"corners":[` + strings.Join(corners, ",") + `],"weights":{"t1":2,"t2":1},"when":"2026-03-01T14:30:00Z"` + extra + `}`)
}

// BenchmarkCall measures one call end to end: generic parse, plan check,
// strict decode, tag validation, handler and result encoding with null
// stripping.
func BenchmarkCall(b *testing.B) {
	for _, bc := range []struct {
		name string
		fn   string
		args json.RawMessage
	}{
		{"mutating/12-corner report", "saveReport", realisticReport("")},
		{"mutating/dry run", "saveReport", realisticReport(`,"_validateOnly":true`)},
		{"mutating/validation error", "saveReport", json.RawMessage(`{"summary":7,"corners":[{"corner":"1"}],"x":1}`)},
		{"read-only/list", "getSessions", json.RawMessage(`{"limit":10}`)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, st := newFixture(nil)
			ctx := driver()
			b.ReportAllocs()
			for b.Loop() {
				_, _ = c.Call(ctx, bc.fn, bc.args)
				st.saved = st.saved[:0]
			}
		})
	}
}

// BenchmarkCallSchemaVsTyped compares checking the same arguments for a
// typed function and for its JSON-Schema twin (typegen.InputSchema of
// the typed one), with dry runs so that only the checks are measured.
func BenchmarkCallSchemaVsTyped(b *testing.B) {
	typed, _ := newFixture(nil)
	var info catalog.FuncInfo
	for _, f := range typed.Functions() {
		if f.Name == "saveReport" {
			info = f
		}
	}
	in, err := typegen.InputSchema(info)
	if err != nil {
		b.Fatal(err)
	}
	twin, _ := catalog.New(typed.Namespace(), nil)
	catalog.MustAddSchema(twin, catalog.SchemaFunc{Name: info.Name, Tier: info.Tier, Scopes: info.Scopes, InputSchema: in,
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }})
	for _, bc := range []struct {
		name string
		args json.RawMessage
	}{
		{"valid 12-corner report", realisticReport(`,"_validateOnly":true`)},
		{"validation error", json.RawMessage(`{"summary":7,"corners":[{"corner":"1"}],"x":1,"_validateOnly":true}`)},
	} {
		for _, k := range []struct {
			kind string
			c    *catalog.Catalog
		}{{"typed", typed}, {"schema", twin}} {
			b.Run(bc.name+"/"+k.kind, func(b *testing.B) {
				ctx := driver()
				b.ReportAllocs()
				for b.Loop() {
					_, _ = k.c.Call(ctx, "saveReport", bc.args)
				}
			})
		}
	}
}
