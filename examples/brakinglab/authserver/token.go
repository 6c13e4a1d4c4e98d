package authserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// tokenResponse is the RFC 6749 §5.1 success response.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
}

func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		writeTokenError(w, r, errInvalidRequest("body must be application/x-www-form-urlencoded and at most 16 KiB"))
		return
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			writeTokenError(w, r, errInvalidRequest(k+" appears more than once"))
			return
		}
	}
	var (
		resp *tokenResponse
		oerr *oauthError
	)
	switch gt := r.PostForm.Get("grant_type"); gt {
	case "authorization_code":
		resp, oerr = s.exchangeCode(r)
	case "refresh_token":
		resp, oerr = s.refresh(r)
	case "":
		oerr = errInvalidRequest("grant_type is required")
	default:
		oerr = &oauthError{"unsupported_grant_type", "grant_type must be authorization_code or refresh_token", http.StatusBadRequest}
	}
	if oerr != nil {
		writeTokenError(w, r, oerr)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, resp)
}

// tokenClient identifies the public client of a token request: client_id in
// the body or as the HTTP Basic user name. Clients hold no secret here, so a
// password or client_secret some libraries send anyway is ignored: PKCE and
// the code's or refresh token's binding to the client are what count.
func (s *Server) tokenClient(r *http.Request) (*client, *oauthError) {
	id := r.PostForm.Get("client_id")
	if u, _, ok := r.BasicAuth(); ok {
		if uu, err := url.QueryUnescape(u); err == nil {
			u = uu // RFC 6749 §2.3.1 form-encodes Basic credentials
		}
		if id != "" && id != u {
			return nil, errInvalidRequest("client_id in the body and the Authorization header differ")
		}
		id = u
	}
	if id == "" {
		return nil, errInvalidClient("client_id is required")
	}
	c, err := s.lookupClient(r.Context(), id)
	if err != nil {
		if errors.Is(err, ErrUnknownClient) {
			return nil, errInvalidClient(strings.TrimPrefix(err.Error(), "authserver: "))
		}
		s.log.Error("authserver: client lookup", "err", err)
		return nil, errServer("client lookup failed; try again")
	}
	return c, nil
}

func (s *Server) exchangeCode(r *http.Request) (*tokenResponse, *oauthError) {
	c, oerr := s.tokenClient(r)
	if oerr != nil {
		return nil, oerr
	}
	f := r.PostForm
	code := f.Get("code")
	if code == "" {
		return nil, errInvalidRequest("code is required")
	}
	verifier := f.Get("code_verifier")
	if !validVerifier(verifier) {
		return nil, errInvalidRequest("code_verifier is required: 43 to 128 characters of [A-Za-z0-9-._~]")
	}

	// Claim the code first: whatever follows, it cannot be used again.
	ac, replayed, err := s.claimCode(r.Context(), code)
	if err != nil {
		s.log.Error("authserver: claim authorization code", "err", err)
		return nil, errServer("could not read the authorization code; try again")
	}
	if ac == nil {
		return nil, errInvalidGrant("authorization code is unknown or expired; start the authorization again")
	}
	if replayed {
		s.log.Warn("authserver: authorization code replayed", "client_id", ac.clientID, "subject", ac.subject)
		if ac.familyID != "" {
			s.revokeFamily(r.Context(), ac.familyID, "code replay")
		}
		return nil, errInvalidGrant("authorization code was already used; tokens issued from it are revoked")
	}
	switch {
	case !s.now().Before(ac.expires):
		return nil, errInvalidGrant("authorization code expired; start the authorization again")
	case ac.clientID != c.ID:
		return nil, errInvalidGrant("authorization code was issued to another client")
	case f.Get("redirect_uri") != ac.redirectURI:
		return nil, errInvalidGrant("redirect_uri must equal the one sent to /authorize")
	case !pkceMatches(verifier, ac.challenge):
		return nil, errInvalidGrant("code_verifier does not match the code_challenge")
	}
	resource, oerr := s.checkResource(f.Get("resource"), ac.resource)
	if oerr != nil {
		return nil, oerr
	}
	if resource != ac.resource {
		return nil, errInvalidTarget("resource differs from the one authorized")
	}

	refresh, fam, err := s.newFamily(r.Context(), c.ID, ac.subject, ac.scopes, resource)
	if err != nil {
		s.log.Error("authserver: create refresh family", "err", err)
		return nil, errServer("could not issue tokens; try again")
	}
	s.setCodeFamily(r.Context(), code, fam)
	s.touchClient(r.Context(), c)
	return s.issue(ac.subject, c.ID, ac.scopes, resource, refresh)
}

func (s *Server) issue(subject, clientID string, scopes []string, resource, refresh string) (*tokenResponse, *oauthError) {
	at, err := s.mintAccessToken(subject, clientID, scopes, resource)
	if err != nil {
		s.log.Error("authserver: sign access token", "err", err)
		return nil, errServer("could not sign the access token; try again")
	}
	return &tokenResponse{
		AccessToken:  at,
		TokenType:    "Bearer",
		ExpiresIn:    int64(s.accessTTL / time.Second),
		RefreshToken: refresh,
		Scope:        strings.Join(scopes, " "),
	}, nil
}

// validVerifier checks RFC 7636 §4.1: 43–128 unreserved characters.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

func pkceMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// newFamily starts a refresh-token family for one grant and returns its first token.
func (s *Server) newFamily(ctx context.Context, clientID, subject string, scopes []string, resource string) (token, familyID string, err error) {
	token, familyID = "rt_"+rand.Text()+rand.Text(), rand.Text()
	h := hashToken(token)
	now := s.now()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", "", err
	}
	defer tx.Rollback()
	// Drop families that can no longer be used, so the tables stay small.
	if _, err := tx.ExecContext(ctx, `DELETE FROM authserver_refresh_families WHERE expires_at < ?`, now.Unix()); err != nil {
		return "", "", err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO authserver_refresh_families
		(family_id, client_id, subject, scope, resource, current_hash, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		familyID, clientID, subject, strings.Join(scopes, " "), resource, h, now.Unix(), now.Add(s.refreshTTL).Unix()); err != nil {
		return "", "", err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO authserver_refresh_tokens (token_hash, family_id, issued_at) VALUES (?, ?, ?)`, h, familyID, now.Unix()); err != nil {
		return "", "", err
	}
	// Authorizing in a loop must not grow the tables without bound: past
	// maxFamilies grants for one user, the oldest go.
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM authserver_refresh_families WHERE subject = ?`, subject).Scan(&n); err != nil {
		return "", "", err
	}
	if excess := n - s.maxFamilies; excess > 0 {
		const oldest = `SELECT family_id FROM authserver_refresh_families WHERE subject = ? ORDER BY created_at, rowid LIMIT ?`
		if _, err := tx.ExecContext(ctx, `DELETE FROM authserver_refresh_tokens WHERE family_id IN (`+oldest+`)`, subject, excess); err != nil {
			return "", "", err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM authserver_refresh_families WHERE family_id IN (`+oldest+`)`, subject, excess); err != nil {
			return "", "", err
		}
	}
	return token, familyID, tx.Commit()
}

// revokeFamily ends a grant: none of its refresh tokens works any more.
func (s *Server) revokeFamily(ctx context.Context, familyID, why string) {
	if _, err := s.db.ExecContext(ctx, `UPDATE authserver_refresh_families SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL`, s.now().Unix(), familyID); err != nil {
		s.log.Error("authserver: revoke refresh family", "family", familyID, "err", err)
		return
	}
	s.log.Warn("authserver: refresh-token family revoked", "family", familyID, "reason", why)
}

// refresh implements the refresh_token grant with rotation: each token works
// once; presenting a rotated one again revokes the whole family (RFC 9700 §4.14.2).
func (s *Server) refresh(r *http.Request) (*tokenResponse, *oauthError) {
	c, oerr := s.tokenClient(r)
	if oerr != nil {
		return nil, oerr
	}
	f := r.PostForm
	rt := f.Get("refresh_token")
	if rt == "" {
		return nil, errInvalidRequest("refresh_token is required")
	}
	ctx := r.Context()
	h := hashToken(rt)
	var (
		familyID, clientID, subject, scope, resource, current string
		expires                                               int64
		revoked                                               sql.NullInt64
	)
	err := s.db.QueryRowContext(ctx, `SELECT f.family_id, f.client_id, f.subject, f.scope, f.resource, f.current_hash, f.expires_at, f.revoked_at
		FROM authserver_refresh_tokens t JOIN authserver_refresh_families f ON f.family_id = t.family_id
		WHERE t.token_hash = ?`, h).Scan(&familyID, &clientID, &subject, &scope, &resource, &current, &expires, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errInvalidGrant("refresh token is unknown; authorize again")
	}
	if err != nil {
		s.log.Error("authserver: read refresh token", "err", err)
		return nil, errServer("could not read the refresh token; try again")
	}
	if clientID != c.ID {
		return nil, errInvalidGrant("refresh token was issued to another client")
	}
	if revoked.Valid {
		return nil, errInvalidGrant("refresh token was revoked; authorize again")
	}
	if current != h {
		s.log.Warn("authserver: rotated refresh token reused", "client_id", clientID, "subject", subject)
		s.revokeFamily(ctx, familyID, "refresh token reuse")
		return nil, errInvalidGrant("refresh token was already used; every token of this grant is now revoked, authorize again")
	}
	now := s.now()
	if now.Unix() >= expires {
		return nil, errInvalidGrant("refresh token expired; authorize again")
	}
	if resource != s.resource {
		// Options.Resource changed since the grant: its tokens would be refused.
		return nil, errInvalidGrant("refresh token was issued for another resource; authorize again")
	}
	if _, oerr := s.checkResource(f.Get("resource"), resource); oerr != nil {
		return nil, oerr
	}
	granted := strings.Fields(scope)
	scopes := granted
	if req := strings.Fields(f.Get("scope")); len(req) > 0 {
		for _, sc := range req {
			if !slices.Contains(granted, sc) {
				return nil, errInvalidScope("scope " + sc + " was not granted; request a subset of: " + scope)
			}
		}
		scopes = req
	}

	// Every rotation keeps the old token's hash, so reuse is recognised;
	// a grant refreshed in a loop must not grow the table without bound.
	var rotations int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM authserver_refresh_tokens WHERE family_id = ?`, familyID).Scan(&rotations); err != nil {
		return nil, errServer("could not read the refresh token; try again")
	}
	if rotations >= s.maxRotations {
		s.log.Warn("authserver: refresh-token family used up", "client_id", clientID, "subject", subject, "rotations", rotations)
		s.revokeFamily(ctx, familyID, "rotation limit")
		return nil, errInvalidGrant("this grant has been refreshed too many times; authorize again")
	}

	next := "rt_" + rand.Text() + rand.Text()
	nh := hashToken(next)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, errServer("could not rotate the refresh token; try again")
	}
	defer tx.Rollback()
	// The compare-and-swap on current_hash makes two concurrent uses of one
	// token resolve to one winner; the loser is treated as reuse.
	res, err := tx.ExecContext(ctx, `UPDATE authserver_refresh_families SET current_hash = ?
		WHERE family_id = ? AND current_hash = ? AND revoked_at IS NULL`, nh, familyID, h)
	if err != nil {
		return nil, errServer("could not rotate the refresh token; try again")
	}
	if n, _ := res.RowsAffected(); n != 1 {
		tx.Rollback()
		s.revokeFamily(ctx, familyID, "concurrent refresh token reuse")
		return nil, errInvalidGrant("refresh token was already used; every token of this grant is now revoked, authorize again")
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO authserver_refresh_tokens (token_hash, family_id, issued_at) VALUES (?, ?, ?)`, nh, familyID, now.Unix()); err != nil {
		return nil, errServer("could not rotate the refresh token; try again")
	}
	if err := tx.Commit(); err != nil {
		return nil, errServer("could not rotate the refresh token; try again")
	}
	s.touchClient(ctx, c)
	return s.issue(subject, c.ID, scopes, resource, next)
}
