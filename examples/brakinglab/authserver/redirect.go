package authserver

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// validateRedirectURI accepts https URLs and http URLs on a loopback host
// (127.0.0.1, [::1], localhost), without fragment or user info.
func validateRedirectURI(raw string) error {
	if raw == "" || len(raw) > 2000 {
		return fmt.Errorf("%w: must be a non-empty URL of at most 2000 bytes", ErrInvalidRedirectURI)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %q does not parse", ErrInvalidRedirectURI, raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("%w: %q must not contain a fragment", ErrInvalidRedirectURI, raw)
	}
	if u.User != nil {
		return fmt.Errorf("%w: %q must not contain user info", ErrInvalidRedirectURI, raw)
	}
	if u.Opaque != "" || u.Host == "" {
		return fmt.Errorf("%w: %q must be an absolute URL with a host", ErrInvalidRedirectURI, raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("%w: %q uses http on a non-loopback host; use https, or http://127.0.0.1, http://[::1] or http://localhost", ErrInvalidRedirectURI, raw)
	default:
		return fmt.Errorf("%w: %q must use https (or http on a loopback host)", ErrInvalidRedirectURI, raw)
	}
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redirectMatches reports whether a requested redirect URI matches a
// registered one. The match is exact, except that for http loopback
// redirect URIs the port may differ, because native apps pick a free port
// at run time (RFC 8252 §7.3). Scheme, host, path and query still match
// byte for byte.
func redirectMatches(registered, requested string) bool {
	if registered == requested {
		return true
	}
	ru, err1 := url.Parse(registered)
	qu, err2 := url.Parse(requested)
	if err1 != nil || err2 != nil {
		return false
	}
	if ru.Scheme != "http" || qu.Scheme != "http" || !isLoopbackHost(ru.Hostname()) {
		return false
	}
	if qu.User != nil || qu.Fragment != "" || strings.Contains(requested, "#") {
		return false
	}
	return ru.Hostname() == qu.Hostname() &&
		ru.EscapedPath() == qu.EscapedPath() &&
		ru.RawQuery == qu.RawQuery &&
		ru.ForceQuery == qu.ForceQuery &&
		validPort(qu.Port())
}

func validPort(p string) bool {
	if p == "" {
		return true
	}
	if len(p) > 5 {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
