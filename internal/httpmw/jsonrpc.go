package httpmw

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// ExecutionCost is the rate-limit cost of an MCP POST: the number of
// tools/call requests it carries, counting each message of a JSON-RPC
// batch (an array, which MCP revisions up to 2025-03-26 allow). Every other
// message (initialize, tools/list, resources/read, notifications,
// responses) costs nothing: a client's set-up traffic is cheap to serve
// and must not eat into the budget of the executions it sets up. It reads
// the body, which must already be size-limited (see [BodyLimit]), and puts
// it back for the next handler.
func ExecutionCost(r *http.Request) int {
	if r.Method != http.MethodPost || r.Body == nil {
		return 0
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		// The next handler reads the same error (e.g. the body limit).
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), bodyErrReader{err}))
		return 0
	}
	// Most messages are not calls: skip decoding them. The method name
	// contains "call" even with a JSON-escaped slash.
	if !bytes.Contains(body, []byte("call")) {
		return 0
	}
	type message struct {
		Method string `json:"method"`
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var msgs []message
		if json.Unmarshal(trimmed, &msgs) != nil {
			return 0 // malformed: the MCP handler refuses it
		}
		n := 0
		for _, m := range msgs {
			if m.Method == "tools/call" {
				n++
			}
		}
		return n
	}
	var m message
	if json.Unmarshal(trimmed, &m) != nil || m.Method != "tools/call" {
		return 0
	}
	return 1
}

type bodyErrReader struct{ err error }

func (e bodyErrReader) Read([]byte) (int, error) { return 0, e.err }
