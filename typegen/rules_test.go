package typegen_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/typegen"
)

// ruleCase is one validate tag on a member v, with a value decoding
// accepts and one it rejects ("" for none: the bad call then sends {}).
type ruleCase struct {
	tag, good, bad string
	add            func(*catalog.Catalog) error
}

func addRule[T any](c *catalog.Catalog) error {
	return catalog.Add(c, catalog.Func[T, struct{}]{Name: "f", Tier: catalog.ReadOnly, Handler: func(context.Context, T) (struct{}, error) { return struct{}{}, nil }})
}

// TestEveryRuleAgrees walks every validate tag the rule table supports
// and checks that decoding enforces it, that the model's message is the
// table's, that the .d.ts declares it and that InputSchema carries the
// same keywords; with Ajv installed, that the schema accepts the good
// value and rejects the bad one wherever it has keywords.
func TestEveryRuleAgrees(t *testing.T) {
	covered := map[string]bool{"omitempty": true}
	// Presence rules naming another member's value are checked by decoding
	// only through required_without; the rest share its spec.
	for _, tag := range []string{"required_if", "required_unless", "required_with", "required_with_all"} {
		covered[tag] = true
	}
	var pairs []ajvPair
	var wantValid []bool
	var names []string
	ctx := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "u"})
	for _, rc := range ruleCases {
		tagName, param, _ := strings.Cut(rc.tag, "=")
		covered[tagName] = true
		t.Run(rc.tag, func(t *testing.T) {
			c, err := catalog.New("ns", nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := rc.add(c); err != nil {
				t.Fatal(err)
			}
			info := c.Functions()[0]
			field := jsontype.Fields(info.In)[0]
			kind := field.Type.Kind()
			spec, ok := jsontype.LookupRule(tagName)
			if !ok {
				t.Fatalf("no spec for %s", tagName)
			}
			in, _ := info.Nodes()
			param = in.MemberNames(tagName, param)
			msg := spec.Message(kind, param)
			if msg == "" || strings.HasPrefix(msg, "Failed the") {
				t.Errorf("message %q is not specific", msg)
			}

			good := `{"v":` + rc.good + `}`
			if _, err := c.Call(ctx, "f", json.RawMessage(good)); err != nil {
				t.Errorf("good %s: %v", good, err)
			}
			bad := `{}`
			if rc.bad != "" {
				bad = `{"v":` + rc.bad + `}`
			}
			_, err = c.Call(ctx, "f", json.RawMessage(bad))
			var ve *catalog.ValidationError
			if !errors.As(err, &ve) || len(ve.Issues) != 1 || ve.Issues[0].Message != msg {
				t.Errorf("bad %s: error %v, want the one issue %q", bad, err, msg)
			}

			decl, err := typegen.Generate(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range spec.Doc(kind, param) {
				if !strings.Contains(decl, line) {
					t.Errorf(".d.ts lacks %q:\n%s", line, decl)
				}
			}
			if members, _ := argMembers(decl, "f"); tagName == "required" && !members["v"] {
				t.Errorf(".d.ts does not declare v required:\n%s", decl)
			}
			if jsontype.CrossMember(tagName) && !strings.Contains(decl, "function f(args: {") {
				t.Errorf(".d.ts offers f(args?) though {} fails:\n%s", decl)
			}

			raw, err := typegen.InputSchema(info)
			if err != nil {
				t.Fatal(err)
			}
			var schema struct {
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
			}
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatal(err)
			}
			v := schema.Properties["v"]
			kws := spec.SchemaKeywords(kind, param)
			for _, kw := range kws {
				want, _ := json.Marshal(kw.Value)
				got, _ := json.Marshal(v[kw.Name])
				if string(got) != string(want) {
					t.Errorf("schema %s = %s, want %s (%s)", kw.Name, got, want, raw)
				}
			}
			switch {
			case tagName == "required":
				if !reflect.DeepEqual(schema.Required, []string{"v"}) {
					t.Errorf("schema required = %v (%s)", schema.Required, raw)
				}
			case len(kws) == 0:
				if d, _ := v["description"].(string); !strings.Contains(d, msg) {
					t.Errorf("schema description %q lacks %q", d, msg)
				}
			}
			pairs = append(pairs, ajvPair{raw, json.RawMessage(good)})
			wantValid = append(wantValid, true)
			names = append(names, rc.tag+" good")
			if len(kws) > 0 {
				pairs = append(pairs, ajvPair{raw, json.RawMessage(bad)})
				wantValid = append(wantValid, false)
				names = append(names, rc.tag+" bad")
			}
		})
	}
	for _, tag := range jsontype.RuleTags() {
		if !covered[tag] {
			t.Errorf("validate tag %s has a spec but no case here", tag)
		}
	}
	verdicts, ok := runAjv(t, pairs)
	if !ok {
		return
	}
	for i, v := range verdicts {
		if v != wantValid[i] {
			t.Errorf("%s: Ajv says valid = %v", names[i], v)
		}
	}
}

type rule0 struct {
	V string `json:"v,omitempty" validate:"required"`
}
type rule1 struct {
	V int `json:"v,omitempty" validate:"required"`
}
type rule2 struct {
	V string `json:"v,omitempty" validate:"required_without=W"`
	W string `json:"w,omitempty"`
}
type rule3 struct {
	V string `json:"v,omitempty" validate:"required_without_all=W"`
	W string `json:"w,omitempty"`
}
type rule4 struct {
	V string `json:"v,omitempty" validate:"oneof=a b"`
}
type rule5 struct {
	V int `json:"v,omitempty" validate:"oneof=1 2"`
}
type rule6 struct {
	V string `json:"v,omitempty" validate:"min=3"`
}
type rule7 struct {
	V []string `json:"v,omitempty" validate:"min=2"`
}
type rule8 struct {
	V map[string]int `json:"v,omitempty" validate:"min=2"`
}
type rule9 struct {
	V int `json:"v,omitempty" validate:"min=1"`
}
type rule10 struct {
	V float64 `json:"v,omitempty" validate:"gte=1.5"`
}
type rule11 struct {
	V string `json:"v,omitempty" validate:"max=3"`
}
type rule12 struct {
	V []string `json:"v,omitempty" validate:"max=1"`
}
type rule13 struct {
	V int `json:"v,omitempty" validate:"lte=10"`
}
type rule14 struct {
	V float64 `json:"v,omitempty" validate:"gt=0"`
}
type rule15 struct {
	V string `json:"v,omitempty" validate:"gt=2"`
}
type rule16 struct {
	V int `json:"v,omitempty" validate:"lt=5"`
}
type rule17 struct {
	V []int `json:"v,omitempty" validate:"lt=2"`
}
type rule18 struct {
	V string `json:"v,omitempty" validate:"len=3"`
}
type rule19 struct {
	V []int `json:"v,omitempty" validate:"len=2"`
}
type rule20 struct {
	V string `json:"v,omitempty" validate:"eq=x"`
}
type rule21 struct {
	V int `json:"v,omitempty" validate:"eq=3"`
}
type rule22 struct {
	V int `json:"v,omitempty" validate:"ne=3"`
}
type rule23 struct {
	V string `json:"v,omitempty" validate:"email"`
}
type rule24 struct {
	V string `json:"v,omitempty" validate:"url"`
}
type rule25 struct {
	V string `json:"v,omitempty" validate:"http_url"`
}
type rule26 struct {
	V string `json:"v,omitempty" validate:"uri"`
}
type rule27 struct {
	V string `json:"v,omitempty" validate:"uuid"`
}
type rule28 struct {
	V string `json:"v,omitempty" validate:"uuid3"`
}
type rule29 struct {
	V string `json:"v,omitempty" validate:"uuid4"`
}
type rule30 struct {
	V string `json:"v,omitempty" validate:"uuid5"`
}
type rule31 struct {
	V string `json:"v,omitempty" validate:"uuid_rfc4122"`
}
type rule32 struct {
	V string `json:"v,omitempty" validate:"uuid4_rfc4122"`
}
type rule33 struct {
	V string `json:"v,omitempty" validate:"ip"`
}
type rule34 struct {
	V string `json:"v,omitempty" validate:"ipv4"`
}
type rule35 struct {
	V string `json:"v,omitempty" validate:"ipv6"`
}
type rule36 struct {
	V string `json:"v,omitempty" validate:"hostname"`
}
type rule37 struct {
	V string `json:"v,omitempty" validate:"hostname_rfc1123"`
}
type rule38 struct {
	V string `json:"v,omitempty" validate:"fqdn"`
}
type rule39 struct {
	V string `json:"v,omitempty" validate:"alpha"`
}
type rule40 struct {
	V string `json:"v,omitempty" validate:"alphanum"`
}
type rule41 struct {
	V string `json:"v,omitempty" validate:"numeric"`
}
type rule42 struct {
	V string `json:"v,omitempty" validate:"number"`
}
type rule43 struct {
	V string `json:"v,omitempty" validate:"ascii"`
}
type rule44 struct {
	V string `json:"v,omitempty" validate:"printascii"`
}
type rule45 struct {
	V string `json:"v,omitempty" validate:"hexcolor"`
}
type rule46 struct {
	V string `json:"v,omitempty" validate:"e164"`
}
type rule47 struct {
	V string `json:"v,omitempty" validate:"iso3166_1_alpha2"`
}
type rule48 struct {
	V string `json:"v,omitempty" validate:"lowercase"`
}
type rule49 struct {
	V string `json:"v,omitempty" validate:"uppercase"`
}
type rule50 struct {
	V string `json:"v,omitempty" validate:"timezone"`
}
type rule51 struct {
	V string `json:"v,omitempty" validate:"json"`
}
type rule52 struct {
	V []string `json:"v,omitempty" validate:"unique"`
}
type rule53 struct {
	V string `json:"v,omitempty" validate:"contains=ab"`
}
type rule54 struct {
	V string `json:"v,omitempty" validate:"excludes=ab"`
}
type rule55 struct {
	V string `json:"v,omitempty" validate:"startswith=ab"`
}
type rule56 struct {
	V string `json:"v,omitempty" validate:"endswith=ab"`
}
type rule57 struct {
	V string `json:"v,omitempty" validate:"datetime=2006-01-02"`
}

var ruleCases = []ruleCase{
	{"required", `"a"`, `""`, addRule[rule0]},
	{"required", `1`, `0`, addRule[rule1]},
	{"required_without=W", `"a"`, ``, addRule[rule2]},
	{"required_without_all=W", `"a"`, ``, addRule[rule3]},
	{"oneof=a b", `"a"`, `"c"`, addRule[rule4]},
	{"oneof=1 2", `2`, `3`, addRule[rule5]},
	{"min=3", `"abc"`, `"ab"`, addRule[rule6]},
	{"min=2", `["a","b"]`, `["a"]`, addRule[rule7]},
	{"min=2", `{"a":1,"b":2}`, `{"a":1}`, addRule[rule8]},
	{"min=1", `1`, `0`, addRule[rule9]},
	{"gte=1.5", `1.5`, `1.4`, addRule[rule10]},
	{"max=3", `"abc"`, `"abcd"`, addRule[rule11]},
	{"max=1", `["a"]`, `["a","b"]`, addRule[rule12]},
	{"lte=10", `10`, `11`, addRule[rule13]},
	{"gt=0", `0.1`, `0`, addRule[rule14]},
	{"gt=2", `"abc"`, `"ab"`, addRule[rule15]},
	{"lt=5", `4`, `5`, addRule[rule16]},
	{"lt=2", `[1]`, `[1,2]`, addRule[rule17]},
	{"len=3", `"abc"`, `"ab"`, addRule[rule18]},
	{"len=2", `[1,2]`, `[1]`, addRule[rule19]},
	{"eq=x", `"x"`, `"y"`, addRule[rule20]},
	{"eq=3", `3`, `4`, addRule[rule21]},
	{"ne=3", `4`, `3`, addRule[rule22]},
	{"email", `"a@example.com"`, `"not-an-email"`, addRule[rule23]},
	{"url", `"https://example.com/x"`, `"not a url"`, addRule[rule24]},
	{"http_url", `"https://example.com"`, `"nope"`, addRule[rule25]},
	{"uri", `"https://example.com"`, `"nope"`, addRule[rule26]},
	{"uuid", `"6ba7b810-9dad-11d1-80b4-00c04fd430c8"`, `"nope"`, addRule[rule27]},
	{"uuid3", `"a3bb189e-8bf9-3888-9912-ace4e6543002"`, `"nope"`, addRule[rule28]},
	{"uuid4", `"110ec58a-a0f2-4ac4-8393-c866d813b8d1"`, `"nope"`, addRule[rule29]},
	{"uuid5", `"a6edc906-2f9f-5fb2-a373-efac406f0ef2"`, `"nope"`, addRule[rule30]},
	{"uuid_rfc4122", `"6ba7b810-9dad-11d1-80b4-00c04fd430c8"`, `"nope"`, addRule[rule31]},
	{"uuid4_rfc4122", `"110ec58a-a0f2-4ac4-8393-c866d813b8d1"`, `"nope"`, addRule[rule32]},
	{"ip", `"10.0.0.1"`, `"nope"`, addRule[rule33]},
	{"ipv4", `"10.0.0.1"`, `"::1"`, addRule[rule34]},
	{"ipv6", `"::1"`, `"10.0.0.1"`, addRule[rule35]},
	{"hostname", `"example"`, `"-bad-"`, addRule[rule36]},
	{"hostname_rfc1123", `"example.com"`, `"bad_host!"`, addRule[rule37]},
	{"fqdn", `"example.com"`, `"bad host"`, addRule[rule38]},
	{"alpha", `"abc"`, `"ab1"`, addRule[rule39]},
	{"alphanum", `"ab1"`, `"ab-1"`, addRule[rule40]},
	{"numeric", `"-12.5"`, `"1a"`, addRule[rule41]},
	{"number", `"125"`, `"-1"`, addRule[rule42]},
	{"ascii", `"abc"`, `"é"`, addRule[rule43]},
	{"printascii", `"abc"`, `"a\tb"`, addRule[rule44]},
	{"hexcolor", `"#ff0000"`, `"red"`, addRule[rule45]},
	{"e164", `"+4915112345678"`, `"0151 123"`, addRule[rule46]},
	{"iso3166_1_alpha2", `"DE"`, `"XX1"`, addRule[rule47]},
	{"lowercase", `"abc"`, `"Abc"`, addRule[rule48]},
	{"uppercase", `"ABC"`, `"Abc"`, addRule[rule49]},
	{"timezone", `"Europe/Berlin"`, `"Mars/Olympus"`, addRule[rule50]},
	{"json", `"{\"a\":1}"`, `"{"`, addRule[rule51]},
	{"unique", `["a","b"]`, `["a","a"]`, addRule[rule52]},
	{"contains=ab", `"xaby"`, `"xy"`, addRule[rule53]},
	{"excludes=ab", `"xy"`, `"xaby"`, addRule[rule54]},
	{"startswith=ab", `"abc"`, `"cab"`, addRule[rule55]},
	{"endswith=ab", `"cab"`, `"abc"`, addRule[rule56]},
	{"datetime=2006-01-02", `"2026-11-23"`, `"23.11.2026"`, addRule[rule57]},
}
