package codemode

import (
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/chart"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
)

// Defaults used for zero fields of [Options].
const (
	DefaultMCPPath = "/mcp"
	// DefaultRatePerSec and DefaultRateBurst limit executions
	// (tools/call) per principal; see Options.RateLimits.RatePerSecond for why.
	DefaultRatePerSec = 2.0
	DefaultRateBurst  = 60
	// DefaultRequestsPerSec and DefaultRequestBurst limit every MCP
	// message per principal; see Options.RateLimits.RequestsPerSecond for why.
	DefaultRequestsPerSec = 10.0
	DefaultRequestBurst   = 200
	DefaultMaxBodyBytes   = 1 << 20
	// DefaultAuthFailuresPerSec and DefaultAuthFailureBurst are generous
	// because behind a tunnel every client shares one address.
	DefaultAuthFailuresPerSec = 20.0
	DefaultAuthFailureBurst   = 100
	// DefaultMaxSessionsPerPrincipal is the most Streamable HTTP sessions
	// one principal holds open on one process; see
	// Options.HTTP.MaxSessionsPerPrincipal.
	DefaultMaxSessionsPerPrincipal = 16
)

// ToolName is the name of the tool that runs code against the whole catalog.
const ToolName = "execute_code"

// ReadOnlyToolName is the name of the optional tool that runs code against
// the READ-ONLY functions only (see [Options.ReadOnlyTool]).
const ReadOnlyToolName = "execute_readonly_code"

// Options configures a [Server]. A nil *Options is valid; every zero field
// means the default documented on it.
type Options struct {
	// Name, Title and Version identify the server to MCP clients. Name
	// defaults to the catalog's namespace, Version to "0.0.0".
	Name, Title, Version string
	// Instructions are sent to clients at initialization. Empty means a
	// one-line pointer to the execute_code tool.
	Instructions string
	// ServerOptions, if set, configures the go-sdk server New builds
	// (MCPServer): handlers for initialization, subscriptions, completion,
	// page size, keep-alive. Its Instructions, Logger and Capabilities
	// win over codemode's when set; left empty, they are Instructions
	// above, Logger, and no logging capability.
	ServerOptions *mcp.ServerOptions

	// Limits bound every execution; zero fields take the sandbox defaults
	// (10 s, 32 MB, 20 calls, 10 KB code, 100 KB output).
	Limits sandbox.Limits

	// Discovery chooses how the tools present the catalog: every
	// declaration in the description (DiscoveryFull), the rules and a
	// one-line index with declarations looked up from code
	// (DiscoveryIndex), or full while it fits DiscoveryBudget and index
	// above it (DiscoveryAuto, the default). codemode.search and
	// codemode.describe are available to scripts in every mode.
	Discovery Discovery
	// DiscoveryBudget is the most tokens (characters / 4) a full
	// description may cost under DiscoveryAuto; zero means
	// DefaultDiscoveryBudget (4,000).
	DiscoveryBudget int

	// CompactDeclarations leaves field documentation and constraint tags
	// out of the declarations, keeping function documentation: a shorter
	// description for small context windows, at the cost of the model
	// learning constraints from validation errors instead.
	CompactDeclarations bool
	// Example is the short program shown in the tool description. Empty
	// means a generic one calling the first READ-ONLY function.
	Example string

	// Logger receives operational messages. Nil means slog.Default().
	Logger *slog.Logger

	// Observer watches executions, sandbox runs, host calls and approvals
	// for tracing and metrics; nil means none. For OpenTelemetry, set it
	// to otelcodemode.New(…) (module
	// github.com/brakinglab/codemode-go/otelcodemode). Stats counts either
	// way.
	Observer Observer

	// KeepNulls keeps null members in the script's return value. By default
	// they are removed: they cost tokens and say nothing.
	KeepNulls bool

	// ChartRenderer draws the charts of codemode.chart as PNG images for
	// a client that did not declare the MCP Apps extension (one that did
	// draws them itself, in the view at [ChartViewURI]). Nil draws none:
	// such a client gets the specs in structuredContent.charts and one
	// line of text per chart. The renderer that uses gonum/plot is a
	// module of its own, so that a service that draws no charts carries
	// neither it nor its fonts:
	//
	//	opts.ChartRenderer = chartpng.New() // github.com/brakinglab/codemode-go/chartpng
	ChartRenderer chart.Renderer

	// ReadOnlyTool also registers execute_readonly_code, which binds only
	// the READ-ONLY functions and carries readOnlyHint: true, so a client
	// can auto-approve queries while execute_code (and so every mutation)
	// still asks the user. Off by default.
	ReadOnlyTool bool
	// Saved, if set, offers saved functions (package
	// [github.com/brakinglab/codemode-go/saved]): scripts save code that
	// worked with codemode.save and call it as saved.name(input) in later
	// executions, as the caller, inside the caller's execution. Nil means
	// none.
	Saved *saved.Library
	// Approvals says which calls wait for the user's approval (through
	// MCP elicitation) before they run, and seals the approvals. The zero
	// value asks for none, unless a catalog.Func requires it.
	Approvals approval.Options

	// OpenWorld marks the tools with openWorldHint: true. Set it when the
	// catalog's functions reach systems outside the host's own data (the
	// web, third-party APIs); the default says the domain is closed.
	OpenWorld bool

	// Auth authenticates HTTP requests with bearer tokens and serves the
	// OAuth metadata routes. Nil means no authentication: every HTTP
	// request then acts as Principal (if set) or is anonymous, which the
	// catalog refuses unless it allows anonymous calls.
	Auth *Auth
	// Principal is the identity of every HTTP request when Auth is nil:
	// development mode, for loopback development, test suites and
	// stdio-only servers. Requests from a non-loopback peer get 403 unless
	// InsecureRemotePrincipal is set. Setting both Auth and Principal is
	// an error, and so is setting neither unless the catalog allows
	// anonymous calls ([ErrNoIdentity]).
	Principal *catalog.Principal
	// InsecureRemotePrincipal lets requests from any address act as
	// Principal: anyone who can reach the port acts as that user. Only
	// for a network you fully control; it is required too when
	// DisableLocalhostProtection would let a tunnel carry remote requests
	// to a Principal server.
	InsecureRemotePrincipal bool

	// Sandbox chooses the sandbox that runs the code: worker processes
	// (the default) or in process, or one the host built.
	Sandbox SandboxOptions
	// Audit says where the audit events go and how much of each call's
	// arguments they record.
	Audit AuditOptions
	// HTTP configures the Streamable HTTP endpoint of Handler and
	// Middleware: its path, sessions, CORS origins, body limit and how a
	// request's client address is read.
	HTTP HTTPOptions
	// RateLimits bounds, per principal, the executions and the messages
	// it may send, and per client address the failed authentications.
	RateLimits RateLimitOptions
	// State replaces the in-process state HTTP requests share (the rate
	// limits' buckets, the calls a notifications/cancelled may reach) with
	// stores that several replicas share; see package
	// [github.com/brakinglab/codemode-go/codemode/pgstate].
	State SharedState
}

// SandboxOptions chooses the sandbox an Options builds. The zero value
// is a pool of worker processes running the host binary, with
// Options.Limits.
type SandboxOptions struct {
	// Mode selects worker processes (the default, the only mode that
	// enforces the memory limit) or in-process execution (tests, trusted
	// code). Workers re-execute the host binary, which the sandbox
	// package's init hook turns into a worker: no separate binary needed.
	Mode sandbox.Mode
	// WorkerPath is the binary worker processes run; empty means the host
	// binary itself (see the sandbox package). New starts one worker
	// before it returns and fails with [ErrWorkerStart], quoting the
	// worker's stderr, if it cannot start: typically because a package
	// initialiser of the host needs the host's environment. Build a
	// separate binary that imports the sandbox package (and not that
	// initialiser) and name it here, or move the side effect into main.
	WorkerPath string
	// Shared, if set, is used instead of one built from Limits, Mode
	// and WorkerPath (a pool of GOMAXPROCS workers). Build one
	// to choose the pool size (sandbox.Options.PoolSize). Close does not
	// close it. Either way the sandbox shares its workers out fairly
	// between principals (see sandbox.RunOptions.Partition).
	Shared *sandbox.Sandbox
}

// AuditOptions says where audit events go. The zero value writes JSON
// lines on stderr (or to Options.Logger when set) with the arguments'
// keys and sizes only.
type AuditOptions struct {
	// Sink receives the audit events. Nil means NewSlogAudit(Logger) when
	// Logger is set, else JSON lines on stderr (never stdout, which stdio
	// serving owns). [NoAudit] turns auditing off; a nil [AuditFunc] is
	// refused by New.
	Sink AuditSink
	// Args says how much of each call's arguments the audit records;
	// the default records keys and sizes only.
	Args AuditArgs
}

// HTTPOptions configures the Streamable HTTP endpoint. The zero value
// serves /mcp, opens sessions only for the clients that need them, allows
// the default AI-client origins, caps bodies at 1 MiB and reads the
// client address from the peer.
type HTTPOptions struct {
	// MCPPath is where the Streamable HTTP endpoint is served; default "/mcp".
	MCPPath string
	// Stateful opens a Streamable HTTP session (Mcp-Session-Id) for every
	// client that initializes on a protocol revision before 2026-07-28.
	// By default (neither Stateful nor Stateless) one endpoint serves
	// both: an initialize before 2026-07-28 that declares the elicitation
	// capability or the MCP Apps extension opens a session, since the
	// server sends such a client requests during a call (the user's
	// approval) or reads its capabilities later (the chart view); every
	// other request, and every 2026-07-28 request, is served statelessly.
	// A session closes after 30 minutes without a request, or when it
	// is one too many for its principal (MaxSessionsPerPrincipal), and
	// belongs to the principal (subject and OAuth client) that opened it:
	// another's requests with its id get 404. Sessions live in the
	// process that opened them: behind several replicas set
	// SessionIDPrefix and route on it. Setting Stateful with Stateless is
	// an error.
	Stateful bool
	// Stateless never opens a session: every request is served alone,
	// on every revision. Clients on revisions before 2026-07-28 then
	// cannot be asked during a call: a call needing the user's approval
	// answers APPROVAL_UNAVAILABLE saying so, or the approval page's link
	// (approval.Options.Page), and New logs this once when a function
	// needs approval. Clients on 2026-07-28 are asked with input-required
	// results, which need no session.
	Stateless bool
	// SessionIDPrefix starts every session id this process hands out,
	// so that a load balancer in front of several replicas can send each
	// request of a session to the replica that holds it (nginx: a map on
	// $http_mcp_session_id choosing the upstream; see the README). Give
	// each replica its own prefix, for example "r1." and "r2.": at most 32
	// letters, digits, '.', '_' or '-'. A request whose session id lacks
	// this process's prefix gets 404 with a message naming both, and the
	// first one is logged. Empty means no prefix (one process, or a load
	// balancer with affinity of its own).
	SessionIDPrefix string
	// MaxSessionsPerPrincipal caps the sessions one principal (the token's
	// subject, or the client address when anonymous) holds open on this
	// process: opening one more closes the one idle longest. Zero means
	// DefaultMaxSessionsPerPrincipal (16); negative means no cap.
	MaxSessionsPerPrincipal int
	// AllowedOrigins are browser origins allowed by CORS in addition to
	// https://claude.ai, https://chatgpt.com and https://chat.openai.com.
	// "*" is refused: list origins explicitly (one wildcard inside a host,
	// as in https://*.example.com, is allowed).
	AllowedOrigins []string
	// ClientAddress names the client behind a request for the limits kept
	// per client address: failed bearer authentication
	// (AuthFailuresPerSecond, FailureLimiter), the approval page
	// (approval.Page.Limiter, unless its SourceOf is set), and for anonymous
	// requests (catalog.Options.AllowAnonymous) the rate limits and the
	// calls a notifications/cancelled may cancel. Nil means the peer
	// address; forwarding headers are ignored, since clients can set them.
	// An IPv6 address counts by its /64, IPv4-mapped addresses as IPv4.
	// [ForwardedFor] makes one for the proxies you run.
	// Behind a reverse proxy or tunnel every client has the proxy's
	// address, so one client's failed tokens block everyone's requests:
	// there, return the address your proxy reports, and only for requests
	// that come from it (for example the right-most X-Forwarded-For entry
	// that is not one of your proxies).
	ClientAddress func(r *http.Request) string
	// MaxBodyBytes caps an HTTP request body; larger bodies get 413.
	// Default 1 MiB (code itself is capped by Limits.MaxCodeBytes).
	MaxBodyBytes int64
	// DisableLocalhostProtection turns off the DNS-rebinding guard, which
	// refuses a request that arrives on a loopback address with a
	// non-loopback Host header. A tunnel (ngrok, cloudflared) that forwards
	// a public hostname to a server on 127.0.0.1 looks exactly like that:
	// set this only behind such a tunnel, together with Auth.
	DisableLocalhostProtection bool
}

// RateLimitOptions sets the per-principal limits on executions and
// messages and the per-address limit on failed authentication. The zero
// value is the documented defaults of each field; a negative rate turns
// that limit off.
type RateLimitOptions struct {
	// RatePerSecond and RateBurst set the per-principal limit on
	// executions: each tools/call of execute_code, execute_readonly_code
	// or a saved function's tool (saved.Options.Tools) costs one token
	// (one per call in a JSON-RPC batch); initialize, tools/list, resources/read, notifications and
	// the host's own plain tools cost nothing here (RequestsPerSecond
	// limits them). The key is the token's subject, or the
	// client IP when anonymous; over the limit the server answers 429 with
	// Retry-After. Defaults: 2 executions per second with bursts of 60. An
	// agent's executions come in bursts: a model that issues parallel tool
	// calls or a script looping over inputs sends tens back to back, then
	// waits while the model reads the results (one model turn takes
	// seconds, so a conversation sustains well under one execution per
	// second). The burst lets a scripted client run 60 executions without
	// pausing; the rate lets a few agents of one user work at once while a
	// flood is refused within seconds. Concurrency is bounded separately,
	// by the fair worker queue. A negative RatePerSecond turns the limit
	// off: do that behind a gateway that already rate-limits per user.
	RatePerSecond float64
	RateBurst     int
	// RateLimitPlainTools counts a call of any tool, the host's own plain
	// tools on MCPServer() included, against the execution limit. Set it
	// when those tools cost as much as an execution; by default only the
	// code tools spend it.
	RateLimitPlainTools bool
	// RequestsPerSecond and RequestBurst set the per-principal limit on
	// every MCP message, whatever its method: each message naming a
	// method (each element of a JSON-RPC batch) costs one token, and an
	// HTTP request at least one. It bounds what executions do not count:
	// tools/list, resources/list and read, templates, prompts, plain
	// tools, notifications. Defaults: 10 per second with bursts of 200,
	// so that an agent's set-up traffic (four messages per stateless
	// session) and a full burst of executions fit together, while a loop
	// of reads is refused within seconds. Over the limit the server
	// answers 429 with Retry-After. A negative RequestsPerSecond turns
	// the limit off.
	RequestsPerSecond float64
	RequestBurst      int
	// AuthFailuresPerSecond and AuthFailureBurst limit failed bearer
	// authentication per client address (ClientAddress; by default the
	// peer address, an IPv6 address by its /64). Every request the bearer check refuses counts: a
	// missing, invalid or insufficient-scope token, or a verifier outage.
	// The limit is checked before the token, so once an address has used
	// up its bucket its requests get 429 with Retry-After without reaching
	// Auth.Verifier; requests that authenticate cost nothing. Only used
	// with Auth. Defaults: 20 per second with bursts of 100, generous
	// because behind a tunnel all clients share one address. A negative
	// AuthFailuresPerSecond turns the limit off.
	AuthFailuresPerSecond float64
	AuthFailureBurst      int
}

// SharedState replaces the in-process state that HTTP requests share with
// stores several replicas share. The zero value keeps everything in the
// process, which is right for one replica.
type SharedState struct {
	// RequestLimiter, if set, replaces the in-process limit that
	// RequestsPerSecond and RequestBurst configure, so that replicas
	// share it (see package codemode/pgstate; use a limiter name of its
	// own). Setting it with a negative RequestsPerSecond is an error.
	RequestLimiter state.RateLimiter
	// RateLimiter, if set, replaces the in-process limit that
	// RatePerSecond and RateBurst configure (which are then ignored), so
	// that replicas share one budget per principal: see package
	// codemode/pgstate. Setting it with a negative RatePerSecond is an
	// error.
	RateLimiter state.RateLimiter
	// FailureLimiter, if set, replaces the in-process failed-authentication
	// limit that AuthFailuresPerSecond and AuthFailureBurst configure, so
	// that replicas share it. Setting it with a negative
	// AuthFailuresPerSecond is an error.
	FailureLimiter state.FailureLimiter
	// Cancellations, if set, replaces the in-process registry that lets a
	// notifications/cancelled POST reach the stateless tools/call it names,
	// so that the notification may land on another replica than the call.
	// Requests of a session (an Mcp-Session-Id header) do not use it: a
	// session cancels its own calls.
	Cancellations state.Cancellations
}
