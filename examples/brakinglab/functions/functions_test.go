package functions_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
)

func TestRegistered(t *testing.T) {
	want := map[string]catalog.Tier{
		"getProfile": catalog.ReadOnly, "getTracks": catalog.ReadOnly, "getSessions": catalog.ReadOnly, "getSession": catalog.ReadOnly,
		"getLaps": catalog.ReadOnly, "getLapTelemetry": catalog.ReadOnly, "getCornerAnalysis": catalog.ReadOnly,
		"getBrakingZones": catalog.ReadOnly, "getWeakCorners": catalog.ReadOnly, "compareLaps": catalog.ReadOnly,
		"getProgress": catalog.ReadOnly, "getRaceEvents": catalog.ReadOnly, "getRaceEvent": catalog.ReadOnly,
		"getNotepads": catalog.ReadOnly, "getNotepad": catalog.ReadOnly, "getTrackNotes": catalog.ReadOnly,
		"getCoachingReports": catalog.ReadOnly, "getReadinessAssessments": catalog.ReadOnly,
		"createRaceEvent": catalog.Mutating, "updateRaceEvent": catalog.Mutating, "deleteRaceEvent": catalog.Mutating,
		"restoreRaceEvent": catalog.Mutating, "saveRacePreparation": catalog.Mutating, "createNotepad": catalog.Mutating,
		"updateNotepad": catalog.Mutating, "deleteNotepad": catalog.Mutating, "restoreNotepad": catalog.Mutating,
		"addTrackNote": catalog.Mutating, "updateTrackNote": catalog.Mutating, "deleteTrackNote": catalog.Mutating,
		"restoreTrackNote":   catalog.Mutating,
		"saveCoachingReport": catalog.Creative, "saveReadinessAssessment": catalog.Creative, "generateRaceStrategy": catalog.Creative,
	}
	got := map[string]bool{}
	for _, f := range cat.Functions() {
		got[f.Name] = true
		tier, ok := want[f.Name]
		if !ok {
			t.Errorf("unexpected function %s", f.Name)
			continue
		}
		scope := functions.ScopeWrite
		if tier == catalog.ReadOnly {
			scope = functions.ScopeRead
		}
		if f.Tier != tier || len(f.Scopes) != 1 || f.Scopes[0] != scope || f.Description == "" {
			t.Errorf("%s: tier %s scopes %v", f.Name, f.Tier, f.Scopes)
		}
	}
	for name := range want {
		if !got[name] {
			t.Errorf("%s not registered", name)
		}
	}
}

// TestCoachingScript runs what /work/shared/bench/coaching.ts does, call
// by call, as the demo user, and reads the report back.
func TestCoachingScript(t *testing.T) {
	var sessions []map[string]any
	mustCall(t, demoU, "getSessions", obj{"trackName": "Spa", "limit": 5}, &sessions)
	if len(sessions) != 5 {
		t.Fatalf("%d sessions", len(sessions))
	}
	for _, k := range []string{"id", "trackName", "carName", "bestLapMs", "lapCount", "startedAt"} {
		if sessions[0][k] == nil {
			t.Fatalf("session row lacks %s: %v", k, sessions[0])
		}
	}
	if sessions[0]["trackName"] != "Spa-Francorchamps" {
		t.Fatalf("trackName %v", sessions[0]["trackName"])
	}
	var weak []map[string]any
	mustCall(t, demoU, "getWeakCorners", obj{"trackName": "Spa", "limit": 5}, &weak)
	if len(weak) != 5 {
		t.Fatalf("%d weak corners", len(weak))
	}
	var braking []map[string]any
	mustCall(t, demoU, "getBrakingZones", obj{"sessionId": sessions[0]["id"]}, &braking)
	if len(braking) == 0 || braking[0]["brakePointM"] == nil {
		t.Fatalf("braking zones %v", braking)
	}
	corners := []obj{}
	for _, c := range weak {
		corners = append(corners, obj{"cornerIndex": c["cornerIndex"], "cornerName": c["cornerName"], "verdict": "needs_work",
			"issue": c["topIssue"], "detail": "Weakness score: " + jsonString(c["weaknessScore"]) + "/100"})
	}
	var report map[string]any
	mustCall(t, demoU, "saveCoachingReport", obj{
		"sessionId": sessions[0]["id"],
		"overview":  obj{"assessment": "needs_work", "summary": "Three corners at Spa are costing significant time..."},
		"pace": obj{"bestLapMs": sessions[0]["bestLapMs"], "averageLapMs": 138500, "consistencyPct": 85,
			"improvementTrend": "improving"},
		"corners":     corners,
		"actionItems": []obj{{"priority": 1, "action": "Focus on trail braking at La Source", "why": "Releasing brake too quickly, losing 0.3s"}},
	}, &report)
	id, _ := report["id"].(string)
	if !strings.HasPrefix(id, "rep_") {
		t.Fatalf("report %v", report)
	}
	var reports []map[string]any
	mustCall(t, demoU, "getCoachingReports", obj{"sessionId": sessions[0]["id"]}, &reports)
	if len(reports) != 1 || reports[0]["id"] != id || len(reports[0]["corners"].([]any)) != 5 {
		t.Fatalf("reports %v", reports)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
