package httpmw

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

func TestKeysOwner(t *testing.T) {
	k := Keys{}
	key := func(p *catalog.Principal, remote string) string {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.RemoteAddr = remote
		if p != nil {
			r = r.WithContext(catalog.WithPrincipal(r.Context(), *p))
		}
		return k.Owner(r)
	}
	alice := key(&catalog.Principal{Subject: "alice", ClientID: "c1"}, "10.0.0.1:1000")
	for _, tt := range []struct {
		name string
		got  string
		same bool
	}{
		{"same principal from another address", key(&catalog.Principal{Subject: "alice", ClientID: "c1"}, "10.0.0.2:2000"), true},
		{"same user, another client", key(&catalog.Principal{Subject: "alice", ClientID: "c2"}, "10.0.0.1:1000"), false},
		{"another user", key(&catalog.Principal{Subject: "bob", ClientID: "c1"}, "10.0.0.1:1000"), false},
		{"anonymous from the same address", key(nil, "10.0.0.1:1000"), false},
	} {
		if (tt.got == alice) != tt.same {
			t.Errorf("%s: key %q vs %q", tt.name, tt.got, alice)
		}
	}
	// Separators inside a subject or client id cannot forge another pair.
	a := key(&catalog.Principal{Subject: `a" client:"b`, ClientID: ""}, "")
	b := key(&catalog.Principal{Subject: "a", ClientID: `b" client:"`}, "")
	if a == b {
		t.Errorf("keys collide: %q", a)
	}
	if anon1, anon2 := key(nil, "10.0.0.1:1000"), key(nil, "10.0.0.1:3000"); anon1 != anon2 {
		t.Errorf("anonymous keys differ by port: %q %q", anon1, anon2)
	}
	// With ClientAddress, anonymous callers behind one proxy are told apart
	// by the address it reports.
	k.ClientAddress = func(r *http.Request) string { return r.Header.Get("X-Test-Client") }
	behind := func(client string) string {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.RemoteAddr = "10.0.0.9:1000"
		r.Header.Set("X-Test-Client", client)
		return k.Owner(r)
	}
	if behind("198.51.100.1") == behind("198.51.100.2") {
		t.Errorf("two anonymous clients behind one proxy share the key %q", behind("198.51.100.1"))
	}
}
