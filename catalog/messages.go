package catalog

import (
	"errors"
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
		path, parent := namespacePath(root, fe.Namespace())
		issues = append(issues, Issue{Path: path, Message: ruleMessage(fe, parent)})
	}
	return issues, true
}

// namespacePath turns a validator namespace such as
// "Args.corners[0].verdict" into ["corners", 0, "verdict"], using the Go
// types to tell array indices from map keys and to drop the names of
// embedded structs, which encoding/json flattens. It also returns the
// struct holding the last member, for rules that name its siblings.
func namespacePath(t reflect.Type, ns string) (path []any, parent reflect.Type) {
	path = []any{}
	// Drop the leading struct type name.
	if i := strings.IndexAny(ns, ".["); i >= 0 {
		ns = ns[i:]
	} else {
		return path, parent
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
			parent = t
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
				return path, parent
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
			return path, parent
		}
	}
	return path, parent
}

func fieldByJSONName(t reflect.Type, name string) (jsontype.Field, bool) {
	for _, f := range jsontype.Fields(t) {
		if f.Name == name {
			return f, true
		}
	}
	return jsontype.Field{}, false
}

// ruleMessage explains a failed validate rule in plain words, from the
// rule table typegen declares the same rules from.
func ruleMessage(fe validator.FieldError, parent reflect.Type) string {
	return jsontype.RuleMessage(fe.Tag(), fe.Kind(), jsontype.MemberNames(parent, fe.Tag(), fe.Param()))
}
