package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// parseArgs decodes JSON into nil, bool, json.Number, string, []any and
// map[string]any. Unlike encoding/json it rejects duplicate member names
// and invalid UTF-8 instead of silently picking one meaning, and it says
// where the problem is.
func parseArgs(b []byte) (any, *ValidationError) {
	d := decoders.Get().(*jsontext.Decoder)
	d.Reset(bytes.NewBuffer(b))
	defer func() {
		d.Reset(noInput) // do not keep b alive in the pool
		decoders.Put(d)
	}()
	v, err := readValue(d)
	if err == nil {
		if _, err = d.ReadToken(); err == io.EOF {
			return v, nil
		}
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

// decoders holds idle decoders for parseArgs, which runs for every call: a
// jsontext.Decoder is a large object (its state and options), and making
// one per call cost more than decoding the arguments of a typical call.
// Reset clears everything the previous use left.
var decoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

// noInput is what an idle decoder reads from. It is never read: Reset
// only stores it.
var noInput = bytes.NewReader(nil)

// maxErrorPath bounds the path of a syntax issue.
const maxErrorPath = 32

func readValue(d *jsontext.Decoder) (any, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case '[':
		arr := []any{}
		for d.PeekKind() != ']' {
			v, err := readValue(d)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		return arr, nil
	case '{':
		obj := map[string]any{}
		for d.PeekKind() != '}' {
			k, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			key := k.String() // the token is only valid until the next read
			v, err := readValue(d)
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		return obj, nil
	}
	return nil, errors.New("unexpected token")
}
