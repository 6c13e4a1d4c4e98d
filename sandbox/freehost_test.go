package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// freeHost makes the namespace "look" free on top of a funcHost.
type freeHost struct{ *funcHost }

func (freeHost) FreeNamespaces() []string { return []string{"look"} }

// TestFreeNamespace checks, in both modes, that free functions get their
// arguments as a JSON array, settle their promise, reject with the host's
// error, and neither count against MaxCalls nor appear in Result.Calls.
func TestFreeNamespace(t *testing.T) {
	h := freeHost{echoHost("api.get")}
	h.funcs["look.up"] = func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		var list []any
		if err := json.Unmarshal(args, &list); err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, errors.New("look.up needs a query")
		}
		return args, nil
	}
	forEachMode(t, Limits{MaxCalls: 1}, func(t *testing.T, sb *Sandbox) {
		res := mustRun(t, sb, `
const a = [];
for (let i = 0; i < 5; i++) a.push(await look.up("q", { limit: i }));
let err = "";
try { await look.up(); } catch (e) { err = e.message; }
const got = await api.get({ id: 1 });
return { a: a[4], err, fn: got.fn };`, h)
		if !jsonEqual(t, res.Value, `{"a":["q",{"limit":4}],"err":"look.up needs a query","fn":"api.get"}`) {
			t.Errorf("value = %s", res.Value)
		}
		if len(res.Calls) != 1 || res.Calls[0].Name != "api.get" {
			t.Errorf("calls = %+v, want only api.get: free calls are not listed", res.Calls)
		}
		// The one counted call is used up; a second is refused, a free one is not.
		_, se := runErr(t, sb, `await look.up("x"); await api.get(); await api.get();`, h)
		if se.Kind != KindCallLimit || !strings.Contains(se.Message, "1 host calls") {
			t.Errorf("err = %v, want CALL_LIMIT after one counted call", se)
		}
	})
}
