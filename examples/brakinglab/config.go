package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
)

// config is everything main needs to start BrakingLab. Each flag has an
// environment variable (BRAKINGLAB_<FLAG>, dashes as underscores); a flag
// given on the command line wins over its variable.
type config struct {
	Addr       string        // listen address; default 127.0.0.1:8080
	DB         string        // SQLite file (default ./brakinglab.db) or postgres:// URL
	PublicURL  string        // canonical base URL when behind a proxy or tunnel; default http://<addr>
	Issuer     string        // external OAuth/OpenID issuer; empty = built-in development server
	Audience   string        // token audience for an external issuer; default the MCP URL
	Origins    []string      // extra CORS origins
	Proxies    []string      // -trusted-proxies: reverse proxies whose X-Forwarded-For names the client
	Stdio      bool          // serve one local client over stdin/stdout
	User       string        // user for -stdio and -insecure-no-auth; default demo
	PrintTypes bool          // write the TypeScript declarations to stdout and exit
	NoDemo     bool          // do not seed demo data into an empty database
	NoAuth     bool          // -insecure-no-auth: loopback only, every request acts as User
	NoApprove  bool          // -no-approvals: deletions and strategy generation run without asking the user
	ApproveKey string        // -approval-key-file: the key sealing approvals, shared by replicas
	SessionPre string        // -session-prefix: starts this replica's MCP session ids, for affinity behind a proxy
	TokenTTL   time.Duration // hidden: access-token lifetime of the built-in server (0 = its default)
	Fixtures   bool          // hidden: add the conformance suite's fixture resource (needs NoAuth)
	Metrics    bool          // -metrics: serve Prometheus metrics at /metrics

	// Hidden operator and test settings.
	DebugAddr     string        // serve net/http/pprof on this loopback address (soak tests read goroutine counts)
	ScriptTimeout time.Duration // lower the sandbox's per-execution timeout (0 = the SDK default)
	ApprovalTTL   time.Duration // how long an approval (and its page link) stays valid (0 = the SDK default)
	RatePerSecond float64       // per-principal rate limit (0 = the SDK default, negative = off)
}

// defaultAddr is where BrakingLab listens when nothing else is configured.
const defaultAddr = "127.0.0.1:8080"

// errHelp is returned when -h or -help was given; usage has been printed.
var errHelp = flag.ErrHelp

// parseConfig reads flags from args and environment variables through getenv.
// Usage and flag errors are written to out.
func parseConfig(args []string, getenv func(string) string, out io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("brakinglab", flag.ContinueOnError)
	fs.SetOutput(out)

	var origins, proxies string
	fs.StringVar(&c.Addr, "addr", defaultAddr, "listen `address` (host:port); port 0 picks a free port")
	fs.StringVar(&c.DB, "db", "brakinglab.db", "SQLite database `file`, or a PostgreSQL URL (postgres://user:password@host/dbname) that replicas share; migrated on start")
	fs.StringVar(&c.PublicURL, "public-url", "", "canonical base `URL` clients use (behind a proxy or tunnel), e.g. https://x.example")
	fs.StringVar(&c.Issuer, "issuer", "", "trust this external OAuth/OpenID issuer `URL` instead of the built-in sign-in server")
	fs.StringVar(&c.Audience, "audience", "", "access-token `audience` required with -issuer (default: the MCP URL)")
	fs.StringVar(&origins, "origins", "", "extra CORS `origins`, comma-separated (e.g. https://inspector.example)")
	fs.StringVar(&proxies, "trusted-proxies", "", "reverse proxies you run, as comma-separated `addresses` or CIDR ranges (e.g. 127.0.0.1,10.0.0.2): for their requests the client address that limits failed sign-ins and tokens is the one they append to X-Forwarded-For; each must append it (nginx: $proxy_add_x_forwarded_for), not pass the client's header on (default: the peer address)")
	fs.BoolVar(&c.Stdio, "stdio", false, "serve one local MCP client over stdin/stdout as -user")
	fs.StringVar(&c.User, "user", "demo", "user `name` for -stdio and -insecure-no-auth")
	fs.BoolVar(&c.PrintTypes, "print-types", false, "print the TypeScript declarations the model sees and exit")
	fs.BoolVar(&c.NoDemo, "no-demo", false, "do not seed demo users and data into an empty database")
	fs.BoolVar(&c.NoApprove, "no-approvals", false, "let deletions and race-strategy generation run without asking the user to approve each call")
	fs.StringVar(&c.ApproveKey, "approval-key-file", "", "`file` holding the key (at least 32 random bytes) that seals pending approvals; give every replica the same one (default: a random key per process)")
	fs.StringVar(&c.SessionPre, "session-prefix", "", "`prefix` (letters, digits, '.', '_', '-') that starts the MCP session ids this replica hands out, different on each replica, so a load balancer can send a session's requests to the replica that holds it (nginx: a map on $http_mcp_session_id; see the README)")
	fs.BoolVar(&c.Metrics, "metrics", false, "serve OpenTelemetry metrics in Prometheus' text format at /metrics (traces and other exporters: the OTEL_* environment variables)")
	fs.BoolVar(&c.NoAuth, "insecure-no-auth", false, "turn authentication off and act as -user (loopback addresses only; for test suites)")
	fs.DurationVar(&c.TokenTTL, "access-token-ttl", 0, "")
	fs.BoolVar(&c.Fixtures, "conformance-fixtures", false, "")
	fs.StringVar(&c.DebugAddr, "debug-addr", "", "")
	fs.DurationVar(&c.ScriptTimeout, "script-timeout", 0, "")
	fs.DurationVar(&c.ApprovalTTL, "approval-ttl", 0, "")
	fs.Float64Var(&c.RatePerSecond, "rate-limit", 0, "")

	hidden := map[string]bool{"access-token-ttl": true, "conformance-fixtures": true,
		"debug-addr": true, "script-timeout": true, "rate-limit": true}
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: brakinglab [flags]\n\nBrakingLab, a sim-racing coaching MCP server built on codemode-go.\n\nFlags (each also read from BRAKINGLAB_<FLAG>, e.g. BRAKINGLAB_ADDR):\n")
		fs.VisitAll(func(f *flag.Flag) {
			if hidden[f.Name] {
				return
			}
			name, usage := flag.UnquoteUsage(f)
			if name != "" {
				name = " " + name
			}
			fmt.Fprintf(out, "  -%s%s\n    \t%s", f.Name, name, usage)
			if f.DefValue != "" && f.DefValue != "false" {
				fmt.Fprintf(out, " (default %q)", f.DefValue)
			}
			fmt.Fprintln(out)
		})
	}

	// Environment first, so flags given explicitly override it.
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		v := getenv(name)
		if v == "" || envErr != nil {
			return
		}
		if err := f.Value.Set(v); err != nil {
			envErr = fmt.Errorf("%s=%q: %v", name, v, err)
		}
	})
	if envErr != nil {
		return nil, envErr
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags start with -)", fs.Arg(0))
	}
	for _, o := range strings.Split(origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.Origins = append(c.Origins, o)
		}
	}
	for _, p := range strings.Split(proxies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.Proxies = append(c.Proxies, p)
		}
	}
	if _, err := codemode.ForwardedFor(c.Proxies...); err != nil {
		return nil, fmt.Errorf("-trusted-proxies: %v", err)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// dbName is -db as logs and the banner show it: a PostgreSQL URL without
// its password.
func (c *config) dbName() string { return sqldb.Redact(c.DB) }

// envName maps a flag name to its environment variable.
func envName(flagName string) string {
	return "BRAKINGLAB_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// validate rejects combinations that cannot work or would be unsafe.
func (c *config) validate() error {
	if c.DB == "" {
		return errors.New("-db must name a file or a postgres:// URL")
	}
	if c.User == "" && (c.Stdio || c.NoAuth) {
		return errors.New("-user must name a user (e.g. -user demo)")
	}
	if c.Stdio && c.NoAuth {
		return errors.New("-stdio already acts as -user; drop -insecure-no-auth")
	}
	if h, _, err := net.SplitHostPort(c.DebugAddr); c.DebugAddr != "" && (err != nil || !isLoopbackHost(h)) {
		return errors.New("-debug-addr must be a loopback address (it serves profiles of the process)")
	}
	if c.Audience != "" && c.Issuer == "" {
		return errors.New("-audience needs -issuer")
	}
	if c.Issuer != "" {
		if c.NoAuth {
			return errors.New("-issuer and -insecure-no-auth cannot be combined")
		}
		if err := checkBaseURL("-issuer", c.Issuer); err != nil {
			return err
		}
	}
	if c.TokenTTL < 0 {
		return errors.New("-access-token-ttl must not be negative")
	}
	if c.Fixtures && !c.NoAuth {
		return errors.New("-conformance-fixtures needs -insecure-no-auth")
	}
	if c.Stdio || c.PrintTypes {
		return nil // no listener: the address settings do not matter
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("-addr %q: want host:port, e.g. 127.0.0.1:8080", c.Addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("-addr %q: port must be a number from 0 to 65535", c.Addr)
	}
	if c.PublicURL != "" {
		if err := checkBaseURL("-public-url", c.PublicURL); err != nil {
			return err
		}
		// The MCP endpoint and the OAuth well-known documents sit at fixed
		// paths below the origin; a proxy path prefix would move them.
		if u, _ := url.Parse(c.PublicURL); strings.Trim(u.Path, "/") != "" {
			return fmt.Errorf("-public-url %q: give the origin only (e.g. https://x.example); serve BrakingLab at the root of its host", c.PublicURL)
		}
	}
	if c.NoAuth {
		if !isLoopbackHost(host) {
			return fmt.Errorf("-insecure-no-auth refuses to listen on %q: use a loopback address such as 127.0.0.1:8080", c.Addr)
		}
		if c.PublicURL != "" {
			u, _ := url.Parse(c.PublicURL)
			if !isLoopbackHost(u.Hostname()) {
				return fmt.Errorf("-insecure-no-auth refuses -public-url %q: authentication is off, so the server must stay on this machine", c.PublicURL)
			}
		}
	}
	return nil
}

// checkBaseURL accepts an absolute http(s) URL without query or fragment.
func checkBaseURL(flagName, s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%s %q: want an absolute http(s) URL such as https://x.example", flagName, s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%s %q: must not have a query or fragment", flagName, s)
	}
	if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("%s %q: use https for a non-loopback host", flagName, s)
	}
	return nil
}

// isLoopbackHost reports whether host is localhost or a loopback IP address.
// An empty host (":8080") means every interface, so it is not loopback.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// baseURL is the externally visible origin plus optional path prefix,
// without a trailing slash. boundAddr is the listener's real address (it
// differs from c.Addr when the port is 0).
func (c *config) baseURL(boundAddr string) string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	host, port, err := net.SplitHostPort(boundAddr)
	if err != nil {
		return "http://" + boundAddr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1" // listening everywhere: loopback works from this machine
	}
	return "http://" + net.JoinHostPort(host, port)
}
