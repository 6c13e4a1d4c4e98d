package health_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/health"
)

func get(t *testing.T, h http.Handler, path string) (int, health.Report) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
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
	}, nil)

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
	}, &health.Options{Timeout: 50 * time.Millisecond})
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
