package main

import (
	"net"
	"net/http"

	"github.com/realclientip/realclientip-go"
)

// clientAddress returns how BrakingLab names the client behind a request
// for the limits it keeps per client address (failed authentication, the
// sign-in's password-guess throttle and pending sign-ins, the approval
// page), or nil when no proxy is trusted: then the SDK and the sign-in
// server use the peer address. A request whose peer is one of the trusted
// proxies is named by the right-most X-Forwarded-For entry that is not a
// trusted proxy itself (the address the first proxy saw); a request from
// any other peer by its peer address, whatever headers it carries, since
// a client can set them.
func clientAddress(trusted []net.IPNet) func(*http.Request) string {
	if len(trusted) == 0 {
		return nil
	}
	forwarded, err := realclientip.NewRightmostTrustedRangeStrategy("X-Forwarded-For", trusted)
	if err != nil {
		panic(err) // the header name is one the strategy accepts
	}
	return func(r *http.Request) string {
		peer := realclientip.RemoteAddrStrategy{}.ClientIP(nil, r.RemoteAddr)
		if peer == "" {
			return r.RemoteAddr
		}
		host, _ := realclientip.SplitHostZone(peer)
		if ip := net.ParseIP(host); ip != nil && inRanges(ip, trusted) {
			if c := forwarded.ClientIP(r.Header, r.RemoteAddr); c != "" {
				return c
			}
		}
		return peer
	}
}

func inRanges(ip net.IP, ranges []net.IPNet) bool {
	for _, n := range ranges {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}
