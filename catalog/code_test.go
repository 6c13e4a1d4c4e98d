package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// TestCodeOf checks that CodeOf gives, for every error Call returns, the
// code that error marshals with, so the audit log and the model agree.
func TestCodeOf(t *testing.T) {
	type args struct {
		N int `json:"n" validate:"min=1"`
	}
	c, err := catalog.New("ns", nil)
	if err != nil {
		t.Fatal(err)
	}
	failWith := func(e error) func(context.Context, args) (int, error) {
		return func(context.Context, args) (int, error) { return 0, e }
	}
	catalog.MustAdd(c, catalog.Func[args, int]{Name: "ok", Tier: catalog.ReadOnly, Handler: failWith(nil)})
	catalog.MustAdd(c, catalog.Func[args, int]{Name: "missing", Tier: catalog.ReadOnly, Handler: failWith(catalog.NotFound("no lap %d", 3))})
	catalog.MustAdd(c, catalog.Func[args, int]{Name: "broken", Tier: catalog.ReadOnly, Handler: failWith(errors.New("disk on fire"))})
	catalog.MustAdd(c, catalog.Func[args, int]{Name: "slow", Tier: catalog.ReadOnly, Handler: func(ctx context.Context, _ args) (int, error) {
		<-ctx.Done()
		return 0, ctx.Err()
	}})
	catalog.MustAdd(c, catalog.Func[args, int]{Name: "scoped", Tier: catalog.ReadOnly, Scopes: []string{"laps:read"}, Handler: failWith(nil)})
	ctx := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "u"})
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		ctx  context.Context
		fn   string
		args string
		want string
	}{
		{ctx, "ok", `{"n":1}`, ""},
		{ctx, "ok", `{"n":0}`, catalog.CodeValidation},
		{ctx, "missing", `{"n":1}`, catalog.CodeNotFound},
		{ctx, "broken", `{"n":1}`, catalog.CodeInternal},
		{cancelled, "slow", `{"n":1}`, catalog.CodeCancelled},
		{ctx, "scoped", `{"n":1}`, catalog.CodeInsufficientScope},
		{ctx, "nope", `{}`, catalog.CodeUnknownFunction},
		{context.Background(), "ok", `{"n":1}`, catalog.CodeUnauthenticated},
	} {
		_, err := c.Call(tc.ctx, tc.fn, json.RawMessage(tc.args))
		if got := catalog.CodeOf(err); got != tc.want {
			t.Errorf("%s(%s): CodeOf(%v) = %q, want %q", tc.fn, tc.args, err, got, tc.want)
		}
		if err == nil {
			continue
		}
		// The code the model reads in the JSON is the same, where there is one.
		var m struct{ Code string }
		if b, jerr := json.Marshal(err); jerr == nil && json.Unmarshal(b, &m) == nil && m.Code != "" && m.Code != tc.want {
			t.Errorf("%s: JSON code %q, CodeOf %q", tc.fn, m.Code, tc.want)
		}
	}
	if got := catalog.CodeOf(fmt.Errorf("wrapped: %w", context.DeadlineExceeded)); got != catalog.CodeCancelled {
		t.Errorf("deadline: %q", got)
	}
	if got := catalog.CodeOf(errors.New("plain")); got != catalog.CodeUnknown {
		t.Errorf("plain: %q", got)
	}
}

func ExampleCodeOf() {
	err := catalog.NotFound("no session %q", "s1")
	fmt.Println(catalog.CodeOf(fmt.Errorf("loading: %w", err)))
	// Output: not_found
}

// A nil *Error held in an error matches nothing with errors.Is, where it
// panicked for ErrUnauthenticated and ErrUnknownFunction.
func TestErrorIsNil(t *testing.T) {
	var none *catalog.Error
	for _, target := range []error{catalog.ErrUnauthenticated, catalog.ErrUnknownFunction} {
		if errors.Is(error(none), target) || errors.Is(fmt.Errorf("call: %w", error(none)), target) {
			t.Errorf("a nil *Error is %v", target)
		}
	}
	if !errors.Is(fmt.Errorf("call: %w", &catalog.Error{Code: catalog.CodeUnauthenticated, Message: "x"}), catalog.ErrUnauthenticated) {
		t.Error("a coded *Error no longer matches")
	}
}
