package httpmw

import (
	"net/http"
	"strconv"

	"github.com/brakinglab/codemode-go/catalog"
)

// Keys names the caller of a request for the limits and the cancellation
// registry. The zero value reads the client address from the peer.
type Keys struct {
	// ClientAddress names the client behind a request (ForwardedFor
	// behind trusted proxies); nil means the peer address.
	ClientAddress func(*http.Request) string
}

// Client names the client behind r for the limits kept per client
// address: ClientAddress, or the peer address, grouped by AddrKey.
func (k Keys) Client(r *http.Request) string {
	if f := k.ClientAddress; f != nil {
		return AddrKey(f(r))
	}
	return AddrKey(RemoteIP(r))
}

// Principal keys the rate limits on the authenticated subject in r's
// context (catalog.PrincipalFrom); anonymous requests fall back to the
// client address.
func (k Keys) Principal(r *http.Request) string {
	if p, ok := catalog.PrincipalFrom(r.Context()); ok && p.Subject != "" {
		return "sub:" + p.Subject
	}
	return "ip:" + k.Client(r)
}

// Owner is whose calls a notifications/cancelled POST may cancel, and
// whose a session is: the same subject through the same client, or,
// without a principal, the same client address (all anonymous callers
// are one principal; the address at least keeps remote strangers apart).
func (k Keys) Owner(r *http.Request) string {
	if p, ok := catalog.PrincipalFrom(r.Context()); ok && p.Subject != "" {
		// Quoted, so no subject and client pair can spell another's key.
		return "sub:" + strconv.Quote(p.Subject) + " client:" + strconv.Quote(p.ClientID)
	}
	return "ip:" + k.Client(r)
}
