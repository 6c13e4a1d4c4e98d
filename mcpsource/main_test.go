package mcpsource_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/hostiletest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// TestMain lets the test binary act as a misbehaving stdio MCP server
// when MCPSOURCE_FAKE_UPSTREAM is set.
func TestMain(m *testing.M) {
	if os.Getenv("MCPSOURCE_FAKE_UPSTREAM") == "1" {
		fakeUpstream()
		os.Exit(0)
	}
	code := m.Run()
	hostiletest.Remove()
	os.Exit(code)
}

// fakeUpstream speaks just enough MCP over stdio to list four tools, and
// answers their calls badly on purpose:
//   - ok: a good text result;
//   - garbled: a line that is not JSON;
//   - wrongshape: a result whose content is not an array;
//   - huge: a 2 MB text result;
//   - giant: a 17 MiB text result, over go-sdk's 16 MiB message limit;
//   - hang: no answer at all;
//   - hangwrite, hugewrite, refusewrite: hang, huge and refuse without
//     annotations, so MUTATING with every call approved;
//   - refuse: a JSON-RPC error;
//
// lists two well-behaved writes that append their name and arguments as
// a line to the file MCPSOURCE_FAKE_LOG names, so a test sees whether
// they ran:
//   - forget, without annotations (so destructive, as the MCP
//     specification's defaults say);
//   - remember, annotated destructiveHint false (it only adds);
//
// and lists badschema, whose input schema has a $ref to nowhere.
func fakeUpstream() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	send := func(s string) { out.WriteString(s + "\n"); out.Flush() }
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || msg.ID == nil {
			continue // notifications
		}
		reply := func(result string) { send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)) }
		switch msg.Method {
		case "initialize":
			reply(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`)
		case "tools/list":
			obj := `{"type":"object"}`
			reply(`{"tools":[` +
				`{"name":"ok","inputSchema":` + obj + `,"annotations":{"readOnlyHint":true}},` +
				`{"name":"garbled","inputSchema":` + obj + `,"annotations":{"readOnlyHint":true}},` +
				`{"name":"wrongshape","inputSchema":` + obj + `,"annotations":{"readOnlyHint":true}},` +
				`{"name":"huge","inputSchema":` + obj + `,"annotations":{"readOnlyHint":true}},` +
				`{"name":"giant","inputSchema":` + obj + `,"annotations":{"readOnlyHint":true}},` +
				`{"name":"hang","inputSchema":` + obj + `,"annotations":{"readOnlyHint":true}},` +
				`{"name":"refuse","inputSchema":` + obj + `,"annotations":{"readOnlyHint":true}},` +
				`{"name":"hangwrite","inputSchema":` + obj + `},` +
				`{"name":"hugewrite","inputSchema":` + obj + `},` +
				`{"name":"refusewrite","inputSchema":` + obj + `},` +
				`{"name":"forget","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},` +
				`{"name":"remember","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"annotations":{"destructiveHint":false}},` +
				`{"name":"badschema","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/nowhere"}}}}]}`)
		case "tools/call":
			switch msg.Params.Name {
			case "ok":
				reply(`{"content":[{"type":"text","text":"fine"}]}`)
			case "garbled":
				send(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"content":[{"type":"te`)
			case "wrongshape":
				reply(`{"content":"not an array"}`)
			case "refuse", "refusewrite":
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"refuse is switched off"}}`, msg.ID))
			case "huge", "hugewrite":
				reply(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 2<<20) + `"}]}`)
			case "hang", "hangwrite":
				// never answers
			case "forget", "remember":
				f, err := os.OpenFile(os.Getenv("MCPSOURCE_FAKE_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					reply(`{"isError":true,"content":[{"type":"text","text":"no log"}]}`)
					break
				}
				fmt.Fprintf(f, "%s %s\n", msg.Params.Name, msg.Params.Arguments)
				f.Close()
				reply(`{"content":[{"type":"text","text":"done"}]}`)
			case "giant":
				reply(`{"content":[{"type":"text","text":"` + strings.Repeat("x", 17<<20) + `"}]}`)
			}
		default:
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, msg.ID))
		}
	}
}

// node returns the pinned Node binary and the entry point of the named
// reference server: a failure in CI when missing, a skip elsewhere.
func node(t testing.TB, server string) (bin, script string) {
	t.Helper()
	return tsclienttest.Node(), tsclienttest.ServerScript(t, server)
}
