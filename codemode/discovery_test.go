package codemode_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

func descriptionFor(t *testing.T, d codemode.Discovery, budget int) string {
	t.Helper()
	s, err := codemode.New(newTestCatalog(t).Catalog, &codemode.Options{Principal: &catalog.Principal{Subject: "tester"}, Discovery: d, DiscoveryBudget: budget, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.ToolDescription()
}

func TestDiscoveryModes(t *testing.T) {
	full := descriptionFor(t, codemode.DiscoveryFull, 0)
	index := descriptionFor(t, codemode.DiscoveryIndex, 0)
	for _, want := range []string{"function getSessions(args?: {", "): Promise<Session[]>;", "const saveCoachingReport: Write<{", "const deleteSession: Write<"} {
		if !strings.Contains(full, want) {
			t.Errorf("full description lacks %q", want)
		}
	}
	if strings.Contains(full, "codemode.search") {
		t.Error("full description advertises discovery it does not need")
	}
	for _, want := range []string{
		"- getSessions: Lists the driver's sessions, most recent first.",
		"- deleteSession: Deletes a session and its laps.",
		"function search(query: string",
		"function describe(names: string | string[]): Promise<string>;",
		"unknown argument fields are rejected", // the rules stay
		"READ-ONLY functions require scope sessions:read.",
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index description lacks %q:\n%s", want, index)
		}
	}
	if strings.Contains(index, "function getSessions(") {
		t.Error("index description carries declarations")
	}
	if len(index) >= len(full) {
		t.Errorf("index description (%d chars) is not shorter than the full one (%d)", len(index), len(full))
	}

	// Auto switches exactly at the budget (tokens are characters / 4).
	tokens := (len(full) + 3) / 4
	if got := descriptionFor(t, codemode.DiscoveryAuto, tokens); got != full {
		t.Errorf("auto at a budget of %d tokens (the full size) is not the full description", tokens)
	}
	if got := descriptionFor(t, codemode.DiscoveryAuto, tokens-1); got != index {
		t.Errorf("auto one token under the full size is not the index description")
	}
	if got := descriptionFor(t, codemode.DiscoveryAuto, 0); got != full {
		t.Errorf("auto with the default budget (%d tokens) should keep this %d-token description full", codemode.DefaultDiscoveryBudget, tokens)
	}
}

func TestDiscoveryReservedNamespace(t *testing.T) {
	cat, err := catalog.New(codemode.DiscoveryNamespace, nil)
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[struct{}, int]{Name: "count", Tier: catalog.ReadOnly, Handler: func(context.Context, struct{}) (int, error) { return 1, nil }})
	if _, err := codemode.New(cat, &codemode.Options{Principal: &catalog.Principal{Subject: "tester"}, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}}); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Fatalf("New with namespace %q: err = %v, want a reserved-namespace error", codemode.DiscoveryNamespace, err)
	}
	if _, err := codemode.New(newTestCatalog(t).Catalog, &codemode.Options{Principal: &catalog.Principal{Subject: "tester"}, Discovery: 7, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}}); err == nil {
		t.Fatal("New accepted an unknown Discovery")
	}
}

// TestDiscoverySearchDescribeCall is the end-to-end case: over Streamable
// HTTP with the official go-sdk client, one script searches, describes and
// then calls the function it found. Discovery is free: with a limit of one
// host call, the one real call still succeeds and is the only one listed.
func TestDiscoverySearchDescribeCall(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) {
		o.Discovery = codemode.DiscoveryIndex
		o.Limits.MaxCalls = 1
	})
	cs := ts.connect(t, ts.token("driver", scopeRead), nil)
	res := run(t, cs, `
const hits = await codemode.search("corners where the driver loses time", { limit: 3 });
const decl = await codemode.describe([hits[0].name]);
const again = await codemode.search("braking metrics");
const weak = await brakinglab[hits[0].name]({ trackName: "Spa", limit: 2 });
return { first: hits[0], tiers: hits.map((h) => h.tier), declared: decl.includes("function " + hits[0].name + "(args: {"), field: decl.includes("trackName: string;"), braking: again[0].name, weak: weak.length };`)
	if res.IsError {
		t.Fatalf("execution failed: %s", text(res))
	}
	st := structuredOf(t, res)
	var got struct {
		First    struct{ Name, Tier, Summary string }
		Declared bool
		Field    bool
		Braking  string
		Weak     int
	}
	if err := json.Unmarshal(st.Result, &got); err != nil {
		t.Fatal(err)
	}
	if got.First.Name != "getWeakCorners" || got.First.Tier != "READ-ONLY" || !strings.HasPrefix(got.First.Summary, "Ranks the corners") {
		t.Errorf("top hit = %+v, want getWeakCorners", got.First)
	}
	if !got.Declared || !got.Field {
		t.Errorf("describe did not return the declarations of getWeakCorners: %s", st.Result)
	}
	if got.Braking != "getBrakingZones" {
		t.Errorf("search(braking metrics) top hit = %q, want getBrakingZones", got.Braking)
	}
	if got.Weak != 2 {
		t.Errorf("the call found by search returned %d corners, want 2", got.Weak)
	}
	if len(st.Calls) != 1 || st.Calls[0].Function != "brakinglab.getWeakCorners" {
		t.Errorf("calls = %+v, want only brakinglab.getWeakCorners: discovery is not a host call", st.Calls)
	}
}

// TestDiscoveryShowsOnlyWhatTheToolCalls checks that discovery never
// shows functions the tool cannot call (search lists none, describe
// declares none: asked for a write, the read-only tool names the tool
// that has it, as a call does), and that it needs no scope.
func TestDiscoveryShowsOnlyWhatTheToolCalls(t *testing.T) {
	ts := startServer(t, func(o *codemode.Options) { o.ReadOnlyTool = true })
	// A principal without any scope may look functions up, not call them.
	cs := ts.connect(t, ts.token("nobody"), nil)
	script := `
const hits = await codemode.search("delete session laps", { limit: 50 });
let err = "";
try { await codemode.describe("deleteSession"); } catch (e) { err = e.message; }
let callErr = "";
try { await brakinglab.getSessions(); } catch (e) { callErr = e.message; }
return { names: hits.map((h) => h.name), err, callErr };`
	type answer struct {
		Names   []string
		Err     string
		CallErr string
	}
	decode := func(res *mcp.CallToolResult) answer {
		t.Helper()
		if res.IsError {
			t.Fatalf("execution failed: %s", text(res))
		}
		var a answer
		if err := json.Unmarshal(structuredOf(t, res).Result, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	ro, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ReadOnlyToolName, Arguments: map[string]any{"code": script}})
	if err != nil {
		t.Fatal(err)
	}
	a := decode(ro)
	for _, n := range a.Names {
		if n != "getSessions" && n != "getWeakCorners" && n != "getBrakingZones" {
			t.Errorf("the read-only tool's search revealed %s", n)
		}
	}
	if !strings.Contains(a.Err, "brakinglab.deleteSession is not available in execute_readonly_code because it writes (tier MUTATING); call it from execute_code.") {
		t.Errorf("the read-only tool's describe(deleteSession) error = %q, want it sent to execute_code", a.Err)
	}
	if !strings.Contains(a.CallErr, scopeRead) {
		t.Errorf("a call without scope should still be refused naming %s, got %q", scopeRead, a.CallErr)
	}
	all := decode(run(t, cs, script))
	if len(all.Names) == 0 || all.Names[0] != "deleteSession" {
		t.Errorf("execute_code search(delete session laps) = %v, want deleteSession first", all.Names)
	}
	if all.Err != "" {
		t.Errorf("execute_code describe(deleteSession) failed: %s", all.Err)
	}
}

func TestDiscoveryMistakes(t *testing.T) {
	ts := startServer(t, nil)
	cs := ts.connect(t, ts.token("driver", allScopes...), nil)
	for _, tc := range []struct{ code, want string }{
		{`return await codemode.describe(["getSesions"]);`, `has no function "getSesions" (did you mean "getSessions"?)`},
		{`return await codemode.search("");`, `codemode.search takes a query string`},
		{`return await codemode.search("x", { limit: 0 });`, `limit must be a whole number from 1 to 50`},
		{`return await codemode.describe();`, `codemode.describe takes a function name or an array of names`},
		{`return await codemode.lookup("x");`, `codemode.lookup is not a function`},
	} {
		res := run(t, cs, tc.code)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s\n got: %s\nwant an error containing %q", tc.code, text(res), tc.want)
		}
	}
}

func TestFunctionResourceTemplate(t *testing.T) {
	ts := startServer(t, nil)
	cs := ts.connect(t, ts.token("driver", scopeRead), nil)
	ctx := context.Background()
	tpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const want = "codemode://functions/brakinglab/{name}.d.ts"
	found := false
	for _, tpl := range tpls.ResourceTemplates {
		found = found || tpl.URITemplate == want
	}
	if !found {
		t.Fatalf("resource templates lack %s", want)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "codemode://functions/brakinglab/getWeakCorners.d.ts"})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Contents[0].Text
	for _, w := range []string{"function getWeakCorners(args: {", "}): Promise<WeakCorner[]>;", "interface WeakCorner {", "limit?: int; // @minimum 1 @maximum 20", "type int = number;"} {
		if !strings.Contains(got, w) {
			t.Errorf("resource lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "getSessions") {
		t.Errorf("one function's resource declares others:\n%s", got)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "codemode://functions/brakinglab/nope.d.ts"}); err == nil {
		t.Error("reading an unknown function's resource succeeded")
	}

	// The same function's JSON Schemas, from typegen.InputSchema and
	// OutputSchema.
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "codemode://functions/brakinglab/getWeakCorners.schema.json"})
	if err != nil {
		t.Fatal(err)
	}
	var schemas struct {
		Input struct {
			Properties map[string]struct {
				Minimum, Maximum float64
			}
			AdditionalProperties *bool
		}
		Output struct{ Type string }
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &schemas); err != nil {
		t.Fatalf("schema resource is not JSON: %v\n%s", err, res.Contents[0].Text)
	}
	if l := schemas.Input.Properties["limit"]; l.Minimum != 1 || l.Maximum != 20 || schemas.Output.Type != "array" {
		t.Errorf("getWeakCorners schemas: %s", res.Contents[0].Text)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "codemode://functions/brakinglab/nope.schema.json"}); err == nil {
		t.Error("reading an unknown function's schema succeeded")
	}
}
