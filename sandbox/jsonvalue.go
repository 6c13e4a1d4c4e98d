package sandbox

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// maxJSONDepth bounds nesting in host results so a hostile or broken host
// cannot exhaust the stack of the decoder.
const maxJSONDepth = 512

var errBadJSON = errors.New("invalid JSON")

// jsonToValue decodes a host result straight into fresh JavaScript values.
// It replaces JSON.parse on the hot path: goja's JSON.parse goes through
// encoding/json's token reader, which allocates per token. Semantics match
// JSON.parse: "__proto__" becomes an own property, later duplicate keys win.
func jsonToValue(vm *goja.Runtime, b []byte) (goja.Value, error) {
	return decodeJSON(jsonDecoder{vm: vm, b: b})
}

// resultToValue is jsonToValue for a host result: its objects and arrays
// get the recording prototypes of marks (see origins.go), which must be
// primed.
func resultToValue(vm *goja.Runtime, b []byte, marks *origins) (goja.Value, error) {
	return decodeJSON(jsonDecoder{vm: vm, b: b, marks: marks})
}

func decodeJSON(d jsonDecoder) (goja.Value, error) {
	d.space()
	d.objectResult = d.i < len(d.b) && d.b[d.i] == '{'
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(d.b) {
		return nil, errBadJSON
	}
	return v, nil
}

type jsonDecoder struct {
	vm *goja.Runtime
	b  []byte
	i  int
	// marks, if set, gives the objects and arrays decoded their
	// recording prototypes (see marked); objectResult: the result is an
	// object.
	marks        *origins
	objectResult bool
}

// marked reports whether a value at depth in the result gets its
// recording prototype, if there is one: the result itself, and when it
// is an object its members. Rows of a list and deeper values keep the
// plain prototypes, so serialising a large result (which looks up toJSON
// on every object) does not go through the proxy once per row.
func (d *jsonDecoder) marked(depth int) bool {
	return depth == 0 || depth == 1 && d.objectResult
}

// mark gives the object o, at depth in the result, its recording
// prototype, if any, once it is filled (filling an object whose
// prototype is a proxy would go through the proxy once per member).
func (d *jsonDecoder) mark(o *goja.Object, depth int) *goja.Object {
	if d.marks != nil && d.marked(depth) {
		_ = o.SetPrototype(d.marks.objProto)
	}
	return o
}

// markArray is mark for an array.
func (d *jsonDecoder) markArray(a *goja.Object, depth int) *goja.Object {
	if d.marks != nil && d.marked(depth) {
		_ = a.SetPrototype(d.marks.arrayProto(a))
	}
	return a
}

func (d *jsonDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) (goja.Value, error) {
	if depth > maxJSONDepth {
		return nil, errBadJSON
	}
	d.space()
	if d.i >= len(d.b) {
		return nil, errBadJSON
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.vm.ToValue(s), nil
	case c == 't':
		return d.literal("true", goja.Value(d.vm.ToValue(true)))
	case c == 'f':
		return d.literal("false", goja.Value(d.vm.ToValue(false)))
	case c == 'n':
		return d.literal("null", goja.Null())
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, errBadJSON
}

func (d *jsonDecoder) literal(word string, v goja.Value) (goja.Value, error) {
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return nil, errBadJSON
	}
	d.i += len(word)
	return v, nil
}

func (d *jsonDecoder) object(depth int) (goja.Value, error) {
	o := d.vm.NewObject()
	d.i++ // {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return d.mark(o, depth), nil
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, errBadJSON
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, errBadJSON
		}
		d.i++
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if k == "__proto__" {
			err = o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		} else {
			err = o.Set(k, v)
		}
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.b) {
			return nil, errBadJSON
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return d.mark(o, depth), nil
		default:
			return nil, errBadJSON
		}
	}
}

func (d *jsonDecoder) array(depth int) (goja.Value, error) {
	d.i++ // [
	var items []any
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return d.markArray(d.vm.NewArray(), depth), nil
	}
	for {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, errBadJSON
		}
		switch d.b[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return d.markArray(d.vm.NewArray(items...), depth), nil
		default:
			return nil, errBadJSON
		}
	}
}

// str decodes a JSON string at d.i; strings without escapes take the fast
// path.
func (d *jsonDecoder) str() (string, error) {
	start := d.i
	d.i++ // "
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start+1 : d.i]
			d.i++
			if !utf8.Valid(s) {
				return string([]rune(string(s))), nil // replace invalid bytes as encoding/json does
			}
			return string(s), nil
		case c == '\\':
			return d.slowStr(start)
		case c < 0x20:
			return "", errBadJSON
		}
		d.i++
	}
	return "", errBadJSON
}

// slowStr decodes a string with escapes through encoding/json.
func (d *jsonDecoder) slowStr(start int) (string, error) {
	i := d.i
	for i < len(d.b) {
		switch d.b[i] {
		case '\\':
			i += 2
			continue
		case '"':
			var s string
			if err := json.Unmarshal(d.b[start:i+1], &s); err != nil {
				return "", errBadJSON
			}
			d.i = i + 1
			return s, nil
		}
		i++
	}
	return "", errBadJSON
}

func (d *jsonDecoder) number() (goja.Value, error) {
	start := d.i
	if d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	intStart := d.i
	if n := digits(); n == 0 || (n > 1 && d.b[intStart] == '0') {
		return nil, errBadJSON
	}
	isInt := true
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return nil, errBadJSON
		}
		isInt = false
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, errBadJSON
		}
		isInt = false
	}
	text := string(d.b[start:d.i])
	if isInt && len(text) < 16 {
		n, err := strconv.ParseInt(text, 10, 64)
		if err == nil && !(n == 0 && text[0] == '-') { // keep -0 a float
			return d.vm.ToValue(n), nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		// Out of range: JSON.parse gives ±Infinity.
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return d.vm.ToValue(f), nil
		}
		return nil, errBadJSON
	}
	return d.vm.ToValue(f), nil
}
