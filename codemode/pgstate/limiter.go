package pgstate

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/httpmw"
)

// Token buckets in the codemode_buckets table: the execution, request
// and failed-authentication limits shared by replicas.

// Limiter returns the token-bucket limiter called name (one set of
// buckets per name, shared by every replica using that name): each key
// gets perSecond tokens per second up to burst. It implements both
// [state.RateLimiter] and [state.FailureLimiter]. Use one name per
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
	_ state.RateLimiter    = (*Limiter)(nil)
	_ state.FailureLimiter = (*Limiter)(nil)
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
