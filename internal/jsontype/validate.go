package jsontype

import (
	"regexp"
	"strings"
	"sync"
)

// Rule is one rule from a validate:"…" tag, e.g. {min 1}.
type Rule struct {
	Tag   string
	Param string
}

// SplitValidate parses a validate tag into the rules that apply to the field
// itself and the rest of the tag after "dive", which applies to the
// elements of a slice or map ("" when there is no dive). Alternatives
// joined by "|" are kept as one rule with Tag "|" and the raw text as Param;
// the rules for a map's keys (dive,keys,…,endkeys) are dropped.
func SplitValidate(tag string) (rules []Rule, elem string) {
	for tag != "" {
		var part string
		part, tag, _ = strings.Cut(tag, ",")
		if part == "dive" {
			return rules, dropKeys(tag)
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

// dropKeys removes a leading "keys,…,endkeys" from the rules after a dive:
// they apply to a map's keys, which declarations do not constrain.
func dropKeys(elem string) string {
	if elem != "keys" && !strings.HasPrefix(elem, "keys,") {
		return elem
	}
	parts := strings.Split(elem, ",")
	for i, p := range parts {
		if p == "endkeys" {
			return strings.Join(parts[i+1:], ",")
		}
	}
	return ""
}

// OneOf splits a oneof parameter into its values as validator/v10 does,
// which the checker of validate tags follows too: words separated by
// white space, or 'quoted words' that may hold spaces; every single quote
// is dropped.
func OneOf(param string) []string {
	vals := oneOfWords().FindAllString(param, -1)
	for i, v := range vals {
		vals[i] = strings.ReplaceAll(v, "'", "")
	}
	return vals
}

// oneOfWords is validator/v10's pattern for a oneof parameter's values.
var oneOfWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'[^']*'|\S+`) })
