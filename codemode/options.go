package codemode

import (
	"log/slog"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Defaults used for zero fields of [Options].
const (
	DefaultMCPPath      = "/mcp"
	DefaultRatePerSec   = 2.0
	DefaultRateBurst    = 30
	DefaultMaxBodyBytes = 1 << 20
	// DefaultAuthFailuresPerSec and DefaultAuthFailureBurst are generous
	// because behind a tunnel every client shares one address.
	DefaultAuthFailuresPerSec = 20.0
	DefaultAuthFailureBurst   = 100
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

	// Limits bound every execution; zero fields take the sandbox defaults
	// (10 s, 32 MB, 20 calls, 10 KB code, 100 KB output).
	Limits sandbox.Limits
	// SandboxMode selects worker processes (the default, the only mode that
	// enforces the memory limit) or in-process execution (tests, trusted
	// code). Workers re-execute the host binary, which the sandbox
	// package's init hook turns into a worker: no separate binary needed.
	SandboxMode sandbox.Mode
	// Workers is the worker-pool size; zero means GOMAXPROCS. When workers
	// are busy, a free one goes to the waiting principal with the fewest
	// executions running, so one user cannot hold them all while others
	// wait. With Sandbox set, give its pool size here.
	Workers int
	// Sandbox, if set, is used instead of one built from Limits,
	// SandboxMode and Workers. Close does not close it.
	Sandbox *sandbox.Sandbox

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
	// Audit receives the audit events. Nil means NewSlogAudit(Logger) when
	// Logger is set, else JSON lines on stderr (never stdout, which stdio
	// serving owns).
	Audit AuditSink
	// AuditArgs says how much of each call's arguments the audit records;
	// the default records keys and sizes only.
	AuditArgs AuditArgs

	// KeepNulls keeps null members in the script's return value. By default
	// they are removed: they cost tokens and say nothing.
	KeepNulls bool

	// ReadOnlyTool also registers execute_readonly_code, which binds only
	// the READ-ONLY functions and carries readOnlyHint: true, so a client
	// can auto-approve queries while execute_code (and so every mutation)
	// still asks the user. Off by default.
	ReadOnlyTool bool
	// OpenWorld marks the tools with openWorldHint: true. Set it when the
	// catalog's functions reach systems outside the host's own data (the
	// web, third-party APIs); the default says the domain is closed.
	OpenWorld bool

	// Auth authenticates HTTP requests with bearer tokens and serves the
	// OAuth metadata routes. Nil means no authentication: every HTTP
	// request then acts as Principal (if set) or is anonymous, which the
	// catalog refuses unless it allows anonymous calls.
	Auth *Auth
	// Principal is the identity of every HTTP request when Auth is nil.
	// Meant for loopback development and test suites only.
	Principal *catalog.Principal

	// MCPPath is where the Streamable HTTP endpoint is served; default "/mcp".
	MCPPath string
	// Stateful turns on Streamable HTTP sessions (Mcp-Session-Id), closed
	// after 30 minutes without a request. The default is stateless, which
	// serves every protocol revision, including 2026-07-28, and needs no
	// session affinity behind a load balancer.
	Stateful bool
	// AllowedOrigins are browser origins allowed by CORS in addition to
	// https://claude.ai, https://chatgpt.com and https://chat.openai.com.
	// "*" is refused: list origins explicitly (one wildcard inside a host,
	// as in https://*.example.com, is allowed).
	AllowedOrigins []string
	// RatePerSecond and RateBurst set the per-principal rate limit on the
	// MCP endpoint (the key is the token's subject, or the client IP when
	// anonymous); over it the server answers 429 with Retry-After.
	// Defaults: 2 requests per second with bursts of 30. A negative
	// RatePerSecond turns the limit off.
	RatePerSecond float64
	RateBurst     int
	// AuthFailuresPerSecond and AuthFailureBurst limit failed bearer
	// authentication per client IP (the peer address; forwarding headers
	// are ignored). Every request the bearer check refuses counts: a
	// missing, invalid or insufficient-scope token, or a verifier outage.
	// The limit is checked before the token, so once an address has used
	// up its bucket its requests get 429 with Retry-After without reaching
	// Auth.Verifier; requests that authenticate cost nothing. Only used
	// with Auth. Defaults: 20 per second with bursts of 100, generous
	// because behind a tunnel all clients share one address. A negative
	// AuthFailuresPerSecond turns the limit off.
	AuthFailuresPerSecond float64
	AuthFailureBurst      int
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
