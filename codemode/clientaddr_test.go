package codemode_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
)

func ExampleForwardedFor() {
	// nginx on 10.0.0.2 appends the address it saw to X-Forwarded-For.
	clientAddress, err := codemode.ForwardedFor("10.0.0.2")
	if err != nil {
		panic(err)
	}
	opts := &codemode.Options{HTTP: codemode.HTTPOptions{ClientAddress: clientAddress}}

	for _, req := range []struct{ peer, xff string }{
		{"10.0.0.2:41000", "198.51.100.7"},          // through nginx
		{"10.0.0.2:41000", "1.2.3.4, 198.51.100.7"}, // the client wrote 1.2.3.4 itself
		{"203.0.113.9:5555", "198.51.100.7"},        // around nginx, forging the header
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.RemoteAddr = req.peer
		r.Header.Set("X-Forwarded-For", req.xff)
		fmt.Println(opts.HTTP.ClientAddress(r))
	}
	// Output:
	// 198.51.100.7
	// 198.51.100.7
	// 203.0.113.9
}

func TestForwardedFor(t *testing.T) {
	if f, err := codemode.ForwardedFor(); f != nil || err != nil {
		t.Fatalf("no trusted proxy: %v, %v; want nil, nil (the peer address)", f != nil, err)
	}
	if f, err := codemode.ForwardedFor(" ", ""); f != nil || err != nil {
		t.Fatalf("blank entries: %v, %v; want nil, nil", f != nil, err)
	}
	for _, bad := range []string{"proxy.internal", "10.0.0.0/33", "fe80::1%eth0"} {
		want := fmt.Sprintf("trusted proxy %q is neither an IP address nor a CIDR range", bad)
		if _, err := codemode.ForwardedFor("127.0.0.1", bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ForwardedFor(%q): err = %v, want %q", bad, err, want)
		}
	}
	addr, err := codemode.ForwardedFor("10.0.0.0/8", " 2001:db8::/32")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, peer, xff, want string
	}{
		{"trusted proxy forwards", "10.0.0.5:4000", "198.51.100.7", "198.51.100.7"},
		{"a chain of trusted proxies", "10.0.0.5:4000", "198.51.100.7, 10.1.2.3", "198.51.100.7"},
		{"the client's own entries are not believed", "10.0.0.5:4000", "1.2.3.4, 198.51.100.7", "198.51.100.7"},
		{"IPv6 proxy", "[2001:db8::1]:4000", "2001:db8:ffff::9, 203.0.113.8", "203.0.113.8"},
		{"trusted proxy without the header", "10.0.0.5:4000", "", "10.0.0.5"},
		{"trusted proxy with garbage", "10.0.0.5:4000", "not-an-address", "10.0.0.5"},
		{"direct client forging the header", "203.0.113.9:5555", "198.51.100.7", "203.0.113.9"},
		{"direct client without the header", "203.0.113.9:5555", "", "203.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.peer
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			if got := addr(r); got != tt.want {
				t.Errorf("client address = %q, want %q", got, tt.want)
			}
		})
	}
}
