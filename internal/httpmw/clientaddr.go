package httpmw

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// ForwardedFor returns a client address function (codemode's
// HTTPOptions.ClientAddress) for a server behind
// reverse proxies or tunnels you run, given as addresses or CIDR ranges
// ("127.0.0.1", "10.0.0.0/8"). A request whose peer is one of them is named
// by the right-most X-Forwarded-For entry that is not itself one of them:
// the address the first of your proxies saw, whatever the client wrote to
// the left of it. A request from any other peer is named by its peer
// address, whatever headers it carries, since a client can set them.
//
// Every proxy named must append the address it saw to X-Forwarded-For
// (nginx: proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for) or
// replace the header with it. One that passes the client's header on
// unchanged, such as a plain TCP forwarder, lets each client choose its
// address and so its own budget; so does a range that clients connect
// from. Name only your proxies.
//
// With no trusted proxies it returns nil, which codemode reads as the
// peer address. It fails on an entry that is neither an address nor a range.
func ForwardedFor(trusted ...string) (func(r *http.Request) string, error) {
	var ranges []string
	for _, t := range trusted {
		if t = strings.TrimSpace(t); t != "" {
			ranges = append(ranges, t)
		}
	}
	if len(ranges) == 0 {
		return nil, nil
	}
	var nets []netip.Prefix
	for _, rg := range ranges {
		n, err := TrustedRanges([]string{rg})
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is neither an IP address nor a CIDR range (without a zone)", rg)
		}
		nets = append(nets, n...)
	}
	return func(r *http.Request) string {
		peer, ok := ParseIP(r.RemoteAddr)
		if !ok {
			return r.RemoteAddr
		}
		if InRanges(peer, nets) {
			if c := RightmostUntrusted(r.Header, nets); c != "" {
				return c
			}
		}
		return peer.String()
	}, nil
}

// AddrKey groups a client address for a limit: an IPv4 address (also
// written IPv4-mapped) as itself, an IPv6 address by its /64, which one
// subscriber usually holds whole (else each of its 2^64 addresses would
// have a budget of its own), without its zone. Anything that is not an
// address is kept as it is.
func AddrKey(a string) string {
	ip, err := netip.ParseAddr(a)
	if err != nil {
		return a
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
