package approval

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// The seam between this package and the server that drives it (package
// codemode): everything an approval needs from the server is in this
// file. The server calls [Service.Execute] for each tools/call that may
// need approval, installs the [Gate] of the execution in its host call
// chain, and serves [Service.Handler]. This package never imports
// codemode.

// Call is one tools/call of code, as the server hands it to
// [Service.Execute].
type Call struct {
	// Request is the tools/call: its session says how the user can be
	// asked, its request state and input responses carry an answer over
	// protocol 2026-07-28.
	Request *mcp.CallToolRequest
	// Tool is the name of the code tool called; CodeSHA256 the hex
	// SHA-256 of the code. An approval is bound to both.
	Tool, CodeSHA256 string
	// Names lists the qualified functions the tool binds.
	Names []string
	// Principal is who the call acts for; nil when anonymous.
	Principal *catalog.Principal
	// Policy is which functions need approval, for the functions the
	// server serves now ([Service.Policy]); nil when none does.
	Policy *Policy
	// Gate is the execution's gate, installed in its host call chain.
	Gate *Gate
	// Timeout is the sandbox's time limit: the longest a run's host calls
	// can take to return once the script has ended.
	Timeout time.Duration
	// Exec runs and renders the execution.
	Exec Execution
}

// Execution is what the server does for one execution on the approval
// flow's behalf. Its methods are called from the goroutine of the
// tools/call, except Tier and DryRun (see [Caller]).
type Execution interface {
	Caller
	// Run runs the code once. entropy nil runs it as a plain execution;
	// otherwise the run replays the clock and Math.random values entropy
	// holds and records them there (sandbox.RunOptions.Entropy). The
	// host calls of the run pass through the [Gate] of [Call].
	Run(ctx context.Context, entropy *sandbox.Entropy) (*sandbox.Result, error)
	// Finish audits the end of a run and renders its result (success or
	// the run's own error), exactly as without approvals.
	Finish(ctx context.Context, res *sandbox.Result, err error) *mcp.CallToolResult
	// Fail audits the execution as failed with kind and renders the
	// error result of kind and message, with the calls and logs of res
	// (nil: no run was made).
	Fail(ctx context.Context, kind sandbox.Kind, message string, res *sandbox.Result) *mcp.CallToolResult
	// Annotate puts writes in a result Finish or Fail rendered
	// (structuredContent.writes, an empty list when there are none) and,
	// when url is not empty, the approval page link
	// (structuredContent.approvalUrl). It reports false, changing
	// nothing, when out has no structured content of the server's; the
	// writes are then not listed in its text either.
	Annotate(out *mcp.CallToolResult, writes []Write, url string) bool
	// AuditAsked audits the execution as ended with an input-required
	// result (ErrorKind [KindRequired]); res is the run that asked.
	AuditAsked(ctx context.Context, res *sandbox.Result)
	// Audit writes one approval event.
	Audit(ctx context.Context, ev Event)
	// Elicit sends elicitation/create on the call's session (with the
	// server's tracing around it).
	Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Sessionless says, for the model, why a request before protocol
	// 2026-07-28 served outside a session cannot ask the user.
	Sessionless(ctx context.Context, ip *mcp.InitializeParams) string
}

// Caller is what the [Gate] needs to decide a host call. Its methods are
// called from the goroutines of the host calls, concurrently.
type Caller interface {
	// Tier returns the tier of a function the tool binds (qualified
	// name), and false when the tool does not bind it.
	Tier(fn string) (catalog.Tier, bool)
	// DryRun validates a call of fn as a dry run: it calls the catalog
	// with dry (args with catalog.ValidateOnlyKey set) as the execution's
	// principal. ctx is the tools/call's: it outlives the script's call.
	// The server audits a failed dry run as a function.called event with
	// args.
	DryRun(ctx context.Context, fn string, args, dry json.RawMessage) error
}

// EventKind names an approval audit event; the server's audit trail
// carries it as the event kind.
type EventKind string

// The approval audit events. Each names one call (Function, Tier, Args).
const (
	// Requested: a call was validated and the user is asked.
	Requested EventKind = "approval.requested"
	// Granted: the user accepted the call.
	Granted EventKind = "approval.granted"
	// Declined: the user declined or dismissed the request, or the
	// client could not ask (Why says which).
	Declined EventKind = "approval.declined"
	// Diverged: a resumed run made a call that differs from the record
	// of the runs before it; it was not run.
	Diverged EventKind = "approval.diverged"
)

// Event is one approval audit event.
type Event struct {
	Kind     EventKind
	Function string // qualified: namespace.function
	Tier     catalog.Tier
	Args     json.RawMessage // canonical arguments
	// Why says why a call was declined: "declined", "cancelled",
	// "unanswered", "unavailable", "expired", "request ended"; or how
	// it is asked: "page". Empty otherwise.
	Why string
}

// Config is what [New] needs besides [Options].
type Config struct {
	// Logger receives what the model is not told (store failures,
	// refused states). Nil discards it.
	Logger *slog.Logger
}
