package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// BenchmarkResultOrigins measures what recording results' origins costs
// when nothing fails, against the same work without it, in one run: the
// coaching script end to end in process, and decoding the largest
// fixture result with and without the recording prototypes.
func BenchmarkResultOrigins(b *testing.B) {
	host, src := loadFixtureHost(b)
	sb := benchSandbox(b)
	for _, off := range []bool{true, false} {
		name := "coaching/on"
		if off {
			name = "coaching/off"
		}
		b.Run(name, func(b *testing.B) {
			originsOff = off
			defer func() { originsOff = false }()
			benchRun(b, sb, src, host)
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
// nested object and array each) and reads one, with the walk on, off
// (the top level alone marked) and with the recording off altogether.
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
			walkOff, originsOff = !c.walk, !c.records
			defer func() { walkOff, originsOff = false, false }()
			benchRun(b, sb, c.src, h)
		})
	}
}
