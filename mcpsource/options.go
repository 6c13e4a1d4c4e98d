package mcpsource

// Options and their defaults, and how each way of reaching the server
// becomes a Transport.

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// Options configures an Upstream. Exactly one of Command, URL, Server and
// Transport says how to reach the server; the other fields' zero values
// are the documented defaults.
type Options struct {
	// Command returns the command of a server spoken to over stdio
	// (command, args, env). It is called for each start, so a crashed
	// process is replaced by a fresh one.
	Command func() *exec.Cmd
	// URL is the endpoint of a server spoken to over Streamable HTTP.
	URL string
	// HTTPClient carries the host's own credentials to URL (an OAuth
	// client's transport, mTLS). Nil means a plain client. The user's
	// token from the execute_code request is never passed on: the MCP
	// authorization spec forbids token passthrough.
	HTTPClient *http.Client
	// Header, if set, returns headers added to every HTTP request to URL
	// (an API key the host holds).
	Header func(ctx context.Context) http.Header
	// Server is a server in this process, reached over in-memory
	// transports.
	Server *mcp.Server
	// Transport is the general form: it returns a fresh transport for
	// each connection. principal is nil for the shared session and the
	// caller for a per-principal one (see PerPrincipal).
	Transport func(ctx context.Context, principal *catalog.Principal) (mcp.Transport, error)

	// PerPrincipal gives each principal (by Subject) its own session,
	// made by Transport, for servers that keep per-user state. The shared
	// session still lists the tools, and serves anonymous calls.
	PerPrincipal bool

	// Tools overrides, by the upstream's tool name, the derived name,
	// tier and approval, or skips a tool. A name the server does not
	// list is an error at Connect. An entry overrides UnannotatedTier
	// and UnannotatedApproval too.
	Tools map[string]ToolConfig

	// UnannotatedTier is the tier of the server's tools that do not say
	// whether they are destructive: readOnlyHint not true and
	// destructiveHint absent, a tool without annotations included. Zero
	// means the MCP specification's default, which TierOf gives: such a
	// tool may destroy, so it is MUTATING and every call waits for the
	// user's approval. A host that trusts the server sets it, for
	// example to catalog.Creative (strict decoding and dry runs, asking
	// only where the code-mode server's per-tier default says so).
	// Tools that do describe themselves keep the tier their annotations
	// give.
	UnannotatedTier catalog.Tier
	// UnannotatedApproval is the approval rule of the same tools. Zero
	// (catalog.ApprovalDefault) means required while UnannotatedTier is
	// zero, and otherwise the server's per-tier default.
	// catalog.ApprovalRequired with a READ-ONLY UnannotatedTier is an
	// error at Connect.
	UnannotatedApproval catalog.Approval

	// CallTimeout bounds each call, waiting for a free slot included.
	// Default 30s.
	CallTimeout time.Duration
	// ConnectTimeout bounds starting and initializing a session.
	// Default 30s.
	ConnectTimeout time.Duration
	// MaxConcurrent bounds the calls in flight to this upstream, so one
	// slow server cannot take every goroutine of the host. Default 8.
	MaxConcurrent int
	// MaxResultBytes bounds a result's JSON. Default 1 MiB. It applies once
	// the transport has read the answer; over stdio go-sdk reads at most
	// 16 MiB per message (mcp.DefaultMaxLineLength): a longer one ends
	// the session, which is then restarted, and fails the calls waiting
	// on it with an error that says an answer was too large.
	MaxResultBytes int
	// MaxTools bounds the tools registered from this server: of a longer
	// list, the first MaxTools (in the server's order) are kept and the
	// rest left out (Skipped). Default 1,000.
	MaxTools int
	// MaxListPages bounds the pages of one tools/list. A server whose
	// nextCursor never ends (or repeats) is listed that far; the rest of
	// its tools are not, and the log says why. Default 100.
	MaxListPages int
	// MaxListBytes bounds the JSON of one listing's tools, all pages
	// together; a longer list is cut short the same way. Default 16 MiB.
	MaxListBytes int
	// ListChangedDelay is how long a re-listing waits after
	// notifications/tools/list_changed (or a restart), so that a burst
	// of notifications costs one listing. Default 250ms.
	ListChangedDelay time.Duration
	// MinListInterval is the least time between the starts of two
	// re-listings, however often the server notifies: a flood of
	// notifications costs one listing per interval. Default 2s.
	MinListInterval time.Duration
	// MinBackoff and MaxBackoff bound the wait before restarting a
	// session that ended: it doubles from MinBackoff (default 100ms) to
	// MaxBackoff (default 30s) while restarts keep failing, and starts
	// again from MinBackoff after a session that lived a minute.
	MinBackoff, MaxBackoff time.Duration
	// Logger receives restarts, refreshes and skipped tools. Nil means
	// slog.Default().
	Logger *slog.Logger
}

func (u *Upstream) withDefaults() error {
	o := &u.opts
	n := 0
	for _, set := range []bool{o.Command != nil, o.URL != "", o.Server != nil, o.Transport != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("mcpsource: %s: set exactly one of Options.Command, URL, Server and Transport", u.name)
	}
	if (o.HTTPClient != nil || o.Header != nil) && o.URL == "" {
		return fmt.Errorf("mcpsource: %s: Options.HTTPClient and Header apply only to URL", u.name)
	}
	if err := u.unannotated().check(); err != nil {
		return fmt.Errorf("mcpsource: %s: %w", u.name, err)
	}
	switch {
	case o.Command != nil:
		cmd := o.Command
		o.Transport = func(context.Context, *catalog.Principal) (mcp.Transport, error) {
			return &commandTransport{cmd: cmd(), u: u}, nil
		}
	case o.URL != "":
		hc := o.HTTPClient
		if hc == nil {
			hc = &http.Client{}
		}
		if o.Header != nil {
			c := *hc
			c.Transport = &headerTransport{base: hc.Transport, header: o.Header}
			hc = &c
		}
		mended := *hc
		mended.Transport = &mendTransport{base: hc.Transport, u: u}
		hc = &mended
		url := o.URL
		o.Transport = func(context.Context, *catalog.Principal) (mcp.Transport, error) {
			return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil
		}
	case o.Server != nil:
		srv := o.Server
		o.Transport = func(ctx context.Context, _ *catalog.Principal) (mcp.Transport, error) {
			ct, st := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(ctx, st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.CallTimeout, 30*time.Second)
	def(&o.ConnectTimeout, 30*time.Second)
	def(&o.MinBackoff, 100*time.Millisecond)
	def(&o.MaxBackoff, 30*time.Second)
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 8
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = 1 << 20
	}
	for _, d := range []struct {
		v   *int
		def int
	}{{&o.MaxTools, 1000}, {&o.MaxListPages, 100}, {&o.MaxListBytes, 16 << 20}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	def(&o.ListChangedDelay, 250*time.Millisecond)
	def(&o.MinListInterval, 2*time.Second)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// unannotated is what the server's tools that do not describe
// themselves become.
func (u *Upstream) unannotated() unannotated {
	return unannotated{tier: u.opts.UnannotatedTier, approval: u.opts.UnannotatedApproval}
}

// headerTransport adds the host's headers to each request.
type headerTransport struct {
	base   http.RoundTripper
	header func(ctx context.Context) http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.header(r.Context()) {
		r.Header[http.CanonicalHeaderKey(k)] = vs
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(r)
}
