package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/codemode"
)

// savedListener is a go-sdk client's Streamable HTTP session (revision
// 2025-11-25) on one replica, counting the
// notifications/tools/list_changed it receives on its standalone stream.
type savedListener struct {
	cs      *mcp.ClientSession
	changed chan struct{}
}

// listenOn opens a session for token on the replica at mcpURL (the
// client declares elicitation, so BrakingLab keeps a session for it) and
// lists the tools once, so that the replica knows the session's user.
func listenOn(t *testing.T, ctx context.Context, mcpURL, token string) *savedListener {
	t.Helper()
	l := &savedListener{changed: make(chan struct{}, 16)}
	client := mcp.NewClient(&mcp.Implementation{Name: "saved-listener", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { l.changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: mcpURL, HTTPClient: &http.Client{Transport: bearerTransport(token)},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	l.cs = cs
	l.description(t, ctx)
	return l
}

// next waits for the next notification (failing at the test's deadline).
func (l *savedListener) next(t *testing.T, ctx context.Context, who string) {
	t.Helper()
	select {
	case <-l.changed:
	case <-ctx.Done():
		t.Fatalf("%s's session got no notifications/tools/list_changed", who)
	}
}

// description is the execute_code description the session's tools/list
// shows.
func (l *savedListener) description(t *testing.T, ctx context.Context) string {
	t.Helper()
	res, err := l.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == codemode.ToolName {
			return tool.Description
		}
	}
	t.Fatalf("no %s in tools/list", codemode.ToolName)
	return ""
}

// saveProfile is a script saving saved.<name>, a READ-ONLY function.
func saveProfile(name string) string {
	return fmt.Sprintf(`return await codemode.save({ name: %q, description: "The driver's profile.",
  code: "return await brakinglab.getProfile({})", input: { type: "object", properties: {} } })`, name)
}

// TestTwoReplicasNotifySavedFunctions: with two replicas on one
// PostgreSQL database, demo's (alice's) save through execute_code on
// replica A reaches her Streamable HTTP session on replica B as
// notifications/tools/list_changed, and B's tools/list then names the
// function; rival's (bob's) session on B hears nothing of it, and his own
// save reaches him. A BrakingLab over stdio on the same database (as
// alice) hears of her saves on A, and her save over stdio reaches B. The store sends pgstate's notice inside its
// transaction and B's pgstate listener hears it. Each notification is
// awaited where it must arrive, and the counts checked after alice's last
// save: a notification for someone else's change would have arrived
// before it.
func TestTwoReplicasNotifySavedFunctions(t *testing.T) {
	rs := startReplicas(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	aliceToken, bobToken := accessToken(t, rs.front, "demo"), accessToken(t, rs.front, "rival")
	onA, onB := "http://"+rs.addrs[0]+"/mcp", "http://"+rs.addrs[1]+"/mcp"

	alice, bob := listenOn(t, ctx, onB, aliceToken), listenOn(t, ctx, onB, bobToken)
	for who, l := range map[string]*savedListener{"alice": alice, "bob": bob} {
		if id := l.cs.ID(); !strings.HasPrefix(id, sessionPrefix(1)) {
			t.Fatalf("%s's session %q is not one of replica B's (%s…)", who, id, sessionPrefix(1))
		}
	}
	aliceOnA := tokenClient(t, ctx, onA, aliceToken, &mcp.Implementation{Name: "alice-on-a", Version: "1"}, nil)
	bobOnA := tokenClient(t, ctx, onA, bobToken, &mcp.Implementation{Name: "bob-on-a", Version: "1"}, nil)

	executeCode(t, ctx, aliceOnA, saveProfile("myProfile"))
	alice.next(t, ctx, "alice")
	if d := alice.description(t, ctx); !strings.Contains(d, "saved.myProfile (READ-ONLY, version 1): The driver's profile.") {
		t.Fatalf("alice's tools/list on B after her save on A:\n%s", d)
	}
	if d := bob.description(t, ctx); strings.Contains(d, "saved.myProfile") {
		t.Fatalf("bob's tools/list on B names alice's private function:\n%s", d)
	}
	// Called on B, where it was not saved.
	res, err := alice.cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{
		"code": `return (await saved.myProfile({})).username`}})
	if err != nil || res.IsError || !strings.Contains(toolText(res), "demo") {
		t.Fatalf("saved.myProfile on B: %v %s", err, toolText(res))
	}

	// A save that fails (the code calls no such function) stores nothing
	// and tells nobody; bob's own save reaches bob.
	if res, err := aliceOnA.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{
		"code": strings.Replace(saveProfile("broken"), "getProfile", "noSuchFunction", 1)}}); err != nil || !res.IsError {
		t.Fatalf("a save referencing an unknown function: %v %s", err, toolText(res))
	}
	executeCode(t, ctx, bobOnA, saveProfile("bobsProfile"))
	bob.next(t, ctx, "bob")
	if d := bob.description(t, ctx); !strings.Contains(d, "saved.bobsProfile (READ-ONLY, version 1)") || strings.Contains(d, "saved.myProfile") {
		t.Fatalf("bob's tools/list on B after his save on A:\n%s", d)
	}

	// alice also runs BrakingLab over stdio on the same database (a
	// third process): her save on A reaches that session too, and her
	// save there reaches her session on B.
	cmd := exec.Command(binary, "-stdio", "-user", "demo", "-db", rs.replicas[0].DB)
	cmd.Env = cleanEnv()
	stdio := &savedListener{changed: make(chan struct{}, 16)}
	stdio.cs, err = mcp.NewClient(&mcp.Implementation{Name: "saved-stdio", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { stdio.changed <- struct{}{} },
	}).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	defer stdio.cs.Close()
	stdio.description(t, ctx)
	executeCode(t, ctx, aliceOnA, saveProfile("myProfile"))
	alice.next(t, ctx, "alice")
	stdio.next(t, ctx, "alice over stdio")
	if d := stdio.description(t, ctx); !strings.Contains(d, "saved.myProfile (READ-ONLY, version 2)") {
		t.Fatalf("alice's tools/list over stdio after her second save on A:\n%s", d)
	}

	// The last change: alice's third version, saved over stdio.
	executeCode(t, ctx, stdio.cs, saveProfile("myProfile"))
	alice.next(t, ctx, "alice")
	stdio.next(t, ctx, "alice over stdio")
	if d := alice.description(t, ctx); !strings.Contains(d, "saved.myProfile (READ-ONLY, version 3)") || strings.Contains(d, "bobsProfile") {
		t.Fatalf("alice's tools/list on B after her save over stdio:\n%s", d)
	}
	if na, nb, ns := len(alice.changed), len(bob.changed), len(stdio.changed); na+nb+ns != 0 {
		t.Fatalf("extra notifications: alice %d, bob %d, alice over stdio %d", na, nb, ns)
	}
}
