package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/brakinglab/codemode-go/internal/mcptest"
)

// BrakingLab's real tasks whose scripts write before a call that needs
// the user's approval, against the real server and database: once the
// user accepts, the execution resumes from where it stopped, so each
// write is made once, and the result counts every write.
func TestApprovedTasksWriteOnce(t *testing.T) {
	s := startServer(t, "-insecure-no-auth")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	user := &mcptest.Asker{Action: "accept"}
	client := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-tasks", Version: "1.0.0"}, user.Options())
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.MCPURL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	db, err := sql.Open("sqlite", "file:"+s.DB+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(query string, args ...any) int {
		t.Helper()
		var n int
		if err := db.QueryRow(query, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	questions := user.Take
	writes := func(res *mcp.CallToolResult) int {
		var st struct {
			Writes []json.RawMessage `json:"writes"`
		}
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &st)
		return len(st.Writes)
	}
	call := func(code string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": code}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("execute_code:\n%s", toolText(res))
		}
		return res
	}

	t.Run("create an event then generate its strategy", func(t *testing.T) {
		res := call(`const e = await brakinglab.createRaceEvent({name: "Resume test " + new Date().getTime(), trackName: "Spa", sim: "iRacing", startsAt: "2027-06-01T18:00:00Z", laps: 20});
const s = await brakinglab.generateRaceStrategy({raceEventId: e.id});
return {event: e.id, name: e.name, strategy: s.id !== undefined};`)
		q := questions()
		if len(q) != 1 || !strings.Contains(q[0], "Already changed by this code:\n- brakinglab.createRaceEvent(") {
			t.Fatalf("asked %q", q)
		}
		if n := count(`SELECT count(*) FROM race_events WHERE name LIKE 'Resume test %'`); n != 1 {
			t.Fatalf("%d events created, want 1:\n%s", n, toolText(res))
		}
		if writes(res) != 2 {
			t.Fatalf("writes listed: %d, want 2:\n%s", writes(res), toolText(res))
		}
	})

	t.Run("copy a notepad then delete the old one", func(t *testing.T) {
		executeCode(t, ctx, cs, `return (await brakinglab.createNotepad({title: "Spa braking points", body: "T1: 100m board"})).id;`)
		questions()
		res := call(`const old = (await brakinglab.getNotepads({})).find((n) => n.title === "Spa braking points");
const copy = await brakinglab.createNotepad({title: old.title + " (copy)", body: old.body});
await brakinglab.deleteNotepad({notepadId: old.id});
return copy.id;`)
		if q := questions(); len(q) != 1 {
			t.Fatalf("asked %q", q)
		}
		if n := count(`SELECT count(*) FROM notepads WHERE title = 'Spa braking points (copy)'`); n != 1 {
			t.Fatalf("%d copies, want 1:\n%s", n, toolText(res))
		}
		if n := count(`SELECT count(*) FROM notepads WHERE title = 'Spa braking points' AND deleted_at IS NOT NULL`); n != 1 {
			t.Fatalf("old notepad not deleted:\n%s", toolText(res))
		}
	})

	t.Run("delete three notes in a loop", func(t *testing.T) {
		for _, note := range []string{"Loop note A", "Loop note B", "Loop note C"} {
			executeCode(t, ctx, cs, `return (await brakinglab.addTrackNote({trackName: "Monza", note: "`+note+`"})).id;`)
		}
		questions()
		res := call(`let deleted = 0;
for (const n of await brakinglab.getTrackNotes({trackName: "Monza"})) {
  if (!n.note.startsWith("Loop note")) continue;
  await brakinglab.deleteTrackNote({trackNoteId: n.id});
  deleted++;
}
return {deleted};`)
		if q := questions(); len(q) != 1 {
			t.Fatalf("asked %d times, want once: %q", len(q), q)
		}
		var v struct{ Deleted int }
		raw, _ := json.Marshal(res.StructuredContent)
		var st struct{ Result json.RawMessage }
		_ = json.Unmarshal(raw, &st)
		if err := json.Unmarshal(st.Result, &v); err != nil || v.Deleted != 3 {
			t.Fatalf("result %s, want deleted: 3", st.Result)
		}
		if n := count(`SELECT count(*) FROM track_notes WHERE note LIKE 'Loop note %' AND deleted_at IS NOT NULL`); n != 3 || writes(res) != 3 {
			t.Fatalf("%d deleted, %d writes listed, want 3", n, writes(res))
		}
	})
}
