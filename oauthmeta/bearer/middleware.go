package bearer

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/brakinglab/codemode-go/catalog"
)

// BearerOptions configures [RequireBearer]. The zero value requires a valid
// token and no particular scope.
type BearerOptions struct {
	// ResourceMetadataURL is the absolute URL of this resource's RFC 9728
	// metadata (see [oauthmeta.ResourceMetadataURL]); it is sent in every challenge so
	// clients can discover the authorization server.
	ResourceMetadataURL string
	// Scopes must all be granted to the token; otherwise the answer is
	// 403 insufficient_scope. They are also suggested in the challenge to a
	// request without a token, unless SuggestedScopes is set.
	Scopes []string
	// SuggestedScopes are named in the challenge to a request without a
	// token, so a client asks for every scope it may need in one
	// authorization rather than stepping up later. Default: Scopes.
	SuggestedScopes []string
	// RetryAfter is sent with 503 answers when tokens cannot be verified
	// because the issuer is unreachable. Default 30 s.
	RetryAfter time.Duration
	// Logger receives verification failures (never tokens). Nil: no logs.
	Logger *slog.Logger
}

// ClockSkewer is implemented by a [Verifier] that tolerates clock skew, as
// [*IntrospectionVerifier] and jwtverify's Verifier do. [RequireBearer] gives
// go-sdk's own expiry check the same tolerance, so a token the verifier
// accepted is not refused a second time; a Verifier without it gets
// [DefaultClockSkew].
type ClockSkewer interface {
	ClockSkew() time.Duration
}

var _ ClockSkewer = (*IntrospectionVerifier)(nil)

// RequireBearer returns middleware that admits only requests with a valid
// bearer token in the Authorization header, answering as RFC 6750 and the
// MCP authorization spec require:
//
//   - no token: 401, WWW-Authenticate: Bearer scope="…", resource_metadata="…"
//   - invalid, expired, wrong issuer or audience: 401 error="invalid_token"
//     with an error_description
//   - valid but lacking a required scope: 403 error="insufficient_scope"
//     with the needed scope and resource_metadata
//   - a token in the query string, or a malformed header: 400
//     error="invalid_request"; the token is never used
//   - the issuer's keys cannot be fetched: 503 with Retry-After
//
// Every error has a JSON body {"error": "…", "error_description": "…"}.
// On success the next handler sees the principal through
// [catalog.PrincipalFrom], and go-sdk's [auth.TokenInfoFromContext] (and so
// req.Extra.TokenInfo in tool handlers) returns its token info: the request
// passes through [auth.RequireBearerToken] with the already-verified result.
//
// It panics if v is nil, a setup mistake that must not silently admit or
// refuse everyone.
func RequireBearer(v Verifier, opts *BearerOptions) func(http.Handler) http.Handler {
	if v == nil {
		panic("oauthmeta: RequireBearer needs a Verifier")
	}
	var o BearerOptions
	if opts != nil {
		o = *opts
	}
	o.Scopes = slices.Clone(o.Scopes)
	if len(o.SuggestedScopes) == 0 {
		o.SuggestedScopes = o.Scopes
	}
	o.SuggestedScopes = slices.Clone(o.SuggestedScopes)
	if o.RetryAfter <= 0 {
		o.RetryAfter = 30 * time.Second
	}
	skew := DefaultClockSkew
	if s, ok := v.(ClockSkewer); ok {
		skew = s.ClockSkew()
	}
	sdkOpts := &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: o.ResourceMetadataURL,
		ClockSkew:           skew,
		// A Verifier decides about expiry; opaque tokens may have none.
		AllowMissingExpiration: true,
	}
	return func(next http.Handler) http.Handler {
		plumbed := auth.RequireBearerToken(alreadyVerified, sdkOpts)(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tok, ok := o.authenticate(w, r, v)
			if !ok {
				return
			}
			ctx := catalog.WithPrincipal(r.Context(), tok.Principal)
			ctx = context.WithValue(ctx, verifiedKey{}, tok.TokenInfo())
			plumbed.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

type verifiedKey struct{}

// alreadyVerified is the go-sdk verifier: it returns what RequireBearer
// verified for this request instead of checking the token again.
func alreadyVerified(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
	if ti, ok := ctx.Value(verifiedKey{}).(*auth.TokenInfo); ok {
		return ti, nil
	}
	return nil, auth.ErrInvalidToken
}

// authenticate verifies r's token, or writes the error answer and reports
// false.
func (o *BearerOptions) authenticate(w http.ResponseWriter, r *http.Request, v Verifier) (*Token, bool) {
	raw, err := BearerToken(r)
	if err != nil {
		if errors.Is(err, ErrMalformedRequest) {
			WriteError(w, http.StatusBadRequest, Challenge{
				Error:            ErrorInvalidRequest,
				Description:      err.Error(),
				ResourceMetadata: o.ResourceMetadataURL,
			})
			return nil, false
		}
		writeMissing(w, o)
		return nil, false
	}
	tok, err := v.Verify(r.Context(), raw)
	switch {
	case err == nil && tok != nil:
	case errors.Is(err, auth.ErrInvalidToken):
		desc := "token rejected"
		var te *TokenError
		if errors.As(err, &te) {
			desc = te.Description
		}
		o.log(r, slog.LevelDebug, "bearer token rejected", err)
		WriteError(w, http.StatusUnauthorized, Challenge{
			Error:            ErrorInvalidToken,
			Description:      desc,
			ResourceMetadata: o.ResourceMetadataURL,
		})
		return nil, false
	default:
		if err == nil {
			err = errors.New("verifier returned no token and no error")
		}
		o.log(r, slog.LevelWarn, "cannot verify bearer token", err)
		w.Header().Set("Retry-After", formatSeconds(o.RetryAfter))
		writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable",
			"access tokens cannot be verified right now; retry later")
		return nil, false
	}
	if missing := missingScopes(tok.Principal.Scopes, o.Scopes); len(missing) > 0 {
		WriteError(w, http.StatusForbidden, Challenge{
			Error:            ErrorInsufficientScope,
			Description:      "token lacks required scope: " + strings.Join(missing, " "),
			Scope:            o.Scopes,
			ResourceMetadata: o.ResourceMetadataURL,
		})
		return nil, false
	}
	return tok, true
}

// writeMissing answers a request that carries no token. RFC 6750 §3.1: no
// error code, since the client may simply not know it must authenticate.
func writeMissing(w http.ResponseWriter, o *BearerOptions) {
	w.Header().Set("WWW-Authenticate", Challenge{Scope: o.SuggestedScopes, ResourceMetadata: o.ResourceMetadataURL}.String())
	writeJSONError(w, http.StatusUnauthorized, "unauthorized",
		"this endpoint requires an OAuth access token in the Authorization header (Bearer)")
}

// WriteError answers with status, the challenge c in WWW-Authenticate, and
// the JSON body {"error": c.Error, "error_description": c.Description}.
func WriteError(w http.ResponseWriter, status int, c Challenge) {
	w.Header().Set("WWW-Authenticate", c.String())
	writeJSONError(w, status, c.Error, c.Description)
}

func writeJSONError(w http.ResponseWriter, status int, code, desc string) {
	body, _ := json.Marshal(struct {
		Error       string `json:"error"`
		Description string `json:"error_description,omitempty"`
	}{code, desc})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

func missingScopes(granted, required []string) []string {
	var missing []string
	for _, s := range required {
		if !slices.Contains(granted, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

func formatSeconds(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(s, 10)
}

func (o *BearerOptions) log(r *http.Request, level slog.Level, msg string, err error) {
	if o.Logger == nil {
		return
	}
	o.Logger.Log(r.Context(), level, msg, "error", err.Error(), "path", r.URL.Path)
}
