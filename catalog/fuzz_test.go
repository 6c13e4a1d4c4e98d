package catalog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// FuzzCall feeds arbitrary bytes as arguments. Call must never panic, a
// handler must only ever see arguments that passed validation (the fixture
// handler has no bugs for valid input, so an internal error means bad data
// got through), every error must marshal to its documented shape, and
// results must be JSON objects without null members.
func FuzzCall(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `1`,
		`{"track":"Spa","limit":2}`,
		`{"limit":"5"}`, `{"limit":1.5}`, `{"limit":1e400}`, `{"limit":-0}`,
		`{` + goodReport + `}`,
		`{` + goodReport + `,"_validateOnly":true}`,
		`{` + goodReport + `,"_validateOnly":"yes"}`,
		`{"sessionId":"ses_1","summary":"ab","corners":[{"corner":0,"verdict":"meh","tags":["x"]}]}`,
		`{"sessionId":"ses_1","summary":"abc","corners":[null,{},[]],"weights":{"a":-1},"labels":{"1":"x","y":"z"}}`,
		`{"sessionId":"ses_1","summary":"abc","corners":[{"corner":1,"verdict":"good"}],"when":"2026-03-01T14:30:00Z","laps":[1,2],"extra":{"a":[null]},"any":null}`,
		`{"sessionId":"ses_1","sessionId":"ses_2"}`,
		`{"a":{"b":{"c":[[[[[[[[[[[]]]]]]]]]]]}}}`,
		"{\"track\":\"\xff\"}",
	} {
		f.Add(uint8(0), []byte(seed))
		f.Add(uint8(1), []byte(seed))
	}
	c, _ := newFixture(&catalog.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	names := []string{"getSessions", "saveReport", "status"}
	f.Fuzz(func(t *testing.T, fn uint8, args []byte) {
		name := names[int(fn)%len(names)]
		out, err := c.Call(driver(), name, args)
		if err == nil {
			if !json.Valid(out) {
				t.Fatalf("invalid result JSON %q", out)
			}
			if bytes.Contains(out, []byte(":null")) {
				t.Fatalf("null member in result %s", out)
			}
			return
		}
		var ie *catalog.InternalError
		if errors.As(err, &ie) {
			t.Fatalf("internal error for %q: %v", args, ie.Unwrap())
		}
		b, merr := json.Marshal(err)
		if merr != nil {
			t.Fatalf("%T does not marshal: %v", err, merr)
		}
		var ve *catalog.ValidationError
		if !errors.As(err, &ve) {
			var me *catalog.Error
			if !errors.As(err, &me) || me.Code == "" || me.Message == "" {
				t.Fatalf("unexpected error %T %s", err, b)
			}
			return
		}
		checkValidationShape(t, b)
	})
}

// checkValidationShape asserts b is exactly
// {"error":"Validation failed","issues":[{"path":[string|int…],"message":string}…]}
// with at least one issue and a non-empty message in each.
func checkValidationShape(t *testing.T, b []byte) {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatalf("not an object: %s", b)
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"error", "issues"}) || string(top["error"]) != `"Validation failed"` {
		t.Fatalf("wrong top-level shape: %s", b)
	}
	var issues []map[string]json.RawMessage
	if err := json.Unmarshal(top["issues"], &issues); err != nil || len(issues) == 0 {
		t.Fatalf("issues must be a non-empty array: %s", b)
	}
	for _, is := range issues {
		if len(is) != 2 {
			t.Fatalf("issue must have exactly path and message: %s", b)
		}
		var msg string
		if err := json.Unmarshal(is["message"], &msg); err != nil || msg == "" {
			t.Fatalf("bad message in %s", b)
		}
		var path []any
		d := json.NewDecoder(bytes.NewReader(is["path"]))
		d.UseNumber()
		if err := d.Decode(&path); err != nil || path == nil {
			t.Fatalf("path must be an array: %s", b)
		}
		for _, p := range path {
			switch p := p.(type) {
			case string:
			case json.Number:
				if _, err := p.Int64(); err != nil {
					t.Fatalf("path index %s is not an integer: %s", p, b)
				}
			default:
				t.Fatalf("path element %v is neither a name nor an index: %s", p, b)
			}
		}
	}
}
