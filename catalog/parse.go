package catalog

import (
	"errors"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/brakinglab/codemode-go/internal/jsonvalue"
)

// parseArgs decodes JSON into nil, bool, json.Number, string, []any and
// map[string]any with the library's one reader (internal/jsonvalue).
// Unlike encoding/json it rejects duplicate member names and invalid
// UTF-8 instead of silently picking one meaning, and it says where the
// problem is.
func parseArgs(b []byte) (any, *ValidationError) {
	v, err := jsonvalue.Parse(b, false)
	if err == nil {
		return v, nil
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		msg := "Invalid JSON"
		if errors.Is(se, jsontext.ErrDuplicateName) {
			msg = "Duplicate field"
		} else if se.Err != nil {
			msg = "Invalid JSON: " + se.Err.Error()
		}
		path := pointerPath(se.JSONPointer)
		if len(path) > maxErrorPath {
			// Nesting too deep: a path of thousands of indices helps no one.
			path = append(path[:maxErrorPath:maxErrorPath], "…")
		}
		return nil, &ValidationError{Issues: []Issue{{Path: path, Message: msg}}}
	}
	return nil, &ValidationError{Issues: []Issue{{Path: []any{}, Message: "Arguments must be one valid JSON object"}}}
}

// maxErrorPath bounds the path of a syntax issue.
const maxErrorPath = 32
