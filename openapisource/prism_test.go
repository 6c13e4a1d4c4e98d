package openapisource_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/openapisource"
)

// prismPackage is Stoplight's Prism, a mock server that validates each
// request against the description it serves; installed by .ci/setup.
const prismPackage = "@stoplight/prism-cli"

// startPrism serves GitHub's description with Prism on a free loopback
// port, with --errors: a request that breaks the description (method,
// path, parameters, body) is answered 422 with its violations.
func startPrism(t *testing.T) string {
	t.Helper()
	spec, _ := githubSpec(t)
	tsclienttest.Need(t, prismPackage)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.CommandContext(t.Context(), tsclienttest.Node(), filepath.Join(tsclienttest.Modules(), prismPackage, "dist", "index.js"),
		"mock", "-h", "127.0.0.1", "-p", fmt.Sprint(port), "--errors", spec)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "Prism is listening") {
				ok = true
				listening <- true
			}
		}
		if !ok {
			listening <- false
		}
	}()
	select {
	case ok := <-listening:
		if !ok {
			t.Fatalf("prism exited before listening: %s", stderr.String())
		}
	case <-time.After(5 * time.Minute):
		t.Fatal("prism did not start within 5 minutes")
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// violations records what Prism says about each request: the request
// violations of its sl-violations header or of its error body.
type violations struct {
	mu   sync.Mutex
	last []string
	base http.RoundTripper
}

func (v *violations) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := v.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var found []string
	type violation struct {
		Location []any `json:"location"`
		Message  string
	}
	var vs []violation
	if h := resp.Header.Get("sl-violations"); h != "" {
		json.Unmarshal([]byte(h), &vs)
	}
	var problem struct{ Validation []violation }
	if json.Unmarshal(body, &problem) == nil {
		vs = append(vs, problem.Validation...)
	}
	for _, x := range vs {
		if len(x.Location) > 0 && x.Location[0] == "request" {
			found = append(found, fmt.Sprint(x.Location)+": "+x.Message)
		}
	}
	if resp.StatusCode == http.StatusNotFound && strings.Contains(string(body), "NO_PATH_MATCHED") {
		found = append(found, "no path of the description matches "+r.URL.EscapedPath())
	}
	if resp.StatusCode == http.StatusMethodNotAllowed {
		found = append(found, "method "+r.Method+" not allowed")
	}
	v.mu.Lock()
	v.last = found
	v.mu.Unlock()
	return resp, nil
}

// Every request the package sends for a varied set of GitHub operations
// (path, query and header parameters, arrays, JSON bodies with oneOf
// members; GET, POST, PUT, PATCH, DELETE) passes Prism's validation;
// a request with a wrong encoding does not.
func TestPrismValidatesRequests(t *testing.T) {
	if testing.Short() {
		// CI's floor stage (-short) would start Prism a second time; its
		// race stage runs this test.
		t.Skip("Prism takes a minute to load GitHub's description; run without -short")
	}
	base := startPrism(t)
	v := &violations{base: http.DefaultTransport}
	_, spec := githubSpec(t)
	src, err := openapisource.New(spec, &openapisource.Options{BaseURL: base, HTTPClient: &http.Client{Transport: v}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.New("github", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Register(c); err != nil {
		t.Fatal(err)
	}
	calls := []struct{ fn, args string }{
		{"pulls_list", `{"owner":"octocat","repo":"hello-world","state":"open","sort":"created","direction":"desc","per_page":10,"page":2,"head":"octocat:feature"}`},
		{"pulls_create", `{"owner":"octocat","repo":"hello-world","body":{"title":"Amazing","head":"octocat:feature","base":"main","body":"Please pull","draft":false}}`},
		{"pulls_update", `{"owner":"octocat","repo":"hello-world","pull_number":42,"body":{"title":"new title","state":"closed"}}`},
		{"issues_create", `{"owner":"octocat","repo":"hello-world","body":{"title":"Found a bug","labels":["bug",{"name":"ui"}],"assignees":["octocat"]}}`},
		{"issues_add_labels", `{"owner":"octocat","repo":"hello-world","issue_number":3,"body":{"labels":["bug","enhancement"]}}`},
		{"issues_set_labels", `{"owner":"octocat","repo":"hello-world","issue_number":3,"body":{"labels":[{"name":"bug"}]}}`},
		{"issues_list_for_repo", `{"owner":"octocat","repo":"hello-world","labels":"bug,ui","state":"all","since":"2026-01-01T00:00:00Z","per_page":5}`},
		{"repos_get_content", `{"owner":"octocat","repo":"hello-world","path":"docs/README.md","ref":"main"}`},
		{"git_get_ref", `{"owner":"octocat","repo":"hello-world","ref":"heads/main"}`},
		{"search_issues_and_pull_requests", `{"q":"is:open label:bug repo:octocat/hello-world","sort":"created","order":"asc","per_page":5}`},
		{"repos_create_or_update_file_contents", `{"owner":"octocat","repo":"hello-world","path":"notes/a b.txt","body":{"message":"add","content":"aGVsbG8="}}`},
		{"reactions_create_for_issue", `{"owner":"octocat","repo":"hello-world","issue_number":1,"body":{"content":"+1"}}`},
		{"actions_list_workflow_runs_for_repo", `{"owner":"octocat","repo":"hello-world","status":"completed","exclude_pull_requests":true,"created":"2026-01-01T00:00:00Z"}`},
		{"activity_list_notifications_for_authenticated_user", `{"all":true,"participating":false,"since":"2026-01-01T00:00:00Z"}`},
		{"repos_list_for_org", `{"org":"github","type":"public","sort":"updated","direction":"asc"}`},
		{"repos_delete", `{"owner":"octocat","repo":"hello-world"}`},
		{"users_get_by_username", `{"username":"octo cat/../x?y#z"}`},
	}
	for _, call := range calls {
		_, err := c.Call(t.Context(), call.fn, json.RawMessage(call.args))
		if catalog.CodeOf(err) == catalog.CodeValidation || catalog.CodeOf(err) == catalog.CodeUnknownFunction {
			b, _ := json.Marshal(err)
			t.Errorf("%s: the test's arguments: %s", call.fn, b)
			continue
		}
		v.mu.Lock()
		got := v.last
		v.last = nil
		v.mu.Unlock()
		if len(got) > 0 {
			t.Errorf("%s %s: Prism found the request invalid:\n%s", call.fn, call.args, strings.Join(got, "\n"))
		} else {
			t.Logf("%s: valid (%v)", call.fn, err)
		}
	}
	// The control: a wrong encoding (the state in the path's place, an
	// enum value the description lacks) is caught.
	for _, path := range []string{"/repos/octocat/hello-world/pulls?state=merged", "/repos/octocat/hello-world/pulls?per_page=ten"} {
		req, _ := http.NewRequest("GET", base+path, nil)
		resp, err := (&http.Client{Transport: v}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if len(v.last) == 0 {
			t.Errorf("%s: Prism found nothing wrong", path)
		}
	}
}
