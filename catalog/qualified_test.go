package catalog_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// TestCallQualifiedName: code names functions as namespace.name, so Call
// takes that form for the catalog's own namespace and refuses another
// namespace with the one it serves.
func TestCallQualifiedName(t *testing.T) {
	c, _ := newFixture(nil)
	bare, err := c.Call(driver(), "getSessions", json.RawMessage(`{"track":"Spa"}`))
	if err != nil {
		t.Fatal(err)
	}
	qualified, err := c.Call(driver(), "brakinglab.getSessions", json.RawMessage(`{"track":"Spa"}`))
	if err != nil {
		t.Fatalf("qualified name: %v", err)
	}
	if !bytes.Equal(bare, qualified) {
		t.Errorf("qualified %s, bare %s", qualified, bare)
	}
	for name, want := range map[string]string{
		"garage.getSessions":     `{"error":"unknown function garage.getSessions: this catalog's functions are brakinglab.\u003cname\u003e","code":"unknown_function"}`,
		"brakinglab.getSesions":  `{"error":"unknown function brakinglab.getSesions; did you mean brakinglab.getSessions?","code":"unknown_function"}`,
		"brakinglab.brakinglab.": `{"error":"unknown function brakinglab.brakinglab.","code":"unknown_function"}`,
	} {
		_, err := c.Call(driver(), name, nil)
		b, _ := json.Marshal(err)
		if string(b) != want || !errors.Is(err, catalog.ErrUnknownFunction) {
			t.Errorf("%s: got %s, want %s", name, b, want)
		}
	}
}

// TestLoggerFromContext: a catalog without its own Logger writes internal
// errors to the logger of the call's context, and its own Logger wins.
func TestLoggerFromContext(t *testing.T) {
	args := json.RawMessage(`{"sessionId":"ses_fire","summary":"Brake later","corners":[{"corner":1,"verdict":"good"}]}`)
	var fromCtx, own bytes.Buffer
	ctx := catalog.WithLogger(driver(), slog.New(slog.NewJSONHandler(&fromCtx, nil)))

	c, _ := newFixture(nil)
	if _, err := c.Call(ctx, "saveReport", args); err == nil {
		t.Fatal("no error")
	}
	if !strings.Contains(fromCtx.String(), "database is on fire") {
		t.Fatalf("context's logger got %q", fromCtx.String())
	}

	fromCtx.Reset()
	c, _ = newFixture(&catalog.Options{Logger: slog.New(slog.NewJSONHandler(&own, nil))})
	if _, err := c.Call(ctx, "saveReport", args); err == nil {
		t.Fatal("no error")
	}
	if !strings.Contains(own.String(), "database is on fire") || fromCtx.Len() != 0 {
		t.Fatalf("Options.Logger got %q, context's logger %q", own.String(), fromCtx.String())
	}
}
