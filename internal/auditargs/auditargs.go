// Package auditargs describes a call's arguments for codemode's audit
// log without their values: each top-level key of the argument object
// with the size of its JSON value, bounded in count and key length.
package auditargs

import (
	"bytes"
	"io"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// KeySizes maps each top-level key of the JSON object args (at most
// MaxKeys of them, in sorted order, the rest counted under "…"; a key cut
// to MaxKeyLen bytes on a rune boundary ends with "…") to the size in
// bytes of its value. args that is not one object gives {"": len(args)}.
func KeySizes(args []byte) map[string]int {
	obj, ok := TopLevelSizes(args)
	if !ok {
		// Not an object: record only its size.
		return map[string]int{"": len(args)}
	}
	// Keys are chosen by the model: bound how much of the log they can take.
	sizes := make(map[string]int, min(len(obj), MaxKeys+1))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if len(sizes) == MaxKeys {
			sizes["…"] = len(obj) - MaxKeys
			break
		}
		key := k
		if len(key) > MaxKeyLen {
			// Cut on a rune boundary: half a character is invalid UTF-8.
			cut := MaxKeyLen
			for cut > 0 && !utf8.RuneStart(key[cut]) {
				cut--
			}
			key = key[:cut] + "…"
		}
		sizes[key] = obj[k]
	}
	return sizes
}

// TopLevelSizes returns the size in bytes of each member of the JSON
// object args, as json.Unmarshal into a map of json.RawMessage would (the
// last of duplicate names wins, invalid UTF-8 is accepted, null is an
// object with no members), without copying the values: the audit needs
// only their sizes, and this runs for every host call. ok is false when
// args is not one JSON object.
func TopLevelSizes(args []byte) (sizes map[string]int, ok bool) {
	d := jsontext.NewDecoder(bytes.NewBuffer(args), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := d.ReadToken()
	if err != nil {
		return nil, false
	}
	switch tok.Kind() {
	case 'n':
		sizes = map[string]int{}
	case '{':
		sizes = map[string]int{}
		for d.PeekKind() == '"' {
			tok, err := d.ReadToken()
			if err != nil {
				return nil, false
			}
			name := tok.String() // the token is void after the next read
			v, err := d.ReadValue()
			if err != nil {
				return nil, false
			}
			sizes[name] = len(v)
		}
		if tok, err := d.ReadToken(); err != nil || tok.Kind() != '}' {
			return nil, false
		}
	default:
		return nil, false
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, false
	}
	return sizes, true
}

// Bounds on the argument keys KeySizes records.
const (
	MaxKeys   = 32
	MaxKeyLen = 64
)
