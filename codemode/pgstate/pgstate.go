// Package pgstate keeps the HTTP state a codemode server shares between
// replicas in PostgreSQL: the per-principal rate limit, the per-address
// failed-authentication limit, the registry through which a
// notifications/cancelled POST reaches a stateless tools/call running on
// another replica (LISTEN/NOTIFY), and the replay cache that spends each
// approval once. Any host with a PostgreSQL database can
// use it:
//
//	st, err := pgstate.New(ctx, pool, nil)
//	...
//	defer st.Close()
//	opts := &codemode.Options{
//		RateLimiter:    st.Limiter("executions", codemode.DefaultRatePerSec, codemode.DefaultRateBurst),
//		FailureLimiter: st.Limiter("auth-failures", codemode.DefaultAuthFailuresPerSec, codemode.DefaultAuthFailureBurst),
//		Cancellations:  st.Cancellations(),
//		Approvals: codemode.ApprovalOptions{Key: key, Spent: st.SpentApprovals(),
//			Page: &codemode.ApprovalPage{URL: url, Authenticate: auth, Store: st.PendingApprovals()}},
//	}
//
// New creates four tables in the pool's default schema if they do not
// exist, codemode_buckets, codemode_calls, codemode_approvals and
// codemode_pending; every replica uses the same database. A limiter's buckets and the database clock are shared, so the
// budget holds whichever replica a request lands on.
//
// When the database cannot be reached, a limiter falls back to an
// in-process bucket with the same settings (each replica then grants its
// own budget until the database is back) rather than refusing every
// request, and logs the error. A call registered then runs without
// cancellation by notification, and a cancellation sent then is lost;
// both are logged. The listener reconnects by itself. The approval page's
// store, [State.PendingApprovals], has no fallback: without the database
// an approval is neither stored nor read.
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
// [codemode.RateLimiter], [codemode.FailureLimiter],
// [codemode.Cancellations], [codemode.SpentApprovals] and
// [codemode.PendingApprovals].
package pgstate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/httpmw"
)

// DefaultCallTTL is how long a registered call counts as in flight when
// the replica running it dies without releasing it.
const DefaultCallTTL = 15 * time.Minute

// channel is the LISTEN/NOTIFY channel cancellations travel on.
const channel = "codemode_cancel"

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
}

// State is codemode's shared state in one PostgreSQL database. It is safe
// for concurrent use.
type State struct {
	pool   *pgxpool.Pool
	logger *slog.Logger
	ttl    time.Duration
	wait   time.Duration // Options.MaxWait

	mu       sync.Mutex
	calls    map[string]func() // token → cancel, for calls running here
	limiters []*Limiter

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
`

// migrationLock serialises New's CREATE statements between replicas that
// start at once (CREATE ... IF NOT EXISTS is not safe under concurrency).
const migrationLock = 0x636f64656d6f6465 // "codemode"

// New creates the tables if needed, starts listening for cancellations
// and returns the state. It returns once the listener is connected, so a
// cancellation sent after New returns is not missed. Close stops it; the
// pool stays the caller's.
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
		return nil, fmt.Errorf("pgstate: listening for cancellations: %w", err)
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
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return conn, nil
}

// run delivers notifications to the calls running here, reconnects the
// listener when its connection breaks, and sweeps the tables.
func (s *State) run(ctx context.Context, conn *pgx.Conn) {
	defer close(s.done)
	sweeps := time.NewTicker(sweepEvery)
	defer sweeps.Stop()
	notes := make(chan string)
	broken := make(chan struct{}, 1)
	wait := func(conn *pgx.Conn) {
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				conn.Close(cctx)
				cancel()
				if ctx.Err() == nil {
					s.logger.Error("pgstate: cancellation listener lost its connection; reconnecting", "err", err)
				}
				broken <- struct{}{}
				return
			}
			select {
			case notes <- n.Payload:
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
		case token := <-notes:
			s.deliver(token)
		case <-broken:
			listening--
			retry.Reset(time.Second)
		case <-retry.C:
			c, err := s.listen(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.logger.Error("pgstate: cannot reconnect the cancellation listener", "err", err)
					retry.Reset(5 * time.Second)
				}
				continue
			}
			listening++
			go wait(c)
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
	if _, err := s.pool.Exec(ctx, "DELETE FROM codemode_pending WHERE expires < now() - make_interval(secs => $1)", codemode.PendingApprovalRetention.Seconds()); err != nil && ctx.Err() == nil {
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

// Cancellations returns the shared cancellation registry, a
// [codemode.Cancellations] for [codemode.SharedState.Cancellations].
func (s *State) Cancellations() *Cancellations { return &Cancellations{s} }

// Cancellations delivers a notifications/cancelled POST to the replica
// that runs the call it names. Each call in flight is a row (principal
// key, request id, a random token); a cancellation that matches exactly
// one row sends its token with NOTIFY, and the replica holding the token
// cancels the call. Delivery is asynchronous: the call's context ends
// shortly after the notification's POST is answered.
type Cancellations struct{ s *State }

var _ codemode.Cancellations = (*Cancellations)(nil)

// Register records the call in the database and here; release deletes it.
func (c *Cancellations) Register(ctx context.Context, key, id string, cancel func()) (func(), error) {
	s := c.s
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	var once sync.Once
	s.mu.Lock()
	s.calls[token] = func() { once.Do(cancel) }
	s.mu.Unlock()
	forget := func() {
		s.mu.Lock()
		delete(s.calls, token)
		s.mu.Unlock()
	}
	inserted := s.start(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, "INSERT INTO codemode_calls (token, key, id, expires) VALUES ($1, $2, $3, now() + make_interval(secs => $4))",
			token, key, id, s.ttl.Seconds())
		return err
	})
	err := s.await(inserted)
	if err != nil && err != errSlow {
		forget()
		return nil, fmt.Errorf("pgstate: registering a call: %w", err)
	}
	// errSlow: the call runs while its row is being stored; a
	// cancellation sent before the row is there cancels nothing.
	return func() {
		forget()
		// The row stays, marked ended, for endedCallMemory: a late
		// cancellation for this call must not stop another session's call
		// with the same id. Marked in the background, after the row is
		// stored, so the answer does not wait for the database.
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			<-inserted.done
			if inserted.err != nil {
				s.logger.Warn("pgstate: registering a call", "err", inserted.err)
				return
			}
			s.ended(ctx, token)
		}()
	}, nil
}

// ended marks the call token as ended.
func (s *State) ended(ctx context.Context, token string) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backgroundTimeout)
	defer cancel()
	if _, err := s.pool.Exec(dctx, "UPDATE codemode_calls SET ended = true, expires = now() + make_interval(secs => $2) WHERE token = $1",
		token, endedCallMemory.Seconds()); err != nil {
		s.logger.Warn("pgstate: releasing a call; its row expires on its own", "err", err)
	}
}

// endedCallMemory is how long an ended call's row is kept: the same
// memory as the in-process registry's.
const endedCallMemory = httpmw.EndedCallMemory

// Cancel notifies the replica running the call id of key, if exactly one
// live call matches and no call of key with that id ended within the last
// minute (the cancellation may be a late one for it).
func (c *Cancellations) Cancel(ctx context.Context, key, id string) error {
	_, err := c.s.pool.Exec(ctx, `SELECT pg_notify($3, min(token)) FROM codemode_calls
		WHERE key = $1 AND id = $2 AND expires > now() HAVING count(*) = 1 AND NOT bool_or(ended)`, key, id, channel)
	if err != nil {
		return fmt.Errorf("pgstate: sending a cancellation: %w", err)
	}
	return nil
}

// SpentApprovals returns the shared replay cache that spends each approval
// once across replicas, a [codemode.SpentApprovals] for
// [codemode.ApprovalOptions.Spent].
func (s *State) SpentApprovals() *SpentApprovals { return &SpentApprovals{s} }

// SpentApprovals keeps one row per approval used (table
// codemode_approvals) until the approval expires: the first replica to
// insert the row runs the execution, and stores its outcome for a client
// that retries the same request after a lost response. Unlike a limiter
// it has no in-process fallback: when the database cannot be reached an
// approval is refused rather than possibly spent twice.
type SpentApprovals struct{ s *State }

var _ codemode.SpentApprovals = (*SpentApprovals)(nil)

// Spend implements [codemode.SpentApprovals].
func (a *SpentApprovals) Spend(ctx context.Context, id, request string, expires time.Time) (bool, []byte, error) {
	// An expired row may still be there (the sweep runs every minute):
	// the insert takes it over.
	tag, err := a.s.pool.Exec(ctx, `INSERT INTO codemode_approvals (id, request, expires) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET request = EXCLUDED.request, outcome = NULL, expires = EXCLUDED.expires
		WHERE codemode_approvals.expires < now()`, id, request, expires)
	if err != nil {
		return false, nil, fmt.Errorf("pgstate: spending an approval: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return true, nil, nil
	}
	var outcome []byte
	err = a.s.pool.QueryRow(ctx, "SELECT outcome FROM codemode_approvals WHERE id = $1 AND request = $2", id, request).Scan(&outcome)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("pgstate: reading a spent approval: %w", err)
	}
	return false, outcome, nil
}

// Settle implements [codemode.SpentApprovals].
func (a *SpentApprovals) Settle(ctx context.Context, id string, outcome []byte) error {
	// The request may be over: store with a context of its own.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := a.s.pool.Exec(dctx, "UPDATE codemode_approvals SET outcome = $2 WHERE id = $1", id, outcome); err != nil {
		return fmt.Errorf("pgstate: storing an approval's outcome: %w", err)
	}
	return nil
}

// PendingApprovals returns the shared store of the approval page, a
// [codemode.PendingApprovals] for [codemode.ApprovalPage.Store].
func (s *State) PendingApprovals() *PendingApprovals { return &PendingApprovals{s} }

// PendingApprovals keeps the approvals of the approval page, one row each
// (table codemode_pending) until PendingApprovalRetention after they
// expire, so that any replica serves the page and the re-run. Like
// SpentApprovals it has no in-process fallback.
type PendingApprovals struct{ s *State }

var _ codemode.PendingApprovals = (*PendingApprovals)(nil)

// Put implements [codemode.PendingApprovals].
func (a *PendingApprovals) Put(ctx context.Context, p codemode.PendingApproval) error {
	if _, err := a.s.pool.Exec(ctx, `INSERT INTO codemode_pending (id, match, subject, created, expires, answer, state)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, p.ID, p.Match, p.Subject, p.Created, p.Expires, p.Answer, p.State); err != nil {
		return fmt.Errorf("pgstate: storing a pending approval: %w", err)
	}
	return nil
}

const pendingColumns = `id, match, subject, created, expires, answer, state`

func scanPending(row pgx.Row) (*codemode.PendingApproval, error) {
	var p codemode.PendingApproval
	err := row.Scan(&p.ID, &p.Match, &p.Subject, &p.Created, &p.Expires, &p.Answer, &p.State)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pgstate: reading a pending approval: %w", err)
	}
	return &p, nil
}

// Get implements [codemode.PendingApprovals].
func (a *PendingApprovals) Get(ctx context.Context, id string) (*codemode.PendingApproval, error) {
	return scanPending(a.s.pool.QueryRow(ctx, `SELECT `+pendingColumns+` FROM codemode_pending WHERE id = $1`, id))
}

// Latest implements [codemode.PendingApprovals].
func (a *PendingApprovals) Latest(ctx context.Context, match string) (*codemode.PendingApproval, error) {
	return scanPending(a.s.pool.QueryRow(ctx, `SELECT `+pendingColumns+` FROM codemode_pending WHERE match = $1 ORDER BY created DESC LIMIT 1`, match))
}

// Answer implements [codemode.PendingApprovals]: the first answer wins,
// whichever replica it reaches.
func (a *PendingApprovals) Answer(ctx context.Context, id, answer string, now time.Time) (bool, error) {
	tag, err := a.s.pool.Exec(ctx, `UPDATE codemode_pending SET answer = $2 WHERE id = $1 AND answer = '' AND expires > $3`, id, answer, now)
	if err != nil {
		return false, fmt.Errorf("pgstate: storing an approval's answer: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// Limiter returns the token-bucket limiter called name (one set of
// buckets per name, shared by every replica using that name): each key
// gets perSecond tokens per second up to burst. It implements both
// [codemode.RateLimiter] and [codemode.FailureLimiter]. Use one name per
// purpose, with the same settings on every replica.
func (s *State) Limiter(name string, perSecond float64, burst int) *Limiter {
	burst = max(burst, 1)
	l := &Limiter{s: s, name: name, rate: perSecond, burst: burst, local: httpmw.NewRateLimiter(perSecond, burst)}
	s.mu.Lock()
	s.limiters = append(s.limiters, l)
	s.mu.Unlock()
	return l
}

// Limiter is a token bucket per key kept in the codemode_buckets table;
// refill is computed from the database clock, so replicas' clocks do not
// matter. It never returns an error: while the database cannot be
// reached, it logs and limits with an in-process bucket of the same
// settings.
type Limiter struct {
	s     *State
	name  string
	rate  float64
	burst int
	local *httpmw.RateLimiter

	logMu   sync.Mutex
	lastLog time.Time
}

var (
	_ codemode.RateLimiter    = (*Limiter)(nil)
	_ codemode.FailureLimiter = (*Limiter)(nil)
)

// available is the tokens in bucket b now, refilled since its update.
const available = `LEAST($4::float8, b.tokens + $3::float8 * EXTRACT(EPOCH FROM now() - b.updated)::float8)`

// Take takes n tokens from key's bucket, or none.
func (l *Limiter) Take(ctx context.Context, key string, n int) (time.Duration, error) {
	n = max(n, 1)
	if n > l.burst {
		return l.local.ReserveN(key, n), nil // never fits: no need to ask
	}
	var wait time.Duration
	st := l.s.start(ctx, func(ctx context.Context) error {
		var tokens float64
		err := l.s.pool.QueryRow(ctx, `INSERT INTO codemode_buckets AS b (name, key, tokens, updated)
			VALUES ($1, $2, $4::float8 - $5::float8, now())
			ON CONFLICT (name, key) DO UPDATE SET tokens = `+available+` - $5::float8, updated = now()
			WHERE `+available+` >= $5::float8
			RETURNING tokens`, l.name, key, l.rate, float64(l.burst), float64(n)).Scan(&tokens)
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// Refused: the bucket is unchanged. Say how long until n tokens.
		var avail float64
		err = l.s.pool.QueryRow(ctx, `SELECT `+available+` FROM codemode_buckets b WHERE name = $1 AND key = $2`,
			l.name, key, l.rate, float64(l.burst)).Scan(&avail)
		switch {
		case err == nil:
			wait = l.wait(float64(n) - avail)
		case errors.Is(err, pgx.ErrNoRows): // swept in between
			wait, err = time.Second, nil
		}
		return err
	})
	if err := l.s.await(st); err != nil {
		// Slow or unreachable: decide here. A slow statement still takes
		// its tokens from the shared bucket when it completes.
		l.fallback(err)
		return l.local.ReserveN(key, n), nil
	}
	return wait, nil
}

// Blocked reports how long key must wait for one token (0: it has one).
func (l *Limiter) Blocked(ctx context.Context, key string) (time.Duration, error) {
	var wait time.Duration
	st := l.s.start(ctx, func(ctx context.Context) error {
		var avail float64
		err := l.s.pool.QueryRow(ctx, `SELECT `+available+` FROM codemode_buckets b WHERE name = $1 AND key = $2`,
			l.name, key, l.rate, float64(l.burst)).Scan(&avail)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return nil
		case err == nil && avail < 1:
			wait = l.wait(1 - avail)
		}
		return err
	})
	if err := l.s.await(st); err != nil {
		l.fallback(err)
		return l.local.Peek(key), nil
	}
	return wait, nil
}

// Failed takes one token from key's bucket even when none is left, so
// that failures which happened at once all count.
func (l *Limiter) Failed(ctx context.Context, key string) error {
	_, err := l.s.pool.Exec(ctx, `INSERT INTO codemode_buckets AS b (name, key, tokens, updated)
		VALUES ($1, $2, $4::float8 - 1, now())
		ON CONFLICT (name, key) DO UPDATE SET tokens = `+available+` - 1, updated = now()`,
		l.name, key, l.rate, float64(l.burst))
	if err != nil {
		l.fallback(err)
		l.local.Charge(key)
	}
	return nil
}

// Clear fills key's bucket again, as when a success clears a count of
// failures (a password throttle forgets a source's guesses at an account
// once it signs in).
func (l *Limiter) Clear(ctx context.Context, key string) error {
	l.local.Forget(key)
	if _, err := l.s.pool.Exec(ctx, `DELETE FROM codemode_buckets WHERE name = $1 AND key = $2`, l.name, key); err != nil {
		l.fallback(err)
	}
	return nil
}

// wait is how long refilling missing tokens takes.
func (l *Limiter) wait(missing float64) time.Duration {
	if l.rate <= 0 {
		return 10 * time.Minute
	}
	return max(time.Duration(missing/l.rate*float64(time.Second)), time.Millisecond)
}

// fallback logs a database error or a slow answer, at most once a
// minute per limiter.
func (l *Limiter) fallback(err error) {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	if time.Since(l.lastLog) < time.Minute {
		return
	}
	l.lastLog = time.Now()
	if err == errSlow {
		l.s.logger.Warn("pgstate: the limiter's database answers slowly; limiting per process while it does", "limiter", l.name, "wait", l.s.wait)
		return
	}
	l.s.logger.Error("pgstate: limiter cannot reach the database; limiting per process until it can", "limiter", l.name, "err", err)
}
