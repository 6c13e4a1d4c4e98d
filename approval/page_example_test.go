package approval_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// A client that declares no elicitation cannot ask the user, so the
// execution stops with APPROVAL_PENDING and a link to the approval page.
// The user signs in to the host, opens the link and accepts; the model
// runs the same code again and the approved call runs, once.
func ExamplePage() {
	cat, err := catalog.New("garage", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[deleteLapIn, bool]{
		Name: "deleteLap", Description: "Deletes one lap.", Tier: catalog.Mutating, Approval: catalog.ApprovalRequired,
		Handler: func(ctx context.Context, in deleteLapIn) (bool, error) {
			fmt.Println("deleting lap", in.Number)
			return true, nil
		},
	})
	driver := catalog.Principal{Subject: "driver-1"}
	srv, err := codemode.New(cat, &codemode.Options{
		Principal: &driver,
		Approvals: approval.Options{Page: &approval.Page{
			URL: "https://garage.example/approve/",
			// The host's own sign-in: here a session cookie naming the user.
			Authenticate: func(r *http.Request) (catalog.Principal, bool) {
				c, err := r.Cookie("session")
				if err != nil || c.Value != "s3cret-session-of-driver-1" {
					return catalog.Principal{}, false
				}
				return driver, true
			},
		}},
		Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess},
		Audit:   codemode.AuditOptions{Sink: codemode.NoAudit},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	ctx := context.Background()
	cs, err := codemodetest.Connect(ctx, srv, driver, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	code := `return await garage.deleteLap({ number: 2 });`
	runCode := func() string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}})
		if err != nil {
			log.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}

	out := runCode()
	link := regexp.MustCompile(`https://garage\.example/approve/\S+`).FindString(out)
	fmt.Println(strings.SplitN(out, ":", 2)[0], "with a link:", link != "")

	// The user's browser, signed in, opens the link and presses Accept.
	page := srv.ApprovalHandler()
	browse := func(method string, form url.Values) string {
		r := httptest.NewRequest(method, link, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.AddCookie(&http.Cookie{Name: "session", Value: "s3cret-session-of-driver-1"})
		w := httptest.NewRecorder()
		page.ServeHTTP(w, r)
		return w.Body.String()
	}
	html := browse("GET", nil)
	fmt.Println("the page shows the call:", strings.Contains(html, "garage.deleteLap") && strings.Contains(html, "number: 2"))
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(html)[1]
	html = browse("POST", url.Values{"csrf": {csrf}, "action": {"accept"}})
	fmt.Println("accepted:", strings.Contains(html, "Accepted."))

	fmt.Println(runCode())
	// Output:
	// APPROVAL_PENDING with a link: true
	// the page shows the call: true
	// accepted: true
	// deleting lap 2
	// Writes made by this execution:
	// - garage.deleteLap({"number":2})
	//
	// Result:
	// true
}
