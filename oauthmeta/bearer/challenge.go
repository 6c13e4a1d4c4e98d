package bearer

import (
	"strings"
)

// Error codes of RFC 6750 §3.1, used in challenges and JSON error bodies.
const (
	ErrorInvalidRequest    = "invalid_request"
	ErrorInvalidToken      = "invalid_token"
	ErrorInsufficientScope = "insufficient_scope"
)

// Challenge is one RFC 6750 Bearer challenge, the value of a
// WWW-Authenticate response header. Empty fields are left out.
type Challenge struct {
	// Error is an RFC 6750 error code such as [ErrorInvalidToken].
	Error string
	// Description is a short human-readable explanation (error_description).
	Description string
	// Scope lists the scopes needed for the request (space-joined).
	Scope []string
	// ResourceMetadata is the absolute URL of the RFC 9728 protected-resource
	// metadata, which clients use to find the authorization server.
	ResourceMetadata string
}

// String renders the challenge, e.g.
//
//	Bearer error="invalid_token", error_description="token expired", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp"
//
// Values are always quoted strings. Quotes are escaped as quoted-pairs; a
// backslash, control character or non-ASCII character is replaced by '?',
// because RFC 6750 allows none of them in these parameters and a stray
// backslash confuses common parsers. The output is therefore always a
// single safe header line.
func (c Challenge) String() string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	param := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		writeQuoted(&b, value)
		b.WriteByte('"')
		sep = ", "
	}
	param("error", c.Error)
	param("error_description", c.Description)
	param("scope", strings.Join(c.Scope, " "))
	param("resource_metadata", c.ResourceMetadata)
	return b.String()
}

// writeQuoted writes s as the inside of an RFC 9110 quoted-string.
func writeQuoted(b *strings.Builder, s string) {
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\' || r < 0x20 || r >= 0x7f:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
}
