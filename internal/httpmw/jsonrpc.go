package httpmw

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// JSONRPCCost is the rate-limit cost of an MCP POST: the number of messages
// in a JSON-RPC batch (an array, which MCP revisions up to 2025-03-26
// allow), else one. Without it one POST holding a batch of thousands of
// tools/call requests would cost as much as a single call. It reads the
// body, which must already be size-limited (see [BodyLimit]), and puts it
// back for the next handler.
func JSONRPCCost(r *http.Request) int {
	if r.Method != http.MethodPost || r.Body == nil {
		return 1
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		// The next handler reads the same error (e.g. the body limit).
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), bodyErrReader{err}))
		return 1
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return 1
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(trimmed, &msgs); err != nil {
		return 1 // malformed: the MCP handler refuses it
	}
	return max(len(msgs), 1)
}

type bodyErrReader struct{ err error }

func (e bodyErrReader) Read([]byte) (int, error) { return 0, e.err }
