package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/logtest"
)

// TestReadinessDisclosesNothing serves BrakingLab on loopback, makes its
// database fail, and probes /readyz anonymously: the answer is the verdict
// alone, and the database's error is in the server's log. (The e2e test
// TestReadinessFollowsDatabase does the same with PostgreSQL stopped,
// whose driver error names the user, database and host:port.)
func TestReadinessDisclosesNothing(t *testing.T) {
	var logs logtest.Buffer
	var opened *app
	srv := serveWired(t, "127.0.0.1:0", []string{"-db", t.TempDir() + "/bl.db", "-insecure-no-auth"}, func(a *app) {
		a.log = slog.New(slog.NewTextHandler(&logs, nil))
		opened = a
	})
	probe := func() (int, string) {
		t.Helper()
		res, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	if code, body := probe(); code != 200 || body != `{"status":"ready"}` {
		t.Fatalf("/readyz: %d %s", code, body)
	}
	if err := opened.store.DB().Close(); err != nil {
		t.Fatal(err)
	}
	for {
		code, body := probe()
		if code == 200 {
			time.Sleep(50 * time.Millisecond) // the verdict is cached for a second
			continue
		}
		if code != 503 || body != `{"status":"not ready"}` {
			t.Fatalf("/readyz with the database closed: %d %s", code, body)
		}
		break
	}
	if !strings.Contains(logs.String(), "check=database") || !strings.Contains(logs.String(), "database is closed") {
		t.Fatalf("the failure is not in the log:\n%s", logs.String())
	}
}
