package sandbox

// The relay host: inside a worker, the Host that sends each call to the
// parent over the pipe, and the loop's table of calls awaiting an answer.

import (
	"context"
	"encoding/json"
	"os"

	"github.com/brakinglab/codemode-go/sandbox/internal/wire"
)

// deliver hands a Return frame to the call waiting for it; answers for
// calls of a finished execution find nobody and are dropped.
func (l *childLoop) deliver(f wire.Frame) {
	if c := l.take(f.ID); c != nil {
		c.stop()
		c.answer(f)
	}
}

// warn adds the warning in a Warn frame to the pending call it names.
func (l *childLoop) warn(f wire.Frame) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.pending[f.ID]; c != nil && len(c.warnings) < maxCallWarnings {
		c.warnings = append(c.warnings, cut(string(f.A), maxWarningBytes))
	}
}

// take removes and returns the pending call id, or nil.
func (l *childLoop) take(id uint64) *relayCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.pending[id]
	delete(l.pending, id)
	return c
}

// relayHost is the Host a worker gives the engine: each call travels to the
// parent's Host over the pipe. It implements asyncHost, so the protocol
// reader hands an answer straight to the execution instead of waking a
// goroutine per call that waits for it.
type relayHost struct {
	loop  *childLoop
	funcs map[string][]string
	free  []string
	sub   []string // sub-program namespaces (SubprogramHost)
	// explain: the parent's host is an Explainer; withhold: a Withholder
	// (see explainCall).
	explain, withhold bool
}

// relayCall is a host call waiting for the parent's answer.
type relayCall struct {
	name     string
	done     func(json.RawMessage, []string, error)
	stop     func() bool // unregisters the context watch
	warnings []string    // from Warn frames; guarded by the loop's mu
}

// answer completes the call from a Return frame. A panic in the parent's
// Host.Call fails the call the way a panic in process does. The call is
// no longer pending, so its warnings are complete.
func (c *relayCall) answer(f wire.Frame) {
	if len(f.B) == 0 {
		c.done(f.A, c.warnings, nil)
		return
	}
	e, p := decodeHostErr(f.B)
	if p != "" {
		c.done(nil, c.warnings, &hostPanic{name: c.name})
		return
	}
	c.done(nil, c.warnings, e)
}

func (h *relayHost) Functions() map[string][]string { return h.funcs }

// FreeNamespaces implements FreeHost with the parent host's list.
func (h *relayHost) FreeNamespaces() []string { return h.free }

// startCall sends the call to the parent; done runs once, with the
// parent's answer. ctx ending sends CancelCall, which cancels the host
// call's context in the parent; the answer that follows says what the
// host did. Abandoning the call here instead would report a write as
// cancelled that the host may still complete.
func (h *relayHost) startCall(ctx context.Context, name string, args json.RawMessage, done func(json.RawMessage, []string, error)) {
	l := h.loop
	c := &relayCall{name: name, done: done}
	l.mu.Lock()
	l.nextID++
	id := l.nextID
	l.pending[id] = c
	c.stop = context.AfterFunc(ctx, func() {
		l.mu.Lock()
		_, pending := l.pending[id]
		l.mu.Unlock()
		if pending {
			_ = l.w.Write(wire.Frame{Type: wire.CancelCall, ID: id})
		}
	})
	l.mu.Unlock()
	// Arguments over maxCallArgsBytes never get here: the engine rejects
	// the call (bind.go), and the parent's frame limit is the backstop.
	a := []byte(name)
	if pos, ok := PositionOf(ctx); ok {
		a = encodeCallName(name, pos)
	}
	if err := l.w.Write(wire.Frame{Type: wire.Call, ID: id, A: a, B: args}); err != nil {
		os.Exit(workerExitProtocol)
	}
}

// Call is startCall waited for.
func (h *relayHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	type answer struct {
		out json.RawMessage
		err error
	}
	ch := make(chan answer, 1)
	h.startCall(ctx, name, args, func(out json.RawMessage, _ []string, err error) { ch <- answer{out, err} })
	a := <-ch
	return a.out, a.err
}

var _ asyncHost = (*relayHost)(nil)
