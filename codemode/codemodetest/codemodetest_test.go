package codemodetest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/internal/leakcheck"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestMain fails the run if a harness leaves a goroutine behind.
func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}

// TestTenLines is the README's promise: a consumer tests a function of
// theirs in ten lines.
func TestTenLines(t *testing.T) {
	h := codemodetest.New(t, garage(), nil)
	res := h.Run(t, `return await garage.getLaps({ track: "Spa" })`)
	laps := codemodetest.Value[[]lap](t, res)
	if len(laps) != 2 || laps[1].TimeMs != 91800 {
		t.Fatalf("laps %v", laps)
	}
}

// TestErrIsAfterSuccess: the README's errors.Is(res.Err, target) is safe
// when the script succeeded, whose res.Err is a nil *Error: it reports
// false for every kind of target instead of panicking.
func TestErrIsAfterSuccess(t *testing.T) {
	h := codemodetest.New(t, garage(), nil)
	res := h.Run(t, `return 1`)
	if res.Err != nil {
		t.Fatalf("err %v", res.Err)
	}
	for _, target := range []error{
		&sandbox.Error{Kind: sandbox.KindRuntime}, &sandbox.Error{Kind: sandbox.KindTimeout},
		&catalog.Error{Code: catalog.CodeNotFound}, catalog.ErrUnknownFunction, &catalog.ScopeError{}, context.Canceled,
	} {
		if errors.Is(res.Err, target) {
			t.Errorf("errors.Is(nil res.Err, %v) = true", target)
		}
	}
}

// TestWorkerLimits: the harness runs the server's real sandbox, so a limit
// holds as in production (the default worker mode, a timeout short for a
// test but long enough for a loaded machine to compile a script).
func TestWorkerLimits(t *testing.T) {
	h := codemodetest.New(t, garage(), &codemodetest.Options{
		Server: &codemode.Options{Limits: sandbox.Limits{Timeout: 3 * time.Second}},
	})
	res := h.Run(t, `while (true) {}`)
	if !errors.Is(res.Err, &sandbox.Error{Kind: sandbox.KindTimeout}) || errors.Is(res.Err, &sandbox.Error{Kind: sandbox.KindRuntime}) {
		t.Fatalf("got %v", res.Err)
	}
	if !strings.HasPrefix(res.Text, "TIMEOUT") {
		t.Fatalf("text %q", res.Text)
	}
	// The worker was replaced: the next script runs.
	if v := codemodetest.Value[int](t, h.Run(t, `return 1 + 1`)); v != 2 {
		t.Fatalf("value %d", v)
	}
}

// TestDefaultPrincipal holds every scope the catalog requires; a given
// principal is passed to the functions as it is.
func TestDefaultPrincipal(t *testing.T) {
	cat, _ := catalog.New("who", nil)
	catalog.MustAdd(cat, catalog.Func[struct{}, catalog.Principal]{
		Name: "me", Description: "Returns the caller.", Tier: catalog.ReadOnly, Scopes: []string{"a", "b"},
		Handler: func(ctx context.Context, _ struct{}) (catalog.Principal, error) {
			p, _ := catalog.PrincipalFrom(ctx)
			return p, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[struct{}, bool]{
		Name: "other", Description: "Needs c.", Tier: catalog.ReadOnly, Scopes: []string{"c", "a"},
		Handler: func(context.Context, struct{}) (bool, error) { return true, nil },
	})
	h := codemodetest.New(t, cat, nil)
	p := codemodetest.Value[catalog.Principal](t, h.Run(t, `return await who.me()`))
	if p.Subject != "test" || p.ClientID != "codemodetest" || strings.Join(p.Scopes, ",") != "a,b,c" {
		t.Fatalf("default principal %+v", p)
	}
	res, err := h.Execute(context.Background(), `return await who.me()`, &codemodetest.RunOptions{Principal: &catalog.Principal{Subject: "u1", Scopes: []string{"a"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Err, &catalog.ScopeError{}) || res.Err.Code != catalog.CodeInsufficientScope {
		t.Fatalf("got %v", res.Err)
	}
}

// TestWarningsAndReadOnlyTool: an argument a READ-ONLY function ignores is
// a warning; the READ-ONLY tool cannot call a write, and says where it is.
func TestWarningsAndReadOnlyTool(t *testing.T) {
	h := codemodetest.New(t, garage(), &codemodetest.Options{Server: &codemode.Options{ReadOnlyTool: true}})
	res := h.Run(t, `return (await garage.getLaps({ track: "Spa", trak: 1 })).length`)
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, `"trak"`) || string(res.Value) != "2" {
		t.Fatalf("warnings %+v, value %s", res.Warnings, res.Value)
	}
	res, err := h.Execute(context.Background(), `return await garage.deleteLap({ number: 1 })`, &codemodetest.RunOptions{Tool: codemode.ReadOnlyToolName})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Kind != sandbox.KindRuntime || !strings.Contains(res.Err.Message, "garage.deleteLap is not available in execute_readonly_code because it writes (tier MUTATING); call it from execute_code.") {
		t.Fatalf("read-only tool: %+v", res.Err)
	}
}

// TestApprovalWithoutHandler: with no Approve, the client cannot ask the
// user and the server's fallback refuses the write.
func TestApprovalWithoutHandler(t *testing.T) {
	h := codemodetest.New(t, garage(), nil)
	res := h.Run(t, `return await garage.deleteLap({ number: 1 })`)
	if res.Err == nil || res.Err.Kind != "APPROVAL_UNAVAILABLE" || len(res.Approvals) != 0 || len(res.Calls) != 1 {
		t.Fatalf("got %+v", res)
	}
}

// TestAudit records the events of each run.
func TestAudit(t *testing.T) {
	h := codemodetest.New(t, garage(), nil)
	h.Run(t, `return await garage.getLaps({ track: "Spa" })`)
	var kinds []string
	for _, ev := range h.Audit() {
		kinds = append(kinds, string(ev.Kind)+":"+ev.Function)
	}
	if got := strings.Join(kinds, " "); got != "execution.started: function.called:garage.getLaps execution.finished:" {
		t.Fatalf("audit %s", got)
	}
}

// TestConcurrentRuns: each Run has its own session and principal.
func TestConcurrentRuns(t *testing.T) {
	cat, _ := catalog.New("who", nil)
	catalog.MustAdd(cat, catalog.Func[struct{}, string]{
		Name: "me", Description: "Returns the caller's subject.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, _ struct{}) (string, error) {
			p, _ := catalog.PrincipalFrom(ctx)
			return p.Subject, nil
		},
	})
	h := codemodetest.New(t, cat, &codemodetest.Options{Server: &codemode.Options{Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}}})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			sub := fmt.Sprint("user-", i)
			res, err := h.Execute(context.Background(), `return await who.me()`, &codemodetest.RunOptions{Principal: &catalog.Principal{Subject: sub}})
			if err != nil || string(res.Value) != `"`+sub+`"` {
				t.Errorf("%s: %v %+v", sub, err, res)
			}
		})
	}
	wg.Wait()
}

// failTB records a fatal failure instead of ending the test.
type failTB struct {
	testing.TB
	msg string
}

func (f *failTB) Helper() {}
func (f *failTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestValueFailsOnError: Value fails the test with the model's text when
// the script failed or the value does not fit T.
func TestValueFailsOnError(t *testing.T) {
	h := codemodetest.New(t, garage(), nil)
	for code, want := range map[string]string{
		`return await garage.getLaps({ track: "Monza" })`: "no laps on Monza",
		`return "fast"`: "cannot unmarshal string",
	} {
		res := h.Run(t, code)
		tb := &failTB{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			codemodetest.Value[[]lap](tb, res)
		}()
		<-done
		if !strings.Contains(tb.msg, want) {
			t.Errorf("%s: failure %q, want %q", code, tb.msg, want)
		}
	}
}

func TestStartRefusesNilCatalog(t *testing.T) {
	if _, err := codemodetest.Start(nil, nil); err == nil {
		t.Fatal("no error")
	}
}

// Connect refuses a nil server with an error instead of a panic; a
// session it opened acts as the principal given, and leaves no goroutine
// behind once closed (TestMain checks).
func TestConnect(t *testing.T) {
	if cs, err := codemodetest.Connect(t.Context(), nil, catalog.Principal{}, nil); err == nil || cs != nil || !strings.Contains(err.Error(), "nil server") {
		t.Fatalf("nil server: %v, %v", cs, err)
	}
	h := codemodetest.New(t, garage(), &codemodetest.Options{Server: &codemode.Options{Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}}})
	ctx, cancel := context.WithCancel(t.Context())
	cs, err := codemodetest.Connect(ctx, h.Server(), catalog.Principal{Subject: "guest"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": `return await garage.getLaps({ track: "Spa" })`}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "insufficient_scope") {
		t.Fatalf("guest without the scope: %+v, %v", res, err)
	}
	cs.Close()
	cancel()
}
