package integration

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-playground/validator/v10"

	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/validate"
)

// The differential test of internal/validate, the catalog's own
// validate-tag checker, against validator/v10, which the catalog ran
// before: for seeded random (rule, parameter, Go type, value) cases and
// for random values of struct types with nesting, pointers, dive, keys,
// embedding and cross-member rules, both must accept and refuse alike and
// give the same issues (paths and messages) that the catalog made from
// validator/v10's errors. A rule the checker refuses at registration must
// be one validator/v10 panics on. Any difference fails and names its seed;
// add failing seeds to testdata/validate_seeds.txt so they stay checked.
//
// Known, deliberate differences, which the generator does not produce:
//   - a cross-member rule naming a member the struct lacks is refused at
//     registration (validator/v10 took the member as absent);
//   - members encoding/json never sets (json:"-", shadowed by an outer
//     member) are not checked (validator/v10 checked their zero value);
//   - map entries are checked in key order (validator/v10: random order).

var diffCases = flag.Int("validate.cases", 3000, "random cases per differential test of internal/validate")

// seeds are the seeds to run: 1..n and those kept in testdata.
func seeds(t *testing.T, n int) []uint64 {
	var out []uint64
	for i := 1; i <= n; i++ {
		out = append(out, uint64(i))
	}
	f, err := os.Open("testdata/validate_seeds.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := strconv.ParseUint(strings.Fields(line)[0], 10, 64)
		if err != nil {
			t.Fatalf("testdata/validate_seeds.txt: %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// tally counts what the differential tests compared, so a generator that
// stopped producing cases shows.
var tally struct{ refused, values, failing, panics int }

// outcome is what one side made of a value: its issues, or a panic
// (validator/v10) or registration error (the checker).
type outcome struct {
	issues   []refIssue
	panicked string
}

// reference runs validator/v10 on *v as the catalog did.
func reference(val *validator.Validate, n *jsontype.Node, v reflect.Value) (out outcome) {
	defer func() {
		if r := recover(); r != nil {
			out.panicked = fmt.Sprint(r)
		}
	}()
	err := val.Struct(v.Interface())
	if err == nil {
		return outcome{}
	}
	if n.GoType.Name() == "" {
		// A struct type without a name gives namespaces without the
		// leading type name, which namespacePath expects.
		err = renamed(err)
	}
	issues, ok := validationIssues(n, err)
	if !ok {
		return outcome{panicked: "not validation errors: " + err.Error()}
	}
	return outcome{issues: issues}
}

// own runs the checker's plan on *v.
func own(p *validate.Plan, v reflect.Value) outcome {
	var out outcome
	for _, is := range p.Check(v, 1000) {
		out.issues = append(out.issues, refIssue(is))
	}
	return out
}

// same compares two issue lists; unordered when the type holds a map.
func same(a, b []refIssue, unordered bool) bool {
	if unordered {
		key := func(is refIssue) string { return fmt.Sprintf("%#v %s", is.Path, is.Message) }
		ka, kb := make([]string, len(a)), make([]string, len(b))
		for i := range a {
			ka[i] = key(a[i])
		}
		for i := range b {
			kb[i] = key(b[i])
		}
		slices.Sort(ka)
		slices.Sort(kb)
		return slices.Equal(ka, kb)
	}
	return reflect.DeepEqual(a, b) || (len(a) == 0 && len(b) == 0)
}

func hasMap(t reflect.Type) bool {
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) bool
	walk = func(t reflect.Type) bool {
		if seen[t] {
			return false
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Map:
			return true
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if walk(t.Field(i).Type) {
					return true
				}
			}
		}
		return false
	}
	return walk(t)
}

// compare checks one struct type and a set of its values on both sides.
// It returns a description of the first difference, or "".
func compare(val *validator.Validate, t reflect.Type, values []reflect.Value) string {
	n, err := jsontype.FromGo(t, true)
	if err != nil {
		return "" // not a type the catalog accepts: nothing to compare
	}
	plan, cerr := validate.Compile(n)
	unordered := hasMap(t)
	if cerr != nil {
		// Refused at registration: validator/v10 must panic on one of
		// the values, or on the zero value.
		tally.refused++
		for _, v := range values {
			if reference(val, n, v).panicked != "" {
				return ""
			}
		}
		return fmt.Sprintf("the checker refuses %s (%v), validator/v10 accepts every value", t, cerr)
	}
	for _, v := range values {
		ref, got := reference(val, n, v), own(plan, v)
		tally.values++
		if len(ref.issues) > 0 {
			tally.failing++
		}
		if ref.panicked != "" {
			tally.panics++
			// validator/v10 panics where only the value tells (a value of
			// type any): the checker must fail a rule instead.
			if len(got.issues) == 0 {
				return fmt.Sprintf("%s = %s: validator/v10 panics (%s), the checker passes", t, show(v), ref.panicked)
			}
			continue
		}
		if !same(ref.issues, got.issues, unordered) {
			return fmt.Sprintf("%s = %s:\nvalidator/v10: %v\nchecker:       %v", t, show(v), ref.issues, got.issues)
		}
	}
	return ""
}

// countTally resets tally and returns a function, to be deferred, that
// logs what was compared; what names the things refused at registration.
func countTally(t *testing.T, what string) func() {
	tally = struct{ refused, values, failing, panics int }{}
	return func() {
		t.Helper()
		t.Logf("%d %s refused at registration; %d values compared, %d with issues, %d where validator/v10 panics",
			tally.refused, what, tally.values, tally.failing, tally.panics)
	}
}

func show(v reflect.Value) string {
	s := fmt.Sprintf("%+v", v.Elem().Interface())
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// TestValidateRulesAgainstValidator checks single rules: each case is a
// struct with one member F of a random type under a random tag, and the
// siblings Other, Num, Opt and Items that cross-member rules name.
func TestValidateRulesAgainstValidator(t *testing.T) {
	val := newValidator()
	defer countTally(t, "tags")()
	for _, seed := range seeds(t, *diffCases) {
		r := rand.New(rand.NewPCG(seed, 1))
		ft := pick(r, fieldTypes)
		tag := randomTag(r, ft)
		st := oneMember(ft, tag)
		var values []reflect.Value
		for range 8 {
			v := reflect.New(st)
			fill(r, v.Elem(), 0)
			values = append(values, v)
		}
		diff := compare(val, st, values)
		if strings.Contains(diff, "the checker refuses") && refusalJustified(val, ft, tag, refusedRule(diff), r) {
			diff = ""
		}
		if diff != "" {
			t.Errorf("seed %d, tag %q: %s", seed, tag, diff)
		}
	}
}

var fieldTypes = []reflect.Type{
	reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[int64](),
	reflect.TypeFor[uint](), reflect.TypeFor[uint16](), reflect.TypeFor[float32](), reflect.TypeFor[float64](),
	reflect.TypeFor[bool](), reflect.TypeFor[[]string](), reflect.TypeFor[[]int](), reflect.TypeFor[[]*int](),
	reflect.TypeFor[map[string]int](), reflect.TypeFor[map[string]string](), reflect.TypeFor[[2]int](),
	reflect.TypeFor[*string](), reflect.TypeFor[*int](), reflect.TypeFor[*[]string](), reflect.TypeFor[*float64](),
	reflect.TypeFor[time.Duration](), reflect.TypeFor[time.Time](), reflect.TypeFor[any](), reflect.TypeFor[[]any](),
	reflect.TypeFor[[]byte](), reflect.TypeFor[[][]string](), reflect.TypeFor[map[string][]int](),
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

var (
	numParams  = []string{"0", "1", "2", "3", "5", "10", "-1", "1.5", "0x10", "abc", "", "1h", "300", "true", "false"}
	textParams = []string{"a", "ab", "b", "é", "x y", "0x2C", "", "|"}
	oneofs     = []string{"a b c", "1 2 3", "'a b' c", "abc ABC", "-1 0 5", "a", "true"}
	layouts    = []string{"2006-01-02", "15:04", time.RFC3339, ""}
	plainRules = []string{"email", "url", "http_url", "uri", "uuid", "uuid3", "uuid4", "uuid5", "uuid_rfc4122",
		"uuid4_rfc4122", "ipv4", "ipv6", "ip", "hostname", "hostname_rfc1123", "fqdn", "alpha", "alphanum",
		"numeric", "number", "ascii", "printascii", "hexcolor", "e164", "iso3166_1_alpha2", "lowercase",
		"uppercase", "timezone", "json", "unique", "required"}
	crossRules = []string{"required_if", "required_unless", "required_with", "required_with_all", "required_without", "required_without_all"}
)

// randomRule writes one rule with a parameter that suits it, mostly.
func randomRule(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0, 1:
		return pick(r, []string{"min", "max", "gte", "lte", "gt", "lt", "len", "eq", "ne"}) + "=" + pick(r, numParams)
	case 2:
		switch r.IntN(3) {
		case 0:
			return "oneof=" + pick(r, oneofs)
		case 1:
			return "datetime=" + pick(r, layouts)
		}
		return pick(r, []string{"contains", "excludes", "startswith", "endswith", "eq", "ne"}) + "=" + pick(r, textParams)
	case 3:
		tag := pick(r, crossRules)
		switch {
		case strings.HasSuffix(tag, "_if") || strings.HasSuffix(tag, "_unless"):
			return tag + "=" + pick(r, []string{"Other x", "Num 0", "Num 3", "Other x Num 2", "Other", "Opt nil", "Opt 3", "Items 2", "Items nil"})
		default:
			return tag + "=" + pick(r, []string{"Other", "Num", "Other Num", "Opt", "Items", "Opt Items"})
		}
	}
	return pick(r, plainRules)
}

// randomTag writes a tag of one to three rules, perhaps behind omitempty,
// omitzero or omitnil, perhaps alternatives, perhaps with dive.
func randomTag(r *rand.Rand, ft reflect.Type) string {
	var parts []string
	if r.IntN(4) == 0 {
		parts = append(parts, pick(r, []string{"omitempty", "omitzero", "omitnil"}))
	}
	for range 1 + r.IntN(2) {
		if r.IntN(8) == 0 {
			parts = append(parts, randomRule(r)+"|"+randomRule(r))
		} else {
			parts = append(parts, randomRule(r))
		}
	}
	if r.IntN(3) == 0 {
		parts = append(parts, "dive")
		k := ft
		for k.Kind() == reflect.Pointer {
			k = k.Elem()
		}
		if k.Kind() == reflect.Map && r.IntN(2) == 0 {
			parts = append(parts, "keys", randomRule(r), "endkeys")
		}
		if r.IntN(4) == 0 {
			parts = append(parts, "omitempty")
		}
		parts = append(parts, randomRule(r))
	}
	return strings.Join(parts, ",")
}

var strs = []string{"", "a", "ab", "abc", "ABC", "Abc", "héllo", "日本", "123", "-1.5", "+1", "0", "#fff", "#ggg",
	"#FF00AA", "a@b.co", "a.b@example.com", "not an email", "http://x.com", "https://x.com/p?q=1", "HTTP://X.COM",
	"file:///a", "file:///", "mailto:a@b.c", "/rel", "rel#frag", "127.0.0.1", "::1", "1.2.3", "example.com",
	"ex_ample.com", "-bad.com", "a.b.c.d", "localhost", "Europe/Berlin", "Local", "UTC", "Nowhere/City", `{"a":1}`,
	"[1,", "null", "2026-11-27", "27/11/2026", "13:45", "2026-11-27T10:00:00Z", "+14155550123", "14155550123",
	"DE", "XX", "de", "f47ac10b-58cc-4372-a567-0e02b2c3d479", "F47AC10B-58CC-4372-A567-0E02B2C3D479",
	"6ba7b810-9dad-31d1-80b4-00c04fd430c8", "6ba7b810-9dad-51d1-80b4-00c04fd430c8", "xaby", "a|b", "x y",
	" ", "\x01", "~", "true", "5", "-1", "a,b", "é", strings.Repeat("a", 300),
}

// fill sets v to a random value of its type.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	if !v.CanSet() {
		if v.Kind() == reflect.Struct {
			// An unexported embedded struct: its exported fields are
			// settable, as encoding/json sets them.
			for i := range v.NumField() {
				fill(r, v.Field(i), depth+1)
			}
		}
		return
	}
	if r.IntN(5) == 0 {
		v.SetZero()
		return
	}
	switch t := v.Type(); t.Kind() {
	case reflect.String:
		v.SetString(pick(r, strs))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if t == reflect.TypeFor[time.Duration]() && r.IntN(2) == 0 {
			v.SetInt(int64(pick(r, []time.Duration{time.Second, time.Hour, 2 * time.Hour, -time.Minute})))
			return
		}
		v.SetInt(int64(pick(r, []int{-1, 0, 1, 2, 3, 4, 5, 9, 10, 11, 16, 100, 127})))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(pick(r, []int{0, 1, 2, 3, 5, 10, 16, 255})))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(pick(r, []float64{0, 1, 1.5, 2, 3, -1, 5.0000001, 10}))
	case reflect.Pointer:
		if depth > 4 || r.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(t.Elem())
		fill(r, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if depth > 4 {
			return
		}
		n := r.IntN(4)
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			fill(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(r, v.Index(i), depth+1)
		}
	case reflect.Map:
		if depth > 4 {
			return
		}
		m := reflect.MakeMap(t)
		for range r.IntN(4) {
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			fill(r, k, depth+1)
			fill(r, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(pick(r, []time.Time{time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)})))
			return
		}
		for i := range v.NumField() {
			fill(r, v.Field(i), depth+1)
		}
	case reflect.Interface:
		if depth > 3 {
			return
		}
		switch r.IntN(6) {
		case 0:
			v.Set(reflect.ValueOf(pick(r, strs)))
		case 1:
			v.Set(reflect.ValueOf(pick(r, []float64{0, 1, 2.5, 10})))
		case 2:
			v.Set(reflect.ValueOf(r.IntN(2) == 0))
		case 3:
			v.Set(reflect.ValueOf([]any{pick(r, strs), 1.0}[:r.IntN(3)]))
		case 4:
			v.Set(reflect.ValueOf(map[string]any{"k": pick(r, strs)}))
		}
	}
}

// prefixed is a field error whose namespace starts with a type name.
type prefixed struct{ validator.FieldError }

func (p prefixed) Namespace() string { return "Root." + p.FieldError.Namespace() }

// renamed gives validator/v10's errors for a struct type without a name
// the namespaces a named one gets.
func renamed(err error) error {
	verrs, ok := err.(validator.ValidationErrors)
	if !ok {
		return err
	}
	out := make(validator.ValidationErrors, len(verrs))
	for i, fe := range verrs {
		out[i] = prefixed{fe}
	}
	return out
}

// refusalJustified reports whether validator/v10 panics on some element
// of tag taken alone, at the place the tag puts it (the member, its
// elements after dive, its keys between keys and endkeys): a refusal at
// registration then spares a panic at call time, whatever the rules
// before it let through.
func refusalJustified(val *validator.Validate, ft reflect.Type, tag, rule string, r *rand.Rand) bool {
	var candidates []string
	parts := strings.Split(tag, ",")
	prefix := ""
	for i := 0; i < len(parts); i++ {
		switch p := parts[i]; p {
		case "omitempty", "omitzero", "omitnil":
		case "dive":
			candidates = append(candidates, prefix+"dive")
			prefix += "dive,"
		case "keys":
			j := i + 1
			for ; j < len(parts) && parts[j] != "endkeys"; j++ {
				for _, alt := range strings.Split(parts[j], "|") {
					candidates = append(candidates, prefix+"keys,"+alt+",endkeys")
				}
			}
			i = j
		default:
			for _, alt := range strings.Split(p, "|") {
				candidates = append(candidates, prefix+alt)
			}
		}
	}
	for _, c := range candidates {
		if rule != "" && !slices.ContainsFunc(strings.Split(c, ","), func(e string) bool {
			name, _, _ := strings.Cut(e, "=")
			return name == rule
		}) {
			continue // not the rule the checker named
		}
		st := oneMember(ft, c)
		n, err := jsontype.FromGo(st, true)
		if err != nil {
			continue
		}
		for range 40 {
			v := reflect.New(st)
			fill(r, v.Elem(), 0)
			if reference(val, n, v).panicked != "" {
				return true
			}
		}
	}
	return false
}

// TestValidateRegressions keeps the cases the differential test once
// found, written out, so that they hold whatever the generator becomes.
func TestValidateRegressions(t *testing.T) {
	val := newValidator()
	for _, tc := range []struct {
		tag   string
		value any // F's value
		other string
		num   int
	}{
		// A nil member under alternatives: validator/v10 names the second
		// alternative, with the first one's parameter.
		{tag: "lte=0|lt=5", value: (*int)(nil), num: 10},
		{tag: "max=0|numeric", value: (*float64)(nil)},
		{tag: "iso3166_1_alpha2|e164,max=10", value: nil},
		// ... and runs the chain when the first alternative runs on nil.
		{tag: "required_unless=Num 0|required_with_all=Other,required_with_all=Other", value: (*string)(nil)},
		// An alternative that cannot read the value fails the rule.
		{tag: "len=abc|required_without_all=Other", value: []any{"ab"}, other: "x", num: 4},
		// The elements of a []byte keep string indices in paths.
		{tag: "required_if=Num 0,dive,lte=0", value: []uint8{2}, other: "a|b"},
		// unique over nil elements.
		{tag: "unique", value: []any{nil, nil}},
	} {
		ft := reflect.TypeFor[any]()
		if tc.value != nil {
			ft = reflect.TypeOf(tc.value)
		}
		st := reflect.StructOf([]reflect.StructField{
			{Name: "F", Type: ft, Tag: reflect.StructTag(fmt.Sprintf(`json:"f" validate:%q`, tc.tag))},
			{Name: "Other", Type: reflect.TypeFor[string](), Tag: `json:"other,omitempty"`},
			{Name: "Num", Type: reflect.TypeFor[int](), Tag: `json:"num,omitempty"`},
		})
		v := reflect.New(st)
		if tc.value != nil {
			v.Elem().Field(0).Set(reflect.ValueOf(tc.value))
		}
		v.Elem().Field(1).SetString(tc.other)
		v.Elem().Field(2).SetInt(int64(tc.num))
		if diff := compare(val, st, []reflect.Value{v}); diff != "" {
			t.Errorf("tag %q: %s", tc.tag, diff)
		}
	}
}

// refusedRule is the rule a refusal names ("rule oneof does not apply…",
// "dive needs…", "keys needs…"), or "" for a refusal of the whole tag.
func refusedRule(diff string) string {
	if i := strings.Index(diff, ": rule "); i >= 0 {
		rest := diff[i+len(": rule "):]
		if end := strings.IndexAny(rest, " :"); end > 0 {
			return rest[:end]
		}
	}
	for _, w := range []string{"dive", "keys"} {
		if strings.Contains(diff, w+" needs") {
			return w
		}
	}
	return ""
}
