// Package claims reads the claims of access tokens for oauthmeta/bearer's
// introspection verifier and the JWT verifier of the module
// oauthmeta/jwtverify: one reading of audiences, dates, scopes and client
// ids for both, so that they agree.
package claims

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Header is the part of a JOSE header the verifier looks at.
type Header struct {
	Alg string `json:"alg"`
	Typ string `json:"typ"`
	Kid string `json:"kid"`
}

// ParseUnverified decodes a compact JWS's header and claims without
// checking anything else. Numbers stay json.Number.
func ParseUnverified(token string) (Header, map[string]any, error) {
	var h Header
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return h, nil, errors.New("want three dot-separated parts")
	}
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return h, nil, fmt.Errorf("header: %w", err)
	}
	if err := json.Unmarshal(hb, &h); err != nil {
		return h, nil, fmt.Errorf("header: %w", err)
	}
	pb, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return h, nil, fmt.Errorf("payload: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(pb))
	dec.UseNumber()
	var claims map[string]any
	if err := dec.Decode(&claims); err != nil || claims == nil {
		return h, nil, fmt.Errorf("payload is not a JSON object: %v", err)
	}
	return h, claims, nil
}

// Audiences reads "aud": a string or an array of strings.
func Audiences(v any) ([]string, bool) {
	switch a := v.(type) {
	case string:
		return []string{a}, true
	case []any:
		out := make([]string, 0, len(a))
		for _, e := range a {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// MatchAudience reports whether aud names resource. The comparison is
// exact (RFC 9728 §3.3, RFC 8707): "https://x/mcp/" is not "https://x/mcp".
// The one relaxation is the one oauthex.MatchesResource documents: for a
// resource at the root, an empty path equals "/" (RFC 3986 §6.2.3).
func MatchAudience(aud []string, resource string) bool {
	for _, a := range aud {
		if a == resource {
			return true
		}
	}
	if u, err := url.Parse(resource); err == nil && (u.Path == "" || u.Path == "/") && u.RawQuery == "" {
		return oauthex.MatchesResource(aud, resource)
	}
	return false
}

// NumericDate reads a NumericDate claim (seconds since the epoch).
func NumericDate(c map[string]any, name string) (time.Time, bool) {
	var f float64
	switch n := c[name].(type) {
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return time.Time{}, false
		}
	case float64:
		f = n
	default:
		return time.Time{}, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1<<40 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

// String returns the string claim name, "" when absent or not a string.
func String(c map[string]any, name string) string {
	s, _ := c[name].(string)
	return s
}

// FirstString returns the first non-empty string claim among names.
func FirstString(c map[string]any, names []string) string {
	for _, n := range names {
		if s := String(c, n); s != "" {
			return s
		}
	}
	return ""
}

// Scopes reads the first present scope claim among names: a
// space-separated string or an array of strings.
func Scopes(c map[string]any, names []string) []string {
	for _, n := range names {
		switch v := c[n].(type) {
		case string:
			return strings.Fields(v)
		case []any:
			var out []string
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, strings.Fields(s)...)
				}
			}
			return out
		}
	}
	return nil
}

// Clip shortens a value taken from an untrusted token before it is echoed
// in an error description.
func Clip(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	return strings.ToValidUTF8(s[:limit], "") + "..."
}
