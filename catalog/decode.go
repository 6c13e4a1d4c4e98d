package catalog

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/brakinglab/codemode-go/internal/suggest"
)

// maxIssues bounds how many issues one call reports; a model fixes the
// first ones and retries.
const maxIssues = 20

// checker walks a decoded JSON value against a plan and collects issues,
// and, when not strict, the unknown fields it ignores.
type checker struct {
	strict    bool
	path      []any
	issues    []Issue
	truncated bool
	ignored   []Issue // unknown fields of a lenient decode; Message is the hint
}

// moreIssues is the last issue when more than maxIssues were found.
var moreIssues = Issue{Path: []any{}, Message: "More issues were found; fix these and call again"}

func (c *checker) add(msg string) {
	if len(c.issues) >= maxIssues {
		c.truncated = true
		return
	}
	c.issues = append(c.issues, Issue{Path: slices.Clone(c.path), Message: msg})
}

func (c *checker) addAt(key any, msg string) {
	c.path = append(c.path, key)
	c.add(msg)
	c.path = c.path[:len(c.path)-1]
}

// jsonTypeName names a decoded JSON value's type as a model would.
func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// expected names what a node accepts, in TypeScript's words.
func (n *node) expected() string {
	switch n.kind {
	case kBool:
		return "boolean"
	case kInt, kUint, kFloat:
		return "number"
	case kString, kText, kBytes, kTime:
		return "string"
	case kSlice, kArray:
		return "array"
	case kMap, kStruct:
		return "object"
	case kPtr:
		return n.elem.expected()
	}
	return "value"
}

func (c *checker) mismatch(n *node, v any) {
	c.add("Expected " + n.expected() + ", got " + jsonTypeName(v))
}

func (c *checker) check(n *node, v any) {
	if len(c.issues) >= maxIssues {
		c.truncated = true
		return
	}
	switch n.kind {
	case kAny, kCustom:
		return
	case kPtr:
		if v == nil {
			return
		}
		c.check(n.elem, v)
		return
	}
	switch n.kind {
	case kBool:
		if _, ok := v.(bool); !ok {
			c.mismatch(n, v)
		}
	case kInt, kUint, kFloat:
		num, ok := v.(json.Number)
		if !ok {
			c.mismatch(n, v)
			return
		}
		c.checkNumber(n, num)
	case kString, kText:
		if _, ok := v.(string); !ok {
			c.mismatch(n, v)
		}
	case kTime:
		s, ok := v.(string)
		if !ok {
			c.mismatch(n, v)
			return
		}
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			c.add("Expected an ISO 8601 date-time such as 2026-03-01T14:30:00Z")
		}
	case kBytes:
		s, ok := v.(string)
		if !ok {
			c.mismatch(n, v)
			return
		}
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			c.add("Expected base64-encoded string")
		}
	case kSlice, kArray:
		arr, ok := v.([]any)
		if !ok {
			c.mismatch(n, v)
			return
		}
		if n.kind == kArray && len(arr) != n.length {
			c.add(fmt.Sprintf("Expected exactly %d items, got %d", n.length, len(arr)))
			return
		}
		for i, e := range arr {
			c.path = append(c.path, i)
			c.element(n.elem, e)
			c.path = c.path[:len(c.path)-1]
		}
	case kMap:
		obj, ok := v.(map[string]any)
		if !ok {
			c.mismatch(n, v)
			return
		}
		for _, k := range sortedKeys(obj) {
			c.path = append(c.path, k)
			if n.keyInt {
				if _, err := strconv.ParseInt(k, 10, 64); err != nil || (n.keyU && k[0] == '-') {
					c.add("Expected an integer key")
				}
			}
			c.element(n.elem, obj[k])
			c.path = c.path[:len(c.path)-1]
		}
	case kStruct:
		obj, ok := v.(map[string]any)
		if !ok {
			c.mismatch(n, v)
			return
		}
		c.checkStruct(n, obj)
	}
}

// element checks a slice element or map value, where null is only
// acceptable for nullable types.
func (c *checker) element(n *node, v any) {
	if v == nil && n.kind != kPtr && n.kind != kAny && n.kind != kCustom {
		c.mismatch(n, v)
		return
	}
	c.check(n, v)
}

func (c *checker) checkStruct(n *node, obj map[string]any) {
	for _, f := range n.fields {
		v, present := obj[f.name]
		c.path = append(c.path, f.name)
		switch {
		case !present || v == nil:
			if f.required {
				if !present {
					c.add("Required field")
				} else {
					c.mismatch(f.n, v)
				}
			}
		default:
			c.check(f.n, v)
		}
		c.path = c.path[:len(c.path)-1]
	}
	if len(obj) == 0 {
		return
	}
	var unknown []string
	for k := range obj {
		if _, ok := n.byName[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		hint := ""
		if s := suggest.Nearest(k, n.fieldNames()); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		if c.strict {
			c.addAt(k, "Unknown field"+hint)
		} else if len(c.ignored) < maxIssues {
			c.ignored = append(c.ignored, Issue{Path: append(slices.Clone(c.path), k), Message: hint})
		}
	}
}

// fieldNames lists a struct node's JSON member names.
func (n *node) fieldNames() []string {
	names := make([]string, len(n.fields))
	for i, f := range n.fields {
		names[i] = f.name
	}
	return names
}

func (c *checker) checkNumber(n *node, num json.Number) {
	s := string(num)
	switch n.kind {
	case kFloat:
		f, err := strconv.ParseFloat(s, n.bits)
		if err != nil || math.IsInf(f, 0) {
			c.add("Number is out of range")
		}
	case kInt:
		if _, err := strconv.ParseInt(s, 10, n.bits); err != nil {
			c.intIssue(n, s)
		}
	case kUint:
		if _, err := strconv.ParseUint(s, 10, n.bits); err != nil {
			c.intIssue(n, s)
		}
	}
}

// intIssue explains why s is not a valid integer for n: a fraction or
// exponent, or a value outside the type's range.
func (c *checker) intIssue(n *node, s string) {
	f, err := strconv.ParseFloat(s, 64)
	if err == nil && f == math.Trunc(f) && !isIntLiteral(s) && math.Abs(f) < 1<<53 {
		// 1e3 or 2.0: JSON.stringify never writes these for integers.
		c.add("Expected integer, got " + s)
		return
	}
	if err == nil && f != math.Trunc(f) {
		c.add("Expected integer, got " + s)
		return
	}
	lo, hi := intRange(n)
	if n.kind == kUint && len(s) > 0 && s[0] == '-' {
		c.add("Must be at least 0")
		return
	}
	c.add(fmt.Sprintf("Must be between %s and %s", lo, hi))
}

func isIntLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && !(i == 0 && s[i] == '-') {
			return false
		}
	}
	return true
}

func intRange(n *node) (string, string) {
	if n.kind == kUint {
		return "0", strconv.FormatUint(math.MaxUint64>>(64-n.bits), 10)
	}
	return strconv.FormatInt(math.MinInt64>>(64-n.bits), 10), strconv.FormatInt(math.MaxInt64>>(64-n.bits), 10)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
