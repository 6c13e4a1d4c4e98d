package mcpsource

// The Upstream and its lifecycle: Connect, Skipped and Close.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/brakinglab/codemode-go/catalog"
)

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
	// unreadable are the tools of the listing under way that the shared
	// session's guard took out of an answer (see listGuard).
	unreadable []Skipped
	users      map[string]*conn // by principal subject
	refreshC   chan struct{}
	done       chan struct{}
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
