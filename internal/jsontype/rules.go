package jsontype

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// RuleSpec is everything the library says about one validate tag: the
// message the model reads when a value breaks it (catalog), the JSON Schema
// keywords that declare it (typegen's InputSchema) and, through those, the
// JSDoc of the .d.ts. One table, so the three never disagree.
type RuleSpec struct {
	// Message explains a failed rule in plain words; k is the Kind of the
	// value checked and param the rule's parameter.
	Message func(k reflect.Kind, param string) string
	// Keywords returns the JSON Schema keywords expressing the rule, in a
	// fixed order; none for rules the schema states elsewhere (required,
	// oneof as enum in the type) or cannot state.
	Keywords func(k reflect.Kind, param string) []Keyword
	// Prose makes the JSDoc carry Message rather than the keywords, for
	// keywords a reader cannot read at a glance (patterns).
	Prose bool
	// Presence marks rules about whether a member is present (required…):
	// stated by optionality, not by keywords or prose.
	Presence bool
}

// Keyword is one JSON Schema keyword and its value.
type Keyword struct {
	Name  string
	Value any
}

// Doc returns the JSDoc lines for rule r on a value of kind k: "@keyword
// value" lines, or the message for prose rules and for rules with no
// keyword.
func (s RuleSpec) Doc(k reflect.Kind, param string) []string {
	if s.Presence {
		return nil
	}
	kws := s.keywords(k, param)
	if s.Prose || len(kws) == 0 {
		return []string{s.Message(k, param) + "."}
	}
	var out []string
	for _, kw := range kws {
		if kw.Name == "enum" {
			continue // a union of literals in the type itself
		}
		out = append(out, fmt.Sprintf("@%s %v", kw.Name, kw.Value))
	}
	return out
}

func (s RuleSpec) keywords(k reflect.Kind, param string) []Keyword {
	if s.Keywords == nil {
		return nil
	}
	return s.Keywords(k, param)
}

// SchemaKeywords is Keywords, never nil-func.
func (s RuleSpec) SchemaKeywords(k reflect.Kind, param string) []Keyword {
	return s.keywords(k, param)
}

// LookupRule returns the spec of a validate tag.
func LookupRule(tag string) (RuleSpec, bool) {
	s, ok := rules[tag]
	return s, ok
}

// RuleTags lists every validate tag with a spec, sorted.
func RuleTags() []string {
	tags := make([]string, 0, len(rules))
	for t := range rules {
		tags = append(tags, t)
	}
	slices.Sort(tags)
	return tags
}

// RuleMessage is the message for tag, with a generic fallback for tags
// without a spec.
func RuleMessage(tag string, k reflect.Kind, param string) string {
	if s, ok := rules[tag]; ok {
		return s.Message(k, param)
	}
	if param != "" {
		return fmt.Sprintf("Failed the %s=%s rule", tag, param)
	}
	return fmt.Sprintf("Failed the %s rule", tag)
}

// crossMember lists the rules whose parameter names other members of the
// same struct by their Go names.
var crossMember = map[string]bool{"required_without": true, "required_without_all": true}

// CrossMember reports whether tag's parameter names sibling members.
func CrossMember(tag string) bool { return crossMember[tag] }

// sized tells what a size rule measures on a value of kind k.
type sized uint8

const (
	sizeNumber sized = iota
	sizeString
	sizeItems
	sizeMap
)

func sizeOf(k reflect.Kind) sized {
	switch k {
	case reflect.String:
		return sizeString
	case reflect.Slice, reflect.Array:
		return sizeItems
	case reflect.Map:
		return sizeMap
	}
	return sizeNumber
}

// Num parses a numeric rule parameter as an int when it is one.
func Num(p string) any {
	if i, err := strconv.Atoi(p); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(p, 64); err == nil {
		return f
	}
	return p
}

// boundKeyword names the keyword bounding a value of kind k from below
// ("min") or above ("max").
func boundKeyword(k reflect.Kind, side string) string {
	switch sizeOf(k) {
	case sizeString:
		return side + "Length"
	case sizeItems:
		return side + "Items"
	case sizeMap:
		return side + "Properties"
	}
	return side + "imum"
}

func bound(side string) func(reflect.Kind, string) []Keyword {
	return func(k reflect.Kind, p string) []Keyword { return []Keyword{{boundKeyword(k, side), Num(p)}} }
}

// strict is gt and lt: exclusive bounds on numbers, and one more (or one
// fewer) on sizes.
func strict(side string) func(reflect.Kind, string) []Keyword {
	return func(k reflect.Kind, p string) []Keyword {
		if sizeOf(k) == sizeNumber {
			name := "exclusiveMinimum"
			if side == "max" {
				name = "exclusiveMaximum"
			}
			return []Keyword{{name, Num(p)}}
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil
		}
		if side == "min" {
			n++
		} else {
			n--
		}
		return []Keyword{{boundKeyword(k, side), n}}
	}
}

func exactly(k reflect.Kind, p string) []Keyword {
	if sizeOf(k) == sizeNumber {
		return []Keyword{{"const", Num(p)}}
	}
	return []Keyword{{boundKeyword(k, "min"), Num(p)}, {boundKeyword(k, "max"), Num(p)}}
}

func format(f string) func(reflect.Kind, string) []Keyword {
	return func(reflect.Kind, string) []Keyword { return []Keyword{{"format", f}} }
}

func pattern(re string) func(reflect.Kind, string) []Keyword {
	return func(reflect.Kind, string) []Keyword { return []Keyword{{"pattern", re}} }
}

func text(msg string) func(reflect.Kind, string) string {
	return func(reflect.Kind, string) string { return msg }
}

func sizeMessage(rel string) func(reflect.Kind, string) string {
	return func(k reflect.Kind, p string) string {
		n, _ := strconv.ParseFloat(p, 64)
		switch sizeOf(k) {
		case sizeString:
			return fmt.Sprintf("Must be %s %s %s", rel, p, plural(n, "character"))
		case sizeItems, sizeMap:
			return fmt.Sprintf("Must have %s %s %s", rel, p, plural(n, "item"))
		}
		return fmt.Sprintf("Must be %s %s", rel, p)
	}
}

func plural(n float64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func requiredMessage(k reflect.Kind, _ string) string {
	switch k {
	case reflect.String:
		return "Must not be empty"
	case reflect.Slice, reflect.Array, reflect.Map:
		return "Must have at least 1 item"
	case reflect.Pointer, reflect.Interface, reflect.Invalid, reflect.Struct:
		return "Required field"
	case reflect.Bool:
		return "Must be true"
	}
	return "Must not be 0"
}

var rules = map[string]RuleSpec{}

func init() {
	presence := RuleSpec{Message: requiredMessage, Presence: true}
	for _, t := range []string{"required", "required_if", "required_unless", "required_with", "required_with_all"} {
		rules[t] = presence
	}
	// required_without says a member is needed when others are absent: a
	// rule across members, so it is stated in words wherever it shows.
	// Params are the other members' JSON names (see [Node.MemberNames]).
	rules["required_without"] = RuleSpec{Message: func(_ reflect.Kind, p string) string {
		names := strings.Fields(p)
		if len(names) == 1 {
			return "Required unless " + names[0] + " is given"
		}
		return "Required unless " + strings.Join(names, " and ") + " are given"
	}}
	rules["required_without_all"] = RuleSpec{Message: func(_ reflect.Kind, p string) string {
		return "Required unless " + strings.Join(strings.Fields(p), " or ") + " is given"
	}}
	rules["omitempty"] = RuleSpec{Message: text(""), Presence: true}
	rules["oneof"] = RuleSpec{
		Message: func(_ reflect.Kind, p string) string { return "Must be one of: " + strings.Join(OneOf(p), ", ") },
		Keywords: func(k reflect.Kind, p string) []Keyword {
			vals := OneOf(p)
			enum := make([]any, len(vals))
			for i, v := range vals {
				if sizeOf(k) == sizeNumber {
					enum[i] = Num(v)
				} else {
					enum[i] = v
				}
			}
			return []Keyword{{"enum", enum}}
		},
	}
	for _, t := range []string{"min", "gte"} {
		rules[t] = RuleSpec{Message: sizeMessage("at least"), Keywords: bound("min")}
	}
	for _, t := range []string{"max", "lte"} {
		rules[t] = RuleSpec{Message: sizeMessage("at most"), Keywords: bound("max")}
	}
	rules["gt"] = RuleSpec{Message: sizeMessage("more than"), Keywords: strict("min")}
	rules["lt"] = RuleSpec{Message: sizeMessage("less than"), Keywords: strict("max")}
	rules["len"] = RuleSpec{Message: sizeMessage("exactly"), Keywords: exactly}
	rules["eq"] = RuleSpec{
		Message: func(k reflect.Kind, p string) string {
			if k == reflect.String {
				return fmt.Sprintf("Must be %q", p)
			}
			return sizeMessage("exactly")(k, p)
		},
		Keywords: func(k reflect.Kind, p string) []Keyword {
			if k == reflect.String {
				return []Keyword{{"const", p}}
			}
			return exactly(k, p)
		},
	}
	rules["ne"] = RuleSpec{Message: func(_ reflect.Kind, p string) string { return "Must not be " + p }}
	rules["email"] = RuleSpec{Message: text("Must be a valid email address"), Keywords: format("email")}
	for _, t := range []string{"url", "http_url", "uri"} {
		rules[t] = RuleSpec{Message: text("Must be a valid URL"), Keywords: format("uri")}
	}
	for _, t := range []string{"uuid", "uuid3", "uuid4", "uuid5", "uuid_rfc4122", "uuid4_rfc4122"} {
		rules[t] = RuleSpec{Message: text("Must be a valid UUID"), Keywords: format("uuid")}
	}
	rules["ipv4"] = RuleSpec{Message: text("Must be a valid IP address"), Keywords: format("ipv4")}
	rules["ipv6"] = RuleSpec{Message: text("Must be a valid IP address"), Keywords: format("ipv6")}
	rules["ip"] = RuleSpec{Message: text("Must be a valid IP address")}
	for _, t := range []string{"hostname", "hostname_rfc1123", "fqdn"} {
		rules[t] = RuleSpec{Message: text("Must be a valid host name"), Keywords: format("hostname")}
	}
	prose := func(msg, re string) RuleSpec {
		return RuleSpec{Message: text(msg), Keywords: pattern(re), Prose: true}
	}
	rules["alpha"] = prose("Must contain only letters", `^[a-zA-Z]+$`)
	rules["alphanum"] = prose("Must contain only letters and digits", `^[a-zA-Z0-9]+$`)
	rules["numeric"] = prose("Must contain only digits", `^[-+]?[0-9]+(?:\.[0-9]+)?$`)
	rules["number"] = prose("Must contain only digits", `^[0-9]+$`)
	rules["ascii"] = prose("Must contain only ASCII characters", `^[\x00-\x7F]*$`)
	rules["printascii"] = prose("Must contain only ASCII characters", `^[\x20-\x7E]*$`)
	rules["hexcolor"] = prose("Must be a hex color such as #ff0000", `^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$`)
	rules["e164"] = prose("Must be a phone number in E.164 format", `^\+[1-9]?[0-9]{7,14}$`)
	rules["iso3166_1_alpha2"] = prose("Must be a two-letter country code", `^[A-Z]{2}$`)
	rules["lowercase"] = RuleSpec{Message: text("Must be lowercase")}
	rules["uppercase"] = RuleSpec{Message: text("Must be uppercase")}
	rules["timezone"] = RuleSpec{Message: text("Must be an IANA time zone such as Europe/Berlin")}
	// contentMediaType would only annotate: validators do not check it.
	rules["json"] = RuleSpec{Message: text("Must be valid JSON")}
	rules["unique"] = RuleSpec{Message: text("Must not contain duplicates"),
		Keywords: func(reflect.Kind, string) []Keyword { return []Keyword{{"uniqueItems", true}} }}
	quoted := func(msg string, re func(string) string) RuleSpec {
		return RuleSpec{
			Message:  func(_ reflect.Kind, p string) string { return fmt.Sprintf(msg, p) },
			Keywords: func(_ reflect.Kind, p string) []Keyword { return []Keyword{{"pattern", re(regexp.QuoteMeta(p))}} },
			Prose:    true,
		}
	}
	rules["contains"] = quoted("Must contain %q", func(q string) string { return q })
	rules["startswith"] = quoted("Must start with %q", func(q string) string { return "^" + q })
	rules["endswith"] = quoted("Must end with %q", func(q string) string { return q + "$" })
	rules["excludes"] = RuleSpec{Message: func(_ reflect.Kind, p string) string { return fmt.Sprintf("Must not contain %q", p) }}
	rules["datetime"] = RuleSpec{
		Message:  func(_ reflect.Kind, p string) string { return "Must be a date/time written as " + HumanLayout(p) },
		Keywords: func(_ reflect.Kind, p string) []Keyword { return []Keyword{{"pattern", layoutPattern(p)}} },
		Prose:    true,
	}
}

// layoutTokens maps Go time layout elements to the notation people write
// (YYYY-MM-DD) and to a pattern matching them; longest first.
var layoutTokens = []struct{ goLayout, human, re string }{
	{"2006", "YYYY", `[0-9]{4}`}, {"January", "MonthName", `[A-Za-z]+`}, {"Monday", "WeekdayName", `[A-Za-z]+`},
	{"Jan", "Mon", `[A-Za-z]{3}`}, {"Mon", "Ddd", `[A-Za-z]{3}`}, {"MST", "TZ", `[A-Z]{3,4}`},
	{"Z07:00", "±hh:mm", `(?:Z|[+-][0-9]{2}:[0-9]{2})`}, {"-07:00", "±hh:mm", `[+-][0-9]{2}:[0-9]{2}`},
	{"Z0700", "±hhmm", `(?:Z|[+-][0-9]{4})`}, {"-0700", "±hhmm", `[+-][0-9]{4}`},
	{".000000000", ".sssssssss", `\.[0-9]{9}`}, {".000000", ".ssssss", `\.[0-9]{6}`}, {".000", ".sss", `\.[0-9]{3}`},
	{"01", "MM", `[0-9]{2}`}, {"02", "DD", `[0-9]{2}`}, {"06", "YY", `[0-9]{2}`},
	{"15", "HH", `[0-9]{2}`}, {"03", "hh", `[0-9]{2}`}, {"04", "mm", `[0-9]{2}`}, {"05", "ss", `[0-9]{2}`},
	{"PM", "AM/PM", `(?:AM|PM)`}, {"pm", "am/pm", `(?:am|pm)`},
	{"_2", "_D", `[ 0-9][0-9]`}, {"1", "M", `[0-9]{1,2}`}, {"2", "D", `[0-9]{1,2}`}, {"3", "h", `[0-9]{1,2}`},
}

func walkLayout(layout string, human bool) string {
	var b strings.Builder
	for layout != "" {
		matched := false
		for _, tok := range layoutTokens {
			if strings.HasPrefix(layout, tok.goLayout) {
				if human {
					b.WriteString(tok.human)
				} else {
					b.WriteString(tok.re)
				}
				layout = layout[len(tok.goLayout):]
				matched = true
				break
			}
		}
		if !matched {
			c := layout[:1]
			if human {
				b.WriteString(c)
			} else {
				b.WriteString(regexp.QuoteMeta(c))
			}
			layout = layout[1:]
		}
	}
	return b.String()
}

// HumanLayout writes a Go time layout the way people read one:
// "2006-01-02" is "YYYY-MM-DD", "15:04" is "HH:mm".
func HumanLayout(layout string) string { return walkLayout(layout, true) }

func layoutPattern(layout string) string { return "^" + walkLayout(layout, false) + "$" }
