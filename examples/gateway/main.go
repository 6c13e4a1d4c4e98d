// Command gateway serves one code-mode MCP endpoint over the MCP servers
// of a Claude Desktop or Claude Code configuration file: each server is a
// namespace, so one script can read from one and write to another.
//
//	go run ./examples/gateway -config servers.json -stdio
//	go run ./examples/gateway -config servers.json -addr 127.0.0.1:8080 -dev-user me
//	go run ./examples/gateway -config servers.json -addr :8080 -url https://gw.example.com -issuer https://login.example.com
//
// Over -stdio it serves one local user. Over HTTP it verifies OAuth
// bearer tokens from -issuer (JWTs whose audience is the -url endpoint),
// or, with -dev-user, acts as that user for requests from loopback only.
// Calls of tools an upstream marks destructive, or does not say whether
// they are, wait for the user's approval; a server's entry may set
// "unannotated": "CREATIVE" (or "READ-ONLY") to trust its tools that do
// not say. The file may also hold "openapi" entries beside
// "mcpServers": HTTP APIs by their OpenAPI description (spec, baseUrl,
// headers, namespace), each a namespace too, whose PUT, PATCH and DELETE
// operations wait for the user's approval.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	config := fs.String("config", "servers.json", `the {"mcpServers": {...}} file of Claude Desktop or Claude Code, optionally with "openapi": {...} entries for HTTP APIs`)
	stdio := fs.Bool("stdio", false, "serve one local user over stdin and stdout instead of HTTP")
	addr := fs.String("addr", "127.0.0.1:8080", "HTTP listen address")
	public := fs.String("url", "", "the public base URL of the HTTP endpoint (default http://<addr>)")
	issuer := fs.String("issuer", "", "the OAuth issuer whose JWT access tokens are accepted (HTTP)")
	devUser := fs.String("dev-user", "", "without -issuer: act as this user for HTTP requests from loopback (development); with -stdio: who the local user is (default: $USER)")
	proxies := fs.String("trusted-proxies", "", "with -issuer: reverse proxies you run, as comma-separated addresses or CIDR ranges; for their requests the client address that failed tokens are limited by is the one they append to X-Forwarded-For, which each must append, not pass on (default: the peer address)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	clientAddress, err := codemode.ForwardedFor(strings.Split(*proxies, ",")...)
	if err != nil {
		return fmt.Errorf("-trusted-proxies: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ups, err := ReadConfig(*config)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	opts := &codemode.Options{Name: "gateway", Title: "Code mode over " + keys(ups), Logger: log, OpenWorld: true, HTTP: codemode.HTTPOptions{ClientAddress: clientAddress}}
	var ln net.Listener
	switch {
	case *stdio:
		user := *devUser
		if user == "" {
			user = os.Getenv("USER")
		}
		if user == "" {
			user = "local"
		}
		opts.Principal = &catalog.Principal{Subject: user}
	case *issuer != "":
		if ln, err = net.Listen("tcp", *addr); err != nil {
			return err
		}
		base := strings.TrimSuffix(*public, "/")
		if base == "" {
			base = "http://" + ln.Addr().String()
		}
		resource := base + codemode.DefaultMCPPath
		v, err := jwtverify.New(*issuer, resource, nil)
		if err != nil {
			return fmt.Errorf("-issuer: %w", err)
		}
		opts.Auth = &codemode.Auth{Verifier: v, Resource: resource, AuthorizationServers: []string{*issuer}}
	case *devUser != "":
		opts.Principal = &catalog.Principal{Subject: *devUser}
	default:
		return errors.New("say who the users are: -issuer URL (OAuth bearer tokens), -dev-user NAME (loopback development) or -stdio")
	}

	g, err := Open(ctx, ups, opts, log)
	if err != nil {
		return err
	}
	defer g.Close()
	if *stdio {
		return g.Server.ServeStdio(ctx, *opts.Principal)
	}
	if ln == nil {
		if ln, err = net.Listen("tcp", *addr); err != nil {
			return err
		}
	}
	hs := &http.Server{Handler: g.Server.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	// The test harness and scripts read the address from this line.
	log.Info("gateway: serving", "url", "http://"+ln.Addr().String()+codemode.DefaultMCPPath, "namespaces", namespaces(ups))
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func keys(ups []Upstream) string {
	var k []string
	for _, u := range ups {
		k = append(k, u.Key)
	}
	return strings.Join(k, ", ")
}

func namespaces(ups []Upstream) string {
	var k []string
	for _, u := range ups {
		k = append(k, u.Namespace)
	}
	return strings.Join(k, ",")
}
