package jsontype

import "strings"

// Rule is one validator/v10 rule from a validate:"…" tag, e.g. {min 1}.
type Rule struct {
	Tag   string
	Param string
}

// SplitValidate parses a validate tag into the rules that apply to the field
// itself and the rest of the tag after "dive", which applies to the
// elements of a slice or map ("" when there is no dive). Alternatives
// joined by "|" are kept as one rule with Tag "|" and the raw text as Param.
func SplitValidate(tag string) (rules []Rule, elem string) {
	for tag != "" {
		var part string
		part, tag, _ = strings.Cut(tag, ",")
		if part == "dive" {
			return rules, tag
		}
		if part == "" {
			continue
		}
		if strings.Contains(part, "|") {
			rules = append(rules, Rule{Tag: "|", Param: part})
			continue
		}
		name, param, _ := strings.Cut(part, "=")
		rules = append(rules, Rule{Tag: name, Param: param})
	}
	return rules, ""
}

// OneOf splits a oneof parameter into its values. Values containing spaces
// are written in single quotes, as validator/v10 allows.
func OneOf(param string) []string {
	var vals []string
	for param != "" {
		param = strings.TrimLeft(param, " ")
		if param == "" {
			break
		}
		if param[0] == '\'' {
			end := strings.IndexByte(param[1:], '\'')
			if end >= 0 {
				vals = append(vals, param[1:1+end])
				param = param[2+end:]
				continue
			}
		}
		v, rest, _ := strings.Cut(param, " ")
		vals = append(vals, v)
		param = rest
	}
	return vals
}
