package httpmw

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// BatchesRemovedIn is the first MCP revision without JSON-RPC batches
// (2025-06-18 removed them; later revisions did not bring them back).
const BatchesRemovedIn = "2025-06-18"

// DefaultMaxBatch is the most messages [JSONRPC] accepts in one batch.
// Clients of the revisions that allow batches send a handful at most; a
// cap keeps what one POST can ask for proportional to a few requests,
// whatever the body limit.
const DefaultMaxBatch = 10

// Messages summarises the JSON-RPC messages of one MCP POST. A malformed
// body has no messages: the MCP handler refuses it.
type Messages struct {
	// Batch is set when the body is a JSON array.
	Batch bool
	// Methods counts the messages naming a method (requests and
	// notifications); responses a client sends back do not.
	Methods int
	// Calls holds params.name of each tools/call, in order.
	Calls []string
	// Initialize is what an initialize request says about the client,
	// when the body is that one request (not a batch); nil otherwise.
	Initialize *Initialize
}

// Initialize is what an initialize request says about the client: enough
// to decide whether it needs a session (see codemode's session routing).
type Initialize struct {
	// ProtocolVersion is params.protocolVersion, as sent.
	ProtocolVersion string
	// Elicitation is set when params.capabilities.elicitation is present
	// (as an object of any content): the client can be asked.
	Elicitation bool
	// Extensions are the keys of params.capabilities.extensions, sorted.
	Extensions []string
}

type messagesKey struct{}

// JSONRPC reads an MCP POST's body (already size-limited, see
// [BodyLimit]) once, puts it back for the next handler, and records its
// [Messages] for the cost functions further in. It refuses with 400 a
// batch sent under a protocol revision that removed batches (the
// Mcp-Protocol-Version header at or after [BatchesRemovedIn]) and a batch
// of more than maxBatch messages (maxBatch <= 0 means
// [DefaultMaxBatch]), before anything of it runs.
func JSONRPC(maxBatch int) func(http.Handler) http.Handler {
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatch
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m := MessagesOf(r)
			if m.Batch {
				if v := r.Header.Get("Mcp-Protocol-Version"); v >= BatchesRemovedIn {
					http.Error(w, fmt.Sprintf("JSON-RPC batches are not part of MCP %s (removed in %s): send one message per POST", v, BatchesRemovedIn), http.StatusBadRequest)
					return
				}
				if n := m.Methods; n > maxBatch {
					http.Error(w, fmt.Sprintf("a JSON-RPC batch may hold at most %d messages and this one holds %d: send fewer per POST", maxBatch, n), http.StatusBadRequest)
					return
				}
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), messagesKey{}, m)))
		})
	}
}

// MessagesOf returns the messages of r as [JSONRPC] recorded them, or
// reads them from the body (and puts it back) when JSONRPC is not in
// front. Requests other than POST carry none.
func MessagesOf(r *http.Request) Messages {
	if m, ok := r.Context().Value(messagesKey{}).(Messages); ok {
		return m
	}
	if r.Method != http.MethodPost || r.Body == nil {
		return Messages{}
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		// The next handler reads the same error (e.g. the body limit).
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), bodyErrReader{err}))
		return Messages{}
	}
	return parseMessages(body)
}

// message is what the limits need of one JSON-RPC message. Params stays
// raw: only a tools/call's is decoded, and other methods' params may be
// any JSON.
type message struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// initializeParams is what [Initialize] needs of an initialize request's
// params.
type initializeParams struct {
	ProtocolVersion string `json:"protocolVersion"`
	Capabilities    struct {
		Elicitation json.RawMessage            `json:"elicitation"`
		Extensions  map[string]json.RawMessage `json:"extensions"`
	} `json:"capabilities"`
}

// initializeOf reads an initialize request's params; malformed params
// are the handler's to refuse, and describe a client that declared
// nothing.
func initializeOf(params json.RawMessage) *Initialize {
	var p initializeParams
	_ = json.Unmarshal(params, &p)
	in := &Initialize{ProtocolVersion: p.ProtocolVersion}
	if e := bytes.TrimSpace(p.Capabilities.Elicitation); len(e) > 0 && e[0] == '{' {
		in.Elicitation = true
	}
	for k := range p.Capabilities.Extensions {
		in.Extensions = append(in.Extensions, k)
	}
	slices.Sort(in.Extensions)
	return in
}

func parseMessages(body []byte) Messages {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	var m Messages
	var msgs []message
	if len(trimmed) > 0 && trimmed[0] == '[' {
		m.Batch = true
		if json.Unmarshal(trimmed, &msgs) != nil {
			return Messages{Batch: true}
		}
	} else {
		var one message
		if json.Unmarshal(trimmed, &one) != nil {
			return Messages{}
		}
		msgs = []message{one}
	}
	for _, x := range msgs {
		if x.Method == "" {
			continue
		}
		m.Methods++
		if x.Method == "tools/call" {
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(x.Params, &p) // a bad params is the handler's to refuse
			m.Calls = append(m.Calls, p.Name)
		}
		if x.Method == "initialize" && !m.Batch {
			m.Initialize = initializeOf(x.Params)
		}
	}
	return m
}

// RequestCost is the cost of an MCP HTTP request against the limit on
// every method: one token per message naming a method (each element of a
// batch counts), and at least one per HTTP request, so that GETs,
// responses and malformed bodies are not free either.
func RequestCost(r *http.Request) int {
	return max(MessagesOf(r).Methods, 1)
}

// ToolCallCost returns the cost function of the execution limit: one
// token per tools/call (each element of a batch counts) of one of the
// tools named, or of any tool when tools is empty. A name ending in "*"
// names every tool that starts with what precedes it (saved_*: the saved
// functions' tools, which run code). Every other message costs nothing
// there; the limit on every method ([RequestCost]) covers it.
func ToolCallCost(tools ...string) func(*http.Request) int {
	return func(r *http.Request) int {
		n := 0
		for _, name := range MessagesOf(r).Calls {
			if len(tools) == 0 {
				n++
				continue
			}
			for _, t := range tools {
				if name == t || strings.HasSuffix(t, "*") && strings.HasPrefix(name, t[:len(t)-1]) {
					n++
					break
				}
			}
		}
		return n
	}
}

// ExecutionCost is [ToolCallCost] over every tool: the number of
// tools/call requests r carries.
func ExecutionCost(r *http.Request) int { return ToolCallCost()(r) }

type bodyErrReader struct{ err error }

func (e bodyErrReader) Read([]byte) (int, error) { return 0, e.err }
