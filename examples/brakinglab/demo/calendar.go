package demo

import (
	"encoding/json"
	"math/rand/v2"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

// addCalendar adds race events, a preparation, notepads and track notes.
func addCalendar(rng *rand.Rand, d *Data, demoID, rivalID string, today time.Time) {
	at := func(days, hour int) time.Time { return today.AddDate(0, 0, days).Add(time.Duration(hour) * time.Hour) }
	event := func(user string, e store.RaceEvent) string {
		e.ID = id(rng, "evt")
		if e.Status == "" {
			e.Status = store.StatusScheduled
		}
		d.RaceEvents = append(d.RaceEvents, Owned[store.RaceEvent]{user, e})
		return e.ID
	}
	spa := event(demoID, store.RaceEvent{Name: "Sprint Cup Round 4: Spa", TrackID: "spa", CarID: "porsche-911-gt3-r", Sim: "iRacing",
		StartsAt: at(5, 19), DurationMin: 60, Notes: "Rolling start, one mandatory pit stop."})
	event(demoID, store.RaceEvent{Name: "Monza 25-lap Feature", TrackID: "monza", CarID: "porsche-911-gt3-r", Sim: "Assetto Corsa Competizione",
		StartsAt: at(12, 20), Laps: 25})
	event(demoID, store.RaceEvent{Name: "Suzuka 2 Hours", TrackID: "suzuka", CarID: "porsche-911-gt3-r", Sim: "iRacing",
		StartsAt: at(26, 18), DurationMin: 120, Notes: "Endurance round; two mandatory stops."})
	event(demoID, store.RaceEvent{Name: "Silverstone Club Race", TrackID: "silverstone", CarID: "bmw-m4-gt3", Sim: "Assetto Corsa Competizione",
		StartsAt: at(-8, 20), Laps: 18, Status: store.StatusCompleted, Notes: "Finished P6 from P9."})
	event(rivalID, store.RaceEvent{Name: "Sprint Cup Round 4: Spa", TrackID: "spa", CarID: "ferrari-296-gt3", Sim: "iRacing",
		StartsAt: at(5, 19), DurationMin: 60})

	prep, _ := json.Marshal(map[string]any{
		"targetLapMs": 138200,
		"setupNotes":  "Baseline aero, brake bias 54.5 %, one click softer rear anti-roll bar.",
		"fuelPlan":    "Start with 70 L, stop on lap 13, add enough to finish plus one lap.",
		"checklist": []map[string]any{
			{"item": "Practise the pit entry at the Bus Stop", "done": true},
			{"item": "Three clean laps braking at the 150 m board into La Source", "done": false},
			{"item": "Practise a start in the sprint's conditions", "done": false},
		},
	})
	d.Preparations = append(d.Preparations, Owned[Preparation]{demoID, Preparation{RaceEventID: spa, Body: prep}})

	note := func(user, title, body string, tags ...string) {
		d.Notepads = append(d.Notepads, Owned[store.Notepad]{user, store.Notepad{ID: id(rng, "note"), Title: title, Body: body, Tags: tags}})
	}
	note(demoID, "Spa braking markers", "La Source: 150 m board in the GT3, not the 100. Les Combes: brake at 200 m and keep some pressure to the apex.", "spa", "braking")
	note(demoID, "Race-day routine", "Warm-up laps, check the brake bias, 10 minutes of breathing before the start.", "routine")
	note(demoID, "Porsche at Monza", "Lowest wing that still turns in at the Ascari; watch rear temperatures.", "monza", "setup")
	note(rivalID, "Ferrari setup sheet", "Private to the rival: brake bias 56 %, TC 3.", "setup")

	tn := func(user, track string, corner int, text string) {
		n := store.TrackNote{ID: id(rng, "tn"), TrackID: track, Note: text}
		if corner >= 0 {
			c := corner
			n.CornerIndex = &c
		}
		d.TrackNotes = append(d.TrackNotes, Owned[store.TrackNote]{user, n})
	}
	tn(demoID, "spa", 0, "I keep overshooting the apex: brake earlier and roll more speed to the apex.")
	tn(demoID, "spa", 3, "Keep trail braking into the right-hander; coming off the brake early makes the car push.")
	tn(demoID, "spa", -1, "Track limits are strict at the Raidillon exit and at Stavelot.")
	tn(demoID, "monza", 0, "Big stop: the 150 m board; don't lock the front left.")
	tn(rivalID, "spa", 5, "Rival's note: carry more speed into Bruxelles.")
}
