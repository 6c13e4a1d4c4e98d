package codemode

import (
	"bytes"
	"encoding/json"
	"errors"
)

// stripNulls removes null-valued members from every object in v, keeping
// member order. Nulls inside arrays stay: removing them would shift
// indices. A top-level null stays null. Invalid JSON is returned as is.
func stripNulls(v json.RawMessage) json.RawMessage {
	if !bytes.Contains(v, []byte("null")) {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var out bytes.Buffer
	if err := copyValue(dec, &out); err != nil {
		return v
	}
	return out.Bytes()
}

var errJSON = errors.New("malformed JSON")

// copyValue copies one JSON value from dec to out, dropping null members.
func copyValue(dec *json.Decoder, out *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			out.WriteByte('{')
			first := true
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key, ok := k.(string)
				if !ok {
					return errJSON
				}
				var val bytes.Buffer
				if err := copyValue(dec, &val); err != nil {
					return err
				}
				if bytes.Equal(val.Bytes(), []byte("null")) {
					continue
				}
				if !first {
					out.WriteByte(',')
				}
				first = false
				if err := writeJSON(out, key); err != nil {
					return err
				}
				out.WriteByte(':')
				out.Write(val.Bytes())
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			out.WriteByte('}')
		case '[':
			out.WriteByte('[')
			first := true
			for dec.More() {
				if !first {
					out.WriteByte(',')
				}
				first = false
				if err := copyValue(dec, out); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			out.WriteByte(']')
		default:
			return errJSON
		}
	case nil:
		out.WriteString("null")
	default:
		return writeJSON(out, t)
	}
	return nil
}

// writeJSON writes v without HTML escaping: the reader is a model, and
// "\u003c" for "<" only costs tokens.
func writeJSON(out *bytes.Buffer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return nil
}
