// Command hostileupstream is a misbehaving MCP server over stdio, built
// by the tests of mcpsource and of the gateway example to check that an
// upstream cannot hurt its host. It is a go-sdk server, so the protocol
// is right; only what it lists and sends is hostile. Each argument adds
// one behaviour:
//
//   - recursive: tools whose input schemas are a tree ({"$ref":"#"}),
//     an array of itself, a schema nested 120 levels, one nested 1,100
//     levels (past what go-sdk reads), and one that refers back to
//     itself in place;
//   - many=N: N more tools, tool_0 … tool_N-1;
//   - flood: after the first tools/list, notifications/tools/list_changed
//     as fast as the pipe takes them;
//   - endless: every tools/list page has a nextCursor, so the list never
//     ends, and pages of 100 new tools each.
//
// Every mode also lists ok, a READ-ONLY tool answering "fine". The
// number of tools/list requests answered is appended as one line per
// request to the file $HOSTILE_LISTS names, if set.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	modes := map[string]string{}
	for _, a := range os.Args[1:] {
		k, v, _ := strings.Cut(a, "=")
		modes[k] = v
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "1"}, nil)
	ok := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
	}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	srv.AddTool(&mcp.Tool{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: readOnly}, ok)
	_, recursive := modes["recursive"]
	if recursive {
		for name, schema := range map[string]string{
			"tree":  `{"type":"object","properties":{"child":{"$ref":"#"}}}`,
			"list":  `{"type":"object","properties":{"l":{"$ref":"#/$defs/L"}},"$defs":{"L":{"type":"array","items":{"$ref":"#/$defs/L"}}}}`,
			"deep":  deep(120),
			"loop":  `{"type":"object","properties":{"m":{"$ref":"#/$defs/M"}},"$defs":{"M":{"oneOf":[{"$ref":"#/$defs/M"},{"type":"string"}]}}}`,
			"outer": `{"type":"object","properties":{"x":{"type":"string"}}}`,
		} {
			srv.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(schema), Annotations: readOnly}, ok)
		}
	}
	if n, err := strconv.Atoi(modes["many"]); err == nil {
		for i := range n {
			srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%d", i), Description: fmt.Sprintf("Tool number %d of a server that lists far too many.", i),
				InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`), Annotations: readOnly}, ok)
		}
	}
	var lists sync.Mutex
	counted := func() {
		if f := os.Getenv("HOSTILE_LISTS"); f != "" {
			lists.Lock()
			defer lists.Unlock()
			if w, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				w.WriteString("list\n")
				w.Close()
			}
		}
	}
	listed := make(chan struct{})
	var once sync.Once
	_, endless := modes["endless"]
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			counted()
			defer once.Do(func() { close(listed) })
			if !endless {
				res, err := next(ctx, method, req)
				if lr, ok := res.(*mcp.ListToolsResult); ok && recursive {
					// go-sdk's AddTool refuses a schema this deep, so it is
					// added to the answer: 1,100 levels, past what go-sdk
					// reads (1,000).
					lr.Tools = append(lr.Tools, &mcp.Tool{Name: "deeper", InputSchema: json.RawMessage(deep(1100)), Annotations: readOnly})
				}
				return res, err
			}
			page := 0
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p.Cursor != "" {
				page, _ = strconv.Atoi(p.Cursor)
			}
			res := &mcp.ListToolsResult{NextCursor: strconv.Itoa(page + 1)}
			if page == 0 {
				res.Tools = append(res.Tools, &mcp.Tool{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: readOnly})
			}
			for i := range 100 {
				res.Tools = append(res.Tools, &mcp.Tool{Name: fmt.Sprintf("page%d_%d", page, i), Description: strings.Repeat("padding ", 50),
					InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: readOnly})
			}
			return res, nil
		}
	})
	var t mcp.Transport = &mcp.StdioTransport{}
	if _, on := modes["flood"]; on {
		t = &flooding{Transport: t, listed: listed}
	}
	if err := srv.Run(context.Background(), t); err != nil {
		log.Print(err)
	}
}

// deep is an object schema nested n levels.
func deep(n int) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, n) + `{"type":"string"}` + strings.Repeat(`}}`, n)
}

// flooding writes notifications/tools/list_changed without pause once
// the tools have been listed, beside the server's own messages.
type flooding struct {
	mcp.Transport
	listed chan struct{}
}

func (f *flooding) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := f.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	go func() {
		<-f.listed
		for {
			if err := c.Write(context.Background(), &jsonrpc.Request{Method: "notifications/tools/list_changed", Params: json.RawMessage(`{}`)}); err != nil {
				return
			}
		}
	}()
	return c, nil
}
