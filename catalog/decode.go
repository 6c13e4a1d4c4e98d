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

func (c *checker) mismatch(n *node, v any) {
	c.add("Expected " + n.Expected() + ", got " + jsonTypeName(v))
}

func (c *checker) check(n *node, v any) {
	if len(c.issues) >= maxIssues {
		c.truncated = true
		return
	}
	switch n.Shape {
	case kAny, kCustom:
		return
	case kPtr:
		if v == nil {
			return
		}
		c.check(n.Elem, v)
		return
	}
	switch n.Shape {
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
		if n.Items != nil {
			c.tuple(n, arr)
			return
		}
		if n.Shape == kArray && len(arr) != n.Length {
			c.add(fmt.Sprintf("Expected exactly %d items, got %d", n.Length, len(arr)))
			return
		}
		for i, e := range arr {
			c.path = append(c.path, i)
			c.element(n.Elem, e)
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
			if n.KeyInt {
				if _, err := strconv.ParseInt(k, 10, 64); err != nil || (n.KeyU && k[0] == '-') {
					c.add("Expected an integer key")
				}
			}
			c.element(n.Elem, obj[k])
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

// tuple checks a JSON Schema tuple (prefixItems): each item against its
// position's type, further items against Elem, and at most Length items
// when Length is not -1.
func (c *checker) tuple(n *node, arr []any) {
	if n.Length >= 0 && len(arr) > n.Length {
		c.add(fmt.Sprintf("Expected at most %d items, got %d", n.Length, len(arr)))
		return
	}
	for i, e := range arr {
		en := n.Elem
		if i < len(n.Items) {
			en = n.Items[i]
		}
		if en == nil {
			continue
		}
		c.path = append(c.path, i)
		c.element(en, e)
		c.path = c.path[:len(c.path)-1]
	}
}

// element checks a slice element or map value, where null is only
// acceptable for nullable types.
func (c *checker) element(n *node, v any) {
	if v == nil && n.Shape != kPtr && n.Shape != kAny && n.Shape != kCustom {
		c.mismatch(n, v)
		return
	}
	c.check(n, v)
}

func (c *checker) checkStruct(n *node, obj map[string]any) {
	for _, f := range n.Fields {
		v, present := obj[f.Name]
		c.path = append(c.path, f.Name)
		switch {
		case v == nil && present && f.Node.Shape == kPtr && f.Node.GoType == nil:
			// A schema's nullable member: null is one of its values.
		case !present || v == nil:
			if f.Required {
				if !present {
					c.add("Required field")
				} else {
					c.mismatch(f.Node, v)
				}
			}
		default:
			c.check(f.Node, v)
		}
		c.path = c.path[:len(c.path)-1]
	}
	if len(obj) == 0 {
		return
	}
	var unknown []string
	for k := range obj {
		if _, ok := n.ByName[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	if n.Open { // a schema's additionalProperties: members beyond the declared ones
		for _, k := range unknown {
			c.path = append(c.path, k)
			c.element(n.Elem, obj[k])
			c.path = c.path[:len(c.path)-1]
		}
		return
	}
	for _, k := range unknown {
		hint := ""
		if s := suggest.Nearest(k, n.FieldNames()); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		if c.strict {
			c.addAt(k, "Unknown field"+hint)
		} else if len(c.ignored) < maxIssues {
			c.ignored = append(c.ignored, Issue{Path: append(slices.Clone(c.path), k), Message: hint})
		}
	}
}

func (c *checker) checkNumber(n *node, num json.Number) {
	s := string(num)
	switch n.Shape {
	case kFloat:
		f, err := strconv.ParseFloat(s, n.Bits)
		if err != nil || math.IsInf(f, 0) {
			c.add("Number is out of range")
		}
	case kInt:
		if _, err := strconv.ParseInt(s, 10, n.Bits); err != nil {
			c.intIssue(n, s)
		}
	case kUint:
		if _, err := strconv.ParseUint(s, 10, n.Bits); err != nil {
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
	if n.Shape == kUint && len(s) > 0 && s[0] == '-' {
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
	if n.Shape == kUint {
		return "0", strconv.FormatUint(math.MaxUint64>>(64-n.Bits), 10)
	}
	return strconv.FormatInt(math.MinInt64>>(64-n.Bits), 10), strconv.FormatInt(math.MaxInt64>>(64-n.Bits), 10)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
