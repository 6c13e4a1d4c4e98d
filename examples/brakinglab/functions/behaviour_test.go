package functions_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/functions"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

func TestSoftDeleteAndRestore(t *testing.T) {
	tests := []struct {
		create, get, del, restore string
		createArgs                obj
		idKey                     string
		getArgs                   func(id string) obj
	}{
		{"createNotepad", "getNotepad", "deleteNotepad", "restoreNotepad",
			obj{"title": "Brake markers", "body": "150 m board"}, "notepadId",
			func(id string) obj { return obj{"notepadId": id} }},
		{"createRaceEvent", "getRaceEvent", "deleteRaceEvent", "restoreRaceEvent",
			obj{"name": "Night race", "trackName": "Suzuka", "sim": "iRacing", "startsAt": "2026-12-24T20:00:00Z", "durationMin": 45}, "raceEventId",
			func(id string) obj { return obj{"raceEventId": id} }},
		{"addTrackNote", "getTrackNotes", "deleteTrackNote", "restoreTrackNote",
			obj{"trackName": "Laguna Seca", "cornerIndex": 5, "note": "Aim at the tree."}, "trackNoteId",
			func(string) obj { return obj{"trackName": "Laguna Seca", "cornerIndex": 5} }},
	}
	for _, tt := range tests {
		t.Run(tt.create, func(t *testing.T) {
			var created struct{ ID string }
			mustCall(t, demoU, tt.create, tt.createArgs, &created)
			visible := func() bool {
				res, err := call(demoU, tt.get, tt.getArgs(created.ID))
				if code(err) == catalog.CodeNotFound {
					return false
				}
				if err != nil {
					t.Fatal(err)
				}
				return strings.Contains(string(res), created.ID)
			}
			if !visible() {
				t.Fatal("new record not visible")
			}
			mustCall(t, demoU, tt.del, obj{tt.idKey: created.ID}, nil)
			if visible() {
				t.Fatal("deleted record still visible")
			}
			if _, err := call(demoU, tt.del, obj{tt.idKey: created.ID}); code(err) != catalog.CodeNotFound {
				t.Fatalf("second delete: %v", err)
			}
			mustCall(t, demoU, tt.restore, obj{tt.idKey: created.ID}, nil)
			if !visible() {
				t.Fatal("restored record not visible")
			}
		})
	}
}

func TestNullsStripped(t *testing.T) {
	var events []struct{ ID string }
	mustCall(t, demoU, "getRaceEvents", obj{}, &events)
	for _, name := range []string{"getRaceEvent", "getProfile", "getTracks"} {
		res, err := call(demoU, name, obj{"raceEventId": events[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(res), "null") {
			t.Fatalf("%s result has a null: %s", name, res)
		}
	}
}

func TestSessionsFilters(t *testing.T) {
	tests := []struct {
		args  obj
		n     int
		track string
		err   string
	}{
		{obj{}, 10, "", ""},
		{obj{"limit": 100}, 24, "", ""},
		{obj{"trackName": "spa", "limit": 100}, 10, "Spa-Francorchamps", ""},
		{obj{"trackName": "Francorchamps", "limit": 3}, 3, "Spa-Francorchamps", ""},
		{obj{"trackName": "nurburgring"}, 2, "Nürburgring GP", ""},
		{obj{"carName": "mx-5"}, 2, "Laguna Seca", ""},
		{obj{"trackName": "Spa", "type": "race"}, 1, "Spa-Francorchamps", ""},
		{obj{"since": "2026-11-15T00:00:00Z", "limit": 100}, 5, "", ""}, // Spa -6, -3, -1; Monza -4; Suzuka -5
		{obj{"trackName": "Daytona"}, 0, "", `no track matches \"Daytona\"`},
		{obj{"limit": 101}, 0, "", "validation"},
		{obj{"type": "warmup"}, 0, "", "validation"},
	}
	for _, tt := range tests {
		var rows []functions.SessionRow
		res, err := call(demoU, "getSessions", tt.args)
		if tt.err != "" {
			b, _ := json.Marshal(err)
			if err == nil || (!strings.Contains(string(b), tt.err) && code(err) != tt.err) {
				t.Errorf("%v: got %s %s, want error %q", tt.args, res, b, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		json.Unmarshal(res, &rows)
		if len(rows) != tt.n {
			t.Errorf("%v: %d rows, want %d", tt.args, len(rows), tt.n)
		}
		for i, r := range rows {
			if (tt.track != "" && r.TrackName != tt.track) || (i > 0 && r.StartedAt.After(rows[i-1].StartedAt)) {
				t.Errorf("%v: row %d %+v", tt.args, i, r)
			}
		}
	}
}

// TestDemoStory checks the analysis tells the demo's story: late braking
// into La Source, improvement at Spa.
func TestDemoStory(t *testing.T) {
	var weak []functions.WeakCorner
	mustCall(t, demoU, "getWeakCorners", obj{"trackName": "Spa", "limit": 12}, &weak)
	if len(weak) != 12 {
		t.Fatalf("%d corners", len(weak))
	}
	found := false
	for i, w := range weak {
		if w.WeaknessScore < 0 || w.WeaknessScore > 100 || (i > 0 && w.WeaknessScore > weak[i-1].WeaknessScore) {
			t.Errorf("row %d %+v", i, w)
		}
		if w.CornerName == "La Source" {
			found = true
			if w.TopIssue != "late_braking" || i > 2 || w.BrakePointDeltaM <= 0 {
				t.Errorf("La Source at rank %d: %+v", i, w)
			}
		}
	}
	if !found {
		t.Fatal("La Source missing")
	}
	var p functions.Progress
	mustCall(t, demoU, "getProgress", obj{"trackName": "Spa"}, &p)
	if p.Trend != "improving" || p.ImprovementMs <= 0 || len(p.Sessions) != 10 || p.PersonalBestMs > p.LatestBestMs {
		t.Fatalf("progress %+v", p)
	}
	var rivalWeak []functions.WeakCorner
	mustCall(t, rivalU, "getWeakCorners", obj{"trackName": "Suzuka"}, &rivalWeak)
	if len(rivalWeak) != 0 {
		t.Fatalf("rival has no laps at Suzuka but got %v", rivalWeak)
	}
}

func TestTelemetryAndCorners(t *testing.T) {
	var sessions []functions.SessionRow
	mustCall(t, demoU, "getSessions", obj{"trackName": "Spa", "limit": 2}, &sessions)
	var laps []functions.LapRow
	mustCall(t, demoU, "getLaps", obj{"sessionId": sessions[0].ID}, &laps)
	lap := laps[0]
	var tel functions.LapTelemetry
	mustCall(t, demoU, "getLapTelemetry", obj{"sessionId": sessions[0].ID, "lapNumber": lap.LapNumber, "channels": []string{"speedKph", "brake"}, "resolutionM": 100}, &tel)
	if len(tel.DistanceM) != 71 || len(tel.SpeedKph) != 71 || len(tel.Brake) != 71 || tel.Throttle != nil || tel.LapTimeMs != lap.LapTimeMs {
		t.Fatalf("telemetry: %d points, throttle %v, lap %d vs %d", len(tel.DistanceM), tel.Throttle != nil, tel.LapTimeMs, lap.LapTimeMs)
	}
	if _, err := call(demoU, "getLapTelemetry", obj{"sessionId": sessions[0].ID, "lapNumber": 1, "resolutionM": 15}); code(err) != "validation" {
		t.Fatalf("resolution 15: %v", err)
	}
	if _, err := call(demoU, "getLapTelemetry", obj{"sessionId": sessions[0].ID, "lapNumber": 99}); code(err) != catalog.CodeNotFound {
		t.Fatalf("lap 99: %v", err)
	}
	var ca functions.CornerAnalysis
	mustCall(t, demoU, "getCornerAnalysis", obj{"sessionId": sessions[0].ID, "lapNumber": lap.LapNumber}, &ca)
	sum := 0
	for _, c := range ca.Corners {
		sum += c.TimeMs
	}
	if len(ca.Corners) != 12 || abs(sum-lap.LapTimeMs) > 12 {
		t.Fatalf("corner times add to %d, lap is %d", sum, lap.LapTimeMs)
	}
	var cmp functions.LapComparison
	mustCall(t, demoU, "compareLaps", obj{"a": obj{"sessionId": sessions[0].ID, "lapNumber": 1}, "b": obj{"sessionId": sessions[1].ID, "lapNumber": 1}}, &cmp)
	if len(cmp.Sectors) != 3 || len(cmp.Corners) != 12 || abs(cmp.Sectors[2].CumulativeDeltaMs-cmp.DeltaMs) > 2 {
		t.Fatalf("comparison %+v", cmp)
	}
	var monza []functions.SessionRow
	mustCall(t, demoU, "getSessions", obj{"trackName": "Monza", "limit": 1}, &monza)
	_, err := call(demoU, "compareLaps", obj{"a": obj{"sessionId": sessions[0].ID, "lapNumber": 1}, "b": obj{"sessionId": monza[0].ID, "lapNumber": 1}})
	if code(err) != catalog.CodeInvalid || !strings.Contains(err.Error(), "different tracks") {
		t.Fatalf("cross-track comparison: %v", err)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestRaceStrategy(t *testing.T) {
	var s functions.Strategy
	mustCall(t, demoU, "generateRaceStrategy", obj{"trackName": "Spa", "raceDurationMin": 60, "mandatoryStops": 1}, &s)
	if s.Stops != 1 || len(s.PitLaps) != 1 || len(s.Stints) != 2 || s.TotalLaps < 25 || s.TotalLaps > 28 || s.Basis.FuelPerLapL < 2.8 || s.Basis.FuelPerLapL > 3.4 {
		t.Fatalf("strategy %+v", s)
	}
	tests := []struct {
		args obj
		want string
	}{
		{obj{"trackName": "Spa", "raceLaps": 20, "tankL": 2}, "does not cover one lap"},
		{obj{"trackName": "Spa", "raceLaps": 500, "tankL": 10}, "stops"},
		{obj{"trackName": "Spa", "raceLaps": 20, "raceDurationMin": 60}, "exactly one"},
		{obj{"trackName": "Spa"}, "exactly one"},
		{obj{"raceLaps": 20}, `"path":["raceEventId"],"message":"Required unless trackName is given"`},
		{obj{"trackName": "Spa", "carName": "Mazda", "raceLaps": 20}, "no valid laps at Spa-Francorchamps in the Mazda MX-5 Cup"},
	}
	rows := counts(t)
	for _, tt := range tests {
		_, err := call(demoU, "generateRaceStrategy", tt.args)
		b, _ := json.Marshal(err)
		if err == nil || !strings.Contains(string(b), tt.want) {
			t.Errorf("%v: %s, want %q", tt.args, b, tt.want)
		}
	}
	if after := counts(t); after["race_strategies"] != rows["race_strategies"] {
		t.Fatal("a refused strategy was saved")
	}
}

func TestReportValidation(t *testing.T) {
	id := demoIDs(t)
	args := report(id)
	args["overview"].(obj)["assessment"] = "great"
	args["corners"] = []obj{{"cornerIndex": 0, "cornerName": "Eau Rouge", "verdict": "good", "detail": ""}, {"cornerIndex": 40, "cornerName": "X", "verdict": "good", "detail": ""}}
	_, err := call(demoU, "saveCoachingReport", args)
	b, _ := json.Marshal(err)
	if code(err) != "validation" || !strings.Contains(string(b), `"overview","assessment"`) {
		t.Fatalf("bad enum: %s", b)
	}
	args["overview"].(obj)["assessment"] = "good"
	_, err = call(demoU, "saveCoachingReport", args)
	b, _ = json.Marshal(err)
	if !strings.Contains(string(b), `corner 0 of Spa-Francorchamps is \"La Source\"`) || !strings.Contains(string(b), `"corners",1,"cornerIndex"`) {
		t.Fatalf("bad corners: %s", b)
	}
}

func TestCallerResolution(t *testing.T) {
	if _, err := cat.Call(context.Background(), "getProfile", json.RawMessage(`{}`)); err == nil {
		t.Fatal("anonymous call succeeded")
	}
	ghost := store.User{ID: "usr_ghost"}
	if _, err := call(ghost, "getProfile", obj{}); code(err) != catalog.CodeUnauthenticated {
		t.Fatalf("unknown subject: %v", err)
	}
	ro := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: demoU.ID, Scopes: []string{functions.ScopeRead}})
	if _, err := cat.Call(ro, "createNotepad", json.RawMessage(`{"title":"x","body":"y"}`)); err == nil {
		t.Fatal("write without brakinglab:write succeeded")
	}
	var p functions.Profile
	mustCall(t, demoU, "getProfile", obj{}, &p)
	if p.Username != "demo" || p.SessionCount != 24 || p.Tracks[0].TrackName != "Spa-Francorchamps" {
		t.Fatalf("profile %+v", p)
	}
}
