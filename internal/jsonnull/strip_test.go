package jsonnull_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/jsonnull"
)

func TestStrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"b":null}`, `{"a":1}`},
		{`{"b":null,"a":1}`, `{"a":1}`},
		{`{"b":null}`, `{}`},
		{`{"a":null,"b":null,"c":3,"d":null}`, `{"c":3}`},
		{`[null,{"a":null},[]]`, `[null,{},[]]`},
		{`{"a":[],"b":{},"c":[null]}`, `{"a":[],"b":{},"c":[null]}`},
		{`{"a":{"b":{"c":null,"d":"null"}}}`, `{"a":{"b":{"d":"null"}}}`},
		{`{"null":null,"x":"a\"null\\","y":nullish}`, `{"x":"a\"null\\","y":nullish}`},
		{` { "a" : null , "b" : [ 1 , null ] } `, `{"b":[1,null]}`},
		{`null`, `null`},
		{`{"a":false,"b":0,"c":""}`, `{"a":false,"b":0,"c":""}`},
	} {
		got, err := jsonnull.Strip([]byte(tc.in))
		if err != nil {
			t.Errorf("Strip(%s): %v", tc.in, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("Strip(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestStripWithoutNullReturnsInput(t *testing.T) {
	in := []byte(`{"a":[1,2],"b":"x"}`)
	got, err := jsonnull.Strip(in)
	if err != nil || &got[0] != &in[0] {
		t.Errorf("Strip copied input without nulls (err %v)", err)
	}
}

func TestStripInvalid(t *testing.T) {
	for _, in := range []string{`{"a":null`, `{"a" null}`, `[null,`, `{null:1}`, `{"a":null}x`, strings.Repeat("[", 20000) + "null" + strings.Repeat("]", 20000)} {
		if _, err := jsonnull.Strip([]byte(in)); err == nil {
			t.Errorf("Strip(%.20s…) accepted invalid or too deep input", in)
		}
	}
}

// FuzzStrip checks Strip against encoding/json: for valid input the output
// is valid JSON equal to the input with null object members deleted.
func FuzzStrip(f *testing.F) {
	for _, s := range []string{`{"a":null}`, `[{"a":null,"b":[null]}]`, `{"a":"\u0000null","b":{"c":null}}`, `"null"`, `1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			_, _ = jsonnull.Strip(in) // must not panic
			return
		}
		orig := bytes.Clone(in)
		got, err := jsonnull.Strip(in)
		if !bytes.Equal(in, orig) {
			t.Fatal("Strip modified its input")
		}
		if err != nil {
			if bytes.Count(in, []byte("[")) > 5000 || bytes.Count(in, []byte("{")) > 5000 {
				return // depth limit
			}
			t.Fatalf("Strip(%q): %v", in, err)
		}
		if !json.Valid(got) {
			t.Fatalf("Strip(%q) = invalid %q", in, got)
		}
		var want, have any
		_ = json.Unmarshal(in, &want)
		_ = json.Unmarshal(got, &have)
		if !reflect.DeepEqual(dropNulls(want), have) {
			t.Fatalf("Strip(%q) = %q", in, got)
		}
	})
}

func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
			} else {
				v[k] = dropNulls(e)
			}
		}
	case []any:
		for i, e := range v {
			v[i] = dropNulls(e)
		}
	}
	return v
}

func BenchmarkStrip(b *testing.B) {
	var rows []string
	for i := 0; i < 50; i++ {
		rows = append(rows, `{"id":"ses_1","track":"Spa","bestLapMs":null,"tags":[],"notes":{"a":null,"b":"late apex"},"laps":[1,2,3]}`)
	}
	in := []byte("[" + strings.Join(rows, ",") + "]")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonnull.Strip(in); err != nil {
			b.Fatal(err)
		}
	}
}
