// The reference the differential test holds internal/validate to:
// validator/v10 as the catalog ran it before it had its own checker,
// with the conversion of its errors to issues the catalog used then
// (catalog/messages.go at commit 990da59, unchanged but for names).

package integration

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// refIssue is an issue as the catalog made it from validator/v10's errors.
type refIssue struct {
	Path    []any
	Message string
}

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

// validationIssues converts validator errors to issues with JSON paths,
// read from root, the node of the validated struct.
func validationIssues(root *jsontype.Node, err error) ([]refIssue, bool) {
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return nil, false
	}
	issues := make([]refIssue, 0, len(verrs))
	for _, fe := range verrs {
		path, parent, via := namespacePath(root, fe.Namespace())
		issues = append(issues, refIssue{Path: path, Message: ruleMessage(fe, parent, via)})
	}
	return issues, true
}

// namespacePath turns a validator namespace such as
// "Args.corners[0].verdict" into ["corners", 0, "verdict"], reading the
// type model from n to tell array indices from map keys and to drop the
// names of embedded structs, which encoding/json flattens. It also
// returns the struct node holding the last member and the embedded
// structs entered in it, for rules that name its siblings.
func namespacePath(n *jsontype.Node, ns string) (path []any, parent *jsontype.Node, via []string) {
	path = []any{}
	// Drop the leading struct type name.
	if i := strings.IndexAny(ns, ".["); i >= 0 {
		ns = ns[i:]
	} else {
		return path, parent, via
	}
	for ns != "" {
		for n != nil && n.Shape == jsontype.Ptr {
			n = n.Elem
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
			if n == nil || n.Shape != jsontype.Struct {
				path = append(path, name)
				continue
			}
			if parent != n {
				parent, via = n, nil
			}
			if f, ok := member(n, name, via); ok {
				path = append(path, name)
				n, via = f.Node, nil
			} else if embeds(n, append(slices.Clip(via), name)) {
				via = append(slices.Clip(via), name) // embedded: flattened in JSON
			} else {
				path = append(path, name)
			}
		case '[':
			end := strings.IndexByte(ns, ']')
			if end < 0 {
				return path, parent, via
			}
			key := ns[1:end]
			ns = ns[end+1:]
			if n != nil && (n.Shape == jsontype.Slice || n.Shape == jsontype.Array) {
				i, _ := strconv.Atoi(key)
				path = append(path, i)
			} else {
				path = append(path, key)
			}
			if n != nil && (n.Shape == jsontype.Slice || n.Shape == jsontype.Array || n.Shape == jsontype.Map) {
				n = n.Elem
			}
		default:
			return path, parent, via
		}
	}
	return path, parent, via
}

// member finds the member of Go struct node n named name in JSON that
// is promoted through exactly the embedded structs via.
func member(n *jsontype.Node, name string, via []string) (jsontype.FieldNode, bool) {
	for _, f := range n.Fields {
		if f.Name == name && f.Go != nil && slices.Equal(f.Go.Via, via) {
			return f, true
		}
	}
	return jsontype.FieldNode{}, false
}

// embeds reports whether some member of n is promoted through the
// embedded structs via.
func embeds(n *jsontype.Node, via []string) bool {
	for _, f := range n.Fields {
		if f.Go != nil && len(f.Go.Via) >= len(via) && slices.Equal(f.Go.Via[:len(via)], via) {
			return true
		}
	}
	return false
}

// ruleMessage explains a failed validate rule in plain words, from the
// rule table typegen declares the same rules from.
func ruleMessage(fe validator.FieldError, parent *jsontype.Node, via []string) string {
	return jsontype.RuleMessage(fe.Tag(), fe.Kind(), parent.MemberNames(fe.Tag(), fe.Param(), via...))
}
