package codemode

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/httpmw"
	"github.com/brakinglab/codemode-go/sandbox"
)

// ErrNoIdentity is returned by New when Options has neither Auth nor
// Principal and the catalog does not allow anonymous calls: no HTTP
// request could ever be authorized, and every call would fail with "sign
// in" although there is nothing to sign in to.
var ErrNoIdentity = errors.New("codemode: no identity for HTTP requests: set Options.Auth to verify OAuth bearer tokens, " +
	"or Options.Principal to act as one user from loopback (development, tests, stdio-only servers)")

// ErrWorkerStart is wrapped by New when the sandbox cannot start a worker
// process; see [Options.WorkerPath].
var ErrWorkerStart = sandbox.ErrWorkerStart

// checkIdentity refuses settings that leave HTTP requests without a
// usable identity, or with two.
func checkIdentity(cat *catalog.Catalog, o *Options) error {
	switch {
	case o.Auth != nil && o.Principal != nil:
		return errors.New("codemode: Options.Auth and Options.Principal are both set: Principal is for serving without authentication; remove one")
	case o.Auth == nil && o.Principal == nil && !cat.AllowsAnonymous():
		return ErrNoIdentity
	case o.Principal == nil && o.InsecureRemotePrincipal:
		return errors.New("codemode: Options.InsecureRemotePrincipal is set without Options.Principal")
	}
	return nil
}

// verifierIdentity is what a verifier may say about the tokens it accepts;
// oauthmeta's verifiers say both.
type (
	audienced interface{ Resource() string }
	issued    interface{ Issuer() string }
)

// checkAuthConsistency refuses Auth settings that contradict the
// verifier's: every token would then be refused at run time with a 401
// that says nothing about the configuration.
func checkAuthConsistency(a *Auth) error {
	if v, ok := a.Verifier.(audienced); ok && v.Resource() != a.Resource {
		return fmt.Errorf("codemode: Auth.Resource is %q but the verifier requires the audience %q%s: "+
			"tokens for one would be refused by the other; use the same canonical URI for both",
			a.Resource, v.Resource(), slashNote(a.Resource, v.Resource()))
	}
	if v, ok := a.Verifier.(issued); ok {
		iss := v.Issuer()
		found := false
		for _, s := range a.AuthorizationServers {
			if s == iss {
				found = true
				break
			}
		}
		if !found {
			note := ""
			for _, s := range a.AuthorizationServers {
				if n := slashNote(s, iss); n != "" {
					note = n
				}
			}
			return fmt.Errorf("codemode: Auth.AuthorizationServers %q do not include the verifier's issuer %q%s: "+
				"clients would get tokens from a server whose tokens are refused; list the issuer exactly as it appears in its tokens' iss claim",
				a.AuthorizationServers, iss, note)
		}
	}
	return nil
}

// slashNote points out when a and b differ only by a trailing slash.
func slashNote(a, b string) string {
	if a != b && strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") {
		return " (they differ only by a trailing slash, which counts)"
	}
	return ""
}

// checkWorker starts one worker before New returns: a host binary that
// cannot run as a worker (typically a package initialiser that needs the
// host's environment) is reported now instead of failing every execution.
func checkWorker(sb *sandbox.Sandbox) error {
	err := sb.CheckWorker()
	if err == nil {
		return nil
	}
	return fmt.Errorf("codemode: %w\n"+
		"Workers re-execute this binary with an empty environment, so its package initialisers run in them before the sandbox takes over. "+
		"Either move the side effect (reading a required environment variable, opening a connection) from package-level variables and init functions into main, "+
		"or build a separate worker binary that imports the sandbox package without it and set Options.WorkerPath", err)
}

// loopbackOnly answers 403 to requests from a non-loopback peer: without
// Auth, every request acts as Options.Principal, which must not be
// reachable from the network by accident.
func loopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ip := net.ParseIP(httpmw.RemoteIP(r)); ip == nil || !ip.IsLoopback() {
			http.Error(w, "forbidden: this server runs without authentication (codemode Options.Principal) and only accepts requests from loopback; "+
				"its operator must configure Options.Auth to serve other machines", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
