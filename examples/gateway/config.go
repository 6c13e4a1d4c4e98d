package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
)

// Config is the file Claude Desktop (claude_desktop_config.json) and
// Claude Code (.mcp.json) read: one entry per server, keyed by a name.
type Config struct {
	MCPServers map[string]ServerConfig `json:"mcpServers"`
	// OpenAPI is the gateway's own key, beside Claude's: HTTP APIs
	// described by OpenAPI, one entry per API, keyed by a name as
	// servers are (see OpenAPIConfig).
	OpenAPI map[string]OpenAPIConfig `json:"openapi,omitempty"`
}

// ServerConfig is one upstream: a command spoken to over stdio, or a URL
// spoken to over Streamable HTTP. Values may use ${VAR} for the
// gateway's environment, as Claude Code allows.
type ServerConfig struct {
	Type    string            `json:"type,omitempty"` // "stdio", "http" or empty
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Unannotated is a setting of the gateway's own, not Claude's: the
	// tier of this server's tools that do not say whether they are
	// destructive (no readOnlyHint true, no destructiveHint), one of
	// unannotatedTiers' keys, in any case. Empty means "MUTATING", the
	// MCP specification's default: every call waits for the user's
	// approval.
	Unannotated string `json:"unannotated,omitempty"`
}

// Upstream is one server of the configuration with its namespace.
type Upstream struct {
	Key       string // the configuration's name for it
	Namespace string // how scripts call it
	// UnannotatedTier is ServerConfig.Unannotated as mcpsource takes it:
	// zero for the specification's default (MUTATING, every call
	// approved).
	UnannotatedTier catalog.Tier
	ServerConfig
	// OpenAPI is set for an entry of the configuration's "openapi"
	// object, instead of ServerConfig.
	OpenAPI *OpenAPIConfig
}

// unannotatedTiers are the values of ServerConfig.Unannotated, and what
// each means: a tier for mcpsource.Options.UnannotatedTier. "MUTATING"
// is zero, the specification's default, so that it keeps asking before
// every call: mcpsource's catalog.Mutating would ask only where the
// server's per-tier default says so, and the gateway's has none.
var unannotatedTiers = map[string]catalog.Tier{
	"MUTATING":  0,
	"CREATIVE":  catalog.Creative,
	"READ-ONLY": catalog.ReadOnly,
}

// ReadConfig reads and checks a configuration file.
func ReadConfig(path string) ([]Upstream, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ups, err := ParseConfig(b)
	if err != nil {
		return nil, err
	}
	// A spec file is relative to the configuration's directory.
	for _, u := range ups {
		if o := u.OpenAPI; o != nil && !isURL(o.Spec) && !filepath.IsAbs(o.Spec) {
			o.Spec = filepath.Join(filepath.Dir(path), o.Spec)
		}
	}
	return ups, nil
}

// ParseConfig checks a configuration and returns its servers sorted by
// key, each with its namespace.
func ParseConfig(b []byte) ([]Upstream, error) {
	var c Config
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(c.MCPServers) == 0 && len(c.OpenAPI) == 0 {
		return nil, errors.New(`config: no servers: want {"mcpServers": {"name": {"command": ..., "args": [...]}}} or {"openapi": {"name": {"spec": ..., "baseUrl": ...}}}`)
	}
	keys := make([]string, 0, len(c.MCPServers))
	for k := range c.MCPServers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Upstream
	byNS := map[string]string{}
	for _, k := range keys {
		sc := expand(c.MCPServers[k])
		switch {
		case sc.Command != "" && sc.URL != "":
			return nil, fmt.Errorf("config: server %q has both command and url: give one", k)
		case sc.Command == "" && sc.URL == "":
			return nil, fmt.Errorf("config: server %q has neither command nor url", k)
		case sc.Type == "sse":
			return nil, fmt.Errorf("config: server %q: the deprecated SSE transport is not supported; use its Streamable HTTP URL", k)
		case sc.Type != "" && sc.Type != "stdio" && sc.Type != "http":
			return nil, fmt.Errorf("config: server %q: unknown type %q", k, sc.Type)
		}
		tier, ok := unannotatedTiers[strings.ToUpper(sc.Unannotated)]
		if !ok && sc.Unannotated != "" {
			return nil, fmt.Errorf(`config: server %q: unannotated %q: want "MUTATING" (the default: every call of a tool that does not say whether it is destructive asks the user), "CREATIVE" (such tools run without asking) or "READ-ONLY" (they only read, and execute_readonly_code may call them too)`, k, sc.Unannotated)
		}
		ns := Namespace(k)
		if prev, dup := byNS[ns]; dup {
			return nil, fmt.Errorf("config: servers %q and %q both become the namespace %s; rename one", prev, k, ns)
		}
		byNS[ns] = k
		out = append(out, Upstream{Key: k, Namespace: ns, UnannotatedTier: tier, ServerConfig: sc})
	}
	apis, err := parseOpenAPI(c.OpenAPI, byNS)
	if err != nil {
		return nil, err
	}
	return append(out, apis...), nil
}

// expand replaces ${VAR} with the gateway's environment.
func expand(sc ServerConfig) ServerConfig {
	ex := func(s string) string { return os.Expand(s, os.Getenv) }
	sc.Command, sc.URL = ex(sc.Command), ex(sc.URL)
	sc.Args = slices.Clone(sc.Args)
	for i := range sc.Args {
		sc.Args[i] = ex(sc.Args[i])
	}
	env := map[string]string{}
	for k, v := range sc.Env {
		env[k] = ex(v)
	}
	sc.Env = env
	h := map[string]string{}
	for k, v := range sc.Headers {
		h[k] = ex(v)
	}
	sc.Headers = h
	return sc
}

var notIdent = regexp.MustCompile(`[^A-Za-z0-9_$]+`)

// reserved are the words a namespace may not be: JavaScript's reserved
// words that a server key could plausibly be, and the discovery namespace.
var reserved = []string{"codemode", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
	"else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new",
	"null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "yield",
	"let", "static", "implements", "interface", "package", "private", "protected", "public", "await", "console"}

// Namespace converts a server key to a JavaScript identifier: runs of
// other characters become one underscore ("server-memory" →
// "server_memory"), a leading digit or a reserved word gets a leading
// underscore.
func Namespace(key string) string {
	ns := strings.Trim(notIdent.ReplaceAllString(key, "_"), "_")
	if ns == "" {
		ns = "server"
	}
	if ns[0] >= '0' && ns[0] <= '9' || slices.Contains(reserved, ns) {
		ns = "_" + ns
	}
	return ns
}
