package jsontype

import (
	"encoding/json"
	"math"
	"strconv"
)

// Reading the values of schema keywords: bounds as validate rules, enums,
// defaults and which keywords only annotate.

// bounds turns the inclusive and exclusive bound keywords into rules.
func bounds(s *ordered, minKw, maxKw, exMinKw, exMaxKw string) []Rule {
	var out []Rule
	add := func(kw, tag string) {
		if kw == "" {
			return
		}
		if v, ok := s.M[kw].(json.Number); ok {
			out = append(out, Rule{Tag: tag, Param: numParam(v)})
		}
	}
	add(minKw, "min")
	add(maxKw, "max")
	add(exMinKw, "gt")
	add(exMaxKw, "lt")
	return out
}

// numParam writes a number the way validate tags do: 10, not 10.0.
func numParam(v json.Number) string {
	if f, err := v.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return string(v)
}

// enum returns the values of enum or const when they are all scalars.
func enum(s *ordered) ([]any, bool) {
	var vals []any
	if c, ok := s.Get("const"); ok {
		vals = []any{c}
	} else if e, ok := s.M["enum"].([]any); ok {
		vals = e
	} else {
		return nil, false
	}
	for _, v := range vals {
		switch v.(type) {
		case string, json.Number, bool, nil:
		default:
			return nil, false
		}
	}
	return vals, true
}

// plain converts an ordered value back to encoding/json's types.
func plain(v any) any {
	switch v := v.(type) {
	case *ordered:
		m := make(map[string]any, len(v.M))
		for k, e := range v.M {
			m[k] = plain(e)
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// onlyAnnotations reports whether s has no keyword that constrains
// values beside $ref (description, title, default, examples…).
func onlyAnnotations(s *ordered) bool {
	for _, k := range s.Keys {
		switch k {
		case "$ref", "$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$schema", "$id", "$defs", "definitions":
		default:
			return false
		}
	}
	return true
}
