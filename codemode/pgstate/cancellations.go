package pgstate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/httpmw"
)

// The shared cancellation registry: calls in flight, and notifications
// that reach the replica running the call.

// Cancellations returns the shared cancellation registry, a
// [state.Cancellations] for [codemode.SharedState.Cancellations].
func (s *State) Cancellations() *Cancellations { return &Cancellations{s} }

// Cancellations delivers a notifications/cancelled POST to the replica
// that runs the call it names. Each call in flight is a row (principal
// key, request id, a random token); a cancellation that matches exactly
// one row sends its token with NOTIFY, and the replica holding the token
// cancels the call. Delivery is asynchronous: the call's context ends
// shortly after the notification's POST is answered.
type Cancellations struct{ s *State }

var _ state.Cancellations = (*Cancellations)(nil)

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
