package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/golden"
)

// replyCase is a script a model writes and pieces its reply must hold.
type replyCase struct {
	name, src string
	want      []string
}

// checkReplies runs each case in both modes against a fresh host from
// newHost: the reply must hold the case's pieces, match its golden file
// in testdata/contract, and be the same in both modes byte for byte.
func checkReplies(t *testing.T, cases []replyCase, newHost func() Host) {
	t.Helper()
	replies := map[string]map[string]string{}
	for _, m := range testModes {
		sb, err := New(&Options{Mode: m, Limits: Limits{MaxCalls: 20}, PoolSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sb.Close() })
		replies[m.String()] = map[string]string{}
		for _, tc := range cases {
			t.Run(m.String()+"/"+tc.name, func(t *testing.T) {
				res, err := sb.Run(context.Background(), tc.src, newHost())
				got := report(res, err)
				replies[m.String()][tc.name] = got
				for _, p := range tc.want {
					if !strings.Contains(got, p) {
						t.Errorf("reply lacks %q:\n%s", p, got)
					}
				}
				if m == ModeInProcess {
					golden.Check(t, filepath.Join("testdata", "contract", tc.name+".golden"), []byte(got))
				}
			})
		}
	}
	for _, tc := range cases {
		if a, b := replies["in-process"][tc.name], replies["worker"][tc.name]; a != b {
			t.Errorf("%s: the modes differ:\nin process:\n%s\nworker:\n%s", tc.name, a, b)
		}
	}
}

// savedResultHost is resultHost with saved functions: sub-programs in
// namespace saved whose results a model misreads, their outputs declared
// as codemode declares a saved function's output schema.
type savedResultHost struct {
	*explainHost
	code   map[string]string // name → code
	shapes map[string]string // "saved.name" → declared result
}

func (h *savedResultHost) Functions() map[string][]string {
	out := h.explainHost.Functions()
	for n := range h.code {
		out["saved"] = append(out["saved"], n)
	}
	sort.Strings(out["saved"])
	return out
}

func (h *savedResultHost) SubprogramNamespaces() []string { return []string{"saved"} }

func (h *savedResultHost) Subprogram(_ context.Context, name string, args json.RawMessage) (*Subprogram, error) {
	fn := strings.TrimPrefix(name, "saved.")
	code, ok := h.code[fn]
	if !ok {
		return nil, errors.New(name + " is not found")
	}
	sp := &Subprogram{Key: "origins-" + fn + "@1", Label: name + " version 1"}
	if strings.Contains(string(args), `"_validateOnly":true`) {
		sp.Result = json.RawMessage(`{"valid":true}`)
		return sp, nil
	}
	sp.Code, sp.Input = code, args
	return sp, nil
}

func (h *savedResultHost) ResultShape(name string) string {
	if s, ok := h.shapes[name]; ok {
		return s
	}
	return h.explainHost.ResultShape(name)
}

// reportShape is the declared result of saved.report, whose objects and
// arrays are nested.
const reportShape = "{ rows: { id: string; laps: number }[]; summary: { text: string; laps: number[] }; total: number }"

func newSavedResultHost() Host {
	return &savedResultHost{explainHost: resultHost(),
		code: map[string]string{
			"readNote": "const t = await files.read_text_file({ path: input.path });\nreturn { content: t.content, path: input.path };",
			"title":    "return \"Spa \" + input.n;",
			"graph":    "const g = await memory.read_graph({});\nreturn { entities: g.entities.map((e: any) => e.name), relations: g.relations.length };",
			"latest":   "const s = await lab.getSessions({});\nreturn s.slice(0, input.n);",
			"lapCount": "const n = await lab.countLaps({});\nreturn n * 2;",
			"split":    "const t = await files.read_text_file({ path: input.path });\nreturn t.split(\",\");",
			"nested":   "const n = 1;\nconst t = await saved.readNote({ path: input.path });\nreturn t.split(\",\").length + n;",
			"facade":   "return new Proxy({}, { get(t, k) { if (k === \"then\") return undefined; throw new Error(\"trap\"); }, getPrototypeOf() { throw new Error(\"trap\"); } });",
			"report":   "const rows = [{ id: \"s1\", laps: 3 }, { id: \"s2\", laps: 5 }];\nreturn { rows, summary: { text: \"fast\", laps: [91.2, 90.8] }, total: rows.length };",
		},
		shapes: map[string]string{
			"saved.readNote": "{ content: string; path: string }",
			"saved.title":    "string",
			"saved.graph":    "{ entities: string[]; relations: number }",
			"saved.latest":   "{ bestLapMs: number; id: string; trackName: string }[]",
			"saved.lapCount": "number",
			"saved.report":   reportShape,
		},
	}
}

// TestSavedResultOriginReplies runs issue 41's misreadings on results of
// saved functions (sub-programs run inside the execution), in both
// modes: each reply names the saved function, the line of its call in
// the script, its declared output and the fix, as for a host result.
func TestSavedResultOriginReplies(t *testing.T) {
	checkReplies(t, []replyCase{
		{"saved-missing-method", "const note = await saved.readNote({ path: \"/notes/note.txt\" });\nreturn note.split(\"\\n\");",
			[]string{"TypeError: Object has no member 'split'. note is the result of saved.readNote (line 1), declared `{ content: string; path: string }`: an object with members content, path, which has no member split (read at line 2): use note.content, the string in it, e.g. note.content.split(…)."}},
		{"saved-field-of-string", "const t = await saved.title({ n: 1 });\nreturn t.content.toUpperCase();",
			[]string{"t is the result of saved.title (line 1), declared `string`: a string, which has no member content (read at line 2): use t itself."}},
		{"saved-array-method-on-object", "const g = await saved.graph({});\nreturn g.filter((e: any) => e === \"note\");",
			[]string{"g is the result of saved.graph (line 1), declared `{ entities: string[]; relations: number }`: an object with members entities, relations, which has no member filter (read at line 2): use g.entities, the array in it, e.g. g.entities.filter(…)."}},
		{"saved-field-of-array", "const latest = await saved.latest({ n: 1 });\nreturn latest.trackName.toUpperCase();",
			[]string{"latest is the result of saved.latest (line 1), declared `{ bestLapMs: number; id: string; trackName: string }[]`: an array, which has no member trackName (read at line 2). Pick an element first, e.g. latest[0].trackName"}},
		{"saved-number-as-object", "const n = await saved.lapCount({});\nreturn n.total.toFixed(1);",
			[]string{"n is the result of saved.lapCount (line 1), declared `number`: a number, which has no member total (read at line 2): use n itself."}},
		{"saved-member-string", "const note = await saved.readNote({ path: \"/notes/note.txt\" });\nreturn note.content.lines.length;",
			[]string{"note.content is result.content, part of the result of saved.readNote (line 1), declared `{ content: string; path: string }`: a string, which has no member lines (read at line 2): use note.content itself."}},
		{"saved-object-string", "const note = await saved.readNote({ path: \"/notes/note.txt\" });\nawait lab.addNote({ notes: [String(note)] });\nreturn 1;",
			[]string{"warning VALUE lab.addNote at 2:11: in the arguments to lab.addNote, args.notes[0] holds \"[object Object]\"", "the object is the result of saved.readNote (line 1), declared `{ content: string; path: string }`. Pass the member you meant (.content, .path)"}},
		{"saved-passed-whole", "const note = await saved.readNote({ path: \"/notes/note.txt\" });\nawait lab.store({ entities: [{ name: \"note\", observations: [note] }] });\nreturn 1;",
			[]string{"args.entities[0].observations[0] is the result of saved.readNote (line 1), declared `{ content: string; path: string }`, an object, passed whole: pass the member you meant (.content, .path)."}},
		// The saved code misreads a result itself: the hint is in its
		// coordinates (the call on its line 1, the read on line 2), and the
		// script's error adds nothing.
		{"saved-code-misreads", "const a = 1;\nconst b = 2;\nreturn await saved.split({ path: \"/notes/note.txt\" });",
			[]string{"RUNTIME at 3:20: TypeError: in saved.split version 1, line 2 column 10: Object has no member 'split'. t is the result of files.read_text_file (line 1), declared `{ content: string }`: an object with member content, which has no member split (read at line 2): use t.content, the string in it, e.g. t.content.split(…).\n"}},
		// Values nested in a saved function's result: the path from it
		// and the whole declared result, as for a host result's members.
		{"saved-nested-field-of-string", "const r = await saved.report({});\nreturn r.rows[0].id.name.toUpperCase();",
			[]string{"r.rows[0].id is result.rows[0].id, part of the result of saved.report (line 1), declared `" + reportShape + "`: a string, which has no member name (read at line 2): use r.rows[0].id itself."}},
		{"saved-nested-array-method-on-object", "const r = await saved.report({});\nreturn r.summary.filter((l: number) => l < 91);",
			[]string{"TypeError: Object has no member 'filter'. r.summary is result.summary, part of the result of saved.report (line 1), declared `" + reportShape + "`: an object with members text, laps, which has no member filter (read at line 2): use r.summary.laps, the array in it, e.g. r.summary.laps.filter(…)."}},
		{"saved-nested-array-as-object", "const r = await saved.report({});\nreturn r.rows.id.toUpperCase();",
			[]string{"r.rows is result.rows, part of the result of saved.report (line 1), declared `" + reportShape + "`: an array, which has no member id (read at line 2). Pick an element first, e.g. r.rows[0].id for the first one, or loop over the list."}},
		{"saved-nested-number-as-object", "const r = await saved.report({});\nreturn r.rows[1].laps.count.toFixed(1);",
			[]string{"r.rows[1].laps is result.rows[1].laps, part of the result of saved.report (line 1), declared `" + reportShape + "`: a number, which has no member count (read at line 2): use r.rows[1].laps itself."}},
		{"saved-nested-row-method", "const r = await saved.report({});\nreturn r.rows[0].map((x: any) => x);",
			[]string{"TypeError: Object has no member 'map'. r.rows[0] is result.rows[0], part of the result of saved.report (line 1), declared `" + reportShape + "`: an object with members id, laps, which has no member map (read at line 2): read one of its members."}},
		{"saved-code-misreads-saved", "const a = 1;\nreturn await saved.nested({ path: \"/notes/note.txt\" });",
			[]string{"in saved.nested version 1, line 3 column 10: Object has no member 'split'. t is the result of saved.readNote (line 2), declared `{ content: string; path: string }`"}},
	}, newSavedResultHost)
}

// TestSavedResultsStayInvisible checks that what a saved function returns
// is what its code made, to every observation but Object.getPrototypeOf,
// and that a result the code made unusual (a Proxy whose traps throw, a
// frozen object, a class instance, an array subclass) is returned as it
// was, with the plain error when misread.
func TestSavedResultsStayInvisible(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		h := newSavedResultHost().(*savedResultHost)
		h.code["frozen"] = "return Object.freeze({ a: 1 });"
		h.code["instance"] = "class Lap { constructor(public ms: number) {} }\nreturn new Lap(90);"
		h.code["sub"] = "class Laps extends Array {}\nconst l = new Laps();\nl.push(1);\nreturn l;"
		src := `const g = await saved.graph({});
const l = await saved.latest({ n: 2 });
const f = await saved.frozen({});
const i = await saved.instance({});
const s = await saved.sub({});
return { json: JSON.stringify(g), keys: Object.keys(g).join(","), isArr: Array.isArray(l), inst: g instanceof Object && l instanceof Array,
  len: l.length, first: l[0].id, frozen: Object.isFrozen(f), cls: i.constructor.name, sub: s.constructor.name, missing: (g as any).nope ?? "none" };`
		res := mustRun(t, sb, src, h)
		want := `{"json":"{\"entities\":[\"note\"],\"relations\":0}","keys":"entities,relations","isArr":true,"inst":true,"len":2,"first":"s2","frozen":true,"cls":"Lap","sub":"Laps","missing":"none"}`
		if !jsonEqual(t, res.Value, want) {
			t.Errorf("value %s", res.Value)
		}
		for src, wantErr := range map[string]string{
			"const p = await saved.facade({});\nreturn 1;":                       "",
			"const f = await saved.frozen({});\nreturn (f as any).split(\",\");": "TypeError: Object has no member 'split'",
		} {
			res, err := sb.Run(context.Background(), src, h)
			if wantErr == "" {
				if err != nil || string(res.Value) != "1" {
					t.Errorf("%s: %v, value %s", src, err, res.Value)
				}
				continue
			}
			var se *Error
			if !errors.As(err, &se) || se.Message != wantErr {
				t.Errorf("%s:\n%v, want the plain %q", src, err, wantErr)
			}
		}
	})
}

// TestSavedNestedResultsStayInvisible checks the walk that marks what a
// saved function returns below its top level: getters (counting, or
// throwing) are never called by it nor by the hint's search, nested
// Proxies' traps never run, and frozen objects, class instances,
// null-prototype objects, Maps, typed arrays and cycles come back as
// the code made them, to every observation but Object.getPrototypeOf.
func TestSavedNestedResultsStayInvisible(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		h := newSavedResultHost().(*savedResultHost)
		h.code["mixed"] = `let calls = 0;
const trap = () => { console.log("trap ran"); throw new Error("trap"); };
class Lap { constructor(public ms: number) {} get slow() { calls++; console.log("getter ran"); return this.ms > 90; } }
const bare = Object.create(null);
bare.inner = { v: 1 };
const o: any = {
  z: 1,
  box: { get n() { calls++; console.log("getter ran"); return 1; }, get boom() { console.log("getter ran"); throw new Error("boom"); }, a: [1, { b: 2 }],
    get write() { lab.addNote({ notes: ["getter ran"] }); return 3; } },
  list: [{ x: 1 }, , { get y() { calls++; console.log("getter ran"); return 2; } }],
  p: new Proxy({ q: 1 }, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap, setPrototypeOf: trap, isExtensible: trap, preventExtensions: trap, defineProperty: trap }),
  frozen: Object.freeze({ inner: { a: 1 }, arr: Object.freeze([1]) }),
  sealed: Object.seal({ s: 1 }),
  inst: new Lap(95),
  bare,
  map: new Map([["k", { v: 1 }]]),
  bytes: new Uint8Array(2),
  fn: () => calls,
};
o.self = o;
o.list.push(o.list);
Object.defineProperty(o, "hidden", { value: { h: 1 }, enumerable: false });
return o;`
		src := `const r = await saved.mixed({});
const before = r.fn();
const out = {
  before,
  keys: Object.keys(r).join(","),
  boxKeys: Object.keys(r.box).join(","),
  forIn: (() => { const k: string[] = []; for (const x in r.box.a[1]) k.push(x); return k.join(","); })(),
  json: JSON.stringify({ a: r.box.a, x: r.list[0], frozen: r.frozen, sealed: r.sealed, bare: r.bare, hidden: r.hidden }),
  spread: Object.keys({ ...r.list[0] }).length,
  inst: r.inst instanceof Object && r.box.a instanceof Array && Array.isArray(r.list) && r.list[0] instanceof Object,
  cls: r.inst.constructor.name, slowOwn: Object.keys(r.inst).join(","),
  bareProto: Object.getPrototypeOf(r.bare) === null, bareStr: typeof r.bare.toString, bareInner: "toString" in r.bare.inner,
  frozen: Object.isFrozen(r.frozen) && Object.isFrozen(r.frozen.arr) && Object.getPrototypeOf(r.frozen) === Object.prototype,
  sealed: Object.isSealed(r.sealed) && Object.getPrototypeOf(r.sealed) === Object.prototype,
  map: r.map instanceof Map && r.map.get("k").v, bytes: r.bytes.length, hole: 1 in r.list, cycle: r.self === r && r.list[3] === r.list,
  same: r.box.a[1] === r.box.a[1], missing: r.box.a[1].nope ?? "none",
  walked: [r.box, r.box.a, r.box.a[1], r.list[0], r.list[2], r.bare.inner, r.map.get("k")].map((x: any) => Object.getPrototypeOf(x) !== Object.getPrototypeOf(x === r.box.a ? [] : {})),
  after: r.fn(),
};
return out;`
		want := `{"before":0,"keys":"z,box,list,p,frozen,sealed,inst,bare,map,bytes,fn,self","boxKeys":"n,boom,a,write","forIn":"b",` +
			`"json":"{\"a\":[1,{\"b\":2}],\"x\":{\"x\":1},\"frozen\":{\"inner\":{\"a\":1},\"arr\":[1]},\"sealed\":{\"s\":1},\"bare\":{\"inner\":{\"v\":1}},\"hidden\":{\"h\":1}}",` +
			`"spread":1,"inst":true,"cls":"Lap","slowOwn":"ms","bareProto":true,"bareStr":"undefined","bareInner":true,"frozen":true,"sealed":true,` +
			`"map":1,"bytes":2,"hole":false,"cycle":true,"same":true,"missing":"none","walked":%s,"after":0}`
		// A run that does not fail marks nothing (see diagnose.go); the
		// marking itself, which only a second run does, is checked in
		// process with markFirst, which a worker does not see.
		for _, marked := range markedRuns(t) {
			markFirst = marked
			res := mustRun(t, sb, src, h)
			markFirst = false
			w := fmt.Sprintf(want, "[false,false,false,false,false,false,false]")
			if marked {
				w = fmt.Sprintf(want, "[true,true,true,true,true,true,false]")
			}
			if !jsonEqual(t, res.Value, w) {
				t.Errorf("marked first run %v: value %s\nwant  %s", marked, res.Value, w)
			}
			if len(res.Logs) != 0 || len(res.Calls) != 0 {
				t.Errorf("the saved code ran during the walk: logs %q, calls %+v", res.Logs, res.Calls)
			}
		}
		// A misread nested value: the hint's search of the result reads
		// no getter and no trap either (a run one would be logged, and
		// the throwing one would drop the hint).
		res, err := sb.Run(context.Background(), "const r = await saved.mixed({});\nreturn r.box.a.b.toFixed(1);", h)
		var se *Error
		if !errors.As(err, &se) || !strings.Contains(se.Message, "r.box.a is result.box.a, part of the result of saved.mixed (line 1): an array, which has no member b (read at line 2). Pick an element first") {
			t.Errorf("got %v, want the hint on r.box.a", err)
		}
		if res != nil && (len(res.Logs) != 0 || len(res.Calls) != 0) {
			t.Errorf("the saved code ran during the hint: logs %q, calls %+v", res.Logs, res.Calls)
		}
	})
}

// TestSavedResultWalkBounded checks that a result too large or too deep
// for the walk is returned whole, marked as far as the bounds reach, and
// that once an execution's walks have used their bound, a saved
// function's result is still marked at its top level.
func TestSavedResultWalkBounded(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		h := newSavedResultHost().(*savedResultHost)
		h.code["deep"] = "let v: any = { leaf: true };\nfor (let i = 0; i < 100; i++) v = { next: v };\nreturn v;"
		h.code["wide"] = "const rows: any[] = [];\nfor (let i = 0; i < 30000; i++) rows.push({ i });\nreturn { rows };"
		h.code["tree"] = "const t: any = {};\nfor (let i = 0; i < 64; i++) { const m: any = {}; for (let j = 0; j < 16; j++) m[\"m\" + j] = { a: { b: 1 }, c: [{ d: 1 }] }; t[\"t\" + i] = m; }\nreturn t;"
		src := `const d = await saved.deep({});
let v: any = d, depth = 0;
while (v.next) { v = v.next; depth++; }
const w = await saved.wide({});
const marked = (x: any) => Object.getPrototypeOf(x) !== Object.prototype;
return { depth, leaf: v.leaf, rows: w.rows.length, last: w.rows[29999].i, near: marked(d.next.next), far: marked(v), first: marked(w.rows[0]), late: marked(w.rows[29999]) };`
		if !strings.HasSuffix(t.Name(), "/in-process") {
			t.Skip("markFirst, which marks a first run, reaches no worker")
		}
		markFirst = true
		defer func() { markFirst = false }()
		res := mustRun(t, sb, src, h)
		want := `{"depth":100,"leaf":true,"rows":30000,"last":29999,"near":true,"far":false,"first":true,"late":false}`
		if !jsonEqual(t, res.Value, want) {
			t.Errorf("value %s\nwant  %s", res.Value, want)
		}
		src = `const marked = (x: any) => Object.getPrototypeOf(x) !== Object.prototype;
const a = await saved.tree({});
const b = await saved.tree({});
for (let i = 0; i < 3; i++) await saved.tree({});
const c = await saved.tree({});
return [marked(a), marked(a.t0.m0), marked(a.t63.m15), marked(b.t0.m0), marked(c), marked(c.t0), marked(c.t0.m0.a)];`
		res = mustRun(t, sb, src, h)
		if want := `[true,true,false,true,true,false,false]`; string(res.Value) != want {
			t.Errorf("marked %s, want %s", res.Value, want)
		}
	})
}
