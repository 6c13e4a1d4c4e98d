package authserver

import (
	"encoding/json"
	"errors"
	"net/http"
)

// Sentinel errors.
var (
	// ErrBadCredentials is what a UserAuthenticator wraps for a wrong
	// username or password.
	ErrBadCredentials = errors.New("authserver: wrong username or password")
	// ErrForbiddenAddress is returned when a client ID metadata document URL
	// resolves to a private, loopback, link-local or otherwise special address.
	ErrForbiddenAddress = errors.New("authserver: address not allowed")
	// ErrUnknownClient is returned for a client_id that is neither registered
	// nor a fetchable client ID metadata document.
	ErrUnknownClient = errors.New("authserver: unknown client")
	// ErrInvalidRedirectURI is returned for a redirect URI that is not https
	// or loopback http, or carries a fragment.
	ErrInvalidRedirectURI = errors.New("authserver: invalid redirect URI")
)

// oauthError is an RFC 6749 §5.2 error response.
type oauthError struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
	status      int
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

func errInvalidRequest(desc string) *oauthError {
	return &oauthError{"invalid_request", desc, http.StatusBadRequest}
}
func errInvalidGrant(desc string) *oauthError {
	return &oauthError{"invalid_grant", desc, http.StatusBadRequest}
}
func errInvalidClient(desc string) *oauthError {
	return &oauthError{"invalid_client", desc, http.StatusUnauthorized}
}
func errInvalidTarget(desc string) *oauthError {
	return &oauthError{"invalid_target", desc, http.StatusBadRequest}
}
func errInvalidScope(desc string) *oauthError {
	return &oauthError{"invalid_scope", desc, http.StatusBadRequest}
}
func errServer(desc string) *oauthError {
	return &oauthError{"server_error", desc, http.StatusInternalServerError}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeTokenError writes an error from the token endpoint; never cached.
// RFC 6749 §5.2 asks for a challenge only when the client used the
// Authorization header.
func writeTokenError(w http.ResponseWriter, r *http.Request, e *oauthError) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if e.status == http.StatusUnauthorized && r.Header.Get("Authorization") != "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="token", error="invalid_client"`)
	}
	writeJSON(w, e.status, e)
}
