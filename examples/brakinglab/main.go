// Command brakinglab is the reference server of codemode-go: a sim-racing
// coaching service whose typed Go functions reach AI clients through one
// MCP tool, execute_code.
//
// With no flags it listens on 127.0.0.1:8080 (MCP at /mcp), creates and
// migrates ./brakinglab.db, seeds demo data on first start, runs the
// development authorization server, and prints how to connect:
//
//	go run ./examples/brakinglab
//	go run ./examples/brakinglab -print-types          # the .d.ts the model sees
//	go run ./examples/brakinglab -stdio -user demo     # one local client over stdio
//
// Run it with -h for every flag; each also reads BRAKINGLAB_<FLAG>.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit code (0 success,
// 1 failure, 2 bad flags).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, errHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "brakinglab: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := runConfig(ctx, cfg, log, stdout); err != nil {
		fmt.Fprintf(stderr, "brakinglab: %v\n", err)
		return 1
	}
	return 0
}

// runConfig runs the mode cfg selects until it finishes or ctx ends.
func runConfig(ctx context.Context, cfg *config, log *slog.Logger, stdout io.Writer) error {
	if cfg.PrintTypes {
		// The declarations depend only on the catalog's Go types: build it
		// on a throwaway database, so printing never creates or seeds -db.
		dir, err := os.MkdirTemp("", "brakinglab-types-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c := *cfg
		c.DB, c.NoDemo = filepath.Join(dir, "types.db"), true
		cfg = &c
	}
	var ln net.Listener
	if !cfg.PrintTypes && !cfg.Stdio {
		var err error
		if ln, err = listen(cfg.Addr); err != nil {
			return err
		}
	}
	var obs *observability
	if !cfg.PrintTypes {
		var err error
		if obs, err = setupOTel(ctx, os.Getenv, cfg.Stdio, cfg.Metrics); err != nil {
			if ln != nil {
				ln.Close()
			}
			return err
		}
		defer func() {
			// Spans still batched go out before the process ends.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := obs.close(sctx); err != nil {
				log.Warn("flushing telemetry", "err", err)
			}
		}()
	}
	a, err := openApp(ctx, cfg, log)
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		return err
	}
	if obs != nil {
		a.metrics = obs.metrics
	}
	defer func() {
		if err := a.Close(); err != nil {
			log.Warn("closing the database", "err", err)
		}
	}()
	switch {
	case cfg.PrintTypes:
		return a.printTypes(ctx, stdout)
	case cfg.Stdio:
		return a.serveStdio(ctx)
	}
	h, err := a.newHTTPServer(ctx, ln)
	if err != nil {
		return err
	}
	if cfg.DebugAddr != "" {
		if err := serveDebug(ctx, cfg.DebugAddr, log); err != nil {
			return fmt.Errorf("-debug-addr: %w", err)
		}
	}
	printBanner(stdout, cfg, h, a.users)
	err = h.serve(ctx, log)
	if err == nil {
		log.Info("stopped cleanly; database closed", "db", cfg.dbName())
	}
	return err
}

// printBanner tells a person how to connect. Tests parse the "MCP URL:"
// line and the "name (password: …)" lines, and wait for the last line.
func printBanner(w io.Writer, cfg *config, h *httpServer, users []demoLogin) {
	fmt.Fprintf(w, "BrakingLab is running.\n")
	fmt.Fprintf(w, "  MCP URL:      %s\n", h.mcpURL)
	switch {
	case cfg.NoAuth:
		fmt.Fprintf(w, "  Sign-in:      OFF (-insecure-no-auth): every request acts as %q; loopback only\n", cfg.User)
	case h.builtin:
		fmt.Fprintf(w, "  Sign-in:      development authorization server, issuer %s\n", h.issuer)
	default:
		fmt.Fprintf(w, "  Sign-in:      tokens from %s\n", h.issuer)
	}
	if h.builtin {
		if len(users) == 0 {
			fmt.Fprintf(w, "  Users:        none yet (started with -no-demo); add some with the store package\n")
		}
		for i, u := range users {
			label := "  Demo users:   "
			if i > 0 {
				label = "                "
			}
			fmt.Fprintf(w, "%s%s (password: %s)\n", label, u.Username, u.Password)
		}
	}
	fmt.Fprintf(w, "  Database:     %s\n", cfg.dbName())
	fmt.Fprintf(w, "  Types:        go run ./examples/brakinglab -print-types\n")
	fmt.Fprintf(w, "  Claude Code:  claude mcp add --transport http brakinglab %s\n", h.mcpURL)
	fmt.Fprintf(w, "  Inspector:    npx @modelcontextprotocol/inspector  (Streamable HTTP, %s)\n", h.mcpURL)
	fmt.Fprintf(w, "Press Ctrl+C to stop.\n")
}
