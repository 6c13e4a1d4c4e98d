package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/brakinglab/codemode-go/internal/mcptest"
)

// deleteCancelledScript is what a model writes for "delete my cancelled
// races": one read, then every deletion issued together.
const deleteCancelledScript = `const events = await brakinglab.getRaceEvents({ status: "cancelled" });
await Promise.all(events.map((e) => brakinglab.deleteRaceEvent({ raceEventId: e.id })));
return events.map((e) => e.id);`

// TestDeleteCancelledRacesAsksOnce is "delete my cancelled races" against
// the real server and database: the user is asked once for the batch,
// accepts, and exactly the cancelled races are soft-deleted.
func TestDeleteCancelledRacesAsksOnce(t *testing.T) {
	s := startServer(t, "-insecure-no-auth")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	user := &mcptest.Asker{Action: "accept"}
	client := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-approval", Title: "Race Assistant", Version: "1.0.0"}, user.Options())
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// Three races of the demo user, two of them cancelled.
	var ids []string
	for i, status := range []string{"cancelled", "scheduled", "cancelled"} {
		v, _ := executeCode(t, ctx, cs, fmt.Sprintf(`const e = await brakinglab.createRaceEvent({name: "Approval test %d", trackName: "Spa", sim: "iRacing", startsAt: "2027-03-0%dT18:00:00Z", laps: 20});
return (await brakinglab.updateRaceEvent({raceEventId: e.id, status: %q})).id;`, i, i+1, status))
		var id string
		if err := json.Unmarshal(v, &id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if asked := user.Asked(); len(asked) != 0 {
		t.Fatalf("creating and updating asked the user: %q", asked)
	}
	db, err := sql.Open("sqlite", "file:"+s.DB+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before := softDeleted(t, db)

	v, _ := executeCode(t, ctx, cs, deleteCancelledScript)
	var deleted []string
	if err := json.Unmarshal(v, &deleted); err != nil {
		t.Fatal(err)
	}
	want := []string{ids[0], ids[2]}
	slices.Sort(deleted)
	slices.Sort(want)
	if !slices.Equal(deleted, want) {
		t.Fatalf("script deleted %v, want %v", deleted, want)
	}
	asked := user.Asked()
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once for the batch: %q", len(asked), asked)
	}
	msg := asked[0]
	for _, part := range []string{
		`Race Assistant (client local) asks to make 2 changes in brakinglab:`,
		"1. brakinglab.deleteRaceEvent (MUTATING)\n   raceEventId: ",
		"2. brakinglab.deleteRaceEvent (MUTATING)\n   raceEventId: ",
		`raceEventId: "` + ids[0] + `"`, `raceEventId: "` + ids[2] + `"`,
		"Nothing has been changed yet. Accept to make these changes, and further brakinglab.deleteRaceEvent calls this code makes in this execution; decline to make none of them.",
	} {
		if !strings.Contains(msg, part) {
			t.Fatalf("message lacks %q:\n%s", part, msg)
		}
	}
	if strings.Contains(msg, ids[1]) {
		t.Fatalf("message names the scheduled race:\n%s", msg)
	}
	after := softDeleted(t, db)
	var added []string
	for _, id := range after {
		if !slices.Contains(before, id) {
			added = append(added, id)
		}
	}
	slices.Sort(added)
	if !slices.Equal(added, want) {
		t.Fatalf("soft-deleted rows %v, want exactly %v", added, want)
	}
	var rows int
	if err := db.QueryRow(`SELECT count(*) FROM race_events WHERE id IN (?, ?, ?)`, ids[0], ids[1], ids[2]).Scan(&rows); err != nil || rows != 3 {
		t.Fatalf("%d of the 3 rows remain (%v): a soft delete keeps them", rows, err)
	}
}

// softDeleted lists the ids of soft-deleted race events.
func softDeleted(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT id FROM race_events WHERE deleted_at IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Without an elicitation handler, a deletion is refused by default with
// an error that names the call, and runs with -no-approvals.
func TestNoApprovalsFlag(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		deleted bool
	}{
		{"default", []string{"-insecure-no-auth"}, false},
		{"no-approvals", []string{"-insecure-no-auth", "-no-approvals"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, tt.args...)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "no-elicitation", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL, DisableStandaloneSSE: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			v, _ := executeCode(t, ctx, cs, `return (await brakinglab.createRaceEvent({name: "Flag test", trackName: "Spa", sim: "iRacing", startsAt: "2027-04-01T18:00:00Z", laps: 10})).id;`)
			var id string
			if err := json.Unmarshal(v, &id); err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": fmt.Sprintf(`return await brakinglab.deleteRaceEvent({raceEventId: %q});`, id)}})
			if err != nil {
				t.Fatal(err)
			}
			out := toolText(res)
			if tt.deleted {
				if res.IsError {
					t.Fatalf("refused: %s", out)
				}
				return
			}
			want := fmt.Sprintf(`APPROVAL_UNAVAILABLE: brakinglab.deleteRaceEvent({"raceEventId":%q}) needs the user's approval, but the server cannot ask the user: the client did not declare the elicitation capability. Nothing was written.`, id)
			if !res.IsError || !strings.HasPrefix(out, want) {
				t.Fatalf("got %s\nwant prefix %s", out, want)
			}
			executeCode(t, ctx, cs, fmt.Sprintf(`return await brakinglab.getRaceEvent({raceEventId: %q});`, id)) // still there
		})
	}
}

// An approval asked for by one replica is honoured by another that shares
// -approval-key-file and the database, and refused by a server with
// another key: nothing about it is kept in either process.
func TestApprovalAcrossReplicas(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "brakinglab.db")
	shared, other := filepath.Join(dir, "shared.key"), filepath.Join(dir, "other.key")
	if err := os.WriteFile(shared, []byte(strings.Repeat("s", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte(strings.Repeat("o", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startServer(t, "-insecure-no-auth", "-db", db, "-approval-key-file", shared)
	b := startServer(t, "-insecure-no-auth", "-db", db, "-approval-key-file", shared)
	c := startServer(t, "-insecure-no-auth", "-db", db, "-approval-key-file", other)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	connect := func(s *server) *mcp.ClientSession {
		t.Helper()
		cl := mcp.NewClient(&mcp.Implementation{Name: "replica-client", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return nil, fmt.Errorf("not asked: multi round-trip is handled by the test")
			},
			MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		})
		cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	csA, csB, csC := connect(a), connect(b), connect(c)
	v, _ := executeCode(t, ctx, csA, `return (await brakinglab.createRaceEvent({name: "Replica test", trackName: "Spa", sim: "iRacing", startsAt: "2027-05-01T18:00:00Z", laps: 10})).id;`)
	var id string
	if err := json.Unmarshal(v, &id); err != nil {
		t.Fatal(err)
	}
	code := fmt.Sprintf(`return await brakinglab.deleteRaceEvent({raceEventId: %q});`, id)
	call := func(cs *mcp.ClientSession, state string) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": code}}
		if state != "" {
			p.RequestState = state
			p.InputResponses = mcp.InputResponseMap{"approval": &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	pending := call(csA, "")
	if !pending.NeedsInput() || pending.RequestState == "" {
		t.Fatalf("want an input-required result, got %s", toolText(pending))
	}
	if res := call(csC, pending.RequestState); !res.IsError || !strings.HasPrefix(toolText(res), "APPROVAL_INVALID") {
		t.Fatalf("a server with another key: %s", toolText(res))
	}
	res := call(csB, pending.RequestState)
	if res.IsError || !strings.Contains(toolText(res), `"deleted": true`) {
		t.Fatalf("the replica with the same key: %s", toolText(res))
	}
	sqldb, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	var deleted bool
	if err := sqldb.QueryRow(`SELECT deleted_at IS NOT NULL FROM race_events WHERE id = ?`, id).Scan(&deleted); err != nil || !deleted {
		t.Fatalf("row soft-deleted: %v (%v)", deleted, err)
	}
}
