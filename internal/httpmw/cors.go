package httpmw

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/rs/cors"
)

// DefaultOrigins are the browser origins of the hosted AI clients that call
// remote MCP servers directly. They are always allowed so that an operator's
// own list can add to them but never shrink the set to nothing.
var DefaultOrigins = []string{
	"https://claude.ai",
	"https://chatgpt.com",
	"https://chat.openai.com",
}

// MCPHeaders are the request headers an MCP client sends: the browser must be
// told they are allowed or it blocks the request after the preflight.
var MCPHeaders = []string{
	"Authorization",
	"Content-Type",
	"Accept",
	"Mcp-Session-Id",
	"Mcp-Protocol-Version",
	"Last-Event-ID",
	"Mcp-Method",
	"Mcp-Name",
}

// ExposedHeaders are the response headers a browser client must be able to
// read: the session id, the negotiated revision and the OAuth challenge.
var ExposedHeaders = []string{
	"Mcp-Session-Id",
	"Mcp-Protocol-Version",
	"WWW-Authenticate",
}

// ErrOrigin reports an origin that cannot be put in the CORS allow list.
var ErrOrigin = errors.New("invalid CORS origin")

// Origins returns DefaultOrigins followed by extra, without duplicates.
// Every extra origin must be a scheme://host[:port] with no path; a bare "*"
// is refused because rs/cors reads it (like an empty list) as "allow every
// origin". One "*" inside a host, as in "https://*.example.com", is allowed.
func Origins(extra []string) ([]string, error) {
	out := slices.Clone(DefaultOrigins)
	for _, o := range extra {
		o = strings.TrimSuffix(strings.TrimSpace(o), "/")
		if err := checkOrigin(o); err != nil {
			return nil, err
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out, nil
}

func checkOrigin(o string) error {
	if o == "" || o == "*" || o == "null" {
		return fmt.Errorf("%w %q: list explicit scheme://host origins", ErrOrigin, o)
	}
	if strings.Count(o, "*") > 1 {
		return fmt.Errorf("%w %q: at most one wildcard", ErrOrigin, o)
	}
	u, err := url.Parse(strings.Replace(o, "*", "wildcard", 1))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return fmt.Errorf("%w %q: want scheme://host[:port]", ErrOrigin, o)
	}
	return nil
}

// CORS returns the CORS middleware for an MCP endpoint. origins must be the
// result of Origins (never empty). It must wrap every other handler: it
// answers preflight requests itself, which the MCP handler would reject with
// 405.
func CORS(origins []string) func(http.Handler) http.Handler {
	if len(origins) == 0 {
		// An empty list means "allow all" to rs/cors: refuse instead.
		origins = DefaultOrigins
	}
	c := cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodDelete},
		AllowedHeaders: MCPHeaders,
		ExposedHeaders: ExposedHeaders,
		MaxAge:         600,
	})
	return c.Handler
}
