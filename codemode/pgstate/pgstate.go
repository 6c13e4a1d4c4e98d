// Package pgstate keeps the HTTP state a codemode server shares between
// replicas in PostgreSQL: the per-principal rate limit, the per-address
// failed-authentication limit, the registry through which a
// notifications/cancelled POST reaches a stateless tools/call running on
// another replica (LISTEN/NOTIFY), the replay cache that spends each
// approval once, the approval page's pending approvals, and the saved
// functions, whose changes every replica hears of (LISTEN/NOTIFY), so
// each tells its own connected clients. Any host with a PostgreSQL
// database can use it:
//
//	st, err := pgstate.New(ctx, pool, nil)
//	...
//	defer st.Close()
//	opts := &codemode.Options{
//		RateLimiter:    st.Limiter("executions", codemode.DefaultRatePerSec, codemode.DefaultRateBurst),
//		FailureLimiter: st.Limiter("auth-failures", codemode.DefaultAuthFailuresPerSec, codemode.DefaultAuthFailureBurst),
//		Cancellations:  st.Cancellations(),
//		Approvals: approval.Options{Key: key, Spent: st.SpentApprovals(),
//			Page: &approval.Page{URL: url, Authenticate: auth, Store: st.PendingApprovals()}},
//		Saved: saved.New(&saved.Options{Store: st.SavedFunctions()}),
//	}
//
// New creates six tables in the pool's default schema if they do not
// exist, codemode_buckets, codemode_calls, codemode_approvals,
// codemode_pending, codemode_saved_names and codemode_saved; every
// replica uses the same database. A limiter's buckets and the database clock are shared, so the
// budget holds whichever replica a request lands on.
//
// When the database cannot be reached, a limiter falls back to an
// in-process bucket with the same settings (each replica then grants its
// own budget until the database is back) rather than refusing every
// request, and logs the error. A call registered then runs without
// cancellation by notification, and a cancellation sent then is lost;
// both are logged. The listener reconnects by itself; a saved-function
// change committed while it was away reached nobody here, so on
// reconnecting it reports one change that concerns everyone, and every
// session of this replica is told to list its tools again. The approval
// page's store, [State.PendingApprovals], and the saved functions have no
// fallback: without the database nothing is stored or read.
//
// A request waits for the database at most [Options.MaxWait] (by default
// [DefaultMaxWait]) per decision: a limiter whose statement has not
// answered by then decides with its in-process bucket, and a call whose
// registration has not answered runs meanwhile. The statement still
// completes in the background, so the shared state counts the request.
// On a loaded host a round trip to the database now and then takes a
// second or more, and a request makes several (the failed-authentication
// check, the request and execution limits, the call's registration):
// without the bound, one user's flood that loads the host would delay
// every other user's small request by that much. The release of a call's
// registration happens after its answer, never before it.
//
// Start at package codemode; this package only supplies its
// [state.RateLimiter], [state.FailureLimiter],
// [state.Cancellations], [state.SpentApprovals],
// [state.PendingApprovals] and [state.SavedFunctions] with
// [state.SavedChanges].
package pgstate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/watchers"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultCallTTL is how long a registered call counts as in flight when
// the replica running it dies without releasing it.
const DefaultCallTTL = 15 * time.Minute

// channel is the LISTEN/NOTIFY channel cancellations travel on;
// savedChannel the one of saved-function changes (saved.go).
const (
	channel      = "codemode_cancel"
	savedChannel = "codemode_saved"
)

// DefaultMaxWait is how long a request waits for the database before a
// limiter decides in process and a call runs before its registration is
// stored: about ten times a round trip on a healthy host.
const DefaultMaxWait = 100 * time.Millisecond

// backgroundTimeout bounds a statement that outlived its request's wait.
const backgroundTimeout = 10 * time.Second

// sweepEvery is how often full buckets and expired calls are deleted.
const sweepEvery = time.Minute

// Options configures [New]. A nil *Options is valid.
type Options struct {
	// Logger receives database errors. Nil means slog.Default().
	Logger *slog.Logger
	// CallTTL bounds how long a registered call is kept if its replica
	// dies without releasing it: until then, a cancellation naming the
	// same principal, client and request id is ambiguous and cancels
	// nothing. Keep it above the longest execution including its wait for
	// a worker. Zero means DefaultCallTTL.
	CallTTL time.Duration
	// MaxWait bounds how long a request waits for the database in one
	// decision (see the package documentation). Zero means
	// DefaultMaxWait.
	MaxWait time.Duration
	// MaxPendingPerSubject caps the approvals of the approval page one
	// principal may have waiting for an answer (unanswered, not expired),
	// across replicas; MaxPending caps them for all principals. Put
	// refuses a new approval over a cap with a *state.PendingLimitError.
	// Zero means state.DefaultMaxPendingPerSubject (20) and
	// state.DefaultMaxPending (1,000); negative is an error.
	MaxPendingPerSubject, MaxPending int
}

// State is codemode's shared state in one PostgreSQL database. It is safe
// for concurrent use.
type State struct {
	pool   *pgxpool.Pool
	logger *slog.Logger
	ttl    time.Duration
	wait   time.Duration // Options.MaxWait

	maxPendingSubject, maxPending int // Options.MaxPendingPerSubject, MaxPending

	mu         sync.Mutex
	calls      map[string]func() // token → cancel, for calls running here
	limiters   []*Limiter
	savedWatch watchers.Set[func(owner string, everyone bool)] // SavedFunctions.WatchSaved

	bg sync.WaitGroup // statements that outlived their request's wait

	stop      context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

const schema = `
CREATE TABLE IF NOT EXISTS codemode_buckets (
	name    text NOT NULL,
	key     text NOT NULL,
	tokens  double precision NOT NULL,
	updated timestamptz NOT NULL,
	PRIMARY KEY (name, key)
);
CREATE TABLE IF NOT EXISTS codemode_calls (
	token   text PRIMARY KEY,
	key     text NOT NULL,
	id      text NOT NULL,
	expires timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS codemode_calls_key_id ON codemode_calls (key, id);
ALTER TABLE codemode_calls ADD COLUMN IF NOT EXISTS ended boolean NOT NULL DEFAULT false;
CREATE TABLE IF NOT EXISTS codemode_approvals (
	id      text PRIMARY KEY,
	request text NOT NULL,
	outcome bytea,
	expires timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS codemode_pending (
	id      text PRIMARY KEY,
	match   text NOT NULL,
	subject text NOT NULL,
	created timestamptz NOT NULL,
	expires timestamptz NOT NULL,
	answer  text NOT NULL DEFAULT '',
	state   bytea NOT NULL
);
CREATE INDEX IF NOT EXISTS codemode_pending_match ON codemode_pending (match, created DESC);
CREATE TABLE IF NOT EXISTS codemode_saved_names (
	owner     text NOT NULL,
	name      text NOT NULL,
	published boolean NOT NULL DEFAULT false,
	PRIMARY KEY (owner, name)
);
CREATE UNIQUE INDEX IF NOT EXISTS codemode_saved_published ON codemode_saved_names (name) WHERE published;
CREATE TABLE IF NOT EXISTS codemode_saved (
	owner       text NOT NULL,
	name        text NOT NULL,
	version     integer NOT NULL,
	description text NOT NULL,
	code        text NOT NULL,
	input       bytea NOT NULL,
	output      bytea,
	tier        text NOT NULL,
	uses        text[] NOT NULL,
	created     timestamptz NOT NULL,
	PRIMARY KEY (owner, name, version),
	FOREIGN KEY (owner, name) REFERENCES codemode_saved_names (owner, name) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS codemode_pending_waiting ON codemode_pending (expires) WHERE answer = '';
`

// migrationLock serialises New's CREATE statements between replicas that
// start at once (CREATE ... IF NOT EXISTS is not safe under concurrency).
const migrationLock = 0x636f64656d6f6465 // "codemode"

// New creates the tables if needed, starts listening for cancellations
// and saved-function changes, and returns the state. It returns once the
// listener is connected, so a cancellation or change sent after New
// returns is not missed. Close stops it; the pool stays the caller's.
func New(ctx context.Context, pool *pgxpool.Pool, opts *Options) (*State, error) {
	if pool == nil {
		return nil, errors.New("pgstate: nil pool")
	}
	s := &State{pool: pool, logger: slog.Default(), ttl: DefaultCallTTL, wait: DefaultMaxWait, calls: map[string]func(){}, done: make(chan struct{})}
	if opts != nil {
		if opts.Logger != nil {
			s.logger = opts.Logger
		}
		if opts.CallTTL > 0 {
			s.ttl = opts.CallTTL
		}
		if opts.MaxWait > 0 {
			s.wait = opts.MaxWait
		}
		if opts.MaxPendingPerSubject < 0 || opts.MaxPending < 0 {
			return nil, errors.New("pgstate: Options.MaxPendingPerSubject, MaxPending: negative")
		}
		s.maxPendingSubject, s.maxPending = opts.MaxPendingPerSubject, opts.MaxPending
	}
	if s.maxPendingSubject == 0 {
		s.maxPendingSubject = state.DefaultMaxPendingPerSubject
	}
	if s.maxPending == 0 {
		s.maxPending = state.DefaultMaxPending
	}
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, schema)
		return err
	}); err != nil {
		return nil, fmt.Errorf("pgstate: creating tables: %w", err)
	}

	conn, err := s.listen(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgstate: listening for cancellations and saved-function changes: %w", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go s.run(runCtx, conn)
	return s, nil
}

// Close stops the listener and the sweeper, and waits for statements
// still running in the background (at most about ten seconds). Calls
// still registered keep their rows until released or expired.
func (s *State) Close() error {
	s.closeOnce.Do(func() {
		s.stop()
		<-s.done
	})
	s.bg.Wait()
	return nil
}

// statement is a database statement running with a context of its own,
// so that it completes even when the request stops waiting for it.
type statement struct {
	done chan struct{} // closed when err and the statement's results are set
	err  error
}

// start runs f in the background with ctx's values but not its
// cancellation, for at most backgroundTimeout.
func (s *State) start(ctx context.Context, f func(context.Context) error) *statement {
	st := &statement{done: make(chan struct{})}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backgroundTimeout)
		defer cancel()
		st.err = f(bctx)
		close(st.done)
	}()
	return st
}

// errSlow is a statement that did not answer within the request's wait.
var errSlow = errors.New("the database did not answer in time")

// await waits for st at most s.wait: its error, or errSlow. Results f
// stored may be read only when await returned anything but errSlow.
func (s *State) await(st *statement) error {
	select {
	case <-st.done:
		return st.err
	default:
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case <-st.done:
		return st.err
	case <-t.C:
		return errSlow
	}
}

func (s *State) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, err
	}
	for _, ch := range []string{savedChannel, channel} {
		if _, err := conn.Exec(ctx, "LISTEN "+ch); err != nil {
			conn.Close(ctx)
			return nil, err
		}
	}
	return conn, nil
}

// run delivers notifications to the calls running here and to the
// watchers of saved functions, reconnects the listener when its
// connection breaks (then tells the watchers that changes may have been
// missed), and sweeps the tables.
func (s *State) run(ctx context.Context, conn *pgx.Conn) {
	defer close(s.done)
	sweeps := time.NewTicker(sweepEvery)
	defer sweeps.Stop()
	notes := make(chan *pgconn.Notification)
	broken := make(chan struct{}, 1)
	wait := func(conn *pgx.Conn) {
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				conn.Close(cctx)
				cancel()
				if ctx.Err() == nil {
					s.logger.Error("pgstate: listener lost its connection; reconnecting", "err", err)
				}
				broken <- struct{}{}
				return
			}
			select {
			case notes <- n:
			case <-ctx.Done():
			}
		}
	}
	go wait(conn)
	retry := time.NewTimer(time.Hour)
	retry.Stop()   // armed when the listener breaks
	listening := 1 // goroutines in wait
	for {
		select {
		case <-ctx.Done():
			for ; listening > 0; listening-- {
				<-broken
			}
			return
		case n := <-notes:
			if n.Channel == savedChannel {
				s.savedChanged(n.Payload)
			} else {
				s.deliver(n.Payload)
			}
		case <-broken:
			listening--
			retry.Reset(time.Second)
		case <-retry.C:
			c, err := s.listen(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.logger.Error("pgstate: cannot reconnect the listener", "err", err)
					retry.Reset(5 * time.Second)
				}
				continue
			}
			listening++
			go wait(c)
			// Changes committed while no connection listened reached
			// nobody here: every principal reads theirs again.
			s.reportSaved("", true)
		case <-sweeps.C:
			s.sweep(ctx)
		}
	}
}

func (s *State) deliver(token string) {
	s.mu.Lock()
	cancel := s.calls[token]
	delete(s.calls, token)
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (s *State) sweep(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := s.pool.Exec(ctx, "DELETE FROM codemode_calls WHERE expires < now()"); err != nil && ctx.Err() == nil {
		s.logger.Warn("pgstate: sweeping expired calls", "err", err)
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM codemode_approvals WHERE expires < now()"); err != nil && ctx.Err() == nil {
		s.logger.Warn("pgstate: sweeping spent approvals", "err", err)
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM codemode_pending WHERE expires < now() - make_interval(secs => $1)", state.PendingApprovalRetention.Seconds()); err != nil && ctx.Err() == nil {
		s.logger.Warn("pgstate: sweeping pending approvals", "err", err)
	}
	s.mu.Lock()
	limiters := append([]*Limiter(nil), s.limiters...)
	s.mu.Unlock()
	for _, l := range limiters {
		// A bucket that has refilled is the same as no bucket.
		if _, err := s.pool.Exec(ctx, `DELETE FROM codemode_buckets
			WHERE name = $1 AND tokens + $2 * EXTRACT(EPOCH FROM now() - updated)::float8 >= $3`,
			l.name, l.rate, float64(l.burst)); err != nil && ctx.Err() == nil {
			s.logger.Warn("pgstate: sweeping full buckets", "limiter", l.name, "err", err)
		}
	}
}
