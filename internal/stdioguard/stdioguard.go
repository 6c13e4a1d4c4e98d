// Package stdioguard keeps one bad message of a stdio MCP client from
// ending its session. go-sdk's stdio transport ends the whole session on
// a line it cannot decode (JSON deeper than encoding/json's 10,000
// levels, or over its 16 MiB line limit); [New] wraps the client's side
// of the pipe and replaces a line over [MaxLine] bytes or nested over
// [MaxDepth] levels before go-sdk reads it, with a line that fails only
// the exchange it belonged to:
//
//   - an answer (a response to the server's request, such as an
//     elicitation) becomes a JSON-RPC error response with the same id, so
//     the server's request fails with a message saying why;
//   - a request becomes a call of a method that does not exist
//     (codemode/refused-message), which the client receives as an error;
//   - a notification, or anything without a readable id, is dropped.
//
// It reads the id and whether the message is a request without decoding
// the message, which may be too deep to decode.
package stdioguard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/brakinglab/codemode-go/internal/jsonscan"
)

// The limits on one message a stdio client sends: a line past either is
// replaced before go-sdk reads it, so only the request or answer it
// carried fails.
const (
	// MaxLine is the longest line accepted, newline included: 4 MiB.
	MaxLine = 4 << 20
	// MaxDepth is the deepest nesting accepted: 1,000 levels.
	MaxDepth = 1000
)

// guard reads a stdio client's messages line by line, replacing a line
// too large or too deep (see the package documentation).
type guard struct {
	r    *bufio.Reader
	rc   io.Closer
	rest []byte // of the current line, not yet returned
}

// New returns r with every line over MaxLine bytes or nested over
// MaxDepth levels replaced as the package documentation says. Closing it
// closes r.
func New(r io.ReadCloser) io.ReadCloser {
	return &guard{r: bufio.NewReaderSize(r, 64<<10), rc: r}
}

// Read implements io.Reader.
func (g *guard) Read(p []byte) (int, error) {
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
func (g *guard) Close() error { return g.rc.Close() }

// line reads one line, newline included, and checks it.
func (g *guard) line() ([]byte, error) {
	var buf []byte
	over := false
	size := 0
	for {
		chunk, err := g.r.ReadSlice('\n')
		size += len(chunk)
		if !over {
			if len(buf)+len(chunk) > MaxLine {
				over = true
				// Keep the start: the id is usually near it.
				buf = append(buf, chunk[:MaxLine-len(buf)]...)
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if over {
			return refusedLine(buf, fmt.Sprintf("the message was %d bytes; the server accepts at most %d", size, MaxLine)), err
		}
		if d := jsonscan.Depth(buf); d > MaxDepth {
			return refusedLine(buf, fmt.Sprintf("the message was nested %d levels deep; the server accepts at most %d", d, MaxDepth)), err
		}
		return buf, err
	}
}

// refusedLine is what replaces a refused message: see the package documentation.
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
