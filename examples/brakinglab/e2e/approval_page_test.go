package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/testtool"
)

// pageClient is an MCP client that declares no elicitation: approvals
// reach its user only through the approval page.
func pageClient(t *testing.T, ctx context.Context, s *server, user string) *mcp.ClientSession {
	t.Helper()
	impl := &mcp.Implementation{Name: "pit-wall", Title: "Pit Wall Assistant", Version: "1"}
	return tokenClient(t, ctx, s.MCPURL, accessToken(t, s, user), impl, nil)
}

// pageOutcome is what a tool result says about an approval.
type pageOutcome struct {
	Kind, Message, Link string
	Result              json.RawMessage
}

func callPage(t *testing.T, ctx context.Context, cs *mcp.ClientSession, code string) pageOutcome {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_code", Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
		ApprovalURL string `json:"approvalUrl"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	out := pageOutcome{Link: st.ApprovalURL, Result: st.Result}
	if st.Error != nil {
		out.Kind, out.Message = st.Error.Kind, st.Error.Message
	}
	return out
}

// newRace creates a race event as the client's user and returns its id.
func newRace(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string) string {
	t.Helper()
	v, _ := executeCode(t, ctx, cs, fmt.Sprintf(`return (await brakinglab.createRaceEvent({name: %q, trackName: "Spa", sim: "iRacing", startsAt: "2027-06-01T18:00:00Z", laps: 10})).id;`, name))
	var id string
	if err := json.Unmarshal(v, &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// copyThenDelete writes a copy (no approval needed), then deletes a race
// event (approval needed): the re-run must not make a second copy.
const copyThenDelete = `const copy = await brakinglab.createRaceEvent({name: %q, trackName: "Spa", sim: "iRacing", startsAt: "2027-06-02T18:00:00Z", laps: 10});
const d = await brakinglab.deleteRaceEvent({raceEventId: %q});
return {copy: copy.id, deleted: d.deleted};`

func countNamed(t *testing.T, db *sql.DB, name string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM race_events WHERE name = ?`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// bodyText is the visible text of the browser's page.
func bodyText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openSignedIn opens link, signing in as user on the way if asked.
func openSignedIn(t *testing.T, ctx context.Context, link, user, password string) string {
	t.Helper()
	browserSignIn(t, ctx, link, user, password)
	if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	// The sign-in redirects back to the link; wait for its page.
	deadline := time.Now().Add(20 * time.Second)
	for {
		u, err := chromedp.Run(ctx, chromedp.Location())
		if err == nil && u == link {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("did not come back to %s (at %s)", link, u)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	return bodyText(t, ctx)
}

const (
	acceptXPath  chromedp.Search = `//button[normalize-space()="Accept"]`
	declineXPath chromedp.Search = `//button[normalize-space()="Decline"]`
)

// TestApprovalPageInBrowser is the approval page in Chromium for a client
// without elicitation: the model gets a link; the user signs in, sees the
// exact call, the write already made and the client, and accepts; the
// model's re-run deletes the race once without making a second copy.
// Then: decline; another user's link looks exactly like a missing one;
// and a cross-site form post with a valid token is refused.
func TestApprovalPageInBrowser(t *testing.T) {
	testtool.Need(t, testtool.ChromiumPath, "chromium")
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cs := pageClient(t, ctx, s, "demo")
	db, err := sql.Open("sqlite", "file:"+s.DB+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	demo := testtool.Chromium(t, ctx, 1000, 900)

	t.Run("accept", func(t *testing.T) {
		id := newRace(t, ctx, cs, "Page accept")
		code := fmt.Sprintf(copyThenDelete, "Copy made once", id)
		first := callPage(t, ctx, cs, code)
		if first.Kind != "APPROVAL_PENDING" || !strings.HasPrefix(first.Link, s.Base+"/authorize/approve/") || !strings.Contains(first.Message, first.Link) {
			t.Fatalf("first run: %+v", first)
		}
		if n := countNamed(t, db, "Copy made once"); n != 1 {
			t.Fatalf("%d copies after the first run, want 1", n)
		}
		text := openSignedIn(t, demo, first.Link, "demo", s.Users["demo"])
		for _, want := range []string{"Pit Wall Assistant", "asks to make 1 change in brakinglab", "brakinglab.deleteRaceEvent", `raceEventId: "` + id + `"`, "Already changed by this code", "brakinglab.createRaceEvent(", "Copy made once", "expires at"} {
			if !strings.Contains(text, want) {
				t.Errorf("the page does not show %q:\n%s", want, text)
			}
		}
		shot, err := chromedp.Run(demo, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(artifactDir(t), "approval-page.png")
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("approval page screenshot: %s", path)
		if err := chromedp.Do(demo, chromedp.Click(acceptXPath), chromedp.WaitVisible(chromedp.CSS("#state"))); err != nil {
			t.Fatal(err)
		}
		if text := bodyText(t, demo); !strings.Contains(text, "Accepted.") {
			t.Fatalf("after Accept:\n%s", text)
		}
		again := callPage(t, ctx, cs, code)
		if again.Kind != "" {
			t.Fatalf("re-run after accepting: %+v", again)
		}
		if n := countNamed(t, db, "Copy made once"); n != 1 {
			t.Fatalf("%d copies after the re-run, want 1: the write before the approval ran again", n)
		}
		if !slices.Contains(softDeleted(t, db), id) {
			t.Fatalf("race %s not deleted", id)
		}
	})

	t.Run("decline", func(t *testing.T) {
		id := newRace(t, ctx, cs, "Page decline")
		code := fmt.Sprintf(`return (await brakinglab.deleteRaceEvent({raceEventId: %q})).deleted;`, id)
		first := callPage(t, ctx, cs, code)
		openSignedIn(t, demo, first.Link, "demo", s.Users["demo"])
		if err := chromedp.Do(demo, chromedp.Click(declineXPath), chromedp.WaitVisible(chromedp.CSS("#state"))); err != nil {
			t.Fatal(err)
		}
		if text := bodyText(t, demo); !strings.Contains(text, "Declined.") {
			t.Fatalf("after Decline:\n%s", text)
		}
		again := callPage(t, ctx, cs, code)
		if again.Kind != "APPROVAL_DECLINED" || !strings.Contains(again.Message, "the user declined brakinglab.deleteRaceEvent") {
			t.Fatalf("re-run after declining: %+v", again)
		}
		if slices.Contains(softDeleted(t, db), id) {
			t.Fatal("deleted after a decline")
		}
	})

	t.Run("another-user", func(t *testing.T) {
		id := newRace(t, ctx, cs, "Page other user")
		first := callPage(t, ctx, cs, fmt.Sprintf(`return (await brakinglab.deleteRaceEvent({raceEventId: %q})).deleted;`, id))
		rival := testtool.Chromium(t, ctx, 1000, 900)
		var rivalUser string
		for u := range s.Users {
			if u != "demo" {
				rivalUser = u
			}
		}
		other := openSignedIn(t, rival, first.Link, rivalUser, s.Users[rivalUser])
		missingLink := first.Link[:strings.LastIndex(first.Link, "/")+1] + "AAAAAAAAAAAAAAAAAAAAAA"
		if err := chromedp.Do(rival, chromedp.Navigate(missingLink), chromedp.WaitReady(chromedp.CSS("h1"))); err != nil {
			t.Fatal(err)
		}
		missing := bodyText(t, rival)
		if other != missing || !strings.Contains(other, "Approval not found") {
			t.Fatalf("another user's link:\n%s\n--- differs from a missing one:\n%s", other, missing)
		}
		if strings.Contains(other, id) || strings.Contains(other, "deleteRaceEvent") {
			t.Fatalf("another user's page leaks the approval:\n%s", other)
		}
	})

	t.Run("cross-site-post", func(t *testing.T) {
		id := newRace(t, ctx, cs, "Page cross-site")
		code := fmt.Sprintf(`return (await brakinglab.deleteRaceEvent({raceEventId: %q})).deleted;`, id)
		first := callPage(t, ctx, cs, code)
		openSignedIn(t, demo, first.Link, "demo", s.Users["demo"])
		token, err := chromedp.Run(demo, chromedp.Evaluate[string](`document.querySelector('input[name=csrf]').value`))
		if err != nil || token == "" {
			t.Fatalf("reading the page's token: %q %v", token, err)
		}
		// Another site (localhost is not the same site as 127.0.0.1)
		// posts Accept with the page's own valid token.
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><form method="post" action="%s"><input name="csrf" value="%s"><input name="action" value="accept"></form><script>document.forms[0].submit()</script>`, first.Link, token)
		}))
		defer evil.Close()
		evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)
		if err := chromedp.Do(demo, chromedp.Navigate(evilURL)); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			u, _ := chromedp.Run(demo, chromedp.Location())
			if u == first.Link {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the form post did not arrive (at %s)", u)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err := chromedp.Do(demo, chromedp.WaitReady(chromedp.CSS("h1"))); err != nil {
			t.Fatal(err)
		}
		if text := bodyText(t, demo); !strings.Contains(text, "Refused") {
			t.Fatalf("cross-site post answered:\n%s", text)
		}
		again := callPage(t, ctx, cs, code)
		if again.Kind != "APPROVAL_PENDING" || slices.Contains(softDeleted(t, db), id) {
			t.Fatalf("after the cross-site post: %+v", again)
		}
	})
}

// TestApprovalPageExpiredInBrowser: a link opened after it expired says
// so and offers no buttons; the model's re-run gets APPROVAL_EXPIRED with
// a new link for the same execution.
func TestApprovalPageExpiredInBrowser(t *testing.T) {
	testtool.Need(t, testtool.ChromiumPath, "chromium")
	s := startServer(t, "-approval-ttl", "3s")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := pageClient(t, ctx, s, "demo")
	id := newRace(t, ctx, cs, "Page expired")
	code := fmt.Sprintf(`return (await brakinglab.deleteRaceEvent({raceEventId: %q})).deleted;`, id)
	first := callPage(t, ctx, cs, code)
	if first.Kind != "APPROVAL_PENDING" {
		t.Fatalf("first run: %+v", first)
	}
	time.Sleep(4 * time.Second)
	b := testtool.Chromium(t, ctx, 1000, 900)
	text := openSignedIn(t, b, first.Link, "demo", s.Users["demo"])
	if !strings.Contains(text, "This request expired at") || strings.Contains(text, "Accept") {
		t.Fatalf("expired page:\n%s", text)
	}
	again := callPage(t, ctx, cs, code)
	if again.Kind != "APPROVAL_EXPIRED" || again.Link == "" || again.Link == first.Link || !strings.Contains(again.Message, again.Link) {
		t.Fatalf("re-run after expiry: %+v", again)
	}
}
