package sandbox

import (
	"context"
	"sync"
)

// Warnings a host attaches to a call travel with the call's answer to the
// execution, which adds the function's name and the call's position in the
// script. In worker mode the parent sends them to the worker in Warn
// frames ahead of the Return frame.

// maxCallWarnings bounds the warnings one call may attach,
// maxHostWarnings those of one execution, and maxWarningBytes the length
// of each.
const (
	maxCallWarnings = 10
	maxHostWarnings = 30
	maxWarningBytes = 500
)

type warnKey struct{}

// warnSink collects the warnings of one host call.
type warnSink struct {
	mu     sync.Mutex
	msgs   []string
	closed bool
}

// Warn attaches a warning for the model to the host call whose context is
// ctx: the call still succeeds (or fails) as the host returns, and the
// warning appears in [Result.Warnings] with the function's name and the
// TypeScript position of the call. Use it for what the model must not
// miss but that does not deserve failing the call, such as an argument
// that was ignored. Call it before Host.Call returns; later warnings, and
// warnings on a context that did not come from the sandbox, are dropped.
// A call keeps at most 10 warnings of 500 bytes each.
func Warn(ctx context.Context, message string) {
	s, _ := ctx.Value(warnKey{}).(*warnSink)
	if s == nil || message == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || len(s.msgs) >= maxCallWarnings {
		return
	}
	s.msgs = append(s.msgs, cut(message, maxWarningBytes))
}

// withWarnings returns ctx carrying a fresh sink for one call.
func withWarnings(ctx context.Context) (context.Context, *warnSink) {
	s := &warnSink{}
	return context.WithValue(ctx, warnKey{}, s), s
}

// take closes the sink and returns what it collected.
func (s *warnSink) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.msgs
}
