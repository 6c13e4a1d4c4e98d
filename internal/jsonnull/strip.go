// Package jsonnull removes null-valued members from JSON objects, so results
// shown to a model carry no noise. Nulls inside arrays are kept (positions
// matter) and empty arrays and objects stay as they are.
package jsonnull

import (
	"bytes"
	"errors"
)

// ErrSyntax is returned for input that is not valid JSON.
var ErrSyntax = errors.New("jsonnull: invalid JSON")

var nullLit = []byte("null")

// Strip returns src without object members whose value is null, with
// insignificant whitespace removed. src is returned unchanged (not copied)
// when it contains no null. Strip never modifies src.
func Strip(src []byte) ([]byte, error) {
	if !bytes.Contains(src, nullLit) {
		return src, nil
	}
	s := stripper{in: src, out: make([]byte, 0, len(src))}
	s.ws()
	if !s.value(0) {
		return nil, ErrSyntax
	}
	s.ws()
	if s.i != len(s.in) {
		return nil, ErrSyntax
	}
	return s.out, nil
}

// maxDepth bounds recursion on hostile input.
const maxDepth = 10000

type stripper struct {
	in  []byte
	i   int
	out []byte
}

func (s *stripper) ws() {
	for s.i < len(s.in) {
		switch s.in[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *stripper) value(depth int) bool {
	if s.i >= len(s.in) || depth > maxDepth {
		return false
	}
	switch c := s.in[s.i]; c {
	case '{':
		return s.object(depth)
	case '[':
		return s.array(depth)
	case '"':
		start := s.i
		if !s.str() {
			return false
		}
		s.out = append(s.out, s.in[start:s.i]...)
		return true
	default:
		start := s.i
		for s.i < len(s.in) && !isDelim(s.in[s.i]) {
			s.i++
		}
		if start == s.i {
			return false
		}
		s.out = append(s.out, s.in[start:s.i]...)
		return true
	}
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
		return true
	}
	return false
}

// str skips a string literal starting at s.i. It jumps from quote to
// quote and counts the backslashes before each to find the closing one.
func (s *stripper) str() bool {
	i := s.i + 1
	for {
		j := bytes.IndexByte(s.in[i:], '"')
		if j < 0 {
			return false
		}
		i += j
		n := 0
		for k := i - 1; k > s.i && s.in[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			s.i = i + 1
			return true
		}
		i++
	}
}

// isNull reports whether a null literal starts at s.i, and skips it.
func (s *stripper) isNull() bool {
	if bytes.HasPrefix(s.in[s.i:], nullLit) && (s.i+4 == len(s.in) || isDelim(s.in[s.i+4])) {
		s.i += 4
		return true
	}
	return false
}

func (s *stripper) object(depth int) bool {
	s.i++
	s.out = append(s.out, '{')
	first := true
	s.ws()
	if s.i < len(s.in) && s.in[s.i] == '}' {
		s.i++
		s.out = append(s.out, '}')
		return true
	}
	for {
		s.ws()
		if s.i >= len(s.in) || s.in[s.i] != '"' {
			return false
		}
		keyStart := s.i
		if !s.str() {
			return false
		}
		keyEnd := s.i
		s.ws()
		if s.i >= len(s.in) || s.in[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if s.i >= len(s.in) {
			return false
		}
		if !s.isNull() {
			if !first {
				s.out = append(s.out, ',')
			}
			first = false
			s.out = append(s.out, s.in[keyStart:keyEnd]...)
			s.out = append(s.out, ':')
			if !s.value(depth + 1) {
				return false
			}
		}
		if more, ok := s.separator('}'); !more {
			return ok
		}
	}
}

func (s *stripper) array(depth int) bool {
	s.i++
	s.out = append(s.out, '[')
	s.ws()
	if s.i < len(s.in) && s.in[s.i] == ']' {
		s.i++
		s.out = append(s.out, ']')
		return true
	}
	for first := true; ; first = false {
		s.ws()
		if !first {
			s.out = append(s.out, ',')
		}
		if !s.value(depth + 1) {
			return false
		}
		if more, ok := s.separator(']'); !more {
			return ok
		}
	}
}

// separator consumes what follows a member or an element: a comma (more is
// true: another item follows) or the closing byte, which it copies to the
// output. ok is false on anything else.
func (s *stripper) separator(closing byte) (more, ok bool) {
	s.ws()
	if s.i >= len(s.in) {
		return false, false
	}
	switch s.in[s.i] {
	case ',':
		s.i++
		return true, true
	case closing:
		s.i++
		s.out = append(s.out, closing)
		return false, true
	}
	return false, false
}
