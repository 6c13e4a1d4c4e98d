package authserver

import (
	"net/url"
	"testing"
)

// FuzzRedirectMatches checks the redirect-URI rules hold for any input: a
// requested URI that matches a registered one is itself valid, and differs
// from it at most in the port of a loopback http URI.
func FuzzRedirectMatches(f *testing.F) {
	for _, s := range [][2]string{
		{"https://app.example.com/cb", "https://app.example.com/cb"},
		{"https://app.example.com/cb", "https://app.example.com@evil.example/cb"},
		{"http://127.0.0.1:8000/cb", "http://127.0.0.1:53122/cb"},
		{"http://127.0.0.1:8000/cb", "http://127.0.0.1:8000/cb#x"},
		{"http://localhost/cb", "http://localhost:1/cb?x"},
		{"http://[::1]:80/cb", "http://[::1]:x/cb"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, registered, requested string) {
		if validateRedirectURI(registered) != nil {
			return
		}
		c := &client{RedirectURIs: []string{registered}}
		if !c.allowsRedirect(requested) {
			return
		}
		if err := validateRedirectURI(requested); err != nil {
			t.Fatalf("%q allowed for %q but invalid: %v", requested, registered, err)
		}
		if requested == registered {
			return
		}
		ru, _ := url.Parse(registered)
		qu, _ := url.Parse(requested)
		if ru.Scheme != "http" || qu.Scheme != "http" || !isLoopbackHost(ru.Hostname()) ||
			ru.Hostname() != qu.Hostname() || ru.EscapedPath() != qu.EscapedPath() || ru.RawQuery != qu.RawQuery {
			t.Fatalf("%q allowed for %q", requested, registered)
		}
	})
}
