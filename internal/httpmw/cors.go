package httpmw

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
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
// (every origin) is refused. One "*" inside a host, as in
// "https://*.example.com", is allowed: it stands for one or more
// characters.
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

// corsMaxAge is how long, in seconds, a browser may reuse a preflight's
// answer.
const corsMaxAge = 600

// maxRequestHeaders bounds the Access-Control-Request-Headers a preflight
// may list, in bytes: a browser lists a few names.
const maxRequestHeaders = 4 << 10

// CORS returns the CORS middleware for an MCP endpoint. origins must be the
// result of Origins (never empty; nil means DefaultOrigins). It must wrap
// every other handler: it answers preflight requests itself (204), which
// the MCP handler would reject with 405.
//
// A preflight (OPTIONS with Access-Control-Request-Method) from an allowed
// origin, for GET, POST or DELETE, asking only for MCPHeaders (any case,
// any order), is answered with the origin, the method, the headers asked
// for and a max age of 10 minutes; any other preflight is answered 204
// without them, so the browser refuses the request. Other requests pass
// through; from an allowed origin with one of those methods, the response
// names the origin and exposes ExposedHeaders. The origin is compared
// without regard to case. Responses vary on Origin (and, for preflights,
// on the two request headers).
func CORS(origins []string) func(http.Handler) http.Handler {
	if len(origins) == 0 {
		origins = DefaultOrigins
	}
	c := &corsPolicy{headers: map[string]bool{}, expose: strings.Join(ExposedHeaders, ", ")}
	for _, o := range origins {
		o = strings.ToLower(o)
		if before, after, ok := strings.Cut(o, "*"); ok {
			c.wildcards = append(c.wildcards, [2]string{before, after})
		} else {
			c.exact = append(c.exact, o)
		}
	}
	for _, h := range MCPHeaders {
		c.headers[strings.ToLower(h)] = true
	}
	return c.handler
}

type corsPolicy struct {
	exact     []string
	wildcards [][2]string // prefix, suffix
	headers   map[string]bool
	expose    string
}

func (c *corsPolicy) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			c.preflight(w, r)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		if origin := r.Header.Get("Origin"); origin != "" && c.allowedOrigin(origin) && corsMethod(r.Method) {
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", c.expose)
		}
		next.ServeHTTP(w, r)
	})
}

func (c *corsPolicy) preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
	origin := r.Header.Get("Origin")
	method := r.Header.Get("Access-Control-Request-Method")
	if origin == "" || !c.allowedOrigin(origin) || !corsMethod(method) {
		return
	}
	asked := r.Header.Values("Access-Control-Request-Headers")
	if !c.allowedHeaders(asked) {
		return
	}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Methods", method)
	if list := strings.Join(asked, ","); strings.TrimSpace(list) != "" {
		h.Set("Access-Control-Allow-Headers", list)
	}
	h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
}

func (c *corsPolicy) allowedOrigin(origin string) bool {
	origin = strings.ToLower(origin)
	if slices.Contains(c.exact, origin) {
		return true
	}
	for _, w := range c.wildcards {
		if len(origin) > len(w[0])+len(w[1]) && strings.HasPrefix(origin, w[0]) && strings.HasSuffix(origin, w[1]) {
			return true
		}
	}
	return false
}

// allowedHeaders reports whether every name the preflight asks for is one
// of MCPHeaders. Empty list elements are tolerated (RFC 9110 §5.6.1).
func (c *corsPolicy) allowedHeaders(values []string) bool {
	n := 0
	for _, v := range values {
		if n += len(v); n > maxRequestHeaders {
			return false
		}
		for name := range strings.SplitSeq(v, ",") {
			name = strings.ToLower(strings.Trim(name, " \t"))
			if name != "" && !c.headers[name] {
				return false
			}
		}
	}
	return true
}

// corsMethod reports whether a cross-origin request may use method.
func corsMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodDelete:
		return true
	}
	return false
}
