package typegen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/typegen"
)

// ajvScript validates each {schema, data} pair read from stdin with Ajv's
// draft 2020-12 validator in strict mode and prints the verdicts.
const ajvScript = `
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map(({schema, data}) => {
  const ajv = new Ajv2020({strict: true, allErrors: true});
  addFormats(ajv);
  return ajv.compile(schema)(data);
});
process.stdout.write(JSON.stringify(out));
`

// TestSchemaAgreesWithCatalog checks, with a real JSON Schema validator,
// that the input schemas accept exactly what the catalog accepts on a set
// of arguments that probe each rule.
func TestSchemaAgreesWithCatalog(t *testing.T) {
	c := fixture()
	infos := map[string]catalog.FuncInfo{}
	for _, f := range c.Functions() {
		infos[f.Name] = f
	}
	const corner = `{"corner":1,"verdict":"good"}`
	samples := []struct{ fn, args string }{
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[` + corner + `]}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[` + corner + `],"_validateOnly":true}`},
		{"saveReport", `{"sessionId":"s","summary":"short","corners":[` + corner + `]}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[]}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[{"corner":0,"verdict":"good"}]}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[{"corner":1,"verdict":"bad"}]}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[{"corner":1,"verdict":"good","tags":["apex","nope"]}]}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[{"corner":1,"verdict":"good","extra":1}]}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[` + corner + `],"focus":"pace","meta":{"a":"b"},"extra":[1]}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[` + corner + `],"focus":"speed"}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[` + corner + `],"meta":{"a":1}}`},
		{"saveReport", `{"summary":"0123456789","corners":[` + corner + `]}`},
		{"saveReport", `{"sessionId":"s","summary":"0123456789","corners":[{"corner":1.5,"verdict":"good"}]}`},
		{"createPlan", `{"reportId":"r","steps":[{"title":"a","laps":3,"drill":{"title":"b","laps":1}}]}`},
		{"createPlan", `{"reportId":"r","steps":[{"title":"a","laps":2}]}`},
		{"createPlan", `{"reportId":"r","steps":[{"title":"a","laps":3,"drill":{"title":"b","laps":1,"x":0}}]}`},
		{"createPlan", `{"reportId":"r","steps":[{"title":"a","laps":3}],"notes":{"text":"t","pin":true}}`},
		{"createPlan", `{"reportId":"r","steps":[{"title":"a","laps":3}],"notes":{"pin":true}}`},
		{"getLap", `{"sessionId":"s","lap":1}`},
		{"getLap", `{"sessionId":"s","lap":0}`},
		{"getLap", `{"sessionId":"s","lap":"1"}`},
		{"getSessions", `{"since":"2026-03-01T14:30:00Z"}`},
		{"getSessions", `{"since":"yesterday"}`},
	}
	var pairs []ajvPair
	for _, s := range samples {
		schema, err := typegen.InputSchema(infos[s.fn])
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, ajvPair{schema, json.RawMessage(s.args)})
	}
	verdicts, ok := runAjv(t, pairs)
	if !ok {
		return
	}
	ctx := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "u", Scopes: []string{"sessions:read", "reports:write", "plans:write"}})
	for i, s := range samples {
		_, err := c.Call(ctx, s.fn, json.RawMessage(s.args))
		var ve *catalog.ValidationError
		accepted := !errors.As(err, &ve)
		if accepted != verdicts[i] {
			t.Errorf("%s(%s): catalog accepts = %v, schema valid = %v (%v)", s.fn, s.args, accepted, verdicts[i], err)
		}
	}
}

type ajvPair struct {
	Schema json.RawMessage `json:"schema"`
	Data   json.RawMessage `json:"data"`
}

// runAjv returns Ajv's verdict on each pair; ok is false when the test was
// skipped because Ajv is not installed (outside CI).
func runAjv(t *testing.T, pairs []ajvPair) (verdicts []bool, ok bool) {
	t.Helper()
	// ajv and ajv-formats come with @modelcontextprotocol/sdk.
	tsclienttest.Need(t, "ajv", "ajv-formats")
	input, _ := json.Marshal(pairs)
	cmd := exec.Command(tsclienttest.Node(), "-e", ajvScript)
	cmd.Dir = tsclienttest.Modules()
	cmd.Stdin = bytes.NewReader(input)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("ajv: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &verdicts); err != nil || len(verdicts) != len(pairs) {
		t.Fatalf("ajv output %s: %v", out, err)
	}
	return verdicts, true
}
