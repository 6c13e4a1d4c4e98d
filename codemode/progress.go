package codemode

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/internal/progress"
)

// ProgressBurst and ProgressPerSecond bound the progress notifications of
// one execution: up to ProgressBurst at once, then ProgressPerSecond.
// Reports over the limit are dropped, except the first one that reaches
// its total: the client learns that the work is done.
const (
	ProgressBurst     = progress.Burst
	ProgressPerSecond = progress.PerSecond
)

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
	progress.Report(ctx, done, total, message)
}

// newProgress returns the progress reporter of a tools/call, or nil when
// the client sent no progressToken.
func (s *Server) newProgress(req *mcp.CallToolRequest) *progress.Reporter {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return nil
	}
	return progress.New(req.Session.NotifyProgress, tok, s.sb.Limits().MaxCalls, func() { s.tel.progressOut.Add(1) })
}
