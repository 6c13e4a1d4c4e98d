package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// newValidator returns a validator that names fields by their JSON names.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(sf reflect.StructField) string {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch name {
		case "-":
			return "-"
		case "":
			return sf.Name
		}
		return name
	})
	return v
}

// validationIssues converts validator errors to issues with JSON paths.
func validationIssues(root reflect.Type, err error) ([]Issue, bool) {
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return nil, false
	}
	issues := make([]Issue, 0, min(len(verrs), maxIssues))
	for _, fe := range verrs {
		if len(issues) == maxIssues {
			issues = append(issues, moreIssues)
			break
		}
		issues = append(issues, Issue{Path: namespacePath(root, fe.Namespace()), Message: ruleMessage(fe)})
	}
	return issues, true
}

// namespacePath turns a validator namespace such as
// "Args.corners[0].verdict" into ["corners", 0, "verdict"], using the Go
// types to tell array indices from map keys and to drop the names of
// embedded structs, which encoding/json flattens.
func namespacePath(t reflect.Type, ns string) []any {
	path := []any{}
	// Drop the leading struct type name.
	if i := strings.IndexAny(ns, ".["); i >= 0 {
		ns = ns[i:]
	} else {
		return path
	}
	for ns != "" {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch ns[0] {
		case '.':
			ns = ns[1:]
			end := strings.IndexAny(ns, ".[")
			if end < 0 {
				end = len(ns)
			}
			name := ns[:end]
			ns = ns[end:]
			if t.Kind() != reflect.Struct {
				path = append(path, name)
				continue
			}
			if f, ok := fieldByJSONName(t, name); ok {
				path = append(path, name)
				t = f.Type
			} else if sf, ok := t.FieldByName(name); ok && sf.Anonymous {
				t = sf.Type // embedded: flattened in JSON
			} else {
				path = append(path, name)
			}
		case '[':
			end := strings.IndexByte(ns, ']')
			if end < 0 {
				return path
			}
			key := ns[1:end]
			ns = ns[end+1:]
			switch t.Kind() {
			case reflect.Slice, reflect.Array:
				i, _ := strconv.Atoi(key)
				path = append(path, i)
			default:
				path = append(path, key)
			}
			if k := t.Kind(); k == reflect.Slice || k == reflect.Array || k == reflect.Map {
				t = t.Elem()
			}
		default:
			return path
		}
	}
	return path
}

func fieldByJSONName(t reflect.Type, name string) (jsontype.Field, bool) {
	for _, f := range jsontype.Fields(t) {
		if f.Name == name {
			return f, true
		}
	}
	return jsontype.Field{}, false
}

// ruleMessage explains a failed validate rule in plain words.
func ruleMessage(fe validator.FieldError) string {
	p := fe.Param()
	k := fe.Kind()
	switch fe.Tag() {
	case "required", "required_if", "required_unless", "required_with", "required_with_all", "required_without", "required_without_all":
		switch k {
		case reflect.String:
			return "Must not be empty"
		case reflect.Slice, reflect.Array, reflect.Map:
			return "Must have at least 1 item"
		case reflect.Pointer, reflect.Interface, reflect.Invalid:
			return "Required field"
		case reflect.Bool:
			return "Must be true"
		case reflect.Struct:
			return "Required field"
		}
		return "Must not be 0"
	case "oneof":
		return "Must be one of: " + strings.Join(jsontype.OneOf(p), ", ")
	case "min", "gte":
		return bound(k, "at least", p)
	case "max", "lte":
		return bound(k, "at most", p)
	case "gt":
		return bound(k, "more than", p)
	case "lt":
		return bound(k, "less than", p)
	case "len", "eq":
		if fe.Tag() == "eq" && k == reflect.String {
			return fmt.Sprintf("Must be %q", p)
		}
		return bound(k, "exactly", p)
	case "ne":
		return "Must not be " + p
	case "email":
		return "Must be a valid email address"
	case "url", "http_url", "uri":
		return "Must be a valid URL"
	case "uuid", "uuid3", "uuid4", "uuid5", "uuid_rfc4122", "uuid4_rfc4122":
		return "Must be a valid UUID"
	case "alpha":
		return "Must contain only letters"
	case "alphanum":
		return "Must contain only letters and digits"
	case "numeric", "number":
		return "Must contain only digits"
	case "lowercase":
		return "Must be lowercase"
	case "uppercase":
		return "Must be uppercase"
	case "ascii", "printascii":
		return "Must contain only ASCII characters"
	case "contains":
		return fmt.Sprintf("Must contain %q", p)
	case "excludes":
		return fmt.Sprintf("Must not contain %q", p)
	case "startswith":
		return fmt.Sprintf("Must start with %q", p)
	case "endswith":
		return fmt.Sprintf("Must end with %q", p)
	case "unique":
		return "Must not contain duplicates"
	case "datetime":
		return "Must be a date/time in the Go layout " + p
	case "hexcolor":
		return "Must be a hex color such as #ff0000"
	case "ip", "ipv4", "ipv6":
		return "Must be a valid IP address"
	case "hostname", "hostname_rfc1123", "fqdn":
		return "Must be a valid host name"
	case "json":
		return "Must be valid JSON"
	case "e164":
		return "Must be a phone number in E.164 format"
	case "iso3166_1_alpha2":
		return "Must be a two-letter country code"
	case "timezone":
		return "Must be an IANA time zone such as Europe/Berlin"
	}
	if p != "" {
		return fmt.Sprintf("Failed the %s=%s rule", fe.Tag(), p)
	}
	return fmt.Sprintf("Failed the %s rule", fe.Tag())
}

// bound phrases a size rule for the kind of value it constrains.
func bound(k reflect.Kind, rel, p string) string {
	n, _ := strconv.ParseFloat(p, 64)
	switch k {
	case reflect.String:
		return fmt.Sprintf("Must be %s %s %s", rel, p, plural(n, "character"))
	case reflect.Slice, reflect.Array, reflect.Map:
		return fmt.Sprintf("Must have %s %s %s", rel, p, plural(n, "item"))
	}
	return fmt.Sprintf("Must be %s %s", rel, p)
}

func plural(n float64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
