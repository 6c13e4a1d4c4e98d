package httpmw

import (
	"net"
	"net/http"

	"github.com/brakinglab/codemode-go/catalog"
)

// LoopbackOnly answers 403 to requests from a non-loopback peer: a server
// without authentication acts for its configured principal (codemode's
// Options.Principal) on every request, which must not be reachable from
// the network by accident.
func LoopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ip := net.ParseIP(RemoteIP(r)); ip == nil || !ip.IsLoopback() {
			http.Error(w, "forbidden: this server runs without authentication (codemode Options.Principal) and only accepts requests from loopback; "+
				"its operator must configure Options.Auth to serve other machines", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// AsPrincipal gives every request p (catalog.WithPrincipal): a server
// without authentication that acts for its configured principal. Unless
// remote, it serves loopback peers only (LoopbackOnly).
func AsPrincipal(p catalog.Principal, remote bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		h := http.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(catalog.WithPrincipal(r.Context(), p)))
		}))
		if !remote {
			h = LoopbackOnly(h)
		}
		return h
	}
}
