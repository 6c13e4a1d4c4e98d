package health_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/brakinglab/codemode-go/health"
)

func ExampleMount() {
	mux := http.NewServeMux()
	health.Mount(mux, map[string]health.Check{
		// A host passes its own checks: db.PingContext, codemode's
		// Server.CheckWorker.
		"database": func(context.Context) error { return errors.New("dial tcp 10.0.0.5:5432: connection refused") },
	}, &health.Options{
		// The error goes to the log, not to the anonymous caller.
		Logger: slog.New(slog.DiscardHandler),
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, path := range []string{"/healthz", "/readyz"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Printf("%s %d %s", path, res.StatusCode, body)
	}
	// Output:
	// /healthz 200 {"status":"ok"}
	// /readyz 503 {"status":"not ready"}
}
