package openapisource

// Options, their defaults, per-operation overrides and the sentinel
// errors of New.

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
)

// Options configures New. BaseURL is required; every other field's zero
// value is the documented default.
type Options struct {
	// BaseURL is where every request goes: an absolute http or https URL,
	// whose path (if any) prefixes each operation's path, so it includes
	// the API's base path (a server URL's path, Swagger 2.0's basePath).
	// Required. The document's servers are never used: a document cannot
	// send calls elsewhere.
	BaseURL string
	// HTTPClient sends the requests (the host's transport, proxies,
	// mTLS). Nil means a client with Go's default transport. Its
	// redirect policy is replaced: a redirect is followed only to the
	// same scheme and host, under BaseURL's path, and at most 5 times.
	// Its Timeout, if any, applies as well as Timeout.
	HTTPClient *http.Client
	// Authorize, if set, prepares each outgoing request for the calling
	// principal (nil for an anonymous call): typically it sets that
	// user's stored token for this API, or the host's API key. It runs
	// after the request is built and before it is sent. An error fails
	// the call before anything is sent: a *catalog.Error reaches the
	// model as written (for example "connect your GitHub account first"),
	// any other is hidden behind an internal error. The token the MCP
	// client sent to the code-mode server is never forwarded.
	Authorize func(req *http.Request, principal *catalog.Principal) error

	// Operations overrides, by operationId (or "METHOD /path" for an
	// operation without one), the derived name, tier and approval, or
	// leaves an operation out. A key that names no operation of the
	// document is an error ([ErrUnknownOperation]).
	Operations map[string]OperationConfig

	// Timeout bounds each call, from sending the request to reading the
	// whole answer. Default 30s.
	Timeout time.Duration
	// MaxResponseBytes bounds an answer's body. Default 1 MiB.
	MaxResponseBytes int64
	// MaxErrorBytes bounds the API's own message passed on for a 4xx or
	// 5xx answer. Default 1,000.
	MaxErrorBytes int
	// MaxOperations bounds the operations of a document: one with more
	// is refused ([ErrTooLarge]). Default 3,000 (GitHub's REST API has
	// about 1,100).
	MaxOperations int
	// MaxSchemaNodes bounds the schema of one function (its input or its
	// result, components it reaches included): an operation whose
	// schema is larger is left out with a reason. Default 20,000.
	MaxSchemaNodes int
	// Logger receives the operations left out. Nil means slog.Default().
	Logger *slog.Logger
}

// OperationConfig overrides what New derives for one operation.
type OperationConfig struct {
	// Name replaces the name derived from the operationId. It must be a
	// valid JavaScript identifier.
	Name string
	// Tier replaces the tier derived from the method and the
	// x-codemode-tier extension.
	Tier catalog.Tier
	// Approval replaces the approval rule derived from the tier and the
	// x-codemode-approval extension.
	Approval catalog.Approval
	// Scopes lists OAuth scopes the caller must hold, as
	// [catalog.SchemaFunc.Scopes].
	Scopes []string
	// Skip leaves the operation out.
	Skip bool
}

var (
	// ErrDocument wraps every reason a document cannot be read: not JSON
	// or YAML, not OpenAPI 3.x or Swagger 2.0, or invalid.
	ErrDocument = errors.New("openapisource: invalid OpenAPI document")
	// ErrBaseURL says Options.BaseURL is missing or not an absolute http
	// or https URL without a query or fragment.
	ErrBaseURL = errors.New("openapisource: Options.BaseURL must be an absolute http or https URL without query or fragment")
	// ErrNameCollision says two operations get the same function name;
	// the message names both, and Options.Operations can rename one.
	ErrNameCollision = errors.New("openapisource: two operations have the same function name")
	// ErrUnknownOperation says Options.Operations names an operation the
	// document does not have.
	ErrUnknownOperation = errors.New("openapisource: Options.Operations names an operation the document does not have")
	// ErrTooLarge says the document has more operations than
	// Options.MaxOperations.
	ErrTooLarge = errors.New("openapisource: the document has too many operations")
	// ErrConfig says an override is unusable: a name that is not a
	// JavaScript identifier, or an approval the tier cannot honour.
	ErrConfig = errors.New("openapisource: invalid operation override")
)

// settings is Options with defaults applied and BaseURL parsed.
type settings struct {
	Options
	base *url.URL
}

func (o *Options) settings() (*settings, error) {
	s := &settings{}
	if o != nil {
		s.Options = *o
	}
	u, err := url.Parse(s.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%w (got %q)", ErrBaseURL, s.BaseURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = strings.TrimSuffix(u.RawPath, "/")
	s.base = u
	if s.Timeout <= 0 {
		s.Timeout = 30 * time.Second
	}
	if s.MaxResponseBytes <= 0 {
		s.MaxResponseBytes = 1 << 20
	}
	if s.MaxErrorBytes <= 0 {
		s.MaxErrorBytes = 1000
	}
	if s.MaxOperations <= 0 {
		s.MaxOperations = 3000
	}
	if s.MaxSchemaNodes <= 0 {
		s.MaxSchemaNodes = 20000
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	hc := &http.Client{}
	if s.HTTPClient != nil {
		*hc = *s.HTTPClient
	}
	base := s.base
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 || !within(base, req.URL) {
			// Not followed: the call reports the redirect.
			return http.ErrUseLastResponse
		}
		return nil
	}
	s.HTTPClient = hc
	return s, nil
}

// within reports whether u is under base: same scheme and host, and a
// path below base's.
func within(base, u *url.URL) bool {
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return false
	}
	p := u.EscapedPath()
	b := base.EscapedPath()
	return b == "" || p == b || strings.HasPrefix(p, b+"/")
}
