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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// refresher re-lists the tools whenever a refresh is asked for.
func (u *Upstream) refresher() {
	for {
		select {
		case <-u.done:
			return
		case <-u.refreshC:
		}
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

// refresh lists the tools and brings the catalogue in step: tools gone or
// changed are removed, new or changed ones added. It returns the names
// the server listed.
func (u *Upstream) refresh(ctx context.Context) ([]string, error) {
	u.refreshMu.Lock()
	defer u.refreshMu.Unlock()
	sess, err := u.shared.session(ctx)
	if err != nil {
		return nil, err
	}
	var tools []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcpsource: %s: listing tools: %w", u.name, err)
		}
		tools = append(tools, t)
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
		def, _ := json.Marshal(t)
		wanted[name] = want{t, def}
	}

	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return names, nil
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
	slices.SortFunc(skipped, func(a, b Skipped) int { return cmpString(a.Tool, b.Tool) })
	u.skipped = skipped
	u.mu.Unlock()
	for _, s := range skipped {
		u.opts.Logger.Warn("mcpsource: upstream tool left out", "upstream", u.name, "tool", s.Tool, "reason", s.Reason)
	}
	return names, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

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
