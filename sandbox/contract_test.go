package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// explainHost is a funcHost that is also an Explainer, answering as a
// catalog with its own search would.
type explainHost struct {
	*funcHost
	asked []string
}

func (h *explainHost) Suggest(name string) string {
	h.asked = append(h.asked, "suggest "+name)
	return "Closest by search: lab.getSessions (sessions with their personal best lap)."
}

func (h *explainHost) Shape(name string) string {
	h.asked = append(h.asked, "shape "+name)
	if name == "lab.getSessions" {
		return "{ trackName: string; limit?: number }"
	}
	return ""
}

// contractHost has a data namespace (lab), a free one (codemode, as
// codemode binds its discovery) and functions that return a list or
// fail validation.
func contractHost() *explainHost {
	h := echoHost("lab.getWeakCorners", "lab.addNote")
	h.funcs["lab.getSessions"] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`[{"id":"s2","trackName":"Spa","bestLapMs":120500},{"id":"s1","trackName":"Spa","bestLapMs":121000}]`), nil
	}
	h.funcs["lab.getLapTimes"] = func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		if !strings.Contains(string(args), "sessionId") {
			return nil, errors.New("invalid arguments: sessionId: Required field")
		}
		return json.RawMessage(`[1,2]`), nil
	}
	h.funcs["lab.getTelemetry"] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("invalid arguments: maxPoints: must be at most 1440")
	}
	h.funcs["codemode.search"] = func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`[]`), nil
	}
	return &explainHost{funcHost: h}
}

func (h *explainHost) FreeNamespaces() []string { return []string{"codemode"} }

// report is what a test compares with its golden file: the error (kind,
// position, message), the failed calls with their positions, and the
// warnings, as a model would read them.
func report(res *Result, err error) string {
	var b strings.Builder
	var se *Error
	if errors.As(err, &se) {
		fmt.Fprintf(&b, "%s at %d:%d: %s\n", se.Kind, se.Line, se.Column, se.Message)
	}
	if res != nil {
		for _, c := range res.Calls {
			if c.Outcome != OutcomeOK {
				fmt.Fprintf(&b, "call %s %s at %d:%d: %s\n", c.Name, c.Outcome, c.Line, c.Column, c.Error)
			}
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(&b, "warning %s %s at %d:%d: %s\n", w.Kind, w.Function, w.Line, w.Column, w.Message)
		}
		if err == nil {
			fmt.Fprintf(&b, "value %s\n", res.Value)
		}
	}
	return b.String()
}

// TestContractReplies runs the mistakes of issue 26's classes that the
// sandbox answers, as a model writes them on first contact, in both
// modes, and compares what the model reads with a golden file: each reply
// must name the fix. The modes must agree byte for byte.
func TestContractReplies(t *testing.T) {
	cases := []replyCase{
		{"unknown-function", "const bests = await lab.getPersonalBests({ trackName: \"Spa\" });\nreturn bests;",
			[]string{"lab.getPersonalBests is not a function. Closest by search: lab.getSessions"}},
		{"wrong-namespace", "const weak = await codemode.getWeakCorners({ trackName: \"Spa\" });\nreturn weak;",
			[]string{"codemode.getWeakCorners is not a function. getWeakCorners is in another namespace: call lab.getWeakCorners(…)."}},
		{"positional-arguments", "const s = await lab.getSessions(\"Spa\", 5);\nreturn s;",
			[]string{"lab.getSessions takes one argument, an object with named members; got 2 arguments. Call it as lab.getSessions({ trackName: string; limit?: number })."}},
		{"string-argument", "const s = await lab.getSessions(\"Spa\");\nreturn s;",
			[]string{"lab.getSessions takes one argument, an object with named members; got a string. Call it as lab.getSessions({ trackName: string; limit?: number })."}},
		{"json-values", "const byTrack = new Map<string, number>();\nbyTrack.set(\"Spa\", 120500);\nconst tracks = new Set([\"Spa\", \"Monza\"]);\nconst laps = [1, undefined, 3];\nreturn { byTrack, tracks, laps, avg: 0 / 0, fmt: (x: number) => x, rows: [{ m: new Map() }, { m: new Map() }] };",
			[]string{"result.byTrack is a Map", "Object.fromEntries(map)", "result.tracks is a Set", "[...set]", "result.laps[1] is undefined", "result.avg is NaN", "result.fmt is a function", "result.rows[0].m is a Map", "(and 1 more like it)"}},
		{"set-in-arguments", "const ids = new Set([\"s1\"]);\nawait lab.addNote({ sessionIds: ids, note: \"x\" });\nreturn 1;",
			[]string{"in the arguments to lab.addNote, args.sessionIds is a Set"}},
		{"caught-errors", "const out: any = {};\nfor (const id of [\"a\", \"b\"]) {\n  try { out[id] = await lab.getTelemetry({ sessionId: id, maxPoints: 5000 }); } catch (e) { }\n}\nreturn out;",
			[]string{"call lab.getTelemetry error at 3:29: invalid arguments: maxPoints: must be at most 1440"}},
		{"retry-loop", "let data;\nwhile (!data) {\n  try { data = await lab.getTelemetry({ sessionId: \"s1\", maxPoints: 5000 }); } catch (e) { console.log(\"retrying\", String(e)); }\n}\nreturn data;",
			[]string{"CALL_LIMIT", "kept calling after being refused", "call lab.getTelemetry error at 3:26: invalid arguments: maxPoints: must be at most 1440"}},
		{"promise-all-over-limit", "const ids = Array.from({ length: 25 }, (_, i) => \"s\" + i);\nconst all = await Promise.all(ids.map((id) => lab.getLapTimes({ sessionId: id })));\nreturn all.length;",
			[]string{"CALL_LIMIT", "was still running when the script failed with the error above", "This is not a missing await"}},
		{"unawaited-iife", "(async () => {\n  const s = await lab.getSessions({});\n  await lab.addNote({ sessionId: s[0].id, note: \"x\" });\n})();\nreturn \"started\";",
			[]string{"warning UNAWAITED_CALL lab.getSessions at 4:1: the async function called here was not awaited", "its call to lab.getSessions (line 2)", "warning UNAWAITED_CALL lab.addNote at 4:1:", "its call to lab.addNote (line 3)"}},
		{"json-parse-object", "const s = await lab.getSessions({});\nconst rows = JSON.parse(s);\nreturn rows.length;",
			[]string{"JSON.parse takes a JSON string, but this value is already an array: host functions return parsed values, so use it directly"}},
		{"field-of-array", "const latest = await lab.getSessions({ limit: 1 });\nconst laps = await lab.getLapTimes({ sessionId: latest.id });\nreturn laps;",
			[]string{"lab.getLapTimes was called without \"sessionId\"", "latest is the result of lab.getSessions (line 1), declared `Session[]`: an array, which has no member id (read at line 2)", "latest[0].id"}},
		{"field-of-array-error", "const latest = await lab.getSessions({ limit: 1 });\nreturn latest.trackName.toUpperCase();",
			[]string{"latest is the result of lab.getSessions (line 1), declared `Session[]`: an array, which has no member trackName (read at line 2)"}},
		{"require", "const fs = require(\"fs\");\nreturn fs.readFileSync(\"laps.json\");",
			[]string{"require is not defined: the sandbox has no modules", "data comes from the host's functions, on lab (const rows = await lab.someFunction({ … }))"}},
		{"process", "const user = process.env.USER;\nreturn user;",
			[]string{"process is not defined", "Data comes from the host's functions, on lab"}},
	}
	checkReplies(t, cases, func() Host { return contractHost() })
}

// TestArrayMembersStayInvisible checks that the getters an array result
// gets for its elements' members change nothing a script can observe
// through JSON, keys, spread or iteration, and that assigning one works.
func TestArrayMembersStayInvisible(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		src := `const s = await lab.getSessions({});
const keys = Object.keys(s).join(",");
let forIn = 0;
for (const k in s) forIn++;
const spread = Object.keys({ ...s }).length;
(s as any).id = "set";
return { json: JSON.stringify(s).length, keys, forIn, spread, id: (s as any).id, len: s.length };`
		res := mustRun(t, sb, src, contractHost())
		if !jsonEqual(t, res.Value, `{"json":99,"keys":"0,1","forIn":2,"spread":2,"id":"set","len":2}`) {
			t.Errorf("value %s", res.Value)
		}
		if len(res.Warnings) != 0 {
			t.Errorf("warnings %+v", res.Warnings)
		}
	})
}

// ResultShape declares results as a catalog would: lab.getSessions
// returns Session[]; the files functions are those of an MCP server
// known only by its schema.
func (h *explainHost) ResultShape(name string) string {
	return map[string]string{
		"lab.getSessions":      "Session[]",
		"files.read_text_file": "{ content: string }",
		"files.directory_tree": "{ content: string }",
		"memory.read_graph":    "{ entities: { name: string; entityType: string; observations: string[] }[]; relations: { from: string; to: string; relationType: string }[] }",
		"lab.getNote":          "string",
		"lab.countLaps":        "number",
		"codemode.describe":    "string",
	}[name]
}

// resultHost is contractHost with functions whose results a model
// misreads: an object holding a string, a string of JSON, a graph, a
// bare string and a number, and a free describe.
func resultHost() *explainHost {
	h := contractHost()
	fixed := func(out string) func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(out), nil }
	}
	h.funcs["files.read_text_file"] = fixed(`{"content":"brake later\nturn 3"}`)
	h.funcs["files.directory_tree"] = fixed(`{"content":"[{\"name\":\"note.txt\",\"type\":\"file\"}]"}`)
	h.funcs["memory.read_graph"] = fixed(`{"entities":[{"name":"note","entityType":"file","observations":["x"]}],"relations":[]}`)
	h.funcs["lab.getNote"] = fixed(`"brake later"`)
	h.funcs["lab.countLaps"] = fixed(`12`)
	h.funcs["lab.store"] = func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		if strings.Contains(string(args), `"observations":[{`) {
			return nil, errors.New("Validation failed: entities[0].observations[0]: Expected string, got object")
		}
		return json.RawMessage(`{"ok":true}`), nil
	}
	h.funcs["codemode.describe"] = fixed(`"declare namespace lab {\n  function getSessions(args: { trackName: string }): Promise<Session[]>;\n}"`)
	return h
}

// TestResultOriginReplies runs issue 41's misreadings of results, in both
// modes: each reply names the call, its line, the declared result and
// the fix, and the modes agree byte for byte.
func TestResultOriginReplies(t *testing.T) {
	checkReplies(t, []replyCase{
		{"result-missing-method", "const path = \"/notes/note.txt\";\nconst text = await files.read_text_file({ path });\nreturn text.split(\"\\n\");",
			[]string{"TypeError: Object has no member 'split'. text is the result of files.read_text_file (line 2), declared `{ content: string }`: an object with member content, which has no member split (read at line 3): use text.content, the string in it, e.g. text.content.split(…)."}},
		{"result-field-of-string", "const note = await lab.getNote({});\nreturn note.content.toUpperCase();",
			[]string{"note is the result of lab.getNote (line 1), declared `string`: a string, which has no member content (read at line 2): use note itself."}},
		{"result-array-method-on-object", "const graph = await memory.read_graph({});\nreturn graph.filter((e: any) => e.entityType === \"file\");",
			[]string{"graph is the result of memory.read_graph (line 1), declared `{ entities:", "use graph.entities, the array in it, e.g. graph.entities.filter(…)."}},
		{"result-json-text", "const tree = await files.directory_tree({ path: \"/notes\" });\nreturn tree.content.filter((e: any) => e.type === \"file\");",
			[]string{"tree.content is result.content, part of the result of files.directory_tree (line 1), declared `{ content: string }`: a string of JSON text, which has no member filter (read at line 2): parse it first, JSON.parse(tree.content).filter(…)."}},
		{"result-number-as-object", "const n = await lab.countLaps({});\nreturn n.total.toFixed(1);",
			[]string{"n is the result of lab.countLaps (line 1), declared `number`: a number, which has no member total (read at line 2): use n itself."}},
		{"result-describe-as-object", "const d = await codemode.describe([\"lab.getSessions\"]);\nreturn d.args.map((a: any) => a.name);",
			[]string{"d is the result of codemode.describe (line 1), declared `string`: a string, which has no member args (read at line 2): use d itself."}},
		{"result-field-into-call", "const text = await files.read_text_file({ path: \"/notes/note.txt\" });\nawait lab.addNote({ note: text.text });\nreturn 1;",
			[]string{"lab.addNote was called without \"note\"", "text is the result of files.read_text_file (line 1), declared `{ content: string }`: an object with member content, which has no member text (read at line 2)"}},
		{"result-passed-whole", "const text = await files.read_text_file({ path: \"/notes/note.txt\" });\nawait lab.store({ entities: [{ name: \"note\", observations: [text] }] });\nreturn 1;",
			[]string{"warning VALUE lab.store at 2:11: in the arguments to lab.store, args.entities[0].observations[0] is the result of files.read_text_file (line 1), declared `{ content: string }`, an object, passed whole: pass the member you meant (.content)."}},
		{"result-object-string", "const text = await files.read_text_file({ path: \"/notes/note.txt\" });\nawait lab.addNote({ notes: [String(text)] });\nreturn 1;",
			[]string{"warning VALUE lab.addNote at 2:11: in the arguments to lab.addNote, args.notes[0] holds \"[object Object]\"", "the object is the result of files.read_text_file (line 1), declared `{ content: string }`. Pass the member you meant (.content)"}},
	}, func() Host { return resultHost() })
}

// TestResultOriginsStayInvisible checks that the recording prototypes
// of result objects and of strings and numbers change nothing a script
// observes: JSON, keys, for…in, spread, "in", instanceof, assignment,
// methods of Object.prototype, and misses that are not errors; nested
// values (a row, which keeps the plain prototype) included, and getters
// the script put on a result are not called by the recording of a later
// result.
func TestResultOriginsStayInvisible(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		src := `const g = await memory.read_graph({});
const keys = Object.keys(g).join(",");
let forIn = 0;
for (const k in g) forIn++;
(g as any).extra = 1;
let calls = 0;
Object.defineProperty(g.entities[0], "counted", { get() { calls++; return 1; }, enumerable: false });
Object.defineProperty(g.entities, "counted", { get() { calls++; return 2; }, enumerable: false });
const s = await lab.getNote({});
const again = await memory.read_graph({});
const nested = { calls, row: Object.keys(again.entities[0]).join(","), obs: Array.isArray(again.entities[0].observations), same: again.entities[0] === again.entities[0],
  rowProto: Object.getPrototypeOf(again.entities[0]) === Object.prototype, missing: (again.entities[0] as any).nope ?? "none", counted: (g.entities[0] as any).counted + (g.entities as any).counted };
return { nested, json: JSON.stringify(g.entities[0]), keys, forIn, spread: Object.keys({ ...g }).length, has: "entities" in g,
  inst: g instanceof Object && g.entities instanceof Array, own: g.hasOwnProperty("entities"), extra: (g as any).extra,
  missing: (g as any).nope ?? "none", str: (s as any).nope ?? s.length, num: String(12.5), tag: Object.prototype.toString.call(g),
  protos: [(s as any).__proto__ === String.prototype, (12 as any).__proto__ === Number.prototype, (g as any).__proto__ === Object.getPrototypeOf(g)] };`
		for _, marked := range markedRuns(t) {
			markFirst = marked
			res := mustRun(t, sb, src, resultHost())
			markFirst = false
			want := `{"nested":{"calls":0,"row":"name,entityType,observations","obs":true,"same":true,"rowProto":true,"missing":"none","counted":3},"json":"{\"name\":\"note\",\"entityType\":\"file\",\"observations\":[\"x\"]}","keys":"entities,relations","forIn":2,"spread":3,"has":true,"inst":true,"own":true,"extra":1,"missing":"none","str":11,"num":"12.5","tag":"[object Object]","protos":[true,true,true]}`
			if !jsonEqual(t, res.Value, want) {
				t.Errorf("marked first run %v: value %s", marked, res.Value)
			}
			if len(res.Warnings) != 0 {
				t.Errorf("marked first run %v: warnings %+v", marked, res.Warnings)
			}
		}
	})
}

// markedRuns is whether to mark a first run (markFirst) in each run of a
// test of the marking: in process, once without and once with; in a
// worker, which markFirst does not reach, once without.
func markedRuns(t *testing.T) []bool {
	if strings.HasSuffix(t.Name(), "/in-process") {
		return []bool{false, true}
	}
	return []bool{false}
}

// TestResultOriginsHostile checks that a result the script gave a
// throwing getter, and strings and numbers the script made itself, give
// the plain error with no hint and no internal error.
func TestResultOriginsHostile(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		for src, want := range map[string]string{
			"const g = await memory.read_graph({});\nObject.defineProperty(g, \"boom\", { get() { throw new Error(\"boom\"); }, enumerable: true });\nreturn g.filter((e: any) => e);": "TypeError: Object has no member 'filter'",
			"await lab.getNote({});\nconst s = \"made here\";\nreturn (s as any).content.length;":                                                                                      "TypeError: Cannot read property 'length' of undefined",
			"const g = await memory.read_graph({});\nconst p = new Proxy({}, { get() { throw new Error(\"trap\"); } });\n(g as any).p = p;\nreturn (g as any).nope.x;":                 "TypeError: Cannot read property 'x' of undefined",
		} {
			_, err := sb.Run(context.Background(), src, resultHost())
			var se *Error
			if !errors.As(err, &se) || se.Kind != KindRuntime || !strings.HasPrefix(se.Message, want) {
				t.Errorf("%s:\n%v, want a RUNTIME error starting %q", src, err, want)
			}
		}
	})
}

// TestResultOriginNotBlamed checks that a missed read of a result's
// optional member is not blamed for an error on the same line that
// comes from another value.
func TestResultOriginNotBlamed(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		src := "const g = await memory.read_graph({});\nconst local: any = {};\nreturn (g as any).note ?? local.missing.length;"
		_, err := sb.Run(context.Background(), src, resultHost())
		var se *Error
		if !errors.As(err, &se) || se.Message != "TypeError: Cannot read property 'length' of undefined" {
			t.Errorf("got %v, want the plain TypeError", err)
		}
	})
}
