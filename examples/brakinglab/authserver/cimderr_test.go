package authserver

import (
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/logtest"
)

// A failed metadata-document fetch must not tell the browser why the
// connection failed (that would reveal the port state of public hosts);
// the detail goes to the log.
func TestCIMDFetchErrorIsGeneric(t *testing.T) {
	host := newCIMDHost(t)
	// A port with nothing listening: the fetch gets "connection refused".
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	var logs logtest.Buffer
	e := newEnv(t, &Options{HTTPClient: host.ts.Client(), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for _, u := range []string{
		"https://" + closed + "/client.json", // connection refused
		host.ts.URL + "/missing.json",        // HTTP 404
	} {
		v := e.authParams(u, "http://127.0.0.1:4000/cb", newPKCE())
		p := get(t, browser(), e.URL()+"/authorize?"+v.Encode())
		if p.Status != 400 || p.Location != "" {
			t.Fatalf("%s: status %d, Location %q", u, p.Status, p.Location)
		}
		if !strings.Contains(p.Body, "could not fetch the client&#39;s metadata document") {
			t.Errorf("%s: page lacks the generic message: %s", u, p.Body)
		}
		// The page names the document's URL; its port may contain "404".
		shown := strings.ReplaceAll(p.Body, u, "")
		for _, leak := range []string{"refused", "dial", "connection", "404", "HTTP"} {
			if strings.Contains(shown, leak) {
				t.Errorf("%s: page shows %q: %s", u, leak, p.Body)
			}
		}
	}
	if l := logs.String(); !strings.Contains(l, "connection refused") || !strings.Contains(l, "404") {
		t.Errorf("log lacks the fetch details:\n%s", l)
	}
}
