package httpmw

import (
	"net/http"
	"testing"
)

func TestTrustedRanges(t *testing.T) {
	got, err := TrustedRanges([]string{"10.0.0.2", "10.1.0.0/16", "2001:db8::/32", "::ffff:192.0.2.1", "10.2.3.4/8"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.2/32", "10.1.0.0/16", "2001:db8::/32", "192.0.2.1/32", "10.0.0.0/8"}
	for i, p := range got {
		if p.String() != want[i] {
			t.Errorf("range %d = %s, want %s", i, p, want[i])
		}
	}
	for _, bad := range []string{"proxy.internal", "10.0.0.0/33", "fe80::1%eth0", "fe80::/10%eth0", "", "1.2.3"} {
		if _, err := TrustedRanges([]string{bad}); err == nil {
			t.Errorf("TrustedRanges(%q) succeeded", bad)
		}
	}
}

func TestParseIP(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.9:5555":         "203.0.113.9",
		"203.0.113.9":              "203.0.113.9",
		"[2001:db8::1]:4000":       "2001:db8::1",
		"[2001:db8::1]":            "2001:db8::1",
		"2001:db8::1":              "2001:db8::1",
		"[fe80::1%eth0]:80":        "fe80::1%eth0",
		"[::ffff:192.0.2.1]:80":    "192.0.2.1",
		"0.0.0.0:80":               "",
		"[::]:80":                  "",
		"@":                        "",
		"not-an-address":           "",
		"010.0.0.1":                "",
		" 203.0.113.9":             "",
		"203.0.113.9:5555:1":       "",
		"[203.0.113.9]:5555:extra": "",
	} {
		a, ok := ParseIP(in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != want {
			t.Errorf("ParseIP(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRightmostUntrusted(t *testing.T) {
	trusted, err := TrustedRanges([]string{"10.0.0.0/8", "2001:db8::/32"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		headers []string
		want    string
	}{
		{"one entry", []string{"198.51.100.7"}, "198.51.100.7"},
		{"client's own entries skipped", []string{"1.2.3.4, 198.51.100.7"}, "198.51.100.7"},
		{"trusted chain", []string{"198.51.100.7, 10.1.2.3,10.0.0.9"}, "198.51.100.7"},
		{"several headers, in order", []string{"1.2.3.4", "198.51.100.7, 10.0.0.3"}, "198.51.100.7"},
		{"with ports and brackets", []string{"[2001:db9::5]:443, [2001:db8::1]:80"}, "2001:db9::5"},
		{"mapped IPv4", []string{"::ffff:198.51.100.7"}, "198.51.100.7"},
		{"garbage reached", []string{"198.51.100.7, junk, 10.0.0.3"}, ""},
		{"garbage beyond the answer", []string{"junk, 198.51.100.7"}, "198.51.100.7"},
		{"all trusted", []string{"10.0.0.1, 10.0.0.2"}, ""},
		{"empty entry", []string{"198.51.100.7, "}, ""},
		{"none", nil, ""},
	} {
		h := http.Header{}
		for _, v := range tt.headers {
			h.Add("X-Forwarded-For", v)
		}
		if got := RightmostUntrusted(h, trusted); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
