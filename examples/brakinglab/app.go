package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/chartpng"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/examples/brakinglab/authserver"
	"github.com/brakinglab/codemode-go/examples/brakinglab/demo"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/otelcodemode"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
	"github.com/jackc/pgx/v5/pgxpool"
)

// allScopes are the scopes BrakingLab's functions require: READ-ONLY
// functions need read, MUTATING and CREATIVE ones write.
var allScopes = []string{functions.ScopeRead, functions.ScopeWrite}

// app is an opened BrakingLab: its database, catalog and code-mode server.
type app struct {
	cfg   *config
	log   *slog.Logger
	store *store.Store
	cat   *catalog.Catalog
	users []demoLogin // demo accounts to print; empty if none were seeded
	// shared is the SDK's HTTP state in PostgreSQL (limits, cancellation
	// registry) when -db is a postgres:// URL, on its own pool.
	shared *pgstate.State
	pool   *pgxpool.Pool
	// approvalKey seals pending approvals; nil means a random key per process.
	approvalKey []byte
	// metrics serves Prometheus metrics (-metrics); nil otherwise.
	metrics http.Handler
}

// demoLogin is a demo account shown in the start-up banner.
type demoLogin struct{ Username, Password string }

// openApp opens (creating and migrating) the database, seeds the demo data
// unless -no-demo, and builds the catalog.
func openApp(ctx context.Context, cfg *config, log *slog.Logger) (*app, error) {
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, store: st}
	if err := a.seed(ctx); err != nil {
		st.Close()
		return nil, err
	}
	if cfg.ApproveKey != "" {
		if a.approvalKey, err = os.ReadFile(cfg.ApproveKey); err != nil {
			st.Close()
			return nil, fmt.Errorf("-approval-key-file: %w", err)
		}
		if len(a.approvalKey) < 32 {
			st.Close()
			return nil, fmt.Errorf("-approval-key-file %s: %d bytes, want at least 32 random bytes (for example: head -c 32 /dev/urandom > key)", cfg.ApproveKey, len(a.approvalKey))
		}
	}
	if a.cat, err = functions.NewWithOptions(st, &functions.Options{NoApprovals: cfg.NoApprove}); err != nil {
		st.Close()
		return nil, fmt.Errorf("building the function catalog: %w", err)
	}
	return a, nil
}

// seed inserts the demo data on first start (demo.SeedStore does nothing
// once the demo user exists) and collects the demo logins whose passwords
// still work, for the banner and the sign-in page.
func (a *app) seed(ctx context.Context) error {
	if !a.cfg.NoDemo {
		start := time.Now()
		seeded, err := demo.SeedStore(ctx, a.store, nil)
		if err != nil {
			// Replicas starting together on one PostgreSQL database race to
			// seed; the loser's transaction fails on the winner's rows.
			if _, e := a.store.UserByUsername(ctx, demo.DemoUser); e != nil {
				return err
			}
			a.log.Info("demo data seeded by another replica")
		}
		if seeded {
			a.log.Info("seeded demo data", "db", a.cfg.dbName(), "took", time.Since(start).Round(time.Millisecond))
		}
	}
	for _, name := range []string{demo.DemoUser, demo.RivalUser} {
		pw := demo.DefaultPasswords[name]
		if _, err := a.store.AuthenticateUser(ctx, name, pw); err == nil {
			a.users = append(a.users, demoLogin{name, pw})
		}
	}
	return nil
}

// Close closes the database.
func (a *app) Close() error {
	if a.shared != nil {
		a.shared.Close()
		a.pool.Close()
	}
	return a.store.Close()
}

// shareState puts the MCP endpoint's per-user execution and request
// budgets, its failed-authentication budget, its notifications/cancelled
// registry and its spent approvals in the PostgreSQL database when the store is there (package
// codemode/pgstate), so that replicas on that database share them: a
// user's budget holds across replicas, a cancellation reaches the
// replica running the call, an approval is spent once, either replica
// serves the approval page and the re-run that follows it, and a saved
// function changed on one replica notifies the sessions of every one. With SQLite (one process) the in-process
// defaults stay. Limits turned off in opts stay off.
func (a *app) shareState(ctx context.Context, opts *codemode.Options) error {
	st, err := a.sharedState(ctx)
	if st == nil {
		return err
	}
	if opts.RateLimits.RatePerSecond >= 0 {
		opts.State.RateLimiter = a.shared.Limiter("executions",
			cmp.Or(opts.RateLimits.RatePerSecond, codemode.DefaultRatePerSec), cmp.Or(opts.RateLimits.RateBurst, codemode.DefaultRateBurst))
	}
	if opts.RateLimits.AuthFailuresPerSecond >= 0 {
		opts.State.FailureLimiter = a.shared.Limiter("auth-failures",
			cmp.Or(opts.RateLimits.AuthFailuresPerSecond, codemode.DefaultAuthFailuresPerSec), cmp.Or(opts.RateLimits.AuthFailureBurst, codemode.DefaultAuthFailureBurst))
	}
	if opts.RateLimits.RequestsPerSecond >= 0 {
		opts.State.RequestLimiter = a.shared.Limiter("requests",
			cmp.Or(opts.RateLimits.RequestsPerSecond, codemode.DefaultRequestsPerSec), cmp.Or(opts.RateLimits.RequestBurst, codemode.DefaultRequestBurst))
	}
	opts.State.Cancellations = a.shared.Cancellations()
	opts.Approvals.Spent = a.shared.SpentApprovals()
	opts.Saved = a.savedLibrary(a.shared)
	if pg := opts.Approvals.Page; pg != nil {
		pg.Store = a.shared.PendingApprovals()
		pg.Limiter = a.shared.Limiter("approval-page", approval.DefaultPageRatePerSec, approval.DefaultPageBurst)
	}
	return nil
}

// savedLibrary returns the saved functions, kept in the store. With the
// PostgreSQL state replicas share (shared not nil), a change on any
// replica reaches the sessions of every one: the store sends pgstate's
// notice in its transaction and shared's listener hears it. Without it
// (SQLite, one process) the store reports its changes in process.
func (a *app) savedLibrary(shared *pgstate.State) *saved.Library {
	fns := a.store.SavedFunctions()
	if shared != nil {
		fns = fns.WithChanges(shared.SavedFunctions())
	}
	return saved.New(&saved.Options{Store: fns})
}

// sharedState returns the PostgreSQL state replicas share, connecting on
// first use, or nil with SQLite (one process).
func (a *app) sharedState(ctx context.Context) (*pgstate.State, error) {
	if a.store.Engine() != sqldb.Postgres {
		return nil, nil
	}
	if a.shared == nil {
		pool, err := pgxpool.New(ctx, a.cfg.DB)
		if err != nil {
			return nil, fmt.Errorf("shared limits: %w", err)
		}
		st, err := pgstate.New(ctx, pool, &pgstate.Options{Logger: a.log})
		if err != nil {
			pool.Close()
			return nil, err
		}
		a.shared, a.pool = st, pool
	}
	return a.shared, nil
}

// guessLimiter is the sign-in password throttle's shared state: the same
// PostgreSQL buckets as the other limits, or nil (per process) with
// SQLite.
func (a *app) guessLimiter(ctx context.Context) (func(string, float64, int) authserver.GuessLimiter, error) {
	st, err := a.sharedState(ctx)
	if st == nil {
		return nil, err
	}
	return func(name string, perSecond float64, burst int) authserver.GuessLimiter {
		return st.Limiter(name, perSecond, burst)
	}, nil
}

// principal returns the identity of a local user (for -stdio and
// -insecure-no-auth) with every scope.
func (a *app) principal(ctx context.Context, username string) (catalog.Principal, error) {
	u, err := a.store.UserByUsername(ctx, username)
	if errors.Is(err, store.ErrNotFound) {
		return catalog.Principal{}, fmt.Errorf("no user %q in %s (demo users exist unless -no-demo was used on first start)", username, a.cfg.dbName())
	}
	if err != nil {
		return catalog.Principal{}, err
	}
	return catalog.Principal{Subject: u.ID, ClientID: "local", Scopes: allScopes}, nil
}

// codemodeOptions are the settings shared by every mode.
func (a *app) codemodeOptions() *codemode.Options {
	return &codemode.Options{
		Title:        "BrakingLab",
		Version:      "1.0.0",
		Instructions: "BrakingLab is a sim-racing coaching service. Use execute_code to query the driver's sessions, laps, telemetry analysis, race calendar and notes, and to save coaching reports; its description declares every brakinglab.* function.",
		Logger:       a.log,
		Example:      functions.Example,
		Limits:       sandbox.Limits{Timeout: a.cfg.ScriptTimeout},
		Approvals:    approval.Options{Key: a.approvalKey, TTL: a.cfg.ApprovalTTL},
		// Scripts that worked are saved with codemode.save and called in
		// later conversations as saved.<name>(input); they live in the
		// same database as everything else (SQLite, or PostgreSQL shared
		// by the replicas, where shareState replaces this Library).
		Saved: a.savedLibrary(nil),
		RateLimits: codemode.RateLimitOptions{
			RatePerSecond: a.cfg.RatePerSecond,
			// -rate-limit -1 (test suites) turns the request limit off too.
			RequestsPerSecond: min(a.cfg.RatePerSecond, 0),
		},
		// Clients that declare elicitation get a session (and are asked
		// during the call); behind several replicas the prefix lets the
		// proxy route a session to the replica that holds it.
		HTTP: codemode.HTTPOptions{SessionIDPrefix: a.cfg.SessionPre},
		// Clients without the MCP Apps extension get the charts as PNGs.
		ChartRenderer: chartpng.New(),
		// Spans and metrics through the global providers setupOTel
		// installs (no-ops when it installs none).
		Observer: otelcodemode.New(nil),
	}
}

// printTypes writes the TypeScript declarations the model sees.
func (a *app) printTypes(ctx context.Context, w io.Writer) error {
	opts := a.codemodeOptions()
	opts.Sandbox.Mode = sandbox.ModeInProcess // declarations only: start no workers
	opts.Principal = &catalog.Principal{}     // and serve nothing: any identity will do
	cm, err := codemode.New(a.cat, opts)
	if err != nil {
		return err
	}
	defer cm.Close()
	_, err = io.WriteString(w, cm.Declarations())
	return err
}

// serveStdio serves one local client over stdin/stdout as -user.
func (a *app) serveStdio(ctx context.Context) error {
	p, err := a.principal(ctx, a.cfg.User)
	if err != nil {
		return err
	}
	opts := a.codemodeOptions()
	opts.Principal = &p // the stdio user; New wants an identity for HTTP too
	// On PostgreSQL the session hears of the saved functions the user
	// changes through other servers on the database.
	shared, err := a.sharedState(ctx)
	if err != nil {
		return err
	}
	if shared != nil {
		opts.Saved = a.savedLibrary(shared)
	}
	cm, err := codemode.New(a.cat, opts)
	if err != nil {
		return err
	}
	defer cm.Close()
	a.log.Info("serving MCP over stdio", "user", a.cfg.User, "db", a.cfg.dbName())
	err = cm.ServeStdio(ctx, p)
	if ctx.Err() != nil {
		return nil // interrupted: a normal end
	}
	return err
}
