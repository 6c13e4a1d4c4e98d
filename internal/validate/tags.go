package validate

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// op is what one element of a validate tag does.
type op uint8

const (
	opRule      op = iota + 1 // a rule of the table
	opOmitEmpty               // stop when the value is absent or zero
	opOmitZero                // stop when the value is zero or empty
	opOmitNil                 // stop when the value is nil
	opDive                    // the rest applies to each element
	opOr                      // alternatives joined by "|"
)

// step is one parsed element of a validate tag.
type step struct {
	op       op
	tag      string // the rule's name
	param    string
	hasParam bool     // "=" was written, even with nothing after it
	fn       ruleFunc // opRule
	alts     []step   // opOr: the alternatives, each an opRule
	keys     chain    // opDive: the rules between keys and endkeys, for map keys
	hasKeys  bool
}

// chain is a parsed validate tag, in order.
type chain []step

// name is the tag an issue reports for the step: the rule, or the
// alternatives as written.
func (s step) name() string {
	switch s.op {
	case opDive:
		return "dive"
	case opOr:
		parts := make([]string, len(s.alts))
		for i, a := range s.alts {
			parts[i] = a.tag
			if a.hasParam {
				parts[i] += "=" + a.param
			}
		}
		return strings.Join(parts, "|")
	}
	return s.tag
}

// errSkip is a tag of "-": the member is not validated at all.
var errSkip = errors.New("skip")

// parseTag parses a validate tag. Every rule must be in the documented
// table (jsontype.LookupRule); the structural words are dive, keys and
// endkeys, omitempty, omitzero and omitnil, and "|" joins alternatives.
// A tag of "-" gives errSkip.
func parseTag(tag string) (chain, error) {
	if tag == "-" {
		return nil, errSkip
	}
	parts := strings.Split(tag, ",")
	var c chain
	for i := 0; i < len(parts); i++ {
		switch t := parts[i]; t {
		case "dive":
			c = append(c, step{op: opDive})
		case "keys":
			if len(c) == 0 || c[len(c)-1].op != opDive || c[len(c)-1].hasKeys {
				return nil, errors.New("keys must come right after dive")
			}
			end := len(parts)
			for j := i + 1; j < len(parts); j++ {
				if parts[j] == "endkeys" {
					end = j
					break
				}
			}
			keys, err := parseTag(strings.Join(parts[i+1:end], ","))
			if err != nil {
				return nil, fmt.Errorf("keys: %w", err)
			}
			c[len(c)-1].keys, c[len(c)-1].hasKeys = keys, true
			i = end
		case "endkeys":
			return nil, errors.New("endkeys without keys")
		case "omitempty":
			c = append(c, step{op: opOmitEmpty})
		case "omitzero":
			c = append(c, step{op: opOmitZero})
		case "omitnil":
			c = append(c, step{op: opOmitNil})
		default:
			if !strings.Contains(t, "|") {
				s, err := parseRule(t)
				if err != nil {
					return nil, err
				}
				c = append(c, s)
				continue
			}
			or := step{op: opOr}
			for _, alt := range strings.Split(t, "|") {
				s, err := parseRule(alt)
				if err != nil {
					return nil, err
				}
				or.alts = append(or.alts, s)
			}
			c = append(c, or)
		}
	}
	return c, nil
}

// parseRule parses one "name" or "name=param" of the table.
func parseRule(t string) (step, error) {
	name, param, hasParam := strings.Cut(t, "=")
	if name == "" {
		return step{}, fmt.Errorf("empty rule in %q", t)
	}
	fn, ok := funcs[name]
	if _, doc := jsontype.LookupRule(name); !ok || !doc {
		return step{}, fmt.Errorf("unknown rule %q; the rules are listed in the catalog package documentation", name)
	}
	param = strings.ReplaceAll(strings.ReplaceAll(param, "0x2C", ","), "0x7C", "|")
	return step{op: opRule, tag: name, param: param, hasParam: hasParam, fn: fn}, nil
}

// Holds runs one rule on a value parsed from JSON (string, float64, bool,
// []any or map[string]any), as a typed function's member of the same
// shape would be checked. A rule that cannot read such a value, or whose
// parameter is malformed, holds: the JSON Schema validator decides there.
func Holds(tag, param string, v any) bool {
	fn, ok := funcs[tag]
	if !ok {
		return true
	}
	res, err := fn(value{v: reflect.ValueOf(v)}, param)
	return err != nil || res
}
