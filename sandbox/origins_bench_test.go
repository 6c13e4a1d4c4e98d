package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// BenchmarkResultOrigins measures what naming results' origins costs, in
// one run, on the coaching script end to end in process:
//   - coaching/plain: no log of answers and never a second run (originsOff);
//   - coaching/default: what every execution does, keeping its answers
//     for a second run that a script that does not fail never needs;
//   - coaching/marked: marking every execution's results, as the sandbox
//     did before second runs (markFirst);
//   - failing/plain and failing/explained: the same script misreading a
//     result at its end, without and with the second run that explains it.
//
// It also decodes the largest fixture result with and without the
// recording prototypes.
func BenchmarkResultOrigins(b *testing.B) {
	host, src := loadFixtureHost(b)
	sb := benchSandbox(b)
	for _, c := range []struct {
		name       string
		off, first bool
	}{{"coaching/plain", true, false}, {"coaching/default", false, false}, {"coaching/marked", false, true}} {
		b.Run(c.name, func(b *testing.B) {
			originsOff, markFirst = c.off, c.first
			defer func() { originsOff, markFirst = false, false }()
			benchRun(b, sb, src, host)
		})
	}
	failing := strings.Replace(src, "corners: weak.length };", "corners: weak.length, issues: (weak as any).topIssue.split(\",\") };", 1)
	for _, off := range []bool{true, false} {
		name := "failing/explained"
		if off {
			name = "failing/plain"
		}
		b.Run(name, func(b *testing.B) {
			originsOff = off
			defer func() { originsOff = false }()
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_, err := sb.Run(ctx, failing, host)
				var se *Error
				if !errors.As(err, &se) || strings.Contains(se.Message, "is the result of") == off {
					b.Fatalf("got %v", err)
				}
			}
		})
	}
	fixture, err := os.ReadFile("testdata/bench/fixture.json")
	if err != nil {
		b.Fatal(err)
	}
	vm := goja.New()
	e := &execution{vm: vm}
	e.primeOrigins()
	b.Run("decode/off", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := jsonToValue(vm, fixture); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/on", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := resultToValue(vm, fixture, &e.origins); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkResultOriginsReturn returns a host result of 500 objects
// unchanged, with the recording on and off: the value's serialisation
// looks up toJSON on each object, through the recording prototype.
func BenchmarkResultOriginsReturn(b *testing.B) {
	var rows []string
	for i := 0; i < 500; i++ {
		rows = append(rows, `{"id":"s`+itoa(i)+`","trackName":"Spa","bestLapMs":120500,"laps":[1,2,3]}`)
	}
	out := json.RawMessage("[" + strings.Join(rows, ",") + "]")
	host := &funcHost{funcs: map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){
		"ns.list": func(context.Context, json.RawMessage) (json.RawMessage, error) { return out, nil },
	}}
	sb := benchSandbox(b)
	for _, off := range []bool{true, false} {
		name := "on"
		if off {
			name = "off"
		}
		b.Run(name, func(b *testing.B) {
			originsOff = off
			defer func() { originsOff = false }()
			benchRun(b, sb, "return await ns.list({});", host)
		})
	}
}

// BenchmarkSavedResultWalk measures the walk that marks a saved
// function's result below its top level (originwalk.go), in one run: a
// script calls a saved function that returns 200 rows of 4 members (a
// nested object and array each) and reads one, marking the first run
// (markFirst) with the walk on and off (the top level alone marked), and
// not marking it, as a run that does not fail.
func BenchmarkSavedResultWalk(b *testing.B) {
	h := newSavedResultHost().(*savedResultHost)
	h.code["rows"] = "const rows: any[] = [];\nfor (let i = 0; i < 200; i++) rows.push({ id: \"s\" + i, laps: i, best: { ms: 90000 + i }, tags: [\"a\", \"b\"] });\nreturn { rows, total: rows.length };"
	src := "const r = await saved.rows({});\nreturn r.rows[199].best.ms + r.total;"
	// The most the walk can visit: 64 members of 64 members of 64 (its
	// member bound at each level), until it has visited maxMarkVisits.
	h.code["tree"] = "const leaf = (n: number) => { const o: any = {}; for (let i = 0; i < 64; i++) o[\"k\" + i] = n; return o; };\n" +
		"const mid = () => { const o: any = {}; for (let i = 0; i < 64; i++) o[\"m\" + i] = leaf(i); return o; };\n" +
		"const top: any = {};\nfor (let i = 0; i < 64; i++) top[\"t\" + i] = mid();\nreturn top;"
	sb := benchSandbox(b)
	for _, c := range []struct {
		name, src     string
		walk, records bool
	}{
		{"rows/walk", src, true, true}, {"rows/top", src, false, true}, {"rows/off", src, false, false},
		{"tree/walk", "const t = await saved.tree({});\nreturn t.t0.m0.k0;", true, true},
		{"tree/top", "const t = await saved.tree({});\nreturn t.t0.m0.k0;", false, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			walkOff, markFirst = !c.walk, c.records
			defer func() { walkOff, markFirst = false, false }()
			benchRun(b, sb, c.src, h)
		})
	}
}
