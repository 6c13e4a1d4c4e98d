package bearer

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// Errors from [BearerToken].
var (
	// ErrNoToken means the request carries no bearer token in its
	// Authorization header (absent, or another scheme such as Basic).
	ErrNoToken = errors.New("no bearer token")
	// ErrMalformedRequest means the request carries credentials in a way the
	// server refuses: a malformed Authorization header, several of them, or
	// a token in the URL query.
	ErrMalformedRequest = errors.New("malformed bearer request")
)

// BearerToken extracts the bearer token from r's Authorization header
// (RFC 6750 §2.1), the only place this package accepts one. A token in the
// query string (access_token) is refused with [ErrMalformedRequest] even
// when a header is present too, because URLs end up in logs and the token
// must be treated as leaked.
func BearerToken(r *http.Request) (string, error) {
	if q, err := url.ParseQuery(r.URL.RawQuery); err == nil {
		if q.Has("access_token") {
			return "", errMalformed("access tokens are accepted only in the Authorization header, never in the URL")
		}
	} else if strings.Contains(r.URL.RawQuery, "access_token") {
		return "", errMalformed("access tokens are accepted only in the Authorization header, never in the URL")
	}
	values := r.Header.Values("Authorization")
	switch len(values) {
	case 0:
		return "", ErrNoToken
	case 1:
		return ParseAuthorization(values[0])
	default:
		return "", errMalformed("send exactly one Authorization header")
	}
}

// ParseAuthorization parses one Authorization header value of the form
// "Bearer <b64token>" (scheme case-insensitive). Another scheme yields
// [ErrNoToken]; a Bearer value whose token is empty or not an RFC 6750
// b64token yields an error wrapping [ErrMalformedRequest].
func ParseAuthorization(header string) (string, error) {
	header = strings.Trim(header, " \t")
	scheme, rest, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNoToken
	}
	tok := strings.TrimLeft(rest, " ")
	if tok == "" {
		return "", errMalformed("the Bearer Authorization header has no token")
	}
	if !isB64Token(tok) {
		return "", errMalformed("the bearer token contains characters not allowed in a token")
	}
	return tok, nil
}

// isB64Token reports whether s matches RFC 6750's
// b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isB64Token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/':
		default:
			return false
		}
	}
	return true
}

// malformedError carries a client-safe description of a malformed request.
type malformedError struct{ desc string }

func errMalformed(desc string) error { return &malformedError{desc} }

func (e *malformedError) Error() string { return e.desc }
func (e *malformedError) Unwrap() error { return ErrMalformedRequest }
