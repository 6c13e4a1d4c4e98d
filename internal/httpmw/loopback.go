package httpmw

import (
	"net"
	"net/http"
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
