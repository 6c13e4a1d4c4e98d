package catalog

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/validate"
)

// ruleIssues checks the rules and enums a schema-built node carries,
// through the same rules and in the same words as the validate tags
// of typed functions, so that minLength 3 and validate:"min=3" fail alike.
// v must already have passed the node check.
func (c *Catalog) ruleIssues(n *node, v any) []Issue {
	r := ruleChecker{path: []any{}}
	r.walk(n, v)
	if len(r.issues) > maxIssues {
		r.issues = append(r.issues[:maxIssues], moreIssues)
	}
	return r.issues
}

type ruleChecker struct {
	path   []any
	issues []Issue
}

func (r *ruleChecker) add(msg string) {
	r.issues = append(r.issues, Issue{Path: slices.Clone(r.path), Message: msg})
}

func (r *ruleChecker) walk(n *node, v any) {
	// The walk follows the value, which is finite: a recursive node
	// cannot make it loop.
	if v == nil || len(r.issues) > maxIssues {
		return
	}
	if n.Shape == kPtr {
		r.walk(n.Elem, v)
		return
	}
	if len(n.Enum) > 0 && !slices.ContainsFunc(n.Enum, func(e any) bool { return sameJSON(e, v) }) {
		vals := make([]string, len(n.Enum))
		for i, e := range n.Enum {
			vals[i] = fmt.Sprint(e)
		}
		r.add("Must be one of: " + strings.Join(vals, ", "))
		return
	}
	for _, rule := range n.Rules {
		if !holds(v, rule) {
			r.add(jsontype.RuleMessage(rule.Tag, n.Kind(), rule.Param))
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			var en *node
			if i, ok := n.ByName[k]; ok && n.Shape == kStruct {
				en = n.Fields[i].Node
			} else if n.Shape == kMap || n.Open {
				en = n.Elem
			}
			if en != nil {
				r.path = append(r.path, k)
				r.walk(en, x[k])
				r.path = r.path[:len(r.path)-1]
			}
		}
	case []any:
		for i, e := range x {
			en := n.Elem
			if i < len(n.Items) {
				en = n.Items[i]
			}
			if en != nil {
				r.path = append(r.path, i)
				r.walk(en, e)
				r.path = r.path[:len(r.path)-1]
			}
		}
	}
}

// holds runs one rule on v with the rules typed functions use, on the
// Go value a typed function would hold (numbers as float64).
func holds(v any, rule jsontype.Rule) bool {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return true
		}
		return validate.Holds(rule.Tag, rule.Param, f)
	case string, []any, map[string]any, bool:
		return validate.Holds(rule.Tag, rule.Param, x)
	}
	return true
}

// sameJSON reports whether two parsed JSON scalars are equal; numbers
// compare by value.
func sameJSON(a, b any) bool {
	an, aNum := a.(json.Number)
	bn, bNum := b.(json.Number)
	if aNum && bNum {
		af, err1 := an.Float64()
		bf, err2 := bn.Float64()
		return err1 == nil && err2 == nil && af == bf
	}
	return a == b
}
