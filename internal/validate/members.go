package validate

import (
	"fmt"
	"reflect"
	"strconv"
)

// The rules across members: required_if, required_unless, required_with,
// required_with_all, required_without and required_without_all. Their
// parameters name sibling members by Go name, looked up in the struct
// that holds the member (validator/v10's "parent").

// requiredIf is required_if (all named members equal their values) and,
// with unless, required_unless.
func requiredIf(unless bool) ruleFunc {
	return func(v value, p string) (bool, error) {
		params := oneOfValues(p)
		if len(params)%2 != 0 {
			return false, fmt.Errorf("the parameter must be pairs of a member and a value")
		}
		for i := 2; i < len(params); i += 2 {
			for j := 0; j < i; j += 2 {
				if params[j] == params[i] {
					return false, fmt.Errorf("member %s is named twice", params[i])
				}
			}
		}
		for i := 0; i < len(params); i += 2 {
			eq, err := memberEquals(v.parent, params[i], params[i+1])
			if err != nil {
				return false, err
			}
			if eq == unless {
				return true, nil
			}
		}
		return hasValue(v), nil
	}
}

// requiredWith is required_with and its variants: without reverses what
// "given" means, all requires every named member to be so (any one
// otherwise).
func requiredWith(without, all bool) ruleFunc {
	return func(v value, p string) (bool, error) {
		for _, name := range oneOfValues(p) {
			absent, err := memberAbsent(v.parent, name)
			if err != nil {
				return false, err
			}
			// trigger: the condition for this member that makes v needed.
			trigger := absent == without
			if !all && trigger {
				return hasValue(v), nil
			}
			if all && !trigger {
				return true, nil
			}
		}
		if all {
			return hasValue(v), nil
		}
		return true, nil
	}
}

// member finds the sibling named (by Go name) in parent. A member behind
// a nil embedded pointer is absent.
func member(parent reflect.Value, name string) (value, bool, error) {
	if parent.Kind() != reflect.Struct {
		return value{}, false, nil
	}
	sf, ok := parent.Type().FieldByName(name)
	if !ok {
		return value{}, false, fmt.Errorf("no member %s", name)
	}
	f, err := parent.FieldByIndexErr(sf.Index)
	if err != nil {
		return value{}, false, nil
	}
	v, ptr := deref(f)
	return value{v: v, viaPtr: ptr}, true, nil
}

// memberAbsent reports whether parent's member name has no value, as
// required judges it; a member not found has none.
func memberAbsent(parent reflect.Value, name string) (bool, error) {
	m, _, err := member(parent, name)
	return !hasValue(m), err
}

func memberEquals(parent reflect.Value, name, want string) (bool, error) {
	m, found, err := member(parent, name)
	if err != nil || !found {
		return false, err
	}
	f := m.v
	switch k := f.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		n, err := strconv.ParseInt(want, 0, 64)
		return f.Int() == n, err
	case k >= reflect.Uint && k <= reflect.Uintptr:
		n, err := strconv.ParseUint(want, 0, 64)
		return f.Uint() == n, err
	case k == reflect.Float32 || k == reflect.Float64:
		n, err := parseFloat(k, want)
		return f.Float() == n, err
	case k == reflect.Slice || k == reflect.Map:
		if want == "nil" {
			return f.IsNil(), nil
		}
		n, err := strconv.ParseInt(want, 0, 64)
		return int64(f.Len()) == n, err
	case k == reflect.Array:
		n, err := strconv.ParseInt(want, 0, 64)
		return int64(f.Len()) == n, err
	case k == reflect.Bool:
		return f.Bool() == (want == "true"), nil
	case k == reflect.Pointer:
		return want == "nil", nil // nil: deref stopped there
	case k == reflect.Invalid:
		return false, nil
	}
	return f.String() == want, nil
}
