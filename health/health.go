// Package health serves the liveness and readiness endpoints a process
// manager probes (Kubernetes' livenessProbe and readinessProbe, a load
// balancer's health check).
//
// Liveness (/healthz) answers 200 while the process serves HTTP at all: a
// failing liveness probe restarts the process, so it checks nothing that a
// restart would not fix. Readiness (/readyz) runs the checks the host
// supplies (the database answers a ping, a sandbox worker can start:
// codemode's Server.CheckWorker) and answers 503 while any fails, so
// traffic goes elsewhere until the dependency is back.
//
// Both answer JSON, and to an anonymous caller nothing beyond the verdict:
// {"status":"ready"} or {"status":"not ready"}. A failed check's error
// (a database driver's names its user, database and host:port) goes to
// the log, once each time it changes, never to the response. A caller
// that [Options.Authorize] admits also gets each check's name and result.
package health

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Check reports whether one dependency is usable; a nil error means it is.
// It must return soon after ctx ends.
type Check func(ctx context.Context) error

// DefaultTimeout bounds each readiness check when Options.Timeout is zero.
const DefaultTimeout = 2 * time.Second

// Options configures [Readiness] and [Mount]. A nil *Options is valid.
type Options struct {
	// Timeout bounds each check; zero means DefaultTimeout.
	Timeout time.Duration
	// CacheFor reuses a readiness verdict for this long, so frequent
	// probes from many balancers do not each start a worker or open a
	// connection. Zero checks on every request.
	CacheFor time.Duration
	// Logger receives a warning when a check fails or its error changes,
	// with the check's name and error, and an info line when it passes
	// again. Nil means slog.Default().
	Logger *slog.Logger
	// Authorize, if set, is asked for each readiness request; a caller it
	// admits (an operator's token, a request from the cluster's own
	// network) gets Report.Checks, each check's name and "ok" or error.
	// Nil means no caller does: the body is the status alone.
	Authorize func(*http.Request) bool
}

// Report is the readiness answer: the overall status and, for an
// authorized caller only, each check's.
type Report struct {
	// Status is "ready" or "not ready" (also "ok" for liveness).
	Status string `json:"status"`
	// Checks maps each check's name to "ok" or its error; it is sent only
	// to callers Options.Authorize admits.
	Checks map[string]string `json:"checks,omitempty"`
}

// Liveness returns a handler that answers 200 {"status":"ok"}.
func Liveness() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		write(w, http.StatusOK, Report{Status: "ok"})
	})
}

// Readiness returns a handler that runs checks concurrently, each under
// the timeout, and answers 200 with status "ready" when all pass, else
// 503 with status "not ready". The body says nothing more unless
// Options.Authorize admits the caller; failures are logged.
func Readiness(checks map[string]Check, opts *Options) http.Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	r := &readiness{checks: checks, opts: o, last: map[string]string{}}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rep := r.report(req.Context())
		code := http.StatusOK
		if rep.Status != "ready" {
			code = http.StatusServiceUnavailable
		}
		if o.Authorize == nil || !o.Authorize(req) {
			rep = Report{Status: rep.Status}
		}
		write(w, code, rep)
	})
}

// Mount serves Liveness at /healthz and Readiness at /readyz on mux.
func Mount(mux *http.ServeMux, checks map[string]Check, opts *Options) {
	mux.Handle("GET /healthz", Liveness())
	mux.Handle("GET /readyz", Readiness(checks, opts))
}

type readiness struct {
	checks map[string]Check
	opts   Options

	mu     sync.Mutex
	cached Report
	at     time.Time

	logMu sync.Mutex
	last  map[string]string // each check's last result, to log changes only
}

func (r *readiness) report(ctx context.Context) Report {
	if r.opts.CacheFor > 0 {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !r.at.IsZero() && time.Since(r.at) < r.opts.CacheFor {
			return r.cached
		}
	}
	rep := Report{Status: "ready", Checks: make(map[string]string, len(r.checks))}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, check := range r.checks {
		wg.Go(func() {
			msg := "ok"
			if err := run(ctx, check, r.opts.Timeout); err != nil {
				msg = err.Error()
			}
			mu.Lock()
			rep.Checks[name] = msg
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, msg := range rep.Checks {
		if msg != "ok" {
			rep.Status = "not ready"
		}
	}
	r.log(rep.Checks)
	if r.opts.CacheFor > 0 {
		r.cached, r.at = rep, time.Now()
	}
	return rep
}

// log reports each check whose result changed since the last run: a
// failure (or a different error) as a warning, a recovery as info.
func (r *readiness) log(results map[string]string) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	for name, msg := range results {
		prev, seen := r.last[name]
		r.last[name] = msg
		switch {
		case msg == prev:
		case msg != "ok":
			r.opts.Logger.Warn("health: readiness check failed", "check", name, "err", msg)
		case seen:
			r.opts.Logger.Info("health: readiness check passes again", "check", name)
		}
	}
}

// run runs one check under the timeout. A check that ignores its context
// is left behind at the timeout; a panic is a failure, not a crash.
func run(ctx context.Context, check Check, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- panicError{v}
			}
		}()
		done <- check(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("no answer within %s", timeout)
	}
}

type panicError struct{ v any }

func (p panicError) Error() string { return "check panicked" }

func write(w http.ResponseWriter, code int, rep Report) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(rep)
}
