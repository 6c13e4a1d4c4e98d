package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/readmetest"
	"github.com/brakinglab/codemode-go/internal/tsclienttest"
)

type tsCall struct {
	IsError bool
	Result  struct{ Result json.RawMessage }
	Text    string
}

// stdioConversation runs codes in one stdio session of the official
// TypeScript client against BrakingLab on db: one conversation.
func stdioConversation(t *testing.T, db string, codes ...string) []tsCall {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := tsclienttest.Run(t, ctx, "testdata/ts-stdio.mjs", []string{"BRAKINGLAB_BIN=" + binary, "BRAKINGLAB_DB=" + db}, codes...)
	var calls []tsCall
	if err := json.Unmarshal(out, &calls); err != nil || len(calls) != len(codes) {
		t.Fatalf("ts-stdio.mjs printed %s: %v", out, err)
	}
	return calls
}

// The README's saved function: the official TypeScript client saves
// saved.raceWeekPlan over stdio in one conversation, and a later
// conversation (another process on the same SQLite file) calls it with
// bad and good arguments.
func TestSavedRaceWeekPlanOverStdio(t *testing.T) {
	tsclienttest.Need(t, tsclienttest.SDK)
	var save, call string
	for _, b := range readmetest.Scripts(t, ".") {
		switch {
		case strings.Contains(b.Code, `name: "raceWeekPlan"`):
			save = b.Code
		case strings.Contains(b.Code, "saved.raceWeekPlan("):
			call = b.Code
		}
	}
	if save == "" || call == "" {
		t.Fatal("the README does not show saving and calling saved.raceWeekPlan")
	}
	db := filepath.Join(t.TempDir(), "brakinglab.db")
	first := stdioConversation(t, db, save)
	if first[0].IsError || !strings.Contains(first[0].Text, "READ-ONLY") {
		t.Fatalf("save: %s", first[0].Text)
	}
	later := stdioConversation(t, db,
		`return await saved.raceWeekPlan({ track: "Spa" })`,
		call,
		`return (await codemode.search("race week")).map((h) => h.name)`,
	)
	if !later[0].IsError || !strings.Contains(later[0].Text, "trackName") {
		t.Fatalf("bad arguments: %s", later[0].Text)
	}
	var plan struct {
		Race  struct{ Name string }
		Focus []string
	}
	if later[1].IsError || json.Unmarshal(later[1].Result.Result, &plan) != nil || !strings.Contains(plan.Race.Name, "Spa") || len(plan.Focus) == 0 {
		t.Fatalf("call: %s", later[1].Text)
	}
	if !strings.Contains(string(later[2].Result.Result), "saved.raceWeekPlan") {
		t.Fatalf("search: %s", later[2].Text)
	}
}
