package bearer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
)

// expectedParam is what a parser must read back for a value written into a
// challenge: quotes survive (escaped), anything RFC 6750 forbids is '?'.
func expectedParam(v string) string {
	var b strings.Builder
	for _, r := range v {
		if r == '\\' || r < 0x20 || r >= 0x7f {
			b.WriteByte('?')
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every challenge the writer produces is one safe header line that go-sdk's
// client parser (the one MCP clients built on go-sdk use) reads back
// exactly.
func FuzzChallenge(f *testing.F) {
	f.Add("invalid_token", `token issuer "x" is not the trusted issuer`, "sessions:read", "https://x/.well-known/oauth-protected-resource/mcp")
	f.Add("insufficient_scope", "a, b=c", `s1 s2,x="y"`, "")
	f.Add("", `ends with backslash\`, "", `https://x/?a="b",c`)
	f.Add("x", "line\r\nSet-Cookie: a=b", "é", "\x00")
	f.Fuzz(func(t *testing.T, code, desc, scope, rm string) {
		c := bearer.Challenge{Error: code, Description: desc, Scope: strings.Fields(scope), ResourceMetadata: rm}
		s := c.String()
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] >= 0x7f {
				t.Fatalf("byte %#x at %d in %q", s[i], i, s)
			}
		}
		cs, err := oauthex.ParseWWWAuthenticate([]string{s})
		if err != nil {
			t.Fatalf("parse %q: %v", s, err)
		}
		if len(cs) != 1 || cs[0].Scheme != "bearer" {
			t.Fatalf("parse %q: %+v", s, cs)
		}
		want := map[string]string{}
		for name, v := range map[string]string{
			"error":             code,
			"error_description": desc,
			"scope":             strings.Join(strings.Fields(scope), " "),
			"resource_metadata": rm,
		} {
			if v != "" {
				want[name] = expectedParam(v)
			}
		}
		if len(cs[0].Params) != len(want) {
			t.Fatalf("parse %q: params %q, want %q", s, cs[0].Params, want)
		}
		for k, v := range want {
			if cs[0].Params[k] != v {
				t.Fatalf("parse %q: %s=%q, want %q", s, k, cs[0].Params[k], v)
			}
		}
	})
}

// The Authorization header parser never panics, returns only RFC 6750
// b64tokens, and classifies every failure.
func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{"Bearer abc.def-ghi_jkl~mno+pqr/stu==", "bearer   x", "Basic dXNlcg==", "Bearer", "Bearer a b", "Bearer ===", "Bearer a=b", "BEARER\tx", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tok, err := bearer.ParseAuthorization(h)
		if err != nil {
			if !errors.Is(err, bearer.ErrNoToken) && !errors.Is(err, bearer.ErrMalformedRequest) {
				t.Fatalf("%q: unclassified error %v", h, err)
			}
			if tok != "" {
				t.Fatalf("%q: token %q with error", h, tok)
			}
			return
		}
		if tok == "" || !strings.Contains(h, tok) {
			t.Fatalf("%q: token %q", h, tok)
		}
		body := strings.TrimRight(tok, "=")
		if body == "" || strings.ContainsFunc(body, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+/", r))
		}) {
			t.Fatalf("%q: %q is not a b64token", h, tok)
		}
		if again, err := bearer.ParseAuthorization("Bearer " + tok); err != nil || again != tok {
			t.Fatalf("round trip of %q: %q, %v", tok, again, err)
		}
	})
}
