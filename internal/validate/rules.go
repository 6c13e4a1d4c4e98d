package validate

import (
	"encoding/json"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// value is what a rule reads: the checked value after pointers and
// interfaces are followed, whether one was followed (a value reached
// through a pointer counts as given, as in validator/v10), and the
// struct holding the member, for rules that read its siblings.
type value struct {
	v      reflect.Value
	viaPtr bool
	parent reflect.Value
}

// errInapplicable is a rule meeting a value of a kind it cannot read:
// validator/v10 panics there. Registration refuses it where the kind is
// known; a value of type any reaching it fails the rule.
var errInapplicable = fmt.Errorf("the rule does not apply to this kind of value")

// ruleFunc runs one rule: whether v passes, or errInapplicable, or an
// error saying the parameter is malformed.
type ruleFunc func(v value, param string) (bool, error)

var durationType = reflect.TypeFor[time.Duration]()
var timeType = reflect.TypeFor[time.Time]()

// funcs maps each rule of the documented table to its check. The table
// itself (jsontype.LookupRule) gives the words; a rule must be in both.
var funcs = map[string]ruleFunc{
	"required":             func(v value, _ string) (bool, error) { return hasValue(v), nil },
	"required_if":          requiredIf(false),
	"required_unless":      requiredIf(true),
	"required_with":        requiredWith(false, false),
	"required_with_all":    requiredWith(false, true),
	"required_without":     requiredWith(true, false),
	"required_without_all": requiredWith(true, true),
	"oneof":                oneOf,
	"min":                  compare(func(c int) bool { return c >= 0 }, true),
	"gte":                  compare(func(c int) bool { return c >= 0 }, true),
	"max":                  compare(func(c int) bool { return c <= 0 }, true),
	"lte":                  compare(func(c int) bool { return c <= 0 }, true),
	"gt":                   compare(func(c int) bool { return c > 0 }, true),
	"lt":                   compare(func(c int) bool { return c < 0 }, true),
	"len":                  compare(func(c int) bool { return c == 0 }, false),
	"eq":                   equal(false),
	"ne":                   equal(true),
	"email": func(v value, _ string) (bool, error) {
		s := v.v.String()
		_, err := mail.ParseAddress(s)
		return err == nil && emailRe().MatchString(s), nil
	},
	"url":              stringOnly(isURL),
	"http_url":         stringOnly(isHTTPURL),
	"uri":              stringOnly(isURI),
	"ipv4":             text(func(s string) bool { ip := net.ParseIP(s); return ip != nil && ip.To4() != nil }),
	"ipv6":             text(func(s string) bool { ip := net.ParseIP(s); return ip != nil && ip.To4() == nil }),
	"ip":               text(func(s string) bool { return net.ParseIP(s) != nil }),
	"hostname":         text(func(s string) bool { return hostnameRFC952Re().MatchString(s) }),
	"hostname_rfc1123": text(func(s string) bool { return hostnameRFC1123Re().MatchString(s) }),
	"fqdn": text(func(s string) bool {
		return s != "" && len(strings.TrimSuffix(s, ".")) <= 253 && fqdnRFC1123Re().MatchString(s)
	}),
	"alpha":            text(func(s string) bool { return alphaRe().MatchString(s) }),
	"alphanum":         text(func(s string) bool { return alphaNumericRe().MatchString(s) }),
	"numeric":          numeric(func(s string) bool { return numericRe().MatchString(s) }),
	"number":           numeric(func(s string) bool { return numberRe().MatchString(s) }),
	"ascii":            stringElse(func(s string) bool { return asciiRe().MatchString(s) }, false),
	"printascii":       stringElse(func(s string) bool { return printableASCIIRe().MatchString(s) }, false),
	"hexcolor":         text(func(s string) bool { return hexColorRe().MatchString(s) }),
	"e164":             text(func(s string) bool { return e164Re().MatchString(s) }),
	"iso3166_1_alpha2": text(func(s string) bool { return countries()[s] }),
	"lowercase":        stringOnly(func(s string) bool { return s != "" && s == strings.ToLower(s) }),
	"uppercase":        stringOnly(func(s string) bool { return s != "" && s == strings.ToUpper(s) }),
	"timezone": stringOnly(func(s string) bool {
		if s == "" || strings.ToLower(s) == "local" {
			return false
		}
		_, err := time.LoadLocation(s)
		return err == nil
	}),
	"json":       isJSON,
	"unique":     unique,
	"contains":   textParam(strings.Contains),
	"excludes":   textParam(func(s, p string) bool { return !strings.Contains(s, p) }),
	"startswith": textParam(strings.HasPrefix),
	"endswith":   textParam(strings.HasSuffix),
	"datetime": func(v value, p string) (bool, error) {
		if v.v.Kind() != reflect.String {
			return false, errInapplicable
		}
		_, err := time.Parse(p, v.v.String())
		return err == nil, nil
	},
}

func init() {
	for tag, re := range uuidPatterns {
		funcs[tag] = func(v value, _ string) (bool, error) {
			if v.v.Kind() == reflect.String {
				return re().MatchString(v.v.String()), nil
			}
			if v.v.CanInterface() {
				if s, ok := v.v.Interface().(fmt.Stringer); ok {
					return re().MatchString(s.String()), nil
				}
			}
			return re().MatchString(v.v.String()), nil
		}
	}
}

// runsOnNil lists the rules that run on a nil pointer, slice or map
// rather than failing outright on it.
var runsOnNil = map[string]bool{
	"required_if": true, "required_unless": true, "required_with": true,
	"required_with_all": true, "required_without": true, "required_without_all": true,
}

// text runs f on v's string form, as validator/v10 does for any kind
// (reflect's "<int Value>" for a non-string, which fails).
func text(f func(string) bool) ruleFunc {
	return func(v value, _ string) (bool, error) { return f(v.v.String()), nil }
}

func textParam(f func(s, p string) bool) ruleFunc {
	return func(v value, p string) (bool, error) { return f(v.v.String(), p), nil }
}

// stringOnly runs f on a string and is inapplicable to other kinds.
func stringOnly(f func(string) bool) ruleFunc {
	return func(v value, _ string) (bool, error) {
		if v.v.Kind() != reflect.String {
			return false, errInapplicable
		}
		return f(v.v.String()), nil
	}
}

// stringElse runs f on a string and gives other for other kinds.
func stringElse(f func(string) bool, other bool) ruleFunc {
	return func(v value, _ string) (bool, error) {
		if v.v.Kind() != reflect.String {
			return other, nil
		}
		return f(v.v.String()), nil
	}
}

// numeric passes every number and matches strings against f.
func numeric(f func(string) bool) ruleFunc {
	return func(v value, _ string) (bool, error) {
		if isNumberKind(v.v.Kind()) {
			return true, nil
		}
		return f(v.v.String()), nil
	}
}

func isNumberKind(k reflect.Kind) bool {
	return (k >= reflect.Int && k <= reflect.Uintptr) || k == reflect.Float32 || k == reflect.Float64
}

// hasValue is "required": not nil, and not the zero value unless reached
// through a pointer.
func hasValue(v value) bool {
	switch v.v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
		return !v.v.IsNil()
	case reflect.Invalid:
		return false
	}
	return v.viaPtr || !v.v.IsZero()
}

// hasNotZero is "omitzero": like hasValue, but empty slices and maps and
// zero values behind pointers count as absent.
func hasNotZero(v value) bool {
	switch v.v.Kind() {
	case reflect.Slice, reflect.Map:
		return !v.v.IsNil() && v.v.Len() > 0
	case reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
		return !v.v.IsNil()
	case reflect.Invalid:
		return false
	}
	return !v.v.IsZero()
}

// compare checks a size or bound: rune count for strings, length for
// slices, arrays and maps, the value for numbers. sized rules (all but
// len) also compare a time.Time with now.
func compare(ok func(int) bool, timed bool) ruleFunc {
	return func(v value, p string) (bool, error) {
		f := v.v
		switch k := f.Kind(); {
		case k == reflect.String:
			n, err := strconv.ParseInt(p, 0, 64)
			return ok(compareTo(int64(utf8.RuneCountInString(f.String())), n)), err
		case k == reflect.Slice || k == reflect.Map || k == reflect.Array:
			n, err := strconv.ParseInt(p, 0, 64)
			return ok(compareTo(int64(f.Len()), n)), err
		case k >= reflect.Int && k <= reflect.Int64:
			n, err := parseInt(f.Type(), p)
			return ok(compareTo(f.Int(), n)), err
		case k >= reflect.Uint && k <= reflect.Uintptr:
			n, err := strconv.ParseUint(p, 0, 64)
			return ok(compareTo(f.Uint(), n)), err
		case k == reflect.Float32 || k == reflect.Float64:
			n, err := parseFloat(k, p)
			return ok(compareTo(f.Float(), n)), err
		case k == reflect.Struct && timed && f.Type().ConvertibleTo(timeType) && f.CanInterface():
			t := f.Convert(timeType).Interface().(time.Time)
			return ok(t.Compare(time.Now().UTC())), nil
		}
		return false, errInapplicable
	}
}

func compareTo[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parseInt reads an integer parameter; for a time.Duration it may be a
// duration ("1h").
func parseInt(t reflect.Type, p string) (int64, error) {
	if t == durationType {
		if d, err := time.ParseDuration(p); err == nil {
			return int64(d), nil
		}
	}
	return strconv.ParseInt(p, 0, 64)
}

func parseFloat(k reflect.Kind, p string) (float64, error) {
	if k == reflect.Float32 {
		return strconv.ParseFloat(p, 32)
	}
	return strconv.ParseFloat(p, 64)
}

// equal is eq (or ne when not): the string itself, a length, a number or
// a boolean.
func equal(not bool) ruleFunc {
	return func(v value, p string) (bool, error) {
		f := v.v
		var same bool
		var err error
		switch k := f.Kind(); {
		case k == reflect.String:
			same = f.String() == p
		case k == reflect.Slice || k == reflect.Map || k == reflect.Array:
			var n int64
			n, err = strconv.ParseInt(p, 0, 64)
			same = int64(f.Len()) == n
		case k >= reflect.Int && k <= reflect.Int64:
			var n int64
			n, err = parseInt(f.Type(), p)
			same = f.Int() == n
		case k >= reflect.Uint && k <= reflect.Uintptr:
			var n uint64
			n, err = strconv.ParseUint(p, 0, 64)
			same = f.Uint() == n
		case k == reflect.Float32 || k == reflect.Float64:
			var n float64
			n, err = parseFloat(k, p)
			same = f.Float() == n
		case k == reflect.Bool:
			var b bool
			b, err = strconv.ParseBool(p)
			same = f.Bool() == b
		default:
			return false, errInapplicable
		}
		return same != not, err
	}
}

// oneOfValues is jsontype.OneOf, which declarations and messages use
// too, kept per parameter.
func oneOfValues(p string) []string {
	if vals, ok := oneOfCache.Load(p); ok {
		return vals.([]string)
	}
	vals := jsontype.OneOf(p)
	oneOfCache.Store(p, vals)
	return vals
}

// oneOfCache holds split parameters: the tags of registered functions,
// a bounded set.
var oneOfCache sync.Map // string → []string

func oneOf(v value, p string) (bool, error) {
	var s string
	switch k := v.v.Kind(); {
	case k == reflect.String:
		s = v.v.String()
	case k >= reflect.Int && k <= reflect.Int64:
		s = strconv.FormatInt(v.v.Int(), 10)
	case k >= reflect.Uint && k <= reflect.Uint64:
		s = strconv.FormatUint(v.v.Uint(), 10)
	default:
		return false, errInapplicable
	}
	return slices.Contains(oneOfValues(p), s), nil
}

func isURL(raw string) bool {
	s := strings.ToLower(raw)
	if s == "" {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return false
	}
	if u.Scheme == "file" {
		return u.Path != "" && u.Path != "/"
	}
	return u.Host != "" || u.Fragment != "" || u.Opaque != ""
}

func isHTTPURL(raw string) bool {
	if !isURL(raw) {
		return false
	}
	u, err := url.Parse(strings.ToLower(raw))
	return err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
}

func isURI(s string) bool {
	if i := strings.Index(s, "#"); i > -1 {
		s = s[:i]
	}
	if s == "" {
		return false
	}
	_, err := url.ParseRequestURI(s)
	return err == nil
}

func isJSON(v value, _ string) (bool, error) {
	switch f := v.v; {
	case f.Kind() == reflect.String:
		return json.Valid([]byte(f.String())), nil
	case f.Kind() == reflect.Slice && f.Type().ConvertibleTo(reflect.TypeFor[[]byte]()):
		return json.Valid(f.Convert(reflect.TypeFor[[]byte]()).Bytes()), nil
	}
	return false, errInapplicable
}

// unique passes a slice, array or map without two equal elements
// (pointers compare by what they point at; nils equal each other).
func unique(v value, p string) (bool, error) {
	if p != "" {
		return false, fmt.Errorf("unique=%s (by member) is not supported; use unique alone", p)
	}
	f := v.v
	var elems []reflect.Value
	switch f.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range f.Len() {
			elems = append(elems, f.Index(i))
		}
	case reflect.Map:
		iter := f.MapRange()
		for iter.Next() {
			elems = append(elems, iter.Value())
		}
	default:
		return false, errInapplicable
	}
	seen := map[any]bool{}
	nilKey := struct{}{}
	for _, e := range elems {
		if !e.CanInterface() {
			return false, errInapplicable
		}
		var key any
		switch {
		case e.Kind() == reflect.Pointer && e.IsNil():
			key = nilKey
		case e.Kind() == reflect.Pointer:
			key = e.Elem().Interface()
		default:
			key = e.Interface()
		}
		if key != nil && !reflect.TypeOf(key).Comparable() {
			return false, errInapplicable // validator/v10 panics on these
		}
		if seen[key] {
			return false, nil
		}
		seen[key] = true
	}
	return true, nil
}

// deref follows pointers and interfaces to the value they hold, reporting
// whether it followed one; it stops at a nil.
func deref(v reflect.Value) (reflect.Value, bool) {
	ptr := false
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		ptr = true
		if v.IsNil() {
			return v, ptr
		}
		v = v.Elem()
	}
	return v, ptr
}
