package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTwoReplicasApprovalPage: two replicas on one PostgreSQL database.
// A client without elicitation runs code on replica A and gets a link;
// the user signs in and answers on replica B; the re-run on A resumes the
// execution: the copy made before the approval is not made again and the
// approved deletion runs once.
func TestTwoReplicasApprovalPage(t *testing.T) {
	rs := startApprovalReplicas(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	token := accessToken(t, rs.front, "demo")
	onA := "http://" + rs.addrs[0] + "/mcp"
	cs := tokenClient(t, ctx, onA, token, &mcp.Implementation{Name: "pit-wall", Version: "1"}, nil)

	id := newRace(t, ctx, cs, "Replica page")
	code := fmt.Sprintf(copyThenDelete, "Replica copy", id)
	first := callPage(t, ctx, cs, code)
	prefix := rs.front.Base + "/authorize/approve/"
	if first.Kind != "APPROVAL_PENDING" || !strings.HasPrefix(first.Link, prefix) {
		t.Fatalf("first run on A: %+v", first)
	}
	pagePath := strings.TrimPrefix(first.Link, rs.front.Base)
	onB := "http://" + rs.addrs[1]

	hc := browserClient()
	resp, err := hc.PostForm(onB+"/authorize/login", url.Values{"next": {pagePath}, "username": {"demo"}, "password": {rs.front.Users["demo"]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != pagePath {
		t.Fatalf("sign-in on B: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	get := func(req *http.Request) (int, string) {
		t.Helper()
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	req, _ := http.NewRequest("GET", onB+pagePath, nil)
	status, page := get(req)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if status != http.StatusOK || m == nil || !strings.Contains(page, id) {
		t.Fatalf("page on B: %d\n%s", status, page)
	}
	req, _ = http.NewRequest("POST", onB+pagePath, strings.NewReader(url.Values{"csrf": {m[1]}, "action": {"accept"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if status, page := get(req); status != http.StatusOK || !strings.Contains(page, "Accepted.") {
		t.Fatalf("accept on B: %d\n%s", status, page)
	}

	again := callPage(t, ctx, cs, code)
	if again.Kind != "" {
		t.Fatalf("re-run on A: %+v", again)
	}
	v, _ := executeCode(t, ctx, cs, `return (await brakinglab.getRaceEvents({})).filter((e) => e.name === "Replica copy").length;`)
	var copies int
	if err := json.Unmarshal(v, &copies); err != nil || copies != 1 {
		t.Fatalf("%s copies, want 1: the write before the approval ran again", v)
	}
	v, _ = executeCode(t, ctx, cs, fmt.Sprintf(`return (await brakinglab.getRaceEvents({})).some((e) => e.id === %q);`, id))
	if string(v) != "false" {
		t.Fatalf("race %s still listed after the approved deletion", id)
	}
}
