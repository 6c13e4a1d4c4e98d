package functions_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/sandbox"
)

// catalogHost exposes the catalog to the sandbox as the demo user.
type catalogHost struct{}

func (catalogHost) Functions() map[string][]string {
	var names []string
	for _, f := range cat.Functions() {
		names = append(names, f.Name)
	}
	return map[string][]string{cat.Namespace(): names}
}

func (catalogHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	return cat.Call(as(demoU), strings.TrimPrefix(name, cat.Namespace()+"."), args)
}

// TestScriptsRunInSandbox runs the seed coaching script, unmodified, and the
// README's example scripts in the sandbox (in-process) against the seeded
// store as the demo user.
func TestScriptsRunInSandbox(t *testing.T) {
	sb, err := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess})
	if err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob("testdata/prompts/*.ts")
	scripts = append(scripts, "../testdata/coaching.ts")
	for _, path := range scripts {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sb.Run(context.Background(), string(src), catalogHost{})
			if err != nil {
				t.Fatalf("%v", err)
			}
			if len(res.Value) < 10 || string(res.Value) == "null" {
				t.Fatalf("value %s", res.Value)
			}
			t.Logf("%d calls, value %.300s", len(res.Calls), res.Value)
			if filepath.Base(path) == "coaching.ts" {
				var v struct {
					ReportID string `json:"reportId"`
					Corners  int    `json:"corners"`
				}
				json.Unmarshal(res.Value, &v)
				var reports []struct{ ID string }
				mustCall(t, demoU, "getCoachingReports", obj{"limit": 50}, &reports)
				found := false
				for _, r := range reports {
					found = found || r.ID == v.ReportID
				}
				if v.Corners != 5 || !found {
					t.Fatalf("value %s; report not listed by getCoachingReports", res.Value)
				}
			}
		})
	}
}
