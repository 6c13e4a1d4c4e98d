package catalog

import (
	"bytes"
	"encoding/json"
)

// ValidateOnlyKey is the argument member that asks for a dry run: a call
// of a MUTATING or CREATIVE function whose arguments hold
// "_validateOnly": true is decoded, validated and given to the Validate
// hook like any other, then answers {"valid":true} without running the
// handler. READ-ONLY functions refuse the member with a validation issue,
// and no function may declare a member of that name.
const ValidateOnlyKey = "_validateOnly"

// Canonical returns args in one canonical form, so that two calls asking
// for the same thing compare equal byte for byte: object members sorted
// by name at every level, no whitespace, numbers as written, strings as
// encoding/json writes them, and the top-level [ValidateOnlyKey] member
// removed. dryRun reports whether that member was true. Absent or null
// arguments are {}, as [Catalog.Call] reads them.
//
// The error is the *ValidationError Call returns for arguments that are
// not one JSON object: invalid JSON, a duplicate member name, invalid
// UTF-8, or a value of another type.
func Canonical(args json.RawMessage) (canon json.RawMessage, dryRun bool, err error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return json.RawMessage("{}"), false, nil
	}
	v, verr := parseArgs(args)
	if verr != nil {
		return nil, false, verr
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false, notObject(v)
	}
	if vo, present := obj[ValidateOnlyKey]; present {
		b, isBool := vo.(bool)
		dryRun = isBool && b
		delete(obj, ValidateOnlyKey)
	}
	out, merr := json.Marshal(obj) // maps marshal with their keys sorted
	if merr != nil {
		return nil, false, &ValidationError{Issues: []Issue{{Path: []any{}, Message: "Arguments must be one valid JSON object"}}}
	}
	return out, dryRun, nil
}

// notObject is the issue for arguments that parse but are not an object.
func notObject(v any) *ValidationError {
	return &ValidationError{Issues: []Issue{{Path: []any{}, Message: "Expected object, got " + jsonTypeName(v)}}}
}
