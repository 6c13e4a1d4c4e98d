package codemode

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

// ProgressBurst and ProgressPerSecond bound the progress notifications of
// one execution: up to ProgressBurst at once, then ProgressPerSecond.
// Reports over the limit are dropped, except the first one that reaches
// its total: the client learns that the work is done.
const (
	ProgressBurst     = 10
	ProgressPerSecond = 5
)

// maxProgressMessage bounds a progress message, in bytes.
const maxProgressMessage = 200

// ReportProgress reports a host function's progress on the execution that
// called it: done units of total (0 when unknown), with an optional short
// message. When the client sent a progressToken with its tools/call, this
// becomes a notifications/progress (rate limited: see [ProgressBurst]),
// which lets the client show it and restart its request timeout; without a
// token, or outside an execution, it does nothing. It never blocks for
// long and never fails the call.
//
// Scripts report with codemode.progress(done, total?, message?). Once a
// script or a host function has reported, the automatic notification each
// host call sends (n calls of the call limit) stops, so that progress only
// grows.
func ReportProgress(ctx context.Context, done, total float64, message string) {
	if pr, ok := ctx.Value(progressKey{}).(*progress); ok {
		pr.report(ctx, done, total, message)
	}
}

type progressKey struct{}

func withProgress(ctx context.Context, pr *progress) context.Context {
	return context.WithValue(ctx, progressKey{}, pr)
}

// progress sends one execution's progress notifications.
type progress struct {
	send     func(ctx context.Context, p *mcp.ProgressNotificationParams) error
	token    any
	maxCalls int
	sent     func()

	mu       sync.Mutex
	lim      *rate.Limiter
	lastDone float64
	explicit bool // a script or host function reported: calls no longer count
	finished bool // a report reached its total
}

// newProgress returns the progress reporter of a tools/call, or nil when
// the client sent no progressToken.
func (s *Server) newProgress(req *mcp.CallToolRequest) *progress {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return nil
	}
	return &progress{
		send:     req.Session.NotifyProgress,
		token:    tok,
		maxCalls: s.sb.Limits().MaxCalls,
		sent:     func() { s.tel.progressOut.Add(1) },
		lim:      rate.NewLimiter(ProgressPerSecond, ProgressBurst),
	}
}

// call reports the n-th host call, unless the script reports its own
// progress.
func (p *progress) call(ctx context.Context, name string, n int) {
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
func (p *progress) report(ctx context.Context, done, total float64, message string) {
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
func (p *progress) due(complete bool) bool {
	return p.lim.Allow() || complete
}

func (p *progress) notify(ctx context.Context, done, total float64, message string) {
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

// scriptProgress runs codemode.progress(done, total?, message?) for a
// script; args is the JSON array of its arguments.
func scriptProgress(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
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
	ReportProgress(ctx, done, total, message)
	return json.RawMessage("null"), nil
}
