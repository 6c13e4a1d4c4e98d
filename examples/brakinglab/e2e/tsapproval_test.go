package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

// checkClient is the go-sdk client with which the TypeScript approval
// tests create and list race events.
var checkClient = &mcp.Implementation{Name: "brakinglab-e2e-check", Version: "1"}

// listed reports whether the user's race events include id.
func listed(t *testing.T, ctx context.Context, cs *mcp.ClientSession, id string) bool {
	t.Helper()
	v, _ := executeCode(t, ctx, cs, `return (await brakinglab.getRaceEvents({})).map((e) => e.id);`)
	var ids []string
	if err := json.Unmarshal(v, &ids); err != nil {
		t.Fatal(err)
	}
	return slices.Contains(ids, id)
}

// deletesLogged counts the deleteRaceEvent calls that ran and succeeded
// in a replica's audit log (a dry run is not a function.called event).
func deletesLogged(log string) int {
	return countLines(log, "event=function.called", "function=brakinglab.deleteRaceEvent") -
		countLines(log, "event=function.called", "function=brakinglab.deleteRaceEvent", "errorKind=")
}

const deleteEventCode = `const d = await brakinglab.deleteRaceEvent({ raceEventId: %q }); return d;`

// checkAsked checks what the TypeScript client saw when it was asked: on
// 2025-11-25, in a session, asked once about the deletion, and never told
// that it cannot be asked.
func checkAsked(t *testing.T, got tsclienttest.Approval, id string) {
	t.Helper()
	if got.ProtocolVersion != "2025-11-25" || got.SessionID == nil || *got.SessionID == "" {
		t.Fatalf("revision %q, session %v: want 2025-11-25 in a session", got.ProtocolVersion, got.SessionID)
	}
	if len(got.Asked) != 1 || !strings.Contains(got.Asked[0], "brakinglab.deleteRaceEvent (MUTATING)") || !strings.Contains(got.Asked[0], id) {
		t.Fatalf("asked %q, want once about deleting %s", got.Asked, id)
	}
	if strings.Contains(got.Text, "cannot ask") || strings.Contains(got.Result.Error.Message, "cannot ask") {
		t.Fatalf("a client that declared elicitation was told the server cannot ask: %s", got.Text)
	}
}

// checkDeleted checks the outcome of the answer action to the question
// about deleting id: on accept the deletion ran once (ran counts the
// deletions the audit logged) and the event is gone; on decline it did
// not run and the event is still listed to check.
func checkDeleted(t *testing.T, ctx context.Context, check *mcp.ClientSession, got tsclienttest.Approval, action, id string, ran int) {
	t.Helper()
	if action == "accept" {
		if got.IsError || len(got.Result.Writes) != 1 || ran != 1 || listed(t, ctx, check, id) {
			t.Fatalf("accept: error=%v writes=%d deletions run=%d still listed=%v\n%s", got.IsError, len(got.Result.Writes), ran, listed(t, ctx, check, id), got.Text)
		}
		return
	}
	if !got.IsError || got.Result.Error.Kind != "APPROVAL_DECLINED" || ran != 0 || !listed(t, ctx, check, id) {
		t.Fatalf("decline: kind %q, deletions run %d, still listed %v\n%s", got.Result.Error.Kind, ran, listed(t, ctx, check, id), got.Text)
	}
}

// TestTypeScriptClientApproval: the official TypeScript SDK client on its
// default revision (2025-11-25), declaring elicitation, with a token from
// BrakingLab's built-in sign-in, deletes a race event: it gets a session,
// is asked once, and on accept the deletion runs once; on decline it does
// not run and the event stays.
func TestTypeScriptClientApproval(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	token := accessToken(t, s, "demo")
	check := tokenClient(t, ctx, s.MCPURL, token, checkClient, nil)
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			id := newRace(t, ctx, check, "TypeScript approval "+action)
			before := deletesLogged(s.stderr.String())
			got := tsclienttest.RunApproval(t, ctx, s.MCPURL, token, action, fmt.Sprintf(deleteEventCode, id))
			checkAsked(t, got, id)
			checkDeleted(t, ctx, check, got, action, id, deletesLogged(s.stderr.String())-before)
		})
	}
}

// sessionUpstreams returns, per upstream address, how many logged
// requests carried session id.
func (p *proxy) sessionUpstreams(t *testing.T, id string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, fields := range logFields(t, p.sessionLog) {
		if len(fields) == 4 && fields[0] == id {
			out[fields[1]]++
		}
	}
	return out
}

// TestTwoReplicasTypeScriptClientApproval: behind nginx with two replicas
// on one PostgreSQL database, the TypeScript client's session (initialize,
// the call, its answer to the question, the end of the session) stays on
// the replica whose prefix starts its id, while stateless requests still
// alternate; it is asked once and the deletion runs once.
func TestTwoReplicasTypeScriptClientApproval(t *testing.T) {
	rs := startApprovalReplicas(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	token := accessToken(t, rs.front, "demo")
	check := tokenClient(t, ctx, rs.front.MCPURL, token, checkClient, nil)
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			id := newRace(t, ctx, check, "Replica approval "+action)
			before := 0
			for _, r := range rs.replicas {
				before += deletesLogged(r.stderr.String())
			}
			got := tsclienttest.RunApproval(t, ctx, rs.front.MCPURL, token, action, fmt.Sprintf(deleteEventCode, id))
			checkAsked(t, got, id)
			owner := -1
			for i := range rs.replicas {
				if strings.HasPrefix(*got.SessionID, sessionPrefix(i)) {
					owner = i
				}
			}
			if owner < 0 {
				t.Fatalf("session id %q has no replica's prefix", *got.SessionID)
			}
			// initialize, notifications/initialized, the standalone GET,
			// the call, the answer, DELETE: all on the owner.
			ups := rs.proxy.sessionUpstreams(t, *got.SessionID)
			if len(ups) != 1 || ups[rs.addrs[owner]] < 4 {
				t.Fatalf("the session's requests went to %v, want all (at least 4) to %s", ups, rs.addrs[owner])
			}
			ran := -before
			for _, r := range rs.replicas {
				ran += deletesLogged(r.stderr.String())
			}
			checkDeleted(t, ctx, check, got, action, id, ran)
		})
	}
	// Requests without a session still alternate between the replicas.
	if ups := rs.proxy.sessionUpstreams(t, "-"); len(ups) != 2 {
		t.Fatalf("requests without a session went to %v, want both replicas", ups)
	}
}
