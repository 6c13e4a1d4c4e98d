package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
)

// serveWired parses args, opens BrakingLab's app, lets prepare adjust it
// (nil for nothing), and serves the handler wire builds for boundAddr on a
// loopback test server. Everything is closed when the test ends.
func serveWired(tb testing.TB, boundAddr string, args []string, prepare func(*app)) *httptest.Server {
	tb.Helper()
	cfg, err := parseConfig(args, env(nil), io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	a, err := openApp(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	if prepare != nil {
		prepare(a)
	}
	h, err := a.wire(ctx, boundAddr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.cm.Close() })
	srv := httptest.NewServer(h.handler)
	tb.Cleanup(srv.Close)
	return srv
}
