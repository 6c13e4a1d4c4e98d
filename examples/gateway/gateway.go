package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/mcpsource"
	"github.com/brakinglab/codemode-go/openapisource"
)

// Gateway is one code-mode server over every upstream of a configuration.
type Gateway struct {
	Server    *codemode.Server
	upstreams []*mcpsource.Upstream
	stop      chan struct{}
	done      chan struct{}
}

// refreshEvery is how often the gateway checks whether an upstream's
// tools changed (mcpsource re-lists them on list_changed and restarts),
// so connected clients hear of it without waiting for their next request.
const refreshEvery = time.Second

// Open starts (or dials) every upstream, one catalog each, and builds
// the code-mode server over them. opts configures the server (identity,
// sandbox); its approvals default to asking before every call of a
// destructive tool, which mcpsource marks MUTATING with approval: a tool
// annotated destructiveHint, and one that does not say whether it is
// destructive unless the configuration trusts its server
// (ServerConfig.Unannotated).
func Open(ctx context.Context, ups []Upstream, opts *codemode.Options, log *slog.Logger) (*Gateway, error) {
	g := &Gateway{}
	var cats []*catalog.Catalog
	for _, u := range ups {
		cat, err := catalog.New(u.Namespace, &catalog.Options{Logger: log})
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("%s: %w", u.Key, err)
		}
		if u.OpenAPI != nil {
			if err := openAPI(ctx, cat, u, &openapisource.Options{Logger: log.With("api", u.Key)}); err != nil {
				g.Close()
				return nil, fmt.Errorf("openapi %s: %w", u.Key, err)
			}
			cats = append(cats, cat)
			continue
		}
		mo := &mcpsource.Options{Logger: log.With("upstream", u.Key), UnannotatedTier: u.UnannotatedTier}
		if u.Command != "" {
			sc := u.ServerConfig
			mo.Command = func() *exec.Cmd {
				cmd := exec.Command(sc.Command, sc.Args...)
				cmd.Env = os.Environ()
				for k, v := range sc.Env {
					cmd.Env = append(cmd.Env, k+"="+v)
				}
				// The gateway's stdout may be its own stdio transport.
				cmd.Stderr = os.Stderr
				return cmd
			}
		} else {
			mo.URL = u.URL
			if len(u.Headers) > 0 {
				h := http.Header{}
				for k, v := range u.Headers {
					h.Set(k, v)
				}
				mo.Header = func(context.Context) http.Header { return h.Clone() }
			}
		}
		up, err := mcpsource.Connect(ctx, cat, mo)
		if err != nil {
			g.Close()
			return nil, fmt.Errorf("%s: %w", u.Key, err)
		}
		g.upstreams = append(g.upstreams, up)
		for _, s := range up.Skipped() {
			log.Warn("gateway: tool left out", "upstream", u.Key, "tool", s.Tool, "reason", s.Reason)
		}
		cats = append(cats, cat)
	}
	srv, err := codemode.NewMulti(cats, opts)
	if err != nil {
		g.Close()
		return nil, err
	}
	g.Server = srv
	g.stop, g.done = make(chan struct{}), make(chan struct{})
	go g.follow()
	return g, nil
}

// follow refreshes the server when an upstream's catalog changed.
func (g *Gateway) follow() {
	defer close(g.done)
	t := time.NewTicker(refreshEvery)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
			_ = g.Server.Refresh() // a failure is logged and the old tools stay
		}
	}
}

// Close stops the server and every upstream.
func (g *Gateway) Close() error {
	var errs []error
	if g.stop != nil {
		close(g.stop)
		<-g.done
	}
	if g.Server != nil {
		errs = append(errs, g.Server.Close())
	}
	for _, u := range g.upstreams {
		errs = append(errs, u.Close())
	}
	return errors.Join(errs...)
}
