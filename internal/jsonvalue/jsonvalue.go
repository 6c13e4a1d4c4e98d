// Package jsonvalue is the library's one reader of JSON text into plain Go
// values: catalog reads every call's arguments with it, and jsontype
// reads JSON Schemas with it (FromSchema), in the order their authors
// wrote the members.
//
// A value is nil, bool, json.Number (the number exactly as written),
// string, []any, and an object: map[string]any, or *Object when the
// caller asks for member order. Unlike encoding/json it rejects duplicate
// member names and invalid UTF-8 instead of silently picking one meaning,
// and its errors are jsontext's, which say where the problem is (a
// *jsontext.SyntacticError with a JSON pointer).
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Object is a JSON object that remembers its member order.
type Object struct {
	Keys []string       // member names in the order written
	M    map[string]any // members by name
}

// Get returns member k; a nil Object has none.
func (o *Object) Get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.M[k]
	return v, ok
}

// Str returns member k when it is a string, else "".
func (o *Object) Str(k string) string {
	v, _ := o.Get(k)
	s, _ := v.(string)
	return s
}

// ErrTrailing marks an error about what follows the value: Parse reads
// exactly one. It wraps the decoder's own error when there is one.
var ErrTrailing = errors.New("trailing data after the JSON value")

// Parse reads b, which must hold exactly one JSON value. Objects are
// *Object when ordered is true, else map[string]any (cheaper: call
// arguments need no order).
func Parse(b []byte, ordered bool) (any, error) {
	d := decoders.Get().(*jsontext.Decoder)
	d.Reset(bytes.NewBuffer(b))
	defer func() {
		d.Reset(noInput) // do not keep b alive in the pool
		decoders.Put(d)
	}()
	v, err := Read(d, ordered)
	if err != nil {
		return nil, err
	}
	switch _, err := d.ReadToken(); {
	case err == io.EOF:
		return v, nil
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrTrailing, err)
	}
	return nil, ErrTrailing
}

// decoders holds idle decoders for Parse, which runs for every call: a
// jsontext.Decoder is a large object (its state and options), and making
// one per call cost more than decoding the arguments of a typical call.
// Reset clears everything the previous use left.
var decoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

// noInput is what an idle decoder reads from. It is never read: Reset
// only stores it.
var noInput = bytes.NewReader(nil)

// Read decodes the next JSON value from d (see Parse for the types).
func Read(d *jsontext.Decoder, ordered bool) (any, error) {
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
			v, err := Read(d, ordered)
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
		m := map[string]any{}
		var keys []string
		for d.PeekKind() != '}' {
			k, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			key := k.String() // the token is only valid until the next read
			v, err := Read(d, ordered)
			if err != nil {
				return nil, err
			}
			m[key] = v // never a duplicate: the decoder refuses them
			if ordered {
				keys = append(keys, key)
			}
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		if ordered {
			return &Object{Keys: keys, M: m}, nil
		}
		return m, nil
	}
	return nil, errors.New("unexpected token")
}
