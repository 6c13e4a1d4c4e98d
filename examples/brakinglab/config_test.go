package main

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseConfig(t *testing.T) {
	defaults := config{Addr: "127.0.0.1:8080", DB: "brakinglab.db", User: "demo"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want func(c *config)
	}{
		{name: "no flags", want: func(c *config) {}},
		{
			name: "flags",
			args: []string{"-addr", "127.0.0.1:0", "-db", "/tmp/x.db", "-public-url", "https://lab.example/",
				"-origins", "https://a.example, https://b.example", "-no-demo", "-access-token-ttl", "2s"},
			want: func(c *config) {
				c.Addr, c.DB, c.PublicURL = "127.0.0.1:0", "/tmp/x.db", "https://lab.example/"
				c.Origins = []string{"https://a.example", "https://b.example"}
				c.NoDemo, c.TokenTTL = true, 2*time.Second
			},
		},
		{
			name: "environment",
			env: map[string]string{"BRAKINGLAB_ADDR": "localhost:9000", "BRAKINGLAB_DB": "env.db",
				"BRAKINGLAB_NO_DEMO": "true", "BRAKINGLAB_ISSUER": "https://id.example",
				"BRAKINGLAB_AUDIENCE": "https://lab.example/mcp", "BRAKINGLAB_ORIGINS": "https://c.example"},
			want: func(c *config) {
				c.Addr, c.DB, c.NoDemo = "localhost:9000", "env.db", true
				c.Issuer, c.Audience = "https://id.example", "https://lab.example/mcp"
				c.Origins = []string{"https://c.example"}
			},
		},
		{
			name: "trusted proxies",
			env:  map[string]string{"BRAKINGLAB_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8,2001:db8::/32"},
			want: func(c *config) { c.Proxies = []string{"127.0.0.1", "10.0.0.0/8", "2001:db8::/32"} },
		},
		{
			name: "flag beats environment",
			args: []string{"-addr", "127.0.0.1:7000"},
			env:  map[string]string{"BRAKINGLAB_ADDR": "127.0.0.1:9000"},
			want: func(c *config) { c.Addr = "127.0.0.1:7000" },
		},
		{
			name: "stdio as a user",
			args: []string{"-stdio", "-user", "rival", "-addr", "not-checked"},
			want: func(c *config) { c.Stdio, c.User, c.Addr = true, "rival", "not-checked" },
		},
		{
			name: "print types",
			args: []string{"-print-types"},
			want: func(c *config) { c.PrintTypes = true },
		},
		{
			name: "no auth on loopback",
			args: []string{"-insecure-no-auth", "-addr", "[::1]:0", "-conformance-fixtures"},
			want: func(c *config) { c.NoAuth, c.Addr, c.Fixtures = true, "[::1]:0", true },
		},
		{
			name: "no auth on localhost",
			env:  map[string]string{"BRAKINGLAB_INSECURE_NO_AUTH": "1", "BRAKINGLAB_ADDR": "localhost:8080"},
			want: func(c *config) { c.NoAuth, c.Addr = true, "localhost:8080" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, env(tt.env), io.Discard)
			if err != nil {
				t.Fatalf("parseConfig: %v", err)
			}
			want := defaults
			tt.want(&want)
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("got  %+v\nwant %+v", *got, want)
			}
		})
	}
}

func TestParseConfigRejects(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{"debug listener off loopback", []string{"-debug-addr", "0.0.0.0:6060"}, nil, "-debug-addr must be a loopback address"},
		{"no auth on every interface", []string{"-insecure-no-auth", "-addr", ":8080"}, nil, "refuses to listen"},
		{"no auth on 0.0.0.0", []string{"-insecure-no-auth", "-addr", "0.0.0.0:8080"}, nil, "refuses to listen"},
		{"no auth on a LAN address", []string{"-insecure-no-auth", "-addr", "192.168.1.5:8080"}, nil, "refuses to listen"},
		{"no auth on a host name", []string{"-insecure-no-auth", "-addr", "lab.example:8080"}, nil, "refuses to listen"},
		{"no auth from environment", nil, map[string]string{"BRAKINGLAB_INSECURE_NO_AUTH": "true", "BRAKINGLAB_ADDR": "0.0.0.0:1"}, "refuses to listen"},
		{"no auth behind a tunnel", []string{"-insecure-no-auth", "-public-url", "https://lab.example"}, nil, "refuses -public-url"},
		{"no auth with issuer", []string{"-insecure-no-auth", "-issuer", "https://id.example"}, nil, "cannot be combined"},
		{"fixtures need no auth", []string{"-conformance-fixtures"}, nil, "needs -insecure-no-auth"},
		{"audience without issuer", []string{"-audience", "x"}, nil, "-audience needs -issuer"},
		{"issuer not a URL", []string{"-issuer", "id.example"}, nil, "absolute http(s) URL"},
		{"issuer over plain http", []string{"-issuer", "http://id.example"}, nil, "use https"},
		{"public url with a path", []string{"-public-url", "https://x.example/lab"}, nil, "origin only"},
		{"public url with query", []string{"-public-url", "https://x.example/?a=1"}, nil, "query or fragment"},
		{"bad address", []string{"-addr", "8080"}, nil, "want host:port"},
		{"bad port", []string{"-addr", "127.0.0.1:http"}, nil, "port must be a number"},
		{"stdio without user", []string{"-stdio", "-user", ""}, nil, "-user must name a user"},
		{"stdio with no auth", []string{"-stdio", "-insecure-no-auth"}, nil, "drop -insecure-no-auth"},
		{"bad env bool", nil, map[string]string{"BRAKINGLAB_NO_DEMO": "maybe"}, "BRAKINGLAB_NO_DEMO"},
		{"negative ttl", []string{"-access-token-ttl", "-1s"}, nil, "must not be negative"},
		{"stray argument", []string{"serve"}, nil, `unexpected argument "serve"`},
		{"unknown flag", []string{"-port", "1"}, nil, "flag provided but not defined"},
		{"trusted proxy not an address", []string{"-trusted-proxies", "127.0.0.1,proxy.internal"}, nil, `-trusted-proxies: trusted proxy "proxy.internal" is neither an IP address nor a CIDR range`},
		{"trusted proxy bad range", []string{"-trusted-proxies", "10.0.0.0/33"}, nil, `-trusted-proxies: trusted proxy "10.0.0.0/33" is neither`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(tt.args, env(tt.env), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestUsageHidesTestFlags(t *testing.T) {
	var out strings.Builder
	_, err := parseConfig([]string{"-h"}, env(nil), &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"-addr", "-public-url", "-issuer", "-stdio", "-print-types", "-insecure-no-auth", "BRAKINGLAB_ADDR"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("usage lacks %q", want)
		}
	}
	for _, hidden := range []string{"access-token-ttl", "conformance-fixtures"} {
		if strings.Contains(out.String(), hidden) {
			t.Errorf("usage shows hidden flag %q", hidden)
		}
	}
}

func TestBaseURL(t *testing.T) {
	tests := []struct {
		publicURL, bound, want string
	}{
		{"", "127.0.0.1:43123", "http://127.0.0.1:43123"},
		{"", "[::1]:80", "http://[::1]:80"},
		{"", "[::]:8080", "http://127.0.0.1:8080"},
		{"https://lab.example/", "127.0.0.1:8080", "https://lab.example"},
	}
	for _, tt := range tests {
		c := &config{PublicURL: tt.publicURL}
		if got := c.baseURL(tt.bound); got != tt.want {
			t.Errorf("baseURL(%q, %q) = %q, want %q", tt.publicURL, tt.bound, got, tt.want)
		}
	}
}

// TestPostgresDBIsRedacted: -db takes a PostgreSQL URL (from the flag or
// BRAKINGLAB_DB), and logs and the banner never show its password.
func TestPostgresDBIsRedacted(t *testing.T) {
	const dsn = "postgres://lab:s3cret@db.internal:5432/brakinglab?sslmode=require"
	for _, c := range []struct {
		args []string
		env  map[string]string
	}{
		{args: []string{"-db", dsn}},
		{env: map[string]string{"BRAKINGLAB_DB": dsn}},
	} {
		cfg, err := parseConfig(c.args, env(c.env), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.DB != dsn {
			t.Fatalf("DB = %q, want %q", cfg.DB, dsn)
		}
		if got := cfg.dbName(); strings.Contains(got, "s3cret") || !strings.Contains(got, "db.internal:5432/brakinglab") {
			t.Fatalf("dbName() = %q, want the URL without its password", got)
		}
	}
}
