package httpmw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrCancelledByClient is the cause of a context cancelled by a
// notifications/cancelled message (see [Cancellation]).
var ErrCancelledByClient = errors.New("request cancelled by the client")

// CallRegistry is where the tools/call requests in flight are registered
// so that a later notifications/cancelled POST can reach them. [Cancels]
// is the in-process registry; a registry shared by replicas delivers a
// cancellation to the process that runs the call.
type CallRegistry interface {
	// Register records that the call id of key runs in this process until
	// release is called. cancel is called, at most once, when a
	// cancellation names exactly this call.
	Register(ctx context.Context, key, id string, cancel func()) (release func(), err error)
	// Cancel cancels the call id of key if exactly one such call is
	// registered and no other call of key with that id ended within
	// [EndedCallMemory]: an unknown id (the call already ended) and an
	// ambiguous one cancel nothing.
	Cancel(ctx context.Context, key, id string) error
}

// SessionIDHeader is the HTTP header of a Streamable HTTP session id.
const SessionIDHeader = "Mcp-Session-Id"

// EndedCallMemory is how long a registry remembers the id of a call that
// has ended. A cancellation races the end of the call it names: if the
// call has just ended and another session of the same principal and client
// has a call with the same id in flight, the late notification must not
// stop that other call, so a remembered id makes the cancellation
// ambiguous and it cancels nothing.
const EndedCallMemory = time.Minute

// maxEndedCalls bounds the ids Cancels remembers; past it the oldest are
// forgotten early (about 80 bytes each).
const maxEndedCalls = 1 << 16

// Cancels is the in-process [CallRegistry]. In stateless mode every POST is
// served by a fresh server session, so the session that receives the
// notification knows nothing of the call it names; this registry is the
// shared memory between the two requests.
//
// A call is keyed by (principal key, JSON-RPC request id): a notification
// only cancels calls of the principal that sent it. Entries live exactly as
// long as the HTTP request that carries the call, so the registry holds at
// most one entry per request in flight, plus the ids of calls that ended
// within [EndedCallMemory] (at most 65,536). Cancelling is synchronous:
// when Cancel returns, the call's cancel function has run. It is safe for
// concurrent use.
type Cancels struct {
	mu        sync.Mutex
	calls     map[callKey][]*entry
	ended     map[callKey]int // calls that ended recently, per key
	endedLog  []endedCall     // the same, oldest first, from endedHead on
	endedHead int
	now       func() time.Time
	cancelled atomic.Int64
}

// endedCall is one remembered end of a call.
type endedCall struct {
	key callKey
	at  time.Time
}

// callKey names one in-flight call.
type callKey struct {
	principal string
	id        string // normalized JSON-RPC id: "s:<string>" or "n:<integer>"
}

type entry struct{ cancel func() }

// NewCancels returns an empty registry.
func NewCancels() *Cancels {
	return &Cancels{calls: map[callKey][]*entry{}, ended: map[callKey]int{}, now: time.Now}
}

// Len returns the number of calls in flight.
func (c *Cancels) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, s := range c.calls {
		n += len(s)
	}
	return n
}

// Cancelled returns how many calls notifications have cancelled.
func (c *Cancels) Cancelled() int64 { return c.cancelled.Load() }

// Register implements [CallRegistry]; it never fails.
func (c *Cancels) Register(_ context.Context, key, id string, cancel func()) (func(), error) {
	k, e := callKey{key, id}, &entry{cancel}
	c.mu.Lock()
	c.calls[k] = append(c.calls[k], e)
	c.mu.Unlock()
	return func() { c.remove(k, e) }, nil
}

func (c *Cancels) remove(k callKey, e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	list := c.calls[k]
	for i, x := range list {
		if x == e {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(c.calls, k)
	} else {
		c.calls[k] = list
	}
	c.forgetEnded()
	if len(c.endedLog)-c.endedHead >= maxEndedCalls {
		c.dropOldestEnded()
	}
	c.endedLog = append(c.endedLog, endedCall{k, c.now()})
	c.ended[k]++
}

// forgetEnded drops the ends older than EndedCallMemory. c.mu is held.
func (c *Cancels) forgetEnded() {
	cutoff := c.now().Add(-EndedCallMemory)
	for c.endedHead < len(c.endedLog) && c.endedLog[c.endedHead].at.Before(cutoff) {
		c.dropOldestEnded()
	}
}

// dropOldestEnded forgets the oldest remembered end. c.mu is held.
func (c *Cancels) dropOldestEnded() {
	k := c.endedLog[c.endedHead].key
	c.endedLog[c.endedHead] = endedCall{}
	c.endedHead++
	if c.ended[k]--; c.ended[k] <= 0 {
		delete(c.ended, k)
	}
	// Reuse the slice once most of it is dead.
	if c.endedHead > 64 && c.endedHead*2 > len(c.endedLog) {
		n := copy(c.endedLog, c.endedLog[c.endedHead:])
		clear(c.endedLog[n:])
		c.endedLog, c.endedHead = c.endedLog[:n], 0
	}
}

// Cancel implements [CallRegistry]. Two requests of the same principal
// using the same id (two client sessions whose counters met) make the id
// ambiguous, and so does a call with that id that ended within
// [EndedCallMemory] (the notification may be a late one for it): it
// cancels nothing, so a run the client did not mean is never stopped. It
// never fails.
func (c *Cancels) Cancel(_ context.Context, key, id string) error {
	k := callKey{key, id}
	c.mu.Lock()
	c.forgetEnded()
	list := c.calls[k]
	var e *entry
	if len(list) == 1 && c.ended[k] == 0 {
		e = list[0]
	}
	c.mu.Unlock()
	if e != nil {
		e.cancel()
		c.cancelled.Add(1)
	}
	return nil
}

// cancelSlot joins one HTTP request to the context of the call it carries.
// The middleware creates it; the MCP handler attaches its cancel function
// with [Cancellable].
type cancelSlot struct {
	mu     sync.Mutex
	fired  bool
	cancel context.CancelCauseFunc
}

func (s *cancelSlot) fire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fired = true
	if s.cancel != nil {
		s.cancel(ErrCancelledByClient)
	}
}

type cancelSlotKey struct{}

// Cancellable returns a context derived from ctx that is also cancelled,
// with cause [ErrCancelledByClient], when a notifications/cancelled POST
// names the call the HTTP request behind ctx carries. Without such a request
// (stdio, a request the middleware does not track) it returns ctx itself.
// The caller must call stop when the call ends.
func Cancellable(ctx context.Context) (_ context.Context, stop func()) {
	s, _ := ctx.Value(cancelSlotKey{}).(*cancelSlot)
	if s == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	s.mu.Lock()
	if s.fired {
		cancel(ErrCancelledByClient)
	} else {
		s.cancel = cancel
	}
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel(nil)
	}
}

// Cancellation is middleware for a stateless MCP endpoint that serves
// clients of protocol revisions that cancel a call by POSTing
// notifications/cancelled (2025-06-18, 2025-11-25). It must run after
// authentication: key(r) identifies the principal, and an empty key leaves
// the request untracked. A request carrying an Mcp-Session-Id header
// belongs to a session, which cancels its own calls: it is passed on
// untouched, so one endpoint may serve sessions and stateless requests.
//
// A POST whose body is a single tools/call request is registered in reg
// under (key, id) for as long as it is served; its request context carries
// the slot the handler joins with [Cancellable]. A POST whose body is a
// single notifications/cancelled message asks reg to cancel the call with
// that id of the same key, then goes on to next, which answers it as usual.
// A registry error is logged: the call then runs without cancellation by
// notification, and the notification cancels nothing. Other requests are
// passed on after one read of the body (the body limit must be applied
// before this middleware); the body is always restored for next, including
// a read error such as *http.MaxBytesError.
func Cancellation(reg CallRegistry, key func(*http.Request) string, logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if reg == nil || key == nil {
			return next
		}
		if logger == nil {
			logger = slog.Default()
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.Body == nil || r.Header.Get(SessionIDHeader) != "" {
				// A request of a session goes to the session, which
				// cancels its own calls.
				next.ServeHTTP(w, r)
				return
			}
			body, err := io.ReadAll(r.Body)
			r.Body.Close()
			if err != nil {
				// Let next report the error (413 for a body over the limit).
				r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), bodyErrReader{err}))
				next.ServeHTTP(w, r)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			msg, ok := peekMessage(body)
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			k := key(r)
			if k == "" {
				next.ServeHTTP(w, r)
				return
			}
			switch msg.method {
			case "tools/call":
				s := &cancelSlot{}
				release, err := reg.Register(r.Context(), k, msg.id, s.fire)
				if err != nil {
					logger.Error("codemode: cannot register a call for cancellation; it runs without", "err", err)
					break
				}
				defer release()
				r = r.WithContext(context.WithValue(r.Context(), cancelSlotKey{}, s))
			case "notifications/cancelled":
				if err := reg.Cancel(r.Context(), k, msg.id); err != nil {
					logger.Error("codemode: cannot deliver a cancellation", "err", err)
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// peeked is what the middleware needs of a JSON-RPC message.
type peeked struct {
	method string
	id     string // of the call, or of the call a cancellation names
}

// peekMessage finds a tools/call request with an id or a
// notifications/cancelled notification with a requestId. Batches (arrays)
// are not tracked: revisions that cancel by notification do not batch.
func peekMessage(body []byte) (peeked, bool) {
	// Most requests are neither: skip decoding them. Both method names
	// contain one of these, even with a JSON-escaped slash.
	if !bytes.Contains(body, []byte("call")) && !bytes.Contains(body, []byte("cancel")) {
		return peeked{}, false
	}
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return peeked{}, false
	}
	var raw json.RawMessage
	switch m.Method {
	case "tools/call":
		raw = m.ID
	case "notifications/cancelled":
		if len(m.ID) > 0 {
			return peeked{}, false // a notification has no id
		}
		raw = m.Params.RequestID
	default:
		return peeked{}, false
	}
	id, ok := normalizeID(raw)
	if !ok {
		return peeked{}, false
	}
	return peeked{m.Method, id}, true
}

// normalizeID maps a JSON-RPC id to a key: strings and integers are
// distinct ids ("1" is not 1), and 1, 1.0 and 1e0 are the same integer.
func normalizeID(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s:" + s, true
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return "n:" + strconv.FormatInt(n, 10), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return "", false
	}
	return "n:" + strconv.FormatInt(int64(f), 10), true
}

// JoinCancellation is the MCP server's half of Cancellation: it makes the
// context of each tools/call Cancellable, so a notifications/cancelled
// POST, which a stateless handler serves in a session of its own, can
// cancel the call in flight.
func JoinCancellation(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		ctx, stop := Cancellable(ctx)
		defer stop()
		return next(ctx, method, req)
	}
}
