package httpmw

import "testing"

func TestAddrKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"198.51.100.7", "198.51.100.7"},
		{"::ffff:198.51.100.7", "198.51.100.7"},       // IPv4-mapped: the same client as IPv4
		{"2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"}, // one subscriber's /64
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"}, // the next /64 is someone else
		{"fe80::1%eth0", "fe80::/64"},            // no zone
		{"@", "@"},                               // a Unix socket's peer
		{"not an address", "not an address"},
	} {
		if got := AddrKey(tt.in); got != tt.want {
			t.Errorf("AddrKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
