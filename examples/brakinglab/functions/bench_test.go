package functions_test

import (
	"encoding/json"
	"testing"
)

func bench(b *testing.B, name, args string) {
	ctx := as(demoU)
	for b.Loop() {
		if _, err := cat.Call(ctx, name, json.RawMessage(args)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetSessions is a typical list call through the catalog and SQLite.
func BenchmarkGetSessions(b *testing.B) { bench(b, "getSessions", `{"trackName":"Spa","limit":5}`) }

// BenchmarkGetWeakCorners loads and analyses every valid Spa lap of the
// demo user (about 120 laps of telemetry).
func BenchmarkGetWeakCorners(b *testing.B) {
	bench(b, "getWeakCorners", `{"trackName":"Spa","limit":5}`)
}

// BenchmarkGetBrakingZones analyses one session.
func BenchmarkGetBrakingZones(b *testing.B) {
	var s []struct{ ID string }
	res, _ := call(demoU, "getSessions", obj{"trackName": "Spa", "limit": 1})
	json.Unmarshal(res, &s)
	bench(b, "getBrakingZones", `{"sessionId":"`+s[0].ID+`"}`)
}
