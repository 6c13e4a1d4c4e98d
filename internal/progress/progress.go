// Package progress sends the progress notifications of one execution of
// code mode: one per host call (n of the call limit) until the script
// (codemode.progress) or a host function reports its own, then only the
// reports that grow, under a token bucket that never drops the first
// report reaching its total. It knows nothing of the server: the caller
// gives it the session's send function and the request's token.
package progress

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/time/rate"
)

// Burst and PerSecond bound the progress notifications of one execution:
// up to Burst at once, then PerSecond. Reports over the limit are
// dropped, except the first one that reaches its total: the client
// learns that the work is done.
const (
	Burst     = 10
	PerSecond = 5
)

// maxProgressMessage bounds a progress message, in bytes.
const maxProgressMessage = 200

// Report reports done units of total (0 when unknown), with an optional
// short message, on the Reporter in ctx (see [With]); without one it
// does nothing. It never blocks for long and never fails.
func Report(ctx context.Context, done, total float64, message string) {
	if pr, ok := ctx.Value(key{}).(*Reporter); ok {
		pr.report(ctx, done, total, message)
	}
}

type key struct{}

// With returns ctx carrying pr, for Report and ScriptCall.
func With(ctx context.Context, pr *Reporter) context.Context {
	return context.WithValue(ctx, key{}, pr)
}

// Reporter sends one execution's progress notifications.
type Reporter struct {
	send     func(ctx context.Context, p *mcp.ProgressNotificationParams) error
	token    any
	maxCalls int
	sent     func()

	// order keeps notifications in call order: progress must only grow,
	// and concurrent calls (Promise.all) start on many goroutines.
	order sync.Mutex
	calls int // host calls numbered so far; order is held

	mu       sync.Mutex
	lim      *rate.Limiter
	lastDone float64
	explicit bool // a script or host function reported: calls no longer count
	finished bool // a report reached its total
}

// New returns the Reporter of one execution: send sends a notification
// (the session's NotifyProgress), token is the request's progressToken,
// maxCalls the execution's call limit (the total of the per-call
// reports), and sent, called after each notification sent, counts them.
func New(send func(context.Context, *mcp.ProgressNotificationParams) error, token any, maxCalls int, sent func()) *Reporter {
	return &Reporter{send: send, token: token, maxCalls: maxCalls, sent: sent, lim: rate.NewLimiter(PerSecond, Burst)}
}

// Call numbers a host call of function name and reports it as n of the
// call limit, unless the script or a host function reports its own
// progress. Calls are numbered and reported in the order they start. A
// nil Reporter (no progressToken) does nothing.
func (p *Reporter) Call(ctx context.Context, name string) {
	if p == nil {
		return
	}
	p.order.Lock()
	defer p.order.Unlock()
	p.calls++
	p.call(ctx, name, p.calls)
}

// call reports the n-th host call.
func (p *Reporter) call(ctx context.Context, name string, n int) {
	p.mu.Lock()
	if p.explicit || !p.due(false) {
		p.mu.Unlock()
		return
	}
	p.lastDone = float64(n)
	p.mu.Unlock()
	p.notify(ctx, float64(n), float64(p.maxCalls), fmt.Sprintf("%s (%d/%d)", name, n, p.maxCalls))
}

// report sends done/total unless the last notification was too recent or
// did not report less: progress must only grow.
func (p *Reporter) report(ctx context.Context, done, total float64, message string) {
	p.mu.Lock()
	if !p.explicit {
		p.explicit, p.lastDone = true, math.Inf(-1)
	}
	complete := total > 0 && done >= total
	if done <= p.lastDone || p.finished || !p.due(complete) {
		p.mu.Unlock()
		return
	}
	p.lastDone, p.finished = done, complete
	p.mu.Unlock()
	p.notify(ctx, done, total, message)
}

// due reports whether a notification may go now, and if so takes its
// token. The caller holds mu.
func (p *Reporter) due(complete bool) bool {
	return p.lim.Allow() || complete
}

func (p *Reporter) notify(ctx context.Context, done, total float64, message string) {
	params := &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: done, Message: message}
	if total > 0 {
		params.Total = total
	}
	// Best effort: a client that went away must not fail the execution.
	if p.send(ctx, params) == nil {
		p.sent()
	}
}

// errProgressUsage is what a script gets for unusable arguments.
var errProgressUsage = errors.New("codemode.progress takes (done: number, total?: number, message?: string), for example codemode.progress(3, 10, \"sessions read\")")

// ScriptCall runs codemode.progress(done, total?, message?) for a
// script, reporting on the Reporter in ctx; args is the JSON array of its
// arguments.
func ScriptCall(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var list []json.RawMessage
	if json.Unmarshal(args, &list) != nil || len(list) == 0 || len(list) > 3 {
		return nil, errProgressUsage
	}
	var done, total float64
	var message string
	if json.Unmarshal(list[0], &done) != nil || done < 0 {
		return nil, errProgressUsage
	}
	if len(list) > 1 && string(list[1]) != "null" {
		if json.Unmarshal(list[1], &total) != nil || total < 0 {
			return nil, errProgressUsage
		}
	}
	if len(list) > 2 && string(list[2]) != "null" {
		if json.Unmarshal(list[2], &message) != nil {
			return nil, errProgressUsage
		}
		if len(message) > maxProgressMessage {
			cut := maxProgressMessage
			for cut > 0 && !utf8.RuneStart(message[cut]) {
				cut--
			}
			message = message[:cut] + "…"
		}
	}
	Report(ctx, done, total, message)
	return json.RawMessage("null"), nil
}
