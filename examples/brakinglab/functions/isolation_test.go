package functions_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// ids are the demo user's records the cases refer to.
type ids map[string]string

// demoIDs finds (and where needed creates) demo records for every kind of ID.
func demoIDs(t *testing.T) ids {
	t.Helper()
	var sessions []struct{ ID string }
	mustCall(t, demoU, "getSessions", obj{"trackName": "Spa", "limit": 2}, &sessions)
	var events []struct{ ID, TrackName string }
	mustCall(t, demoU, "getRaceEvents", obj{"status": "scheduled"}, &events)
	var spaEvent string
	for _, e := range events {
		if e.TrackName == "Spa-Francorchamps" {
			spaEvent = e.ID
		}
	}
	var notepads []struct{ ID string }
	mustCall(t, demoU, "getNotepads", obj{}, &notepads)
	var notes []struct{ ID string }
	mustCall(t, demoU, "getTrackNotes", obj{"trackName": "Spa"}, &notes)

	var created struct{ ID string }
	mustCall(t, demoU, "createNotepad", obj{"title": "scratch", "body": "to delete"}, &created)
	mustCall(t, demoU, "deleteNotepad", obj{"notepadId": created.ID}, nil)
	deletedNotepad := created.ID
	mustCall(t, demoU, "createRaceEvent", obj{"name": "scratch", "trackName": "Monza", "sim": "iRacing", "startsAt": "2026-12-20T19:00:00Z", "laps": 10}, &created)
	mustCall(t, demoU, "deleteRaceEvent", obj{"raceEventId": created.ID}, nil)
	deletedEvent := created.ID
	mustCall(t, demoU, "addTrackNote", obj{"trackName": "Spa", "note": "scratch"}, &created)
	mustCall(t, demoU, "deleteTrackNote", obj{"trackNoteId": created.ID}, nil)
	deletedNote := created.ID
	mustCall(t, demoU, "saveReadinessAssessment", obj{"raceEventId": spaEvent, "score": 60, "verdict": "almost_ready", "summary": "Close."}, nil)
	return ids{
		"session": sessions[0].ID, "session2": sessions[1].ID, "event": spaEvent, "notepad": notepads[0].ID,
		"trackNote": notes[0].ID, "deletedNotepad": deletedNotepad, "deletedEvent": deletedEvent, "deletedNote": deletedNote,
	}
}

// isoCase is how one function is called in the isolation, dry-run and
// strictness tests. args builds valid arguments for the demo user from
// their IDs. idBound functions must answer another user's IDs with
// not_found; the others must succeed without revealing demo data.
type isoCase struct {
	args    func(id ids) obj
	idBound bool
}

func report(id ids) obj {
	return obj{
		"sessionId":   id["session"],
		"overview":    obj{"assessment": "good", "summary": "Solid."},
		"pace":        obj{"bestLapMs": 138000, "averageLapMs": 138600, "consistencyPct": 80, "improvementTrend": "stable"},
		"corners":     []obj{{"cornerIndex": 0, "cornerName": "La Source", "verdict": "needs_work", "issue": "late_braking", "detail": "Brake earlier."}},
		"actionItems": []obj{{"priority": 1, "action": "Brake at 150 m", "why": "Overshooting"}},
	}
}

var cases = map[string]isoCase{
	"getProfile":         {args: func(ids) obj { return obj{} }},
	"getTracks":          {args: func(ids) obj { return obj{} }},
	"getSessions":        {args: func(ids) obj { return obj{"trackName": "Spa"} }},
	"getWeakCorners":     {args: func(ids) obj { return obj{"trackName": "Spa"} }},
	"getProgress":        {args: func(ids) obj { return obj{"trackName": "Spa"} }},
	"getRaceEvents":      {args: func(ids) obj { return obj{} }},
	"getNotepads":        {args: func(ids) obj { return obj{} }},
	"getTrackNotes":      {args: func(ids) obj { return obj{"trackName": "Spa"} }},
	"getSession":         {args: func(id ids) obj { return obj{"sessionId": id["session"]} }, idBound: true},
	"getLaps":            {args: func(id ids) obj { return obj{"sessionId": id["session"]} }, idBound: true},
	"getLapTelemetry":    {args: func(id ids) obj { return obj{"sessionId": id["session"], "lapNumber": 1} }, idBound: true},
	"getCornerAnalysis":  {args: func(id ids) obj { return obj{"sessionId": id["session"]} }, idBound: true},
	"getBrakingZones":    {args: func(id ids) obj { return obj{"sessionId": id["session"], "lapNumber": 2} }, idBound: true},
	"getCoachingReports": {args: func(id ids) obj { return obj{"sessionId": id["session"]} }, idBound: true},
	"compareLaps": {args: func(id ids) obj {
		return obj{"a": obj{"sessionId": id["session"], "lapNumber": 1}, "b": obj{"sessionId": id["session2"], "lapNumber": 1}}
	}, idBound: true},
	"getRaceEvent":            {args: func(id ids) obj { return obj{"raceEventId": id["event"]} }, idBound: true},
	"getReadinessAssessments": {args: func(id ids) obj { return obj{"raceEventId": id["event"]} }, idBound: true},
	"getNotepad":              {args: func(id ids) obj { return obj{"notepadId": id["notepad"]} }, idBound: true},

	"createRaceEvent": {args: func(ids) obj {
		return obj{"name": "Monza Sprint", "trackName": "monza", "carName": "porsche", "sim": "iRacing", "startsAt": "2026-12-20T19:00:00Z", "laps": 20}
	}},
	"createNotepad":       {args: func(ids) obj { return obj{"title": "Ideas", "body": "Try a lower line.", "tags": []string{"x"}} }},
	"addTrackNote":        {args: func(ids) obj { return obj{"trackName": "Spa", "cornerIndex": 2, "note": "Flat in top gear."} }},
	"updateRaceEvent":     {args: func(id ids) obj { return obj{"raceEventId": id["event"], "notes": "Changed"} }, idBound: true},
	"deleteRaceEvent":     {args: func(id ids) obj { return obj{"raceEventId": id["event"]} }, idBound: true},
	"restoreRaceEvent":    {args: func(id ids) obj { return obj{"raceEventId": id["deletedEvent"]} }, idBound: true},
	"saveRacePreparation": {args: func(id ids) obj { return obj{"raceEventId": id["event"], "targetLapMs": 138000} }, idBound: true},
	"updateNotepad":       {args: func(id ids) obj { return obj{"notepadId": id["notepad"], "body": "Changed"} }, idBound: true},
	"deleteNotepad":       {args: func(id ids) obj { return obj{"notepadId": id["notepad"]} }, idBound: true},
	"restoreNotepad":      {args: func(id ids) obj { return obj{"notepadId": id["deletedNotepad"]} }, idBound: true},
	"updateTrackNote":     {args: func(id ids) obj { return obj{"trackNoteId": id["trackNote"], "note": "Changed"} }, idBound: true},
	"deleteTrackNote":     {args: func(id ids) obj { return obj{"trackNoteId": id["trackNote"]} }, idBound: true},
	"restoreTrackNote":    {args: func(id ids) obj { return obj{"trackNoteId": id["deletedNote"]} }, idBound: true},
	"saveCoachingReport":  {args: report, idBound: true},
	"saveReadinessAssessment": {args: func(id ids) obj {
		return obj{"raceEventId": id["event"], "score": 70, "verdict": "almost_ready", "summary": "Nearly there."}
	}, idBound: true},
	"generateRaceStrategy": {args: func(id ids) obj { return obj{"raceEventId": id["event"]} }, idBound: true},
}

// demoState is everything the demo user can read about their own records.
func demoState(t *testing.T, id ids) string {
	t.Helper()
	var b strings.Builder
	for _, c := range []struct {
		name string
		args obj
	}{
		{"getRaceEvents", obj{}}, {"getRaceEvent", obj{"raceEventId": id["event"]}}, {"getNotepads", obj{}},
		{"getTrackNotes", obj{"trackName": "Spa"}}, {"getCoachingReports", obj{"limit": 50}},
		{"getReadinessAssessments", obj{"raceEventId": id["event"]}},
	} {
		res, err := call(demoU, c.name, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b.Write(res)
	}
	return b.String()
}

// TestIsolation calls every registered function as the rival with the
// demo user's IDs. A function without a case fails the test.
func TestIsolation(t *testing.T) {
	id := demoIDs(t)
	missing := ids{}
	for k := range id {
		missing[k] = "missing_" + k
	}
	before, rowsBefore := demoState(t, id), counts(t)
	secret := []string{demoU.ID}
	for _, v := range id {
		secret = append(secret, v)
	}
	for _, f := range cat.Functions() {
		t.Run(f.Name, func(t *testing.T) {
			c, ok := cases[f.Name]
			if !ok {
				t.Fatalf("no isolation case for %s: add one to cases", f.Name)
			}
			res, err := call(rivalU, f.Name, c.args(id))
			if c.idBound {
				if code(err) != catalog.CodeNotFound {
					t.Fatalf("rival got %s, %v; want not_found", res, err)
				}
				_, errMissing := call(rivalU, f.Name, c.args(missing))
				got, _ := json.Marshal(err)
				want, _ := json.Marshal(errMissing)
				for k, v := range id {
					got = []byte(strings.ReplaceAll(string(got), v, missing[k]))
				}
				if string(got) != string(want) {
					t.Fatalf("another user's ID and a missing one differ:\n%s\n%s", got, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("rival: %v", err)
			}
			for _, s := range secret {
				if strings.Contains(string(res), s) {
					t.Fatalf("rival's %s result contains the demo user's %s", f.Name, s)
				}
			}
		})
	}
	if after := demoState(t, id); after != before {
		t.Fatal("the demo user's records changed")
	}
	rowsAfter := counts(t)
	for table, n := range rowsBefore {
		grew := rowsAfter[table] - n
		// Only the rival's own creations may add rows.
		if allowed := map[string]int{"race_events": 1, "notepads": 1, "track_notes": 1}[table]; grew != allowed {
			t.Errorf("%s grew by %d rows, want %d", table, grew, allowed)
		}
	}
}

// TestValidateOnlyWritesNothing dry-runs every MUTATING and CREATIVE
// function with valid arguments.
func TestValidateOnlyWritesNothing(t *testing.T) {
	id := demoIDs(t)
	before, rows := demoState(t, id), counts(t)
	for _, f := range cat.Functions() {
		if !f.Tier.Strict() {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			args := cases[f.Name].args(id)
			args["_validateOnly"] = true
			var res struct{ Valid bool }
			mustCall(t, demoU, f.Name, args, &res)
			if !res.Valid {
				t.Fatalf("dry run did not say valid")
			}
		})
	}
	if after := demoState(t, id); after != before {
		t.Fatal("a dry run changed the demo user's records")
	}
	if after := counts(t); !reflect.DeepEqual(after, rows) {
		t.Fatalf("row counts changed: %v → %v", rows, after)
	}
}

// TestUnknownFieldsRejected adds a stray field, at the top and nested, to
// every MUTATING and CREATIVE function's valid arguments.
func TestUnknownFieldsRejected(t *testing.T) {
	id := demoIDs(t)
	rows := counts(t)
	for _, f := range cat.Functions() {
		if !f.Tier.Strict() {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			args := cases[f.Name].args(id)
			args["colour"] = "red"
			_, err := call(demoU, f.Name, args)
			var ve *catalog.ValidationError
			if !asValidation(err, &ve) || len(ve.Issues) != 1 || len(ve.Issues[0].Path) != 1 || ve.Issues[0].Path[0] != "colour" {
				b, _ := json.Marshal(err)
				t.Fatalf("stray field: %s", b)
			}
		})
	}
	args := report(id)
	args["pace"].(obj)["bogus"] = 1
	if _, err := call(demoU, "saveCoachingReport", args); code(err) != "validation" {
		t.Fatalf("nested stray field: %v", err)
	}
	if after := counts(t); !reflect.DeepEqual(after, rows) {
		t.Fatalf("row counts changed: %v → %v", rows, after)
	}
}

func asValidation(err error, target **catalog.ValidationError) bool {
	ve, ok := err.(*catalog.ValidationError)
	if ok {
		*target = ve
	}
	return ok
}
