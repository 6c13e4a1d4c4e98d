package authserver

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
)

// Sign-in state (pending requests, browser sessions, authorization codes)
// lives in the database rather than in memory, so that replicas sharing
// one database share it: a browser's sign-in post, its consent and the
// client's code exchange may each reach a different replica. Identifiers
// and codes are stored as SHA-256 hashes, so the tables hold nothing a
// reader could replay. Expiry times are unix milliseconds of s.now().

// storedPending is a pendingRequest as stored.
type storedPending struct {
	Client      client   `json:"client"`
	RedirectURI string   `json:"redirect_uri"`
	State       string   `json:"state"`
	Challenge   string   `json:"challenge"`
	Resource    string   `json:"resource"`
	Scopes      []string `json:"scopes"`
	Browser     string   `json:"browser"`
}

// storedCode is an authCode's grant as stored.
type storedCode struct {
	ClientID    string   `json:"client_id"`
	RedirectURI string   `json:"redirect_uri"`
	Challenge   string   `json:"challenge"`
	Resource    string   `json:"resource"`
	Scopes      []string `json:"scopes"`
}

func ms(t time.Time) int64 { return t.UnixMilli() }

// putPending stores a validated request. Opening requests is free for
// anyone (registration is open), so a full table never refuses a new one,
// which would lock every user out for the requests' lifetime; and a flood
// must not evict other people's requests either. So one source keeps at
// most maxPendingPerSource requests (its oldest goes), and a full table
// drops expired requests, then the oldest request of the source holding
// the most. The bounds hold across replicas: they count the shared table.
func (s *Server) putPending(ctx context.Context, p *pendingRequest) (string, bool) {
	body, err := json.Marshal(storedPending{
		Client: *p.client, RedirectURI: p.redirectURI, State: p.state, Challenge: p.challenge,
		Resource: p.resource, Scopes: p.scopes, Browser: p.browser,
	})
	if err != nil {
		s.log.Error("authserver: store pending request", "err", err)
		return "", false
	}
	id := rand.Text()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		const dropOldest = `DELETE FROM authserver_pending WHERE id_hash IN
			(SELECT id_hash FROM authserver_pending WHERE source = ? ORDER BY expires_at LIMIT ?)`
		if _, err := tx.ExecContext(ctx, `DELETE FROM authserver_pending WHERE expires_at <= ?`, ms(s.now())); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM authserver_pending WHERE source = ?`, p.source).Scan(&n); err != nil {
			return err
		}
		if n >= maxPendingPerSource {
			if _, err := tx.ExecContext(ctx, dropOldest, p.source, n-maxPendingPerSource+1); err != nil {
				return err
			}
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM authserver_pending`).Scan(&n); err != nil {
			return err
		}
		if n >= maxStored {
			var top string
			if err := tx.QueryRowContext(ctx, `SELECT source FROM authserver_pending GROUP BY source ORDER BY count(*) DESC LIMIT 1`).Scan(&top); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, dropOldest, top, n-maxStored+1); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO authserver_pending (id_hash, body, source, failures, expires_at) VALUES (?, ?, ?, ?, ?)`,
			hashToken(id), string(body), p.source, p.failures, ms(p.expires))
		return err
	})
	if err != nil {
		s.log.Error("authserver: store pending request", "err", err)
		return "", false
	}
	return id, true
}

// inTx runs fn in a transaction, committed if it returns nil.
func (s *Server) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// getPending returns a live pending request, or nil.
func (s *Server) getPending(ctx context.Context, id string) *pendingRequest {
	if id == "" {
		return nil
	}
	row := s.db.QueryRowContext(ctx, `SELECT body, source, failures, expires_at FROM authserver_pending WHERE id_hash = ? AND expires_at > ?`,
		hashToken(id), ms(s.now()))
	return s.scanPending(row)
}

// takePending removes and returns a live pending request, so consent is
// given once: of two concurrent submissions, on any replicas, one wins.
func (s *Server) takePending(ctx context.Context, id string) *pendingRequest {
	if id == "" {
		return nil
	}
	row := s.db.QueryRowContext(ctx, `DELETE FROM authserver_pending WHERE id_hash = ? AND expires_at > ? RETURNING body, source, failures, expires_at`,
		hashToken(id), ms(s.now()))
	return s.scanPending(row)
}

func (s *Server) scanPending(row *sql.Row) *pendingRequest {
	var (
		body, source string
		failures     int
		expires      int64
	)
	if err := row.Scan(&body, &source, &failures, &expires); err != nil {
		if !errors.Is(err, sql.ErrNoRows) {
			s.log.Error("authserver: read pending request", "err", err)
		}
		return nil
	}
	var sp storedPending
	if err := json.Unmarshal([]byte(body), &sp); err != nil {
		s.log.Error("authserver: read pending request", "err", err)
		return nil
	}
	c := sp.Client
	return &pendingRequest{
		client: &c, redirectURI: sp.RedirectURI, state: sp.State, challenge: sp.Challenge,
		resource: sp.Resource, scopes: sp.Scopes, browser: sp.Browser, source: source,
		expires: time.UnixMilli(expires), failures: failures,
	}
}

// countFailure records a wrong password and drops the request at the
// limit. The count is kept in the database, so spreading guesses over
// replicas gains nothing.
func (s *Server) countFailure(ctx context.Context, id string, p *pendingRequest) (dropped bool) {
	h := hashToken(id)
	err := s.db.QueryRowContext(ctx, `UPDATE authserver_pending SET failures = failures + 1 WHERE id_hash = ? RETURNING failures`, h).Scan(&p.failures)
	if errors.Is(err, sql.ErrNoRows) {
		return true // already gone
	}
	if err != nil {
		s.log.Error("authserver: count sign-in failure", "err", err)
		p.failures++
	}
	if p.failures >= maxSignInFailures {
		if _, err := s.db.ExecContext(ctx, `DELETE FROM authserver_pending WHERE id_hash = ?`, h); err != nil {
			s.log.Error("authserver: drop pending request", "err", err)
		}
		return true
	}
	return false
}

// putSession stores a signed-in browser. One user keeps at most
// maxPerSubject sessions (their oldest goes), and a full table drops its
// oldest session: demo passwords are public, so refusing new sessions when
// full would let anyone lock every user out for the sessions' lifetime.
func (s *Server) putSession(ctx context.Context, sess *session) (string, bool) {
	id := rand.Text() + rand.Text()
	err := s.putBounded(ctx, "authserver_sessions", "id_hash", sess.subject, ms(s.now()),
		`INSERT INTO authserver_sessions (id_hash, subject, name, expires_at) VALUES (?, ?, ?, ?)`,
		hashToken(id), sess.subject, sess.name, ms(sess.expires))
	if err != nil {
		s.log.Error("authserver: store session", "err", err)
		return "", false
	}
	return id, true
}

// sessionFrom returns the live session named by r's session cookie.
func (s *Server) sessionFrom(r *http.Request) (string, *session) {
	c, err := r.Cookie(sessionCookieName)
	if err != nil || c.Value == "" {
		return "", nil
	}
	var (
		sess    session
		expires int64
	)
	err = s.db.QueryRowContext(r.Context(), `SELECT subject, name, expires_at FROM authserver_sessions WHERE id_hash = ? AND expires_at > ?`,
		hashToken(c.Value), ms(s.now())).Scan(&sess.subject, &sess.name, &expires)
	if err != nil {
		if !errors.Is(err, sql.ErrNoRows) {
			s.log.Error("authserver: read session", "err", err)
		}
		return "", nil
	}
	sess.expires = time.UnixMilli(expires)
	return c.Value, &sess
}

// codeRetention keeps used codes past expiry so late replays are still recognised.
const codeRetention = 10 * time.Minute

// putCode stores an issued code. Like sessions, one user keeps at most
// maxPerSubject codes (their oldest goes) and a full table drops its
// oldest, after codes past their replay-detection retention.
func (s *Server) putCode(ctx context.Context, code string, c *authCode) bool {
	body, err := json.Marshal(storedCode{ClientID: c.clientID, RedirectURI: c.redirectURI, Challenge: c.challenge, Resource: c.resource, Scopes: c.scopes})
	if err == nil {
		err = s.putBounded(ctx, "authserver_codes", "code_hash", c.subject, ms(s.now().Add(-codeRetention)),
			`INSERT INTO authserver_codes (code_hash, body, subject, expires_at) VALUES (?, ?, ?, ?)`,
			hashToken(code), string(body), c.subject, ms(c.expires))
	}
	if err != nil {
		s.log.Error("authserver: store authorization code", "err", err)
		return false
	}
	return true
}

// claimCode marks a code used and returns it; replayed is true when it
// had been used before (on any replica). A nil code means unknown.
func (s *Server) claimCode(ctx context.Context, code string) (ac *authCode, replayed bool, err error) {
	var (
		body    string
		expires int64
		uses    int
	)
	ac = &authCode{}
	err = s.db.QueryRowContext(ctx, `UPDATE authserver_codes SET uses = uses + 1 WHERE code_hash = ?
		RETURNING body, subject, expires_at, uses, family_id`, hashToken(code)).Scan(&body, &ac.subject, &expires, &uses, &ac.familyID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var sc storedCode
	if err := json.Unmarshal([]byte(body), &sc); err != nil {
		return nil, false, err
	}
	ac.clientID, ac.redirectURI, ac.challenge, ac.resource, ac.scopes = sc.ClientID, sc.RedirectURI, sc.Challenge, sc.Resource, sc.Scopes
	ac.expires, ac.used = time.UnixMilli(expires), true
	return ac, uses > 1, nil
}

// setCodeFamily records the refresh-token family a code's exchange
// produced, which a replay of the code revokes.
func (s *Server) setCodeFamily(ctx context.Context, code, familyID string) {
	if _, err := s.db.ExecContext(ctx, `UPDATE authserver_codes SET family_id = ? WHERE code_hash = ?`, familyID, hashToken(code)); err != nil {
		s.log.Error("authserver: record code's refresh family", "err", err)
	}
}

// putBounded runs insert in a transaction after dropping table's rows
// that expired before staleBefore. A subject keeps at most maxPerSubject
// rows (their oldest go) and the table at most maxStored (the oldest go)
// rather than refusing: refusing would let anyone who can sign in lock
// every user out.
func (s *Server) putBounded(ctx context.Context, table, key, subject string, staleBefore int64, insert string, args ...any) error {
	dropOldest := func(tx *sql.Tx, where string, n int, args ...any) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE `+key+` IN (SELECT `+key+` FROM `+table+where+` ORDER BY expires_at LIMIT ?)`,
			append(args, n)...)
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE expires_at <= ?`, staleBefore); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE subject = ?`, subject).Scan(&n); err != nil {
			return err
		}
		if n >= maxPerSubject {
			if err := dropOldest(tx, ` WHERE subject = ?`, n-maxPerSubject+1, subject); err != nil {
				return err
			}
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			return err
		}
		if n >= maxStored {
			if err := dropOldest(tx, ``, n-maxStored+1); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, insert, args...)
		return err
	})
}

// loadSecret returns the server-wide secret called name, creating a random
// 32-byte one on first use. Replicas on one database share it.
func loadSecret(ctx context.Context, db *sql.DB, name string) ([]byte, error) {
	var v []byte
	err := sqldb.LockedTx(ctx, db, migrationLock, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT value FROM authserver_secrets WHERE name = ?`, name).Scan(&v)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		v = make([]byte, 32)
		rand.Read(v)
		_, err = tx.ExecContext(ctx, `INSERT INTO authserver_secrets (name, value) VALUES (?, ?)`, name, v)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("authserver: secret %s: %w", name, err)
	}
	return v, nil
}
