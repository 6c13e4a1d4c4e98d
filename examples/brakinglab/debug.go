package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// serveDebug serves net/http/pprof on a loopback address until ctx ends.
// It is a hidden operator setting (-debug-addr): the soak test reads the
// goroutine count from /debug/pprof/goroutine?debug=1, and an operator can
// take a heap or CPU profile of a running server. It uses its own mux, so
// nothing of it is reachable through the MCP listener.
func serveDebug(ctx context.Context, addr string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Warn("debug listener stopped", "err", err)
		}
	}()
	log.Info("debug listener (pprof)", "addr", ln.Addr().String())
	return nil
}
