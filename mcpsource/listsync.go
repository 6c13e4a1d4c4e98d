package mcpsource

// Keeping the catalogue in step with the server's tool list: the refresher,
// the listing, and the registration of each tool.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// refresher re-lists the tools whenever a refresh is asked for: a
// notifications/tools/list_changed or a restart. It waits
// ListChangedDelay after the first ask, so a burst of notifications costs
// one listing, and starts listings at least MinListInterval apart, so a
// server that notifies without pause is listed at that rate and no
// faster.
func (u *Upstream) refresher() {
	last := time.Now() // Connect has just listed
	for {
		select {
		case <-u.done:
			return
		case <-u.refreshC:
		}
		wait := max(u.opts.ListChangedDelay, time.Until(last.Add(u.opts.MinListInterval)))
		select {
		case <-u.done:
			return
		case <-time.After(wait):
		}
		select {
		case <-u.refreshC: // asked again while waiting: this listing serves it
		default:
		}
		last = time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), u.opts.ConnectTimeout)
		if _, err := u.refresh(ctx); err != nil && !u.isClosed() {
			u.opts.Logger.Warn("mcpsource: re-listing tools failed", "upstream", u.name, "error", err)
		}
		cancel()
	}
}

// askRefresh asks the refresher for a listing; asks made while one is
// pending are merged.
func (u *Upstream) askRefresh() {
	select {
	case u.refreshC <- struct{}{}:
	default:
	}
}

// list reads the server's tool list page by page, within MaxListPages
// pages and MaxListBytes of tool JSON. A list cut short by either bound
// (a nextCursor that never ends, a cursor given twice, a list too large)
// is logged, and the tools read so far are used.
func (u *Upstream) list(ctx context.Context, sess *mcp.ClientSession) ([]*mcp.Tool, map[*mcp.Tool][]byte, error) {
	var tools []*mcp.Tool
	defs := map[*mcp.Tool][]byte{}
	size := 0
	cursors := map[string]bool{}
	params := &mcp.ListToolsParams{}
	for page := 1; ; page++ {
		res, err := sess.ListTools(ctx, params)
		if err != nil {
			return nil, nil, fmt.Errorf("mcpsource: %s: listing tools: %w", u.name, err)
		}
		for _, t := range res.Tools {
			if t == nil {
				continue
			}
			def, _ := json.Marshal(t)
			if size += len(def); size > u.opts.MaxListBytes {
				u.opts.Logger.Warn("mcpsource: tool list cut short: its tools take more than Options.MaxListBytes of JSON; the rest are not listed",
					"upstream", u.name, "limit", u.opts.MaxListBytes, "tools", len(tools), "pages", page)
				return tools, defs, nil
			}
			tools = append(tools, t)
			defs[t] = def
		}
		next := res.NextCursor
		switch {
		case next == "":
			return tools, defs, nil
		case cursors[next]:
			u.opts.Logger.Warn("mcpsource: tool list cut short: the server gave the same nextCursor twice; the rest are not listed",
				"upstream", u.name, "cursor", truncate(next, 64), "tools", len(tools), "pages", page)
			return tools, defs, nil
		case page >= u.opts.MaxListPages:
			u.opts.Logger.Warn("mcpsource: tool list cut short: the server's nextCursor did not end within Options.MaxListPages pages; the rest are not listed",
				"upstream", u.name, "limit", u.opts.MaxListPages, "tools", len(tools))
			return tools, defs, nil
		}
		cursors[next] = true
		params = &mcp.ListToolsParams{Cursor: next}
	}
}

// truncate shortens s to n bytes for a log line.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// refresh lists the tools and brings the catalogue in step: tools gone or
// changed are removed, new or changed ones added, at most MaxTools of
// them. It returns the names the server listed.
func (u *Upstream) refresh(ctx context.Context) ([]string, error) {
	u.refreshMu.Lock()
	defer u.refreshMu.Unlock()
	sess, err := u.shared.session(ctx)
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	u.unreadable = nil
	u.mu.Unlock()
	tools, defs, err := u.list(ctx, sess)
	if err != nil {
		return nil, err
	}

	type want struct {
		t   *mcp.Tool
		def []byte
	}
	wanted := map[string]want{}
	var skipped []Skipped
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
		cfg := u.opts.Tools[t.Name]
		if cfg.Skip {
			continue
		}
		name, _, _ := cfg.resolve(t, u.unannotated())
		if prev, dup := wanted[name]; dup {
			skipped = append(skipped, Skipped{t.Name, fmt.Sprintf("its name converts to %s, as %q does; name one of them in Options.Tools", name, prev.t.Name)})
			continue
		}
		if len(wanted) >= u.opts.MaxTools {
			skipped = append(skipped, Skipped{t.Name, fmt.Sprintf("the server lists %d tools, more than Options.MaxTools (%d): the first %d are kept", len(tools), u.opts.MaxTools, u.opts.MaxTools)})
			continue
		}
		wanted[name] = want{t, defs[t]}
	}

	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return names, nil
	}
	for _, s := range u.unreadable {
		names = append(names, s.Tool)
		skipped = append(skipped, s)
	}
	for name, r := range u.funcs {
		if w, ok := wanted[name]; !ok || !bytes.Equal(w.def, r.def) {
			u.c.Remove(name)
			delete(u.funcs, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(wanted)) {
		w := wanted[name]
		if _, ok := u.funcs[name]; ok {
			continue
		}
		if err := u.add(name, w.t); err != nil {
			skipped = append(skipped, Skipped{w.t.Name, err.Error()})
			continue
		}
		u.funcs[name] = registered{tool: w.t.Name, def: w.def}
	}
	slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Tool, b.Tool) })
	u.skipped = skipped
	u.mu.Unlock()
	for i, s := range skipped {
		if i == maxSkippedLogs {
			u.opts.Logger.Warn("mcpsource: more upstream tools left out; Upstream.Skipped lists them all", "upstream", u.name, "more", len(skipped)-i)
			break
		}
		u.opts.Logger.Warn("mcpsource: upstream tool left out", "upstream", u.name, "tool", s.Tool, "reason", s.Reason)
	}
	return names, nil
}

// maxSkippedLogs bounds the log lines of one listing's skipped tools.
const maxSkippedLogs = 20

// add registers one upstream tool.
func (u *Upstream) add(name string, t *mcp.Tool) error {
	cfg := u.opts.Tools[t.Name]
	_, tier, ap := cfg.resolve(t, u.unannotated())
	in, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		return fmt.Errorf("input schema: not a JSON object")
	}
	out, err := outputSchemaOf(t.OutputSchema)
	if err != nil {
		return fmt.Errorf("output schema: %w", err)
	}
	tool := t.Name
	return catalog.AddSchema(u.c, catalog.SchemaFunc{
		Name: name, Description: t.Description, Tier: tier, Scopes: cfg.Scopes, Approval: ap,
		InputSchema: in, OutputSchema: out,
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return u.call(ctx, name, tool, tier != catalog.ReadOnly, args)
		},
	})
}
