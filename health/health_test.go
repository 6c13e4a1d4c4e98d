package health_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/health"
	"github.com/brakinglab/codemode-go/internal/logtest"
)

// operator is the header an authorized caller sends in these tests.
const operator = "Bearer operator-token"

func isOperator(r *http.Request) bool { return r.Header.Get("Authorization") == operator }

func get(t *testing.T, h http.Handler, path string) (int, health.Report) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", operator)
	h.ServeHTTP(rec, req)
	var rep health.Report
	if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil {
		t.Fatalf("%s: %v: %q", path, err, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	return rec.Code, rep
}

func TestReadinessFollowsChecks(t *testing.T) {
	var dbDown atomic.Bool
	mux := http.NewServeMux()
	health.Mount(mux, map[string]health.Check{
		"database": func(context.Context) error {
			if dbDown.Load() {
				return errors.New("connection refused")
			}
			return nil
		},
		"sandbox": func(context.Context) error { return nil },
	}, &health.Options{Authorize: isOperator, Logger: slog.New(slog.DiscardHandler)})

	if code, rep := get(t, mux, "/healthz"); code != 200 || rep.Status != "ok" {
		t.Fatalf("/healthz: %d %+v", code, rep)
	}
	if code, rep := get(t, mux, "/readyz"); code != 200 || rep.Status != "ready" || rep.Checks["database"] != "ok" || rep.Checks["sandbox"] != "ok" {
		t.Fatalf("/readyz: %d %+v", code, rep)
	}
	dbDown.Store(true)
	if code, rep := get(t, mux, "/readyz"); code != 503 || rep.Status != "not ready" || rep.Checks["database"] != "connection refused" || rep.Checks["sandbox"] != "ok" {
		t.Fatalf("/readyz with the database down: %d %+v", code, rep)
	}
	// Liveness does not depend on the checks.
	if code, _ := get(t, mux, "/healthz"); code != 200 {
		t.Fatalf("/healthz with the database down: %d", code)
	}
}

// A check that hangs or panics fails at the timeout; the probe answers.
func TestReadinessTimeoutAndPanic(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	h := health.Readiness(map[string]health.Check{
		"stuck":  func(context.Context) error { <-release; return nil },
		"broken": func(context.Context) error { panic("boom") },
	}, &health.Options{Timeout: 50 * time.Millisecond, Authorize: isOperator, Logger: slog.New(slog.DiscardHandler)})
	code, rep := get(t, h, "/readyz")
	if code != 503 || rep.Checks["stuck"] != "no answer within 50ms" || rep.Checks["broken"] != "check panicked" {
		t.Fatalf("%d %+v", code, rep)
	}
}

// CacheFor reuses a verdict instead of running the checks again.
func TestReadinessCache(t *testing.T) {
	var runs atomic.Int32
	h := health.Readiness(map[string]health.Check{
		"db": func(context.Context) error { runs.Add(1); return nil },
	}, &health.Options{CacheFor: time.Hour})
	for range 3 {
		if code, _ := get(t, h, "/readyz"); code != 200 {
			t.Fatalf("code %d", code)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("check ran %d times, want 1", n)
	}
}

// TestReadinessDisclosesNothing probes a real server on loopback whose
// database check fails with a driver's error naming the user, database
// and host:port: an anonymous caller reads the verdict alone, the log
// has the error once (not once per probe), and an operator admitted by
// Authorize reads the details.
func TestReadinessDisclosesNothing(t *testing.T) {
	const dsnErr = "failed to connect to `user=brakinglab database=laps`: 10.1.2.3:5432 (db.internal): dial error: connection refused"
	var logs logtest.Buffer
	mux := http.NewServeMux()
	health.Mount(mux, map[string]health.Check{
		"database": func(context.Context) error { return errors.New(dsnErr) },
		"sandbox":  func(context.Context) error { return nil },
	}, &health.Options{Authorize: isOperator, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	probe := func(auth string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/readyz", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(b))
	}
	for _, auth := range []string{"", "Bearer wrong", ""} {
		code, body := probe(auth)
		if code != http.StatusServiceUnavailable || body != `{"status":"not ready"}` {
			t.Fatalf("anonymous /readyz (Authorization %q): %d %s", auth, code, body)
		}
	}
	if n := strings.Count(logs.String(), "10.1.2.3:5432"); n != 1 {
		t.Fatalf("the failure is logged %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "check=database") || !strings.Contains(logs.String(), "user=brakinglab") {
		t.Fatalf("the log lacks the check's name or error:\n%s", logs.String())
	}
	code, body := probe(operator)
	var rep health.Report
	if err := json.Unmarshal([]byte(body), &rep); err != nil || code != 503 || rep.Checks["database"] != dsnErr || rep.Checks["sandbox"] != "ok" {
		t.Fatalf("operator /readyz: %d %s", code, body)
	}
}

// Without Authorize nobody gets the details, not even a caller with a
// token.
func TestReadinessWithoutAuthorize(t *testing.T) {
	h := health.Readiness(map[string]health.Check{
		"database": func(context.Context) error { return errors.New("dial tcp 10.0.0.5:5432: connection refused") },
	}, &health.Options{Logger: slog.New(slog.DiscardHandler)})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/readyz", nil)
	req.Header.Set("Authorization", operator)
	h.ServeHTTP(rec, req)
	if got := strings.TrimSpace(rec.Body.String()); rec.Code != 503 || got != `{"status":"not ready"}` {
		t.Fatalf("%d %s", rec.Code, got)
	}
}
