package main

import (
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

func TestParseConfig(t *testing.T) {
	t.Setenv("GW_TOKEN", "s3cret")
	ups, err := ParseConfig([]byte(`{"mcpServers": {
		"server-memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/tmp/m.json"}},
		"2fa": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${GW_TOKEN}"}},
		"delete": {"command": "x"},
		"codemode": {"command": "y", "unannotated": "Read-Only"},
		"notes": {"command": "z", "unannotated": "CREATIVE"},
		"cautious": {"command": "z", "unannotated": "mutating"}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Upstream{}
	for _, u := range ups {
		got[u.Key] = u
	}
	for key, ns := range map[string]string{"server-memory": "server_memory", "2fa": "_2fa", "delete": "_delete", "codemode": "_codemode"} {
		if got[key].Namespace != ns {
			t.Errorf("%s: namespace %q, want %q", key, got[key].Namespace, ns)
		}
	}
	for key, tier := range map[string]catalog.Tier{"server-memory": 0, "cautious": 0, "codemode": catalog.ReadOnly, "notes": catalog.Creative} {
		if got[key].UnannotatedTier != tier {
			t.Errorf("%s: unannotated tier %v, want %v", key, got[key].UnannotatedTier, tier)
		}
	}
	if h := got["2fa"].Headers["Authorization"]; h != "Bearer s3cret" {
		t.Errorf("header not expanded: %q", h)
	}
	if e := got["server-memory"].Env["MEMORY_FILE_PATH"]; e != "/tmp/m.json" {
		t.Errorf("env %q", e)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{`{}`, "no servers"},
		{`{"mcpServers": {"a": {}}}`, `"a" has neither command nor url`},
		{`{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}`, "both command and url"},
		{`{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}`, "SSE transport is not supported"},
		{`{"mcpServers": {"my-notes": {"command": "x"}, "my_notes": {"command": "y"}}}`, "both become the namespace my_notes"},
		{`{"mcpServers": `, "config:"},
		{`{"mcpServers": {"a": {"command": "x", "unannotated": "trusted"}}}`, `config: server "a": unannotated "trusted": want "MUTATING" (the default`},
		{`{"mcpServers": {"a": {"command": "x", "unannotated": true}}}`, "config:"},
	} {
		_, err := ParseConfig([]byte(tc.config))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.config, err, tc.want)
		}
	}
}

// A -trusted-proxies entry that is not an address or a range stops the
// gateway before it reads its configuration or listens.
func TestTrustedProxiesFlag(t *testing.T) {
	err := run([]string{"-trusted-proxies", "127.0.0.1,proxy.internal", "-config", "does-not-exist.json"})
	if err == nil || !strings.Contains(err.Error(), `-trusted-proxies: trusted proxy "proxy.internal" is neither`) {
		t.Fatalf("err = %v", err)
	}
}
