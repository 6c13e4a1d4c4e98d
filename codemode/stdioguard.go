package codemode

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/brakinglab/codemode-go/internal/jsonscan"
)

// The limits on one message a stdio client sends. go-sdk's stdio
// transport ends the whole session on a line it cannot decode (JSON
// deeper than encoding/json's 10,000 levels, or over its 16 MiB line
// limit); a line past these limits is replaced before it reaches it, so
// only the request or answer it carried fails.
const (
	maxStdioLine  = 4 << 20
	maxStdioDepth = 1000
)

// stdioGuard reads a stdio client's messages line by line, replacing a
// line too large or too deep with one that fails only its own exchange:
// an answer (a response to the server's request, such as an elicitation)
// becomes an error response with the same id, so the server's request
// fails with a clear message; a request becomes a call of a method that
// does not exist, which the client receives as an error; a notification
// is dropped.
type stdioGuard struct {
	r    *bufio.Reader
	rc   io.Closer
	rest []byte // of the current line, not yet returned
}

func newStdioGuard(r io.ReadCloser) *stdioGuard {
	return &stdioGuard{r: bufio.NewReaderSize(r, 64<<10), rc: r}
}

// Read implements io.Reader.
func (g *stdioGuard) Read(p []byte) (int, error) {
	for len(g.rest) == 0 {
		line, err := g.line()
		if len(line) > 0 {
			g.rest = line
			break
		}
		if err != nil {
			return 0, err
		}
	}
	n := copy(p, g.rest)
	g.rest = g.rest[n:]
	return n, nil
}

// Close implements io.Closer.
func (g *stdioGuard) Close() error { return g.rc.Close() }

// line reads one line, newline included, and checks it.
func (g *stdioGuard) line() ([]byte, error) {
	var buf []byte
	over := false
	size := 0
	for {
		chunk, err := g.r.ReadSlice('\n')
		size += len(chunk)
		if !over {
			if len(buf)+len(chunk) > maxStdioLine {
				over = true
				// Keep the start: the id is usually near it.
				buf = append(buf, chunk[:maxStdioLine-len(buf)]...)
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if over {
			return refusedLine(buf, fmt.Sprintf("the message was %d bytes; the server accepts at most %d", size, maxStdioLine)), err
		}
		if d := jsonscan.Depth(buf); d > maxStdioDepth {
			return refusedLine(buf, fmt.Sprintf("the message was nested %d levels deep; the server accepts at most %d", d, maxStdioDepth)), err
		}
		return buf, err
	}
}

// refusedLine is what replaces a refused message: see stdioGuard.
func refusedLine(msg []byte, why string) []byte {
	id, isRequest := topLevelID(msg)
	if id == nil {
		return nil
	}
	if isRequest {
		return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"method":"codemode/refused-message"}` + "\n")
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":%q}}`+"\n", id, "the server refused the answer: "+why)
}

// topLevelID finds the "id" member of a JSON object (a number or a
// string) and whether the object has a "method" member, without decoding
// it: the message may be too deep to decode.
func topLevelID(msg []byte) (id []byte, isRequest bool) {
	depth := 0
	for i := 0; i < len(msg); i++ {
		switch c := msg[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := stringEnd(msg, i)
			if end < 0 {
				return id, isRequest
			}
			if depth == 1 {
				key := msg[i+1 : end]
				j := end + 1
				for j < len(msg) && (msg[j] == ' ' || msg[j] == '\t') {
					j++
				}
				if j < len(msg) && msg[j] == ':' {
					switch string(key) {
					case "method":
						isRequest = true
					case "id":
						id = scalarAt(msg, j+1)
					}
				}
			}
			i = end
		}
	}
	return id, isRequest
}

// stringEnd returns the index of the quote closing the string that
// starts at msg[start], or -1.
func stringEnd(msg []byte, start int) int {
	for i := start + 1; i < len(msg); i++ {
		switch msg[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// scalarAt returns the number or string at msg[i:], after blanks, or nil.
func scalarAt(msg []byte, i int) []byte {
	for i < len(msg) && (msg[i] == ' ' || msg[i] == '\t') {
		i++
	}
	if i >= len(msg) {
		return nil
	}
	if msg[i] == '"' {
		end := stringEnd(msg, i)
		if end < 0 || end-i > 256 {
			return nil
		}
		return msg[i : end+1]
	}
	j := i
	for j < len(msg) && bytes.IndexByte([]byte("-+.0123456789eE"), msg[j]) >= 0 {
		j++
	}
	if j == i || j-i > 32 {
		return nil
	}
	return msg[i:j]
}
