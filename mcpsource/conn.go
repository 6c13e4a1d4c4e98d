package mcpsource

// Sessions to the server: the shared one and one per principal, each
// restarted with backoff when it ends.

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

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
