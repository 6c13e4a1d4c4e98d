package pgstate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/mcptest"
	"github.com/brakinglab/codemode-go/internal/pgtest"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
)

// saveLaps saves saved.laps for the script's principal.
const saveLaps = `return await codemode.save({ name: "laps", description: "Laps of a track.", code: "return garage.getLaps({ track: input.track })", input: { type: "object", properties: { track: { type: "string" } }, required: ["track"] } })`

// savedReplica is one codemode server on loopback HTTP with its own pool
// and pgstate on the shared database, its saved functions in it.
type savedReplica struct {
	*mcptest.Server
	lib *saved.Library
}

func startSavedReplica(t *testing.T, db string) *savedReplica {
	t.Helper()
	cat := garage()
	r := &savedReplica{lib: saved.New(&saved.Options{Store: openState(t, db).SavedFunctions()})}
	r.Server = mcptest.StartHTTP(t, cat, func(_ *mcptest.Server, o *codemode.Options) {
		o.Saved = r.lib
		o.HTTP.Stateful = true
		o.Sandbox.Mode = sandbox.ModeInProcess
		o.Audit.Sink = codemode.AuditFunc(func(context.Context, codemode.AuditEvent) {})
	})
	return r
}

// listener is a client session on a replica that counts the
// notifications/tools/list_changed it gets.
type listener struct {
	cs      *mcp.ClientSession
	changed chan struct{}
}

// listen connects subject to r at revision version (2025-11-25: a
// Streamable HTTP session; 2026-07-28: its subscriptions/listen stream)
// and lists the tools once, so the server knows the session's principal.
func listen(t *testing.T, r *savedReplica, subject, version string) *listener {
	t.Helper()
	l := &listener{changed: make(chan struct{}, 16)}
	l.cs = mcptest.ConnectHTTP(t, r.URL, r.Token(subject), version, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { l.changed <- struct{}{} },
	})
	if _, err := l.cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return l
}

// description is the execute_code description l's tools/list shows.
func (l *listener) description(t *testing.T) string {
	t.Helper()
	res, err := l.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == codemode.ToolName {
			return tool.Description
		}
	}
	t.Fatalf("no %s in %v", codemode.ToolName, res.Tools)
	return ""
}

// The sessions held by replica B are told of the saved-function changes
// made on replica A: alice's sessions (2025-11-25 over Streamable HTTP,
// 2026-07-28 on its listen stream) of her private save, and her tool list
// then names it; bob's of nothing until the function is published. A save
// on B itself reaches her once, the same way.
// Each change is awaited where it must arrive, and the counts checked
// after a last change every session must get: a notification for
// someone else's change, or for a save that failed, would have arrived
// before it.
func TestSavedFunctionsListChangedAcrossReplicas(t *testing.T) {
	db := pgtest.NewDatabase(t)
	a, b := startSavedReplica(t, db), startSavedReplica(t, db)
	alice, alice2 := listen(t, b, "alice", "2025-11-25"), listen(t, b, "alice", "2026-07-28")
	bob := listen(t, b, "bob", "2025-11-25")
	onA := mcptest.ConnectHTTP(t, a.URL, a.Token("alice"), "2025-11-25", nil)

	if res := mcptest.Run(t, onA, saveLaps); res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	<-alice.changed
	<-alice2.changed
	for _, l := range []*listener{alice, alice2} {
		if d := l.description(t); !strings.Contains(d, "saved.laps (READ-ONLY, version 1): Laps of a track.") {
			t.Fatalf("alice's tools/list on B after the save on A: %s", d)
		}
	}
	if d := bob.description(t); strings.Contains(d, "saved.laps") {
		t.Fatalf("bob's tools/list names alice's private function: %s", d)
	}

	// A save that fails validation changes nothing and tells nobody.
	if res := mcptest.Run(t, onA, strings.Replace(saveLaps, "garage.getLaps", "garage.nope", 1)); !res.IsError {
		t.Fatalf("a save referencing an unknown function: %s", mcptest.Text(res))
	}
	// bob's private save on A reaches bob only.
	bobOnA := mcptest.ConnectHTTP(t, a.URL, a.Token("bob"), "2025-11-25", nil)
	if res := mcptest.Run(t, bobOnA, strings.Replace(saveLaps, `"laps"`, `"bobsLaps"`, 1)); res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	<-bob.changed
	// alice's save on B itself: B hears of it as of A's, by its listener,
	// and tells her sessions once (the final counts would show a second).
	if res := mcptest.Run(t, alice.cs, saveLaps); res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	<-alice.changed
	<-alice2.changed
	if d := alice2.description(t); !strings.Contains(d, "saved.laps (READ-ONLY, version 2)") {
		t.Fatalf("alice's tools/list on B after her save on B: %s", d)
	}

	// A publication on A reaches everyone on B.
	if err := a.lib.Publish(context.Background(), "alice", "laps", true); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*listener{alice, alice2, bob} {
		<-l.changed
	}
	if d := bob.description(t); !strings.Contains(d, "saved.laps (READ-ONLY, version 2): Laps of a track. (written by someone else)") {
		t.Fatalf("bob's tools/list on B after the publication on A: %s", d)
	}
	if res := mcptest.Run(t, bob.cs, `return await saved.laps({ track: "Spa" })`); res.IsError || !strings.Contains(mcptest.Text(res), `"bob@Spa"`) {
		t.Fatalf("bob calls the published function on B: %s", mcptest.Text(res))
	}

	// The last change, everyone's: the withdrawal.
	if err := a.lib.Publish(context.Background(), "alice", "laps", false); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*listener{alice, alice2, bob} {
		<-l.changed
	}
	if n1, n2, n3 := len(alice.changed), len(alice2.changed), len(bob.changed); n1+n2+n3 != 0 {
		t.Fatalf("extra notifications: alice %d and %d, bob %d", n1, n2, n3)
	}
}

// When replica B's listening connection is dropped, changes made on A
// meanwhile reach nobody on B; so once B listens again every session
// there is told (once), and changes reach it again.
func TestSavedFunctionsListChangedAfterReconnect(t *testing.T) {
	db := pgtest.NewDatabase(t)
	a, b := startSavedReplica(t, db), startSavedReplica(t, db)
	alice, bob := listen(t, b, "alice", "2025-11-25"), listen(t, b, "bob", "2025-11-25")
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	// Both replicas' listeners go; both reconnect. Only B holds sessions.
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN codemode_%'`); err != nil {
		t.Fatal(err)
	}
	<-alice.changed // blocks (and the test times out) if the reconnect tells nobody
	<-bob.changed

	onA := mcptest.ConnectHTTP(t, a.URL, a.Token("alice"), "2025-11-25", nil)
	if res := mcptest.Run(t, onA, saveLaps); res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	<-alice.changed // B listens again
	if d := alice.description(t); !strings.Contains(d, "saved.laps") {
		t.Fatalf("alice's tools/list on B: %s", d)
	}
	if err := a.lib.Publish(ctx, "alice", "laps", true); err != nil {
		t.Fatal(err)
	}
	<-alice.changed
	<-bob.changed
	if len(alice.changed)+len(bob.changed) != 0 {
		t.Fatalf("extra notifications: alice %d, bob %d", len(alice.changed), len(bob.changed))
	}
}
