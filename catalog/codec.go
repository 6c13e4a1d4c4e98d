package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/brakinglab/codemode-go/internal/jsonnull"
	"github.com/brakinglab/codemode-go/internal/jsontype"
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

// validateStruct runs the validate tags on *v, whose type model is n, and
// converts failures to a ValidationError.
func (c *Catalog) validateStruct(n *node, v any) error {
	err := c.validate.Struct(v)
	if err == nil {
		return nil
	}
	if issues, ok := validationIssues(n, err); ok {
		return &ValidationError{Issues: issues}
	}
	return fmt.Errorf("validating arguments: %w", err)
}

// checkTags parses every validate tag reachable from node n, so that a
// misspelled rule is reported at registration. validator/v10 only parses a
// struct's tags when it first validates a value of it, and never reaches
// elements of slices without "dive", so walking the type model is the
// only way to see them all.
func (c *Catalog) checkTags(n *node) error {
	seen := map[*node]bool{}
	var walk func(n *node) error
	walk = func(n *node) error {
		for n != nil && n.Shape != kStruct && n.Elem != nil {
			n = n.Elem // pointers, slices, arrays, maps
		}
		if n == nil || n.Shape != kStruct || seen[n] {
			return nil
		}
		seen[n] = true
		for _, f := range n.Fields {
			if f.Go != nil && f.Go.Validate != "" {
				if err := c.parseTag(*f.Go); err != nil {
					return err
				}
			}
			if err := walk(f.Node); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(n)
}

// parseTag makes validator/v10 parse f's tag by validating a zero value
// with it. Only an unknown rule is an error: cross-field rules may fail in
// other ways outside their struct.
func (c *Catalog) parseTag(f jsontype.Field) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if msg := fmt.Sprint(r); strings.Contains(msg, "Undefined validation function") {
				err = fmt.Errorf("field %s: validate tag %q: %s", f.GoName, f.Validate, msg)
			}
		}
	}()
	_ = c.validate.Var(reflect.Zero(f.Type).Interface(), f.Validate)
	return nil
}
