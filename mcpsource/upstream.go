package mcpsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	// MinBackoff and MaxBackoff bound the wait before restarting a
	// session that ended: it doubles from MinBackoff (default 100ms) to
	// MaxBackoff (default 30s) while restarts keep failing, and starts
	// again from MinBackoff after a session that lived a minute.
	MinBackoff, MaxBackoff time.Duration
	// Logger receives restarts, refreshes and skipped tools. Nil means
	// slog.Default().
	Logger *slog.Logger
}

// Skipped is an upstream tool left out of the catalogue, and why.
type Skipped struct {
	Tool   string // the upstream's name for it
	Reason string
}

// Upstream fills one catalogue with the tools of one MCP server and
// keeps it in step: it re-lists the tools on
// notifications/tools/list_changed and after a restart. It is safe for
// concurrent use.
type Upstream struct {
	c      *catalog.Catalog
	opts   Options
	name   string // for messages: the catalogue's namespace
	sem    chan struct{}
	shared *conn

	refreshMu sync.Mutex // one refresh at a time
	mu        sync.Mutex
	closed    bool
	funcs     map[string]registered // catalogue name → what this upstream registered
	skipped   []Skipped
	users     map[string]*conn // by principal subject
	refreshC  chan struct{}
	done      chan struct{}
}

type registered struct {
	tool string // upstream name
	def  []byte // the tool's JSON, to notice a changed declaration
}

// Connect starts (or dials) the server, lists its tools and registers
// each as a function of c, whose namespace becomes the server's. A tool
// whose schema the catalogue cannot compile, or whose name collides, is
// left out and reported by Skipped; an override in Options.Tools for a
// tool the server does not list is an error. Close stops the server.
func Connect(ctx context.Context, c *catalog.Catalog, opts *Options) (*Upstream, error) {
	u := &Upstream{c: c, name: c.Namespace(), funcs: map[string]registered{}, users: map[string]*conn{},
		refreshC: make(chan struct{}, 1), done: make(chan struct{})}
	if opts != nil {
		u.opts = *opts
	}
	if err := u.withDefaults(); err != nil {
		return nil, err
	}
	u.sem = make(chan struct{}, u.opts.MaxConcurrent)
	u.shared = &conn{u: u, shared: true}
	if _, err := u.shared.session(ctx); err != nil {
		return nil, fmt.Errorf("mcpsource: %s: starting the server: %w", u.name, u.shared.lastError())
	}
	names, err := u.refresh(ctx)
	if err == nil {
		for tool := range u.opts.Tools {
			if !slices.Contains(names, tool) {
				err = fmt.Errorf("mcpsource: %s: Options.Tools names %q, which the server does not list (it lists %v)", u.name, tool, names)
			}
		}
	}
	if err != nil {
		u.Close()
		return nil, err
	}
	go u.refresher()
	return u, nil
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
			return &mcp.CommandTransport{Command: cmd(), TerminateDuration: time.Second}, nil
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

// Skipped lists the tools left out of the catalogue at the last listing,
// and why.
func (u *Upstream) Skipped() []Skipped {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.skipped)
}

// Close ends every session (stopping a stdio server's process) and
// removes the upstream's functions from the catalogue.
func (u *Upstream) Close() error {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return nil
	}
	u.closed = true
	close(u.done)
	conns := append([]*conn{u.shared}, slices.Collect(maps.Values(u.users))...)
	funcs := slices.Collect(maps.Keys(u.funcs))
	u.funcs = map[string]registered{}
	u.mu.Unlock()
	for _, f := range funcs {
		u.c.Remove(f)
	}
	var errs []error
	for _, c := range conns {
		errs = append(errs, c.close())
	}
	return errors.Join(errs...)
}

func (u *Upstream) isClosed() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.closed
}

// refresher re-lists the tools whenever a refresh is asked for.
func (u *Upstream) refresher() {
	for {
		select {
		case <-u.done:
			return
		case <-u.refreshC:
		}
		ctx, cancel := context.WithTimeout(context.Background(), u.opts.ConnectTimeout)
		if _, err := u.refresh(ctx); err != nil && !u.isClosed() {
			u.opts.Logger.Warn("mcpsource: re-listing tools failed", "upstream", u.name, "error", err)
		}
		cancel()
	}
}

// askRefresh asks the refresher for a listing; asks made while one is
// pending are merged.
func (u *Upstream) askRefresh() {
	select {
	case u.refreshC <- struct{}{}:
	default:
	}
}

// refresh lists the tools and brings the catalogue in step: tools gone or
// changed are removed, new or changed ones added. It returns the names
// the server listed.
func (u *Upstream) refresh(ctx context.Context) ([]string, error) {
	u.refreshMu.Lock()
	defer u.refreshMu.Unlock()
	sess, err := u.shared.session(ctx)
	if err != nil {
		return nil, err
	}
	var tools []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcpsource: %s: listing tools: %w", u.name, err)
		}
		tools = append(tools, t)
	}

	type want struct {
		t   *mcp.Tool
		def []byte
	}
	wanted := map[string]want{}
	var skipped []Skipped
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
		cfg := u.opts.Tools[t.Name]
		if cfg.Skip {
			continue
		}
		name, _, _ := cfg.resolve(t, u.unannotated())
		if prev, dup := wanted[name]; dup {
			skipped = append(skipped, Skipped{t.Name, fmt.Sprintf("its name converts to %s, as %q does; name one of them in Options.Tools", name, prev.t.Name)})
			continue
		}
		def, _ := json.Marshal(t)
		wanted[name] = want{t, def}
	}

	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return names, nil
	}
	for name, r := range u.funcs {
		if w, ok := wanted[name]; !ok || !bytes.Equal(w.def, r.def) {
			u.c.Remove(name)
			delete(u.funcs, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(wanted)) {
		w := wanted[name]
		if _, ok := u.funcs[name]; ok {
			continue
		}
		if err := u.add(name, w.t); err != nil {
			skipped = append(skipped, Skipped{w.t.Name, err.Error()})
			continue
		}
		u.funcs[name] = registered{tool: w.t.Name, def: w.def}
	}
	slices.SortFunc(skipped, func(a, b Skipped) int { return cmpString(a.Tool, b.Tool) })
	u.skipped = skipped
	u.mu.Unlock()
	for _, s := range skipped {
		u.opts.Logger.Warn("mcpsource: upstream tool left out", "upstream", u.name, "tool", s.Tool, "reason", s.Reason)
	}
	return names, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// add registers one upstream tool.
func (u *Upstream) add(name string, t *mcp.Tool) error {
	cfg := u.opts.Tools[t.Name]
	_, tier, ap := cfg.resolve(t, u.unannotated())
	in, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		return fmt.Errorf("input schema: not a JSON object")
	}
	var out json.RawMessage
	if t.OutputSchema != nil {
		if out, err = json.Marshal(t.OutputSchema); err != nil {
			return fmt.Errorf("output schema: %w", err)
		}
	}
	tool := t.Name
	return catalog.AddSchema(u.c, catalog.SchemaFunc{
		Name: name, Description: t.Description, Tier: tier, Scopes: cfg.Scopes, Approval: ap,
		InputSchema: in, OutputSchema: out,
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return u.call(ctx, name, tool, tier != catalog.ReadOnly, args)
		},
	})
}

// call runs one upstream tool call within the upstream's bounds. write
// says the tool may change something (it is not READ-ONLY): once such a
// call has been sent, an error must not let the model believe it did
// nothing, or a retry could make the change twice.
func (u *Upstream) call(ctx context.Context, fn, tool string, write bool, args json.RawMessage) (json.RawMessage, error) {
	qual := u.name + "." + fn
	cctx, cancel := context.WithTimeout(ctx, u.opts.CallTimeout)
	defer cancel()
	select {
	case u.sem <- struct{}{}:
		defer func() { <-u.sem }()
	case <-cctx.Done():
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, upstreamError("%s: the %s server is busy with %d calls; retry later", qual, u.name, u.opts.MaxConcurrent)
	}
	c := u.shared
	if p, ok := catalog.PrincipalFrom(ctx); ok && u.opts.PerPrincipal {
		c = u.userConn(p)
	}
	sess, err := c.session(cctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	res, err := sess.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, u.callError(ctx, cctx, qual, write, err)
	}
	if res.IsError {
		return nil, toolError(errorText(res))
	}
	b, err := resultJSON(res)
	var failed string
	if err != nil {
		u.opts.Logger.Warn("mcpsource: upstream result does not encode", "function", qual, "error", err)
		failed = fmt.Sprintf("%s: the %s server sent a result that is not JSON", qual, u.name)
	} else if len(b) > u.opts.MaxResultBytes {
		failed = fmt.Sprintf("%s returned %d bytes, more than the %d this server accepts from %s; ask for less data", qual, len(b), u.opts.MaxResultBytes, u.name)
	}
	switch {
	case failed == "":
		return b, nil
	case write:
		return nil, outcomeUnknown(qual, failed)
	}
	return nil, upstreamError("%s", failed)
}

// outcomeUnknown is the error of a call that may write, sent upstream,
// whose answer was lost or could not be passed on; what says why.
func outcomeUnknown(qual, what string) error {
	return &catalog.Error{Code: catalog.CodeOutcomeUnknown, Message: what + ". The call was sent, so it may have taken effect: check its effect (read it back) before calling " + qual + " again."}
}

// callError says what went wrong with a call the session could not
// complete. write says the tool may change something: once its call was
// sent, only a refusal says nothing ran, so every other failure is an
// unknown outcome, never "retry", or a retry could make the change twice.
func (u *Upstream) callError(ctx, cctx context.Context, qual string, write bool, err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		// The server refused the request: its own words.
		return upstreamError("%s: the %s server refused the call: %s", qual, u.name, we.Message)
	}
	var why, retry string // what happened; what a read may do next
	switch {
	case ctx.Err() != nil:
		if !write {
			return ctx.Err()
		}
		why = "the execution ended while the call was in flight"
	case cctx.Err() != nil:
		why = fmt.Sprintf("the %s server did not answer within %s", u.name, u.opts.CallTimeout)
		retry = "; retry later, or ask for less"
	case errors.Is(err, mcp.ErrConnectionClosed):
		// Also a call made after an oversized answer ended the session.
		u.opts.Logger.Warn("mcpsource: upstream session ended during a call", "function", qual, "error", err)
		why = fmt.Sprintf("the %s server stopped during the call and is being restarted", u.name)
		retry = "; retry in a few seconds"
	case strings.Contains(err.Error(), frameTooLarge):
		// The session cannot find the next message after the cut and
		// ends, failing every call waiting on it with this error: the one
		// whose answer was too large, which would fail the same way again,
		// and any other, which may be retried.
		u.opts.Logger.Warn("mcpsource: upstream answer over the message limit", "function", qual, "error", err)
		why = fmt.Sprintf("the %s server sent an answer larger than one message may be (%d MiB over stdio), so its session was ended and is being restarted", u.name, mcp.DefaultMaxLineLength>>20)
		retry = ". If this call asks for much data, ask for less; otherwise retry in a few seconds"
	default:
		u.opts.Logger.Warn("mcpsource: upstream call failed", "function", qual, "error", err)
		why = fmt.Sprintf("the %s server sent an answer that is not valid MCP", u.name)
	}
	if write {
		return outcomeUnknown(qual, qual+": "+why)
	}
	return upstreamError("%s: %s%s", qual, why, retry)
}

// frameTooLarge is the text of go-sdk's error for an inbound message over
// mcp.DefaultMaxLineLength, which it does not export.
// TestMisbehavingUpstream fails if it changes.
const frameTooLarge = "exceeded the configured maximum line length"

func upstreamError(format string, args ...any) error {
	return &catalog.Error{Code: catalog.CodeUpstream, Message: fmt.Sprintf(format, args...)}
}

func (u *Upstream) userConn(p catalog.Principal) *conn {
	u.mu.Lock()
	defer u.mu.Unlock()
	c, ok := u.users[p.Subject]
	if !ok {
		c = &conn{u: u, principal: &p, closed: u.closed} // after Close, starts nothing
		if !u.closed {
			u.users[p.Subject] = c
		}
	}
	return c
}

// conn is one session to the server, restarted with backoff when it ends.
type conn struct {
	u         *Upstream
	shared    bool               // lists tools; restarted at once, not on the next call
	principal *catalog.Principal // nil for the shared session

	mu       sync.Mutex
	sess     *mcp.ClientSession
	started  time.Time
	failures int
	retryAt  time.Time
	lastErr  error // why the last start failed, for the host
	closed   bool
}

func (c *conn) lastError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

// session returns the live session, starting one if the backoff allows.
func (c *conn) session(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != nil {
		return c.sess, nil
	}
	name := c.u.name
	if c.closed {
		return nil, upstreamError("the %s server has been shut down", name)
	}
	if wait := time.Until(c.retryAt); wait > 0 {
		return nil, upstreamError("the %s server is restarting; retry in %s", name, wait.Round(time.Millisecond))
	}
	ctx, cancel := context.WithTimeout(ctx, c.u.opts.ConnectTimeout)
	defer cancel()
	sess, err := c.connect(ctx)
	if err != nil {
		c.failed()
		c.lastErr = err
		c.u.opts.Logger.Error("mcpsource: starting upstream failed", "upstream", name, "error", err)
		return nil, upstreamError("the %s server could not be started; retry in %s", name, time.Until(c.retryAt).Round(time.Millisecond))
	}
	c.sess, c.started = sess, time.Now()
	go c.watch(sess)
	return sess, nil
}

func (c *conn) connect(ctx context.Context) (*mcp.ClientSession, error) {
	t, err := c.u.opts.Transport(ctx, c.principal)
	if err != nil {
		return nil, err
	}
	var copts mcp.ClientOptions
	if c.shared {
		copts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { c.u.askRefresh() }
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "codemode-go/mcpsource", Version: "v0"}, &copts)
	return cl.Connect(ctx, t, nil)
}

// failed moves the next start back: MinBackoff doubled per failure in a
// row, up to MaxBackoff. Called with c.mu held.
func (c *conn) failed() {
	o := c.u.opts
	c.failures++
	d := o.MinBackoff << min(c.failures-1, 30)
	if d <= 0 || d > o.MaxBackoff {
		d = o.MaxBackoff
	}
	c.retryAt = time.Now().Add(d)
}

// watch waits for sess to end; a session that ends unasked is replaced
// after the backoff (the shared one at once, per-principal ones on their
// next call).
func (c *conn) watch(sess *mcp.ClientSession) {
	err := sess.Wait()
	c.mu.Lock()
	if c.sess != sess || c.closed {
		c.mu.Unlock()
		return
	}
	c.sess = nil
	if time.Since(c.started) >= time.Minute {
		c.failures = 0
	}
	c.failed()
	wait := time.Until(c.retryAt)
	c.mu.Unlock()
	c.u.opts.Logger.Warn("mcpsource: upstream session ended; restarting", "upstream", c.u.name, "error", err, "after", wait)
	if !c.shared {
		return
	}
	select {
	case <-time.After(wait):
	case <-c.u.done:
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.u.opts.ConnectTimeout)
	defer cancel()
	if _, err := c.session(ctx); err != nil {
		// The next call, or the next end of a session, tries again.
		go c.retryLater()
		return
	}
	c.u.askRefresh()
}

// retryLater keeps restarting the shared session with backoff until it
// starts or the upstream closes.
func (c *conn) retryLater() {
	for {
		c.mu.Lock()
		wait, live := time.Until(c.retryAt), c.sess != nil
		c.mu.Unlock()
		if live {
			return
		}
		select {
		case <-time.After(wait):
		case <-c.u.done:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.u.opts.ConnectTimeout)
		_, err := c.session(ctx)
		cancel()
		if err == nil {
			c.u.askRefresh()
			return
		}
	}
}

func (c *conn) close() error {
	c.mu.Lock()
	c.closed = true
	sess := c.sess
	c.sess = nil
	c.mu.Unlock()
	if sess == nil {
		return nil
	}
	return sess.Close()
}
