package codemode_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/logtest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// records returns the JSON records written to b.
func records(t *testing.T, b *logtest.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON record: %s", sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// failingCatalog has a function whose handler fails with an internal
// error, which the catalog logs; its Options.Logger is nil.
func failingCatalog(t *testing.T) *catalog.Catalog {
	cat, err := catalog.New("garage", nil)
	if err != nil {
		t.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[struct{}, bool]{
		Name: "broken", Description: "Always fails.", Tier: catalog.ReadOnly,
		Handler: func(context.Context, struct{}) (bool, error) { return false, errors.New("disk on fire") },
	})
	return cat
}

// TestOneLogger: the catalog logs through codemode's Options.Logger, so a
// process writes one format; audit records are told apart by log.kind.
func TestOneLogger(t *testing.T) {
	var out logtest.Buffer
	// Audit is nil: the default sends audit events to Options.Logger.
	srv := newServer(t, failingCatalog(t), &codemode.Options{
		Logger:  slog.New(slog.NewJSONHandler(&out, nil)),
		Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
	})
	runThrough(t, srv, `return await garage.broken()`)

	var audit, internal int
	for _, r := range records(t, &out) {
		switch {
		case r[codemode.AuditLogKey] == codemode.AuditLogKind:
			audit++
			if r["msg"] != "audit" {
				t.Errorf("audit record %v", r)
			}
		case r["msg"] == "catalog: internal error":
			internal++
			if r["error"] != "disk on fire" || r[codemode.AuditLogKey] != nil {
				t.Errorf("internal error record %v", r)
			}
		}
	}
	if audit != 3 || internal != 1 {
		t.Fatalf("%d audit and %d internal-error records in:\n%s", audit, internal, out.String())
	}
}

// TestAuditRoutedApart: an audit sink with a logger of its own takes every
// audit record; the operational logger gets none.
func TestAuditRoutedApart(t *testing.T) {
	var ops, aud logtest.Buffer
	srv := newServer(t, failingCatalog(t), &codemode.Options{
		Logger:  slog.New(slog.NewJSONHandler(&ops, nil)),
		Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit:   codemode.AuditOptions{Sink: codemode.NewSlogAudit(slog.New(slog.NewJSONHandler(&aud, nil)))},
	})
	runThrough(t, srv, `return await garage.broken()`)
	opsRecs, audRecs := records(t, &ops), records(t, &aud)
	if len(audRecs) != 3 {
		t.Fatalf("audit records %v", audRecs)
	}
	for _, r := range audRecs {
		if r[codemode.AuditLogKey] != codemode.AuditLogKind {
			t.Errorf("audit record without log.kind: %v", r)
		}
	}
	sawInternal := false
	for _, r := range opsRecs {
		if r[codemode.AuditLogKey] != nil {
			t.Errorf("audit record in the operational log: %v", r)
		}
		sawInternal = sawInternal || r["msg"] == "catalog: internal error"
	}
	if !sawInternal {
		t.Fatalf("the catalog's internal error is not in the operational log: %v", opsRecs)
	}
}

// runThrough runs code on srv over an in-memory session, waiting for the
// session to end.
func runThrough(t *testing.T, srv *codemode.Server, code string) string {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.ServeTransport(ctx, catalog.Principal{Subject: "driver-1"}, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, cs, code)
	cs.Close()
	<-done
	return text(res)
}
