package catalog

import (
	"errors"
	"reflect"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/brakinglab/codemode-go/internal/jsonnull"
	"github.com/brakinglab/codemode-go/internal/validate"
)

// Arguments are decoded with encoding/json's semantics except that member
// names match exactly (encoding/json folds case, which would let "LAP" set
// "lap" behind the plan's back). Unknown members are ignored here: the plan
// check has already rejected them where the tier requires it. Duplicate
// member names are rejected rather than letting the last one win.
var unmarshalOpts = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(),
	jsonv2.MatchCaseInsensitiveNames(false), jsontext.AllowDuplicateNames(false))

// Results are encoded with encoding/json's semantics except that nil slices
// and maps become [] and {}, so a declared array is always an array.
var marshalOpts = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(),
	jsonv2.FormatNilSliceAsNull(false), jsonv2.FormatNilMapAsNull(false))

// unmarshalArgs decodes checked arguments. Errors here come only from types
// that decode themselves (json.Unmarshaler): the plan check has already
// caught everything else.
func unmarshalArgs(args []byte, v any) error {
	err := jsonv2.Unmarshal(args, v, unmarshalOpts)
	if err == nil {
		return nil
	}
	var (
		te *jsonv1.UnmarshalTypeError
		se *jsonv2.SemanticError
	)
	switch {
	case errors.As(err, &te):
		path := []any{}
		if te.Field != "" {
			for _, part := range strings.Split(te.Field, ".") {
				if i, err := strconv.Atoi(part); err == nil {
					path = append(path, i)
				} else {
					path = append(path, part)
				}
			}
		}
		msg := "Invalid value"
		// errors.Unwrap, not te.Err: on Go 1.27 the type is encoding/json's,
		// whose Err field a go1.26 module may not name.
		if cause := errors.Unwrap(te); cause != nil {
			msg += ": " + cause.Error()
		}
		return &ValidationError{Issues: []Issue{{Path: path, Message: msg}}}
	case errors.As(err, &se):
		msg := "Invalid value"
		if se.Err != nil {
			msg += ": " + se.Err.Error()
		}
		return &ValidationError{Issues: []Issue{{Path: pointerPath(se.JSONPointer), Message: msg}}}
	}
	// A type's own UnmarshalJSON failed: its message describes its format.
	return &ValidationError{Issues: []Issue{{Path: []any{}, Message: "Invalid value: " + err.Error()}}}
}

// pointerPath converts an RFC 6901 pointer to an issue path; all-digit
// tokens become indices.
func pointerPath(p jsontext.Pointer) []any {
	path := []any{}
	for tok := range p.Tokens() {
		if i, err := strconv.Atoi(tok); err == nil && !strings.HasPrefix(tok, "+") {
			path = append(path, i)
			continue
		}
		path = append(path, tok)
	}
	return path
}

func (c *Catalog) marshalResult(v any) ([]byte, error) {
	b, err := jsonv2.Marshal(v, marshalOpts)
	if err != nil {
		return nil, err
	}
	if c.opts.KeepNulls {
		return b, nil
	}
	return jsonnull.Strip(b)
}

// validateArgs runs the validate tags on *v (a pointer to the arguments
// struct) with the plan compiled at registration, and converts failures
// to a ValidationError.
func validateArgs(checks *validate.Plan, v any) error {
	found := checks.Check(reflect.ValueOf(v), maxIssues)
	if len(found) == 0 {
		return nil
	}
	issues := make([]Issue, len(found))
	for i, is := range found {
		issues[i] = Issue(is)
	}
	if len(issues) > maxIssues {
		issues = append(issues[:maxIssues], moreIssues)
	}
	return &ValidationError{Issues: issues}
}
