package codemode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/brakinglab/codemode-go/internal/auditargs"
)

func TestAuditArgs(t *testing.T) {
	many := `{`
	for i := range 40 {
		if i > 0 {
			many += ","
		}
		many += fmt.Sprintf(`"k%02d":%d`, i, i)
	}
	many += `}`
	long := `{"` + strings.Repeat("a", 100) + `":"secret"}`
	tests := []struct {
		mode AuditArgs
		args string
		want string
	}{
		{AuditArgKeys, `{"trackName":"Spa","limit":5}`, `{"limit":1,"trackName":5}`},
		{AuditArgKeys, `[1,2]`, `{"":5}`},
		{AuditArgKeys, long, `{"` + strings.Repeat("a", 64) + `…":8}`},
		{AuditArgsNone, `{"a":1}`, `null`},
		{AuditArgValues, `{"a":"v"}`, `{"a":"v"}`},
	}
	for _, tt := range tests {
		got, _ := json.Marshal(auditArgs(tt.mode, json.RawMessage(tt.args)))
		if string(got) != tt.want {
			t.Errorf("auditArgs(%d, %s) = %s, want %s", tt.mode, tt.args, got, tt.want)
		}
	}
	// Truncation never splits a character: 63 ASCII bytes then "é" (2
	// bytes) across the 64-byte bound, and a key of 3-byte runes.
	for _, tt := range []struct{ key, want string }{
		{strings.Repeat("a", 63) + strings.Repeat("é", 10), strings.Repeat("a", 63) + "…"},
		{strings.Repeat("€", 30), strings.Repeat("€", 21) + "…"},
	} {
		args, _ := json.Marshal(map[string]int{tt.key: 1})
		for k := range auditArgs(AuditArgKeys, args).(map[string]int) {
			if k != tt.want || !utf8.ValidString(k) {
				t.Errorf("key %q recorded as %q, want %q", tt.key, k, tt.want)
			}
		}
	}
	m := auditArgs(AuditArgKeys, json.RawMessage(many)).(map[string]int)
	if len(m) != auditargs.MaxKeys+1 || m["…"] != 8 {
		t.Errorf("40 keys recorded as %d entries, rest %d", len(m), m["…"])
	}
}

// TestIndentedSize checks the estimate against json.Indent.
func TestIndentedSize(t *testing.T) {
	for _, v := range []string{
		`1`, `"a,b:[c]"`, `[]`, `{}`, `[1,2,3]`, `{"a":1,"b":[1,{"c":"x\"y"}]}`, `[[[[1]]],[2]]`,
	} {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(v), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got, want := indentedSize([]byte(v)), b.Len(); got < want {
			t.Errorf("indentedSize(%s) = %d, under the real %d", v, got, want)
		}
	}
	deep := strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	if out := indentJSON(json.RawMessage(deep)); len(out) != len(deep) {
		t.Errorf("a 4 KB nested array was indented to %d bytes", len(out))
	}
}
