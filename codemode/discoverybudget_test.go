package codemode_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/codemode"
)

// A script looping over discovery calls is stopped after
// MaxDiscoveryCalls with an error that says what to do, and the loop costs
// the host well under the 2 s discovery budget: answers come from the
// cache. Before, an 8-second loop made 5,361 describes and used 7.3 s of
// host CPU. The calls budget is the execution's own: the next execution
// starts afresh, and another user is served meanwhile.
func TestDiscoveryLoopBounded(t *testing.T) {
	ts := startServer(t, nil)
	alice := ts.connect(t, ts.token("alice", allScopes...), nil)
	for name, call := range map[string]string{
		"describe": `codemode.describe(["getSessions", "getWeakCorners", "saveCoachingReport"])`,
		"search":   `codemode.search("braking zones of a session", { limit: 50 })`,
	} {
		t.Run(name, func(t *testing.T) {
			code := `let n = 0, bytes = 0;
try { for (let i = 0; i < 100000; i++) { const a = await ` + call + `; bytes += JSON.stringify(a).length; n++; } }
catch (e) { return { n, bytes, error: String(e) }; }
return { n, bytes };`
			before := cpuTime(t)
			res := run(t, alice, code)
			cpu := cpuTime(t) - before
			var got struct {
				N, Bytes int
				Error    string
			}
			if err := json.Unmarshal(structuredOf(t, res).Result, &got); err != nil {
				t.Fatalf("%v: %s", err, text(res))
			}
			t.Logf("%d calls, %d bytes, %v host CPU: %s", got.N, got.Bytes, cpu, got.Error)
			if got.N != codemode.MaxDiscoveryCalls {
				t.Errorf("%d discovery calls answered, want %d", got.N, codemode.MaxDiscoveryCalls)
			}
			for _, want := range []string{"already made 50 discovery calls", "in one call", "keep the answers in variables"} {
				if !strings.Contains(got.Error, want) {
					t.Errorf("error %q does not say %q", got.Error, want)
				}
			}
			if cpu > 2*time.Second {
				t.Errorf("the loop cost %v of host CPU", cpu)
			}
			// A fresh execution has a fresh budget.
			if res := run(t, alice, `return (await `+call+`).length > 0`); string(structuredOf(t, res).Result) != "true" {
				t.Errorf("next execution: %s", text(res))
			}
		})
	}
	bob := ts.connect(t, ts.token("bob", allScopes...), nil)
	if res := run(t, bob, `return (await codemode.describe("getSessions")).includes("function getSessions")`); string(structuredOf(t, res).Result) != "true" {
		t.Errorf("bob's describe: %s", text(res))
	}
}
