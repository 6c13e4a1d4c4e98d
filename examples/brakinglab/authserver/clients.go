package authserver

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// client is a public client known to the server, registered or fetched.
type client struct {
	ID           string
	Name         string
	RedirectURIs []string
	// Dynamic is true for clients registered here (as opposed to CIMD URLs).
	Dynamic bool
}

// displayName is what the consent page calls the client.
func (c *client) displayName() string {
	if c.Name != "" {
		return c.Name
	}
	return "An unnamed application"
}

// allowsRedirect reports whether uri matches one of the client's redirect URIs.
func (c *client) allowsRedirect(uri string) bool {
	if validateRedirectURI(uri) != nil {
		return false
	}
	for _, r := range c.RedirectURIs {
		if redirectMatches(r, uri) {
			return true
		}
	}
	return false
}

const (
	maxRegistrationBytes = 64 << 10
	maxRedirectURIs      = 10
	maxClientNameRunes   = 100
)

// checkClientMetadata validates registration metadata shared by DCR and
// CIMD and returns it normalised for a public client.
func checkClientMetadata(m *oauthex.ClientRegistrationMetadata) (*oauthex.ClientRegistrationError, bool) {
	bad := func(code, desc string) (*oauthex.ClientRegistrationError, bool) {
		return &oauthex.ClientRegistrationError{ErrorCode: code, ErrorDescription: desc}, false
	}
	if len(m.RedirectURIs) == 0 {
		return bad("invalid_redirect_uri", "redirect_uris is required: list at least one https or loopback http URI")
	}
	if len(m.RedirectURIs) > maxRedirectURIs {
		return bad("invalid_redirect_uri", fmt.Sprintf("at most %d redirect_uris are allowed", maxRedirectURIs))
	}
	for _, u := range m.RedirectURIs {
		if err := validateRedirectURI(u); err != nil {
			return bad("invalid_redirect_uri", strings.TrimPrefix(err.Error(), "authserver: "))
		}
	}
	switch m.TokenEndpointAuthMethod {
	case "", "none", "client_secret_basic", "client_secret_post":
		// A client asking for a secret is registered as public anyway (RFC 7591
		// §3.2.1 lets the server replace values): the response says "none" and
		// carries no secret, which SDK clients honour.
		m.TokenEndpointAuthMethod = "none"
	default:
		return bad("invalid_client_metadata", fmt.Sprintf("token_endpoint_auth_method %q is not supported: only public clients (\"none\") with PKCE", m.TokenEndpointAuthMethod))
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return bad("invalid_client_metadata", fmt.Sprintf("grant_types: %q is not supported; use authorization_code and refresh_token", g))
		}
	}
	if len(m.GrantTypes) == 0 {
		m.GrantTypes = []string{"authorization_code", "refresh_token"}
	}
	for _, t := range m.ResponseTypes {
		if t != "code" {
			return bad("invalid_client_metadata", fmt.Sprintf("response_types: %q is not supported; use code", t))
		}
	}
	if len(m.ResponseTypes) == 0 {
		m.ResponseTypes = []string{"code"}
	}
	m.ClientName = strings.TrimSpace(m.ClientName)
	if !utf8.ValidString(m.ClientName) || utf8.RuneCountInString(m.ClientName) > maxClientNameRunes {
		return bad("invalid_client_metadata", fmt.Sprintf("client_name must be valid UTF-8 of at most %d characters", maxClientNameRunes))
	}
	// Secrets and keys make no sense for a public client; drop what we never use.
	m.JWKS, m.JWKSURI, m.SoftwareStatement = "", "", ""
	return nil, true
}

// handleRegister implements RFC 7591 dynamic client registration for public clients.
func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if res := s.registrations.ReserveN(s.now(), 1); !res.OK() || res.DelayFrom(s.now()) > 0 {
		wait := time.Second
		if res.OK() {
			wait = max(res.DelayFrom(s.now()), time.Second)
			res.CancelAt(s.now())
		}
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Round(time.Second)/time.Second)))
		s.log.Warn("authserver: registration refused: rate limit")
		writeJSON(w, http.StatusTooManyRequests, &oauthex.ClientRegistrationError{ErrorCode: "temporarily_unavailable", ErrorDescription: "too many client registrations; retry later"})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRegistrationBytes+1))
	if err != nil || len(body) > maxRegistrationBytes {
		writeJSON(w, http.StatusBadRequest, &oauthex.ClientRegistrationError{ErrorCode: "invalid_client_metadata", ErrorDescription: "registration body unreadable or larger than 64 KiB"})
		return
	}
	var m oauthex.ClientRegistrationMetadata
	if err := json.Unmarshal(body, &m); err != nil {
		writeJSON(w, http.StatusBadRequest, &oauthex.ClientRegistrationError{ErrorCode: "invalid_client_metadata", ErrorDescription: "body must be a JSON client metadata object: " + err.Error()})
		return
	}
	if e, ok := checkClientMetadata(&m); !ok {
		writeJSON(w, http.StatusBadRequest, e)
		return
	}
	id := "dcr_" + strings.ToLower(rand.Text())
	now := s.now()
	stored, _ := json.Marshal(&m)
	if err := s.insertClient(r.Context(), id, stored, now.Unix()); err != nil {
		s.log.Error("authserver: register client", "err", err)
		writeJSON(w, http.StatusInternalServerError, &oauthex.ClientRegistrationError{ErrorCode: "server_error", ErrorDescription: "could not store the registration; try again"})
		return
	}
	s.log.Info("authserver: client registered", "client_id", id, "client_name", m.ClientName)
	writeJSON(w, http.StatusCreated, &oauthex.ClientRegistrationResponse{
		ClientRegistrationMetadata: m,
		ClientID:                   id,
		ClientIDIssuedAt:           now,
	})
}

// insertClient stores a client and prunes the table back to maxClients in
// one transaction: never-used clients go first, oldest first, then the
// least recently used. Pruned clients' refresh-token families go too.
func (s *Server) insertClient(ctx context.Context, id string, metadata []byte, created int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO authserver_clients (client_id, metadata, created_at) VALUES (?, ?, ?)`, id, string(metadata), created); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM authserver_clients`).Scan(&n); err != nil {
		return err
	}
	if excess := n - s.maxClients; excess > 0 {
		rows, err := tx.QueryContext(ctx, `SELECT client_id FROM authserver_clients WHERE client_id <> ?
			ORDER BY (last_used_at IS NOT NULL), COALESCE(last_used_at, created_at), rowid LIMIT ?`, id, excess)
		if err != nil {
			return err
		}
		var victims []string
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return err
			}
			victims = append(victims, v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, v := range victims {
			if _, err := tx.ExecContext(ctx, `DELETE FROM authserver_refresh_families WHERE client_id = ?`, v); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM authserver_clients WHERE client_id = ?`, v); err != nil {
				return err
			}
		}
		if len(victims) > 0 {
			s.log.Info("authserver: pruned clients", "count", len(victims))
		}
	}
	return tx.Commit()
}

// lookupClient resolves a client_id: a registered client, or an https URL
// naming a client ID metadata document.
func (s *Server) lookupClient(ctx context.Context, id string) (*client, error) {
	if id == "" {
		return nil, fmt.Errorf("%w: client_id is missing", ErrUnknownClient)
	}
	if strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://") {
		return s.cimd.resolve(ctx, id)
	}
	var raw string
	err := s.db.QueryRowContext(ctx, `SELECT metadata FROM authserver_clients WHERE client_id = ?`, id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: client_id %q is not registered (it may have been pruned); register again", ErrUnknownClient, id)
	}
	if err != nil {
		return nil, err
	}
	var m oauthex.ClientRegistrationMetadata
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, fmt.Errorf("authserver: client %s metadata: %w", id, err)
	}
	return &client{ID: id, Name: m.ClientName, RedirectURIs: slices.Clone(m.RedirectURIs), Dynamic: true}, nil
}

// touchClient records that a client obtained tokens, which protects it from pruning.
func (s *Server) touchClient(ctx context.Context, c *client) {
	if !c.Dynamic {
		return
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE authserver_clients SET last_used_at = ? WHERE client_id = ?`, s.now().Unix(), c.ID); err != nil {
		s.log.Warn("authserver: touch client", "client_id", c.ID, "err", err)
	}
}
