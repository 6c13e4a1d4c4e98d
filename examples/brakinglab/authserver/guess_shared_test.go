package authserver

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb/sqldbtest"
)

// sharedGuesses returns a GuessLimiter on its own connection to the
// PostgreSQL database at dsn, as one replica would have.
func sharedGuesses(t *testing.T, dsn string) func(string, float64, int) GuessLimiter {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st, err := pgstate.New(context.Background(), pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return func(name string, perSecond float64, burst int) GuessLimiter {
		return st.Limiter(name, perSecond, burst)
	}
}

// twoReplicas starts a second Server on e's database and serves both
// behind a round-robin front; guesses configures each replica's
// GuessLimiter (nil: per process).
func twoReplicas(t *testing.T, guesses func() func(string, float64, int) GuessLimiter) *env {
	t.Helper()
	var first func(string, float64, int) GuessLimiter
	if guesses != nil {
		first = guesses()
	}
	e := newEnv(t, &Options{GuessLimiter: first})
	o := &Options{Issuer: e.URL(), Resource: e.Resource(), Now: e.clock.Now}
	if guesses != nil {
		o.GuessLimiter = guesses()
	}
	b, err := New(openDB(t, e.dbPath), demoUsers, o)
	if err != nil {
		t.Fatal(err)
	}
	replicas := []*Server{e.srv, b}
	var next atomic.Int64
	e.setHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		replicas[next.Add(1)%2].ServeHTTP(w, r)
	}))
	return e
}

// TestPasswordThrottleSharedByReplicas: with two replicas behind a
// round-robin proxy, each sees half of an attacker's guesses. Per process
// the attacker gets twice the guesses; with the throttle in PostgreSQL
// (codemode/pgstate, as BrakingLab configures it) the source is refused
// after maxSourceAccountFailures in all, while the owner still signs in
// from elsewhere.
func TestPasswordThrottleSharedByReplicas(t *testing.T) {
	server := sqldbtest.Server(t)
	const cb = "https://app.example.com/callback"
	guess := func(e *env) page {
		clientID := e.mustRegister("App", cb)
		attacker := browserFrom("127.0.0.2")
		for range maxSourceAccountFailures / maxSignInFailures {
			e.wrongPasswords(attacker, clientID, cb, "demo", maxSignInFailures)
		}
		return e.trySignIn(attacker, clientID, cb, "demo", "demo-pass")
	}

	t.Run("per process", func(t *testing.T) {
		e := twoReplicas(t, nil)
		if p := guess(e); p.Status != http.StatusSeeOther {
			t.Fatalf("per process, after %d guesses split over two replicas: status %d, want the sign-in to pass (each replica saw half)", maxSourceAccountFailures, p.Status)
		}
	})
	t.Run("shared", func(t *testing.T) {
		dsn := sqldbtest.DSNOn(t, server)
		e := twoReplicas(t, func() func(string, float64, int) GuessLimiter { return sharedGuesses(t, dsn) })
		if p := guess(e); p.Status != http.StatusTooManyRequests {
			t.Fatalf("shared, after %d guesses split over two replicas: status %d, want 429: %.300s", maxSourceAccountFailures, p.Status, p.Body)
		}
		clientID := e.mustRegister("Owner's app", cb)
		e.signIn(browserFrom("127.0.0.1"), e.authParams(clientID, cb, newPKCE()), "demo", "demo-pass")
	})
}

// failingGuesses is a shared throttle whose store is down.
type failingGuesses struct{ calls atomic.Int64 }

func (f *failingGuesses) Blocked(context.Context, string) (time.Duration, error) {
	f.calls.Add(1)
	return 0, errors.New("database down")
}
func (f *failingGuesses) Failed(context.Context, string) error {
	f.calls.Add(1)
	return errors.New("database down")
}
func (f *failingGuesses) Clear(context.Context, string) error { return errors.New("database down") }

// TestPasswordThrottleFallsBackToProcess: while the shared throttle
// fails, this process's count still stops a guessing source.
func TestPasswordThrottleFallsBackToProcess(t *testing.T) {
	down := &failingGuesses{}
	e := newEnv(t, &Options{GuessLimiter: func(string, float64, int) GuessLimiter { return down }})
	const cb = "https://app.example.com/callback"
	clientID := e.mustRegister("App", cb)
	attacker := browserFrom("127.0.0.2")
	for range maxSourceAccountFailures / maxSignInFailures {
		e.wrongPasswords(attacker, clientID, cb, "demo", maxSignInFailures)
	}
	if p := e.trySignIn(attacker, clientID, cb, "demo", "demo-pass"); p.Status != http.StatusTooManyRequests {
		t.Fatalf("with the shared throttle down: status %d, want 429", p.Status)
	}
	if down.calls.Load() == 0 {
		t.Fatal("the shared throttle was never asked")
	}
}
