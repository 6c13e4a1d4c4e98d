package authserver

import (
	"net/http"
	"testing"
)

// BenchmarkMintAccessToken measures signing one ES256 access token.
func BenchmarkMintAccessToken(b *testing.B) {
	db := openDB(b, b.TempDir()+"/b.db")
	s, err := New(db, demoUsers, &Options{Issuer: "http://127.0.0.1:1", Resource: "http://127.0.0.1:1/mcp"})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.mintAccessToken("user-demo", "dcr_x", []string{ScopeRead, ScopeWrite}, "http://127.0.0.1:1/mcp"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefresh measures one refresh-token rotation over HTTP: lookup,
// compare-and-swap in SQLite, a new refresh token and a signed access token.
func BenchmarkRefresh(b *testing.B) {
	e := newEnv(b, nil)
	clientID, tok := e.login()
	rt := tok.RefreshToken
	b.ResetTimer()
	for b.Loop() {
		r := e.refresh(clientID, rt)
		if r.Status != http.StatusOK {
			b.Fatalf("refresh: %+v", r)
		}
		rt = r.RefreshToken
	}
}
