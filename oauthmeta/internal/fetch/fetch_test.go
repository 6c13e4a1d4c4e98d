package fetch

import "testing"

func TestURLChecks(t *testing.T) {
	for _, tt := range []struct {
		url                     string
		https, issuer, resource bool
	}{
		{"https://as.example.com", true, true, true},
		{"https://as.example.com/tenant?x=1", true, false, true},
		{"https://x.example.com/mcp#frag", true, false, false},
		{"http://127.0.0.1:8080/mcp", true, true, true},
		{"http://localhost/mcp", true, true, true},
		{"http://as.example.com", false, false, false},
		{"ftp://as.example.com", false, false, false},
		{"/relative", false, false, false},
	} {
		_, issErr := CheckIssuer(tt.url)
		if got := CheckHTTPSOrLoopback(tt.url) == nil; got != tt.https {
			t.Errorf("CheckHTTPSOrLoopback(%q) ok = %v", tt.url, got)
		}
		if got := issErr == nil; got != tt.issuer {
			t.Errorf("CheckIssuer(%q) ok = %v", tt.url, got)
		}
		if got := CheckResource(tt.url) == nil; got != tt.resource {
			t.Errorf("CheckResource(%q) ok = %v", tt.url, got)
		}
	}
}
