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
		if te.Err != nil {
			msg += ": " + te.Err.Error()
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

// validateStruct runs the validate tags on *v and converts failures to a
// ValidationError.
func (c *Catalog) validateStruct(t reflect.Type, v any) error {
	err := c.validate.Struct(v)
	if err == nil {
		return nil
	}
	if issues, ok := validationIssues(t, err); ok {
		return &ValidationError{Issues: issues}
	}
	return fmt.Errorf("validating arguments: %w", err)
}

// validateSample runs the validator over a value of type t in which every
// pointer is set and every slice and map has one element, so that a
// misspelled validate tag anywhere panics now rather than during a call.
func (c *Catalog) validateSample(t reflect.Type) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bad validate tag: %v", r)
		}
	}()
	v := reflect.New(t)
	fill(v.Elem(), map[reflect.Type]int{})
	_ = c.validate.Struct(v.Interface())
	return nil
}

func fill(v reflect.Value, seen map[reflect.Type]int) {
	t := v.Type()
	if seen[t] > 1 {
		return
	}
	seen[t]++
	defer func() { seen[t]-- }()
	switch v.Kind() {
	case reflect.Pointer:
		if v.CanSet() && t.Elem().Kind() != reflect.Interface {
			v.Set(reflect.New(t.Elem()))
			fill(v.Elem(), seen)
		}
	case reflect.Slice:
		if v.CanSet() {
			v.Set(reflect.MakeSlice(t, 1, 1))
			fill(v.Index(0), seen)
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fill(v.Index(i), seen)
		}
	case reflect.Map:
		if v.CanSet() {
			m := reflect.MakeMap(t)
			k := reflect.New(t.Key()).Elem()
			e := reflect.New(t.Elem()).Elem()
			fill(e, seen)
			m.SetMapIndex(k, e)
			v.Set(m)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				fill(f, seen)
			}
		}
	}
}
