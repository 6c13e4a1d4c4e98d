package httpmw

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// TrustedRanges parses proxies given as IP addresses or CIDR ranges
// ("10.0.0.2", "10.0.0.0/8", "2001:db8::/32"); an address is the range of
// itself. Zones ("fe80::1%eth0") are refused: a range cannot hold them.
// IPv4-mapped IPv6 addresses are read as IPv4.
func TrustedRanges(entries []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(entries))
	for _, e := range entries {
		if strings.Contains(e, "%") {
			return nil, fmt.Errorf("%q: zones are not allowed", e)
		}
		if strings.Contains(e, "/") {
			p, err := netip.ParsePrefix(e)
			if err != nil {
				return nil, err
			}
			if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
				p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil {
			return nil, err
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// RightmostUntrusted returns the right-most address of the request's
// X-Forwarded-For headers (all of them, in order) that is not in trusted:
// the address the first trusted proxy saw. It returns "" when every entry
// is trusted, when there is none, or when the entry it reaches is not an
// address (a client cannot then pick its address with garbage).
func RightmostUntrusted(h http.Header, trusted []netip.Prefix) string {
	var items []string
	for _, v := range h.Values("X-Forwarded-For") {
		items = append(items, strings.Split(v, ",")...)
	}
	for i := len(items) - 1; i >= 0; i-- {
		a, ok := ParseIP(strings.TrimSpace(items[i]))
		if !ok {
			return ""
		}
		if !InRanges(a, trusted) {
			return a.String()
		}
	}
	return ""
}

// InRanges reports whether a (its zone ignored, IPv4-mapped read as IPv4)
// is in one of ranges.
func InRanges(a netip.Addr, ranges []netip.Prefix) bool {
	a = a.WithZone("").Unmap()
	for _, p := range ranges {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParseIP reads the address of an http.Request.RemoteAddr or of an
// X-Forwarded-For entry: "ip", "ip:port", "[ip]:port" or "[ip]", with an
// optional zone. The unspecified addresses (0.0.0.0, ::) are refused: they name no
// client. IPv4-mapped IPv6 addresses become IPv4.
func ParseIP(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.IsUnspecified() {
		return netip.Addr{}, false
	}
	if a.Is4In6() {
		a = a.Unmap()
	}
	return a, true
}
