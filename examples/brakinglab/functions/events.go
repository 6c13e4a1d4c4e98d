package functions

import (
	"context"
	"encoding/json"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
)

// RaceEventsArgs filter getRaceEvents.
type RaceEventsArgs struct {
	From   time.Time `json:"from,omitzero" jsonschema:"Events starting at or after this time (RFC 3339)"`
	To     time.Time `json:"to,omitzero" jsonschema:"Events starting at or before this time"`
	Status string    `json:"status,omitempty" validate:"omitempty,oneof=scheduled completed cancelled"`
}

// RaceEventArgs name one race event.
type RaceEventArgs struct {
	RaceEventID string `json:"raceEventId" validate:"required" jsonschema:"An id from getRaceEvents"`
}

// RaceEvent is a race on your calendar.
type RaceEvent struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	TrackName   string    `json:"trackName"`
	CarName     string    `json:"carName,omitempty"`
	Sim         string    `json:"sim"`
	StartsAt    time.Time `json:"startsAt"`
	DurationMin int       `json:"durationMin,omitempty" jsonschema:"Length of a timed race"`
	Laps        int       `json:"laps,omitempty" jsonschema:"Length of a race over laps"`
	Status      string    `json:"status" validate:"oneof=scheduled completed cancelled"`
	Notes       string    `json:"notes,omitempty"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// RaceEventDetail is a race event with its preparation and latest
// readiness assessment.
type RaceEventDetail struct {
	RaceEvent
	Preparation     *Preparation `json:"preparation,omitempty"`
	LatestReadiness *Readiness   `json:"latestReadiness,omitempty"`
}

// CreateRaceEventArgs describe a new race event. Give durationMin or laps.
type CreateRaceEventArgs struct {
	Name        string    `json:"name" validate:"required,max=100"`
	TrackName   string    `json:"trackName" validate:"required" jsonschema:"Track name or part of it"`
	CarName     string    `json:"carName,omitempty" jsonschema:"Car name or part of it"`
	Sim         string    `json:"sim" validate:"required,max=60" jsonschema:"Simulator, e.g. \"iRacing\""`
	StartsAt    time.Time `json:"startsAt" jsonschema:"Start time (RFC 3339)"`
	DurationMin int       `json:"durationMin,omitempty" validate:"omitempty,min=1,max=1440" jsonschema:"For a timed race"`
	Laps        int       `json:"laps,omitempty" validate:"omitempty,min=1,max=500" jsonschema:"For a race over laps"`
	Notes       string    `json:"notes,omitempty" validate:"max=2000"`
}

// UpdateRaceEventArgs change a race event; absent fields stay as they are.
// Setting durationMin clears laps and the other way round.
type UpdateRaceEventArgs struct {
	RaceEventID string     `json:"raceEventId" validate:"required"`
	Name        *string    `json:"name,omitempty" validate:"omitempty,min=1,max=100"`
	CarName     *string    `json:"carName,omitempty"`
	StartsAt    *time.Time `json:"startsAt,omitempty"`
	DurationMin *int       `json:"durationMin,omitempty" validate:"omitempty,min=1,max=1440"`
	Laps        *int       `json:"laps,omitempty" validate:"omitempty,min=1,max=500"`
	Status      *string    `json:"status,omitempty" validate:"omitempty,oneof=scheduled completed cancelled"`
	Notes       *string    `json:"notes,omitempty" validate:"omitempty,max=2000"`
}

// Deleted confirms a soft delete; the matching restore function undoes it.
type Deleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// PreparationArgs are a race preparation; saving replaces the previous one.
type PreparationArgs struct {
	RaceEventID string          `json:"raceEventId" validate:"required"`
	TargetLapMs int             `json:"targetLapMs,omitempty" validate:"omitempty,min=10000,max=1200000"`
	SetupNotes  string          `json:"setupNotes,omitempty" validate:"max=4000"`
	FuelPlan    string          `json:"fuelPlan,omitempty" validate:"max=2000"`
	Checklist   []ChecklistItem `json:"checklist,omitempty" validate:"max=50,dive"`
	Notes       string          `json:"notes,omitempty" validate:"max=4000"`
}

// ChecklistItem is one preparation task.
type ChecklistItem struct {
	Item string `json:"item" validate:"required,max=200"`
	Done bool   `json:"done"`
}

// PreparationBody is what a preparation stores.
type PreparationBody struct {
	TargetLapMs int             `json:"targetLapMs,omitempty"`
	SetupNotes  string          `json:"setupNotes,omitempty"`
	FuelPlan    string          `json:"fuelPlan,omitempty"`
	Checklist   []ChecklistItem `json:"checklist,omitempty"`
	Notes       string          `json:"notes,omitempty"`
}

// Preparation is a saved race preparation.
type Preparation struct {
	ID          string    `json:"id"`
	RaceEventID string    `json:"raceEventId"`
	UpdatedAt   time.Time `json:"updatedAt"`
	PreparationBody
}

// ReadinessArgs are a readiness assessment for a race event.
type ReadinessArgs struct {
	RaceEventID string   `json:"raceEventId" validate:"required"`
	Score       int      `json:"score" validate:"min=0,max=100" jsonschema:"0-100 overall readiness"`
	Verdict     string   `json:"verdict" validate:"oneof=ready almost_ready not_ready"`
	Summary     string   `json:"summary" validate:"required,max=2000"`
	Strengths   []string `json:"strengths,omitempty" validate:"max=20,dive,min=1,max=300"`
	Risks       []string `json:"risks,omitempty" validate:"max=20,dive,min=1,max=300"`
	FocusAreas  []string `json:"focusAreas,omitempty" validate:"max=20,dive,min=1,max=300"`
}

// ReadinessBody is what an assessment stores.
type ReadinessBody struct {
	Score      int      `json:"score"`
	Verdict    string   `json:"verdict" validate:"oneof=ready almost_ready not_ready"`
	Summary    string   `json:"summary"`
	Strengths  []string `json:"strengths,omitempty"`
	Risks      []string `json:"risks,omitempty"`
	FocusAreas []string `json:"focusAreas,omitempty"`
}

// Readiness is a saved readiness assessment.
type Readiness struct {
	ID          string    `json:"id"`
	RaceEventID string    `json:"raceEventId"`
	CreatedAt   time.Time `json:"createdAt"`
	ReadinessBody
}

func registerEvents(c *catalog.Catalog, a *api) error {
	return firstErr(
		add(c, catalog.Func[RaceEventsArgs, []RaceEvent]{
			Name: "getRaceEvents", Tier: catalog.ReadOnly,
			Description: "Lists your race events by start time, optionally between from and to or with one status.",
			Handler:     a.getRaceEvents,
		}),
		add(c, catalog.Func[RaceEventArgs, RaceEventDetail]{
			Name: "getRaceEvent", Tier: catalog.ReadOnly,
			Description: "Returns one race event with its preparation and latest readiness assessment.",
			Handler:     a.getRaceEvent,
		}),
		add(c, catalog.Func[CreateRaceEventArgs, RaceEvent]{
			Name: "createRaceEvent", Tier: catalog.Mutating,
			Description: "Adds a race to your calendar. Give durationMin for a timed race or laps for a race over laps.",
			Handler:     a.createRaceEvent,
			Validate: func(ctx context.Context, in CreateRaceEventArgs) error {
				_, _, err := a.resolveEvent(ctx, in)
				return err
			},
		}),
		add(c, catalog.Func[UpdateRaceEventArgs, RaceEvent]{
			Name: "updateRaceEvent", Tier: catalog.Mutating,
			Description: "Changes fields of one of your race events; absent fields are kept.",
			Handler:     a.updateRaceEvent,
			Validate:    a.validateUpdateRaceEvent,
		}),
		add(c, catalog.Func[RaceEventArgs, Deleted]{
			Name: "deleteRaceEvent", Tier: catalog.Mutating,
			Approval:    a.approval,
			Description: "Deletes one of your race events (restoreRaceEvent undoes it).",
			Handler: func(ctx context.Context, in RaceEventArgs) (Deleted, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return Deleted{}, err
				}
				if err := a.st.DeleteRaceEvent(ctx, uid, in.RaceEventID); err != nil {
					return Deleted{}, notFound(err, "race event", in.RaceEventID)
				}
				return Deleted{ID: in.RaceEventID, Deleted: true}, nil
			},
			Validate: a.ownEvent,
		}),
		add(c, catalog.Func[RaceEventArgs, RaceEvent]{
			Name: "restoreRaceEvent", Tier: catalog.Mutating,
			Description: "Restores a race event you deleted.",
			Handler: func(ctx context.Context, in RaceEventArgs) (RaceEvent, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return RaceEvent{}, err
				}
				e, err := a.st.RestoreRaceEvent(ctx, uid, in.RaceEventID)
				if err != nil {
					return RaceEvent{}, notFound(err, "race event", in.RaceEventID)
				}
				return a.raceEvent(ctx, e), nil
			},
			Validate: func(ctx context.Context, in RaceEventArgs) error {
				return a.owns(ctx, store.KindRaceEvent, "race event", in.RaceEventID)
			},
		}),
		add(c, catalog.Func[PreparationArgs, Preparation]{
			Name: "saveRacePreparation", Tier: catalog.Mutating,
			Description: "Saves your preparation for a race event, replacing the previous one.",
			Handler:     a.saveRacePreparation,
			Validate: func(ctx context.Context, in PreparationArgs) error {
				return a.ownEvent(ctx, RaceEventArgs{in.RaceEventID})
			},
		}),
		add(c, catalog.Func[RaceEventArgs, []Readiness]{
			Name: "getReadinessAssessments", Tier: catalog.ReadOnly,
			Description: "Lists the readiness assessments of one of your race events, newest first.",
			Handler:     a.getReadinessAssessments,
		}),
		add(c, catalog.Func[ReadinessArgs, Readiness]{
			Name: "saveReadinessAssessment", Tier: catalog.Creative,
			Description: "Records an assessment of how ready you are for a race event.",
			Handler:     a.saveReadinessAssessment,
			Validate: func(ctx context.Context, in ReadinessArgs) error {
				return a.ownEvent(ctx, RaceEventArgs{in.RaceEventID})
			},
		}),
	)
}

// ownEvent checks that the caller has a live race event with that ID.
func (a *api) ownEvent(ctx context.Context, in RaceEventArgs) error {
	uid, err := a.userID(ctx)
	if err != nil {
		return err
	}
	_, err = a.st.RaceEvent(ctx, uid, in.RaceEventID)
	return notFound(err, "race event", in.RaceEventID)
}

// owns checks that the caller has a record of kind with that ID, live or deleted.
func (a *api) owns(ctx context.Context, kind, what, id string) error {
	uid, err := a.userID(ctx)
	if err != nil {
		return err
	}
	ok, err := a.st.Owns(ctx, kind, uid, id)
	if err == nil && !ok {
		err = store.ErrNotFound
	}
	return notFound(err, what, id)
}

func (a *api) raceEvent(ctx context.Context, e store.RaceEvent) RaceEvent {
	out := RaceEvent{ID: e.ID, Name: e.Name, TrackName: trackName(e.TrackID), Sim: e.Sim, StartsAt: e.StartsAt,
		DurationMin: e.DurationMin, Laps: e.Laps, Status: e.Status, Notes: e.Notes, UpdatedAt: e.UpdatedAt}
	if e.CarID != "" {
		cars, _ := a.st.Cars(ctx)
		for _, c := range cars {
			if c.ID == e.CarID {
				out.CarName = c.Name
			}
		}
	}
	return out
}

func (a *api) getRaceEvents(ctx context.Context, in RaceEventsArgs) ([]RaceEvent, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return nil, err
	}
	events, err := a.st.RaceEvents(ctx, uid, store.RaceEventFilter{From: in.From, To: in.To, Status: in.Status})
	if err != nil {
		return nil, err
	}
	out := make([]RaceEvent, len(events))
	for i, e := range events {
		out[i] = a.raceEvent(ctx, e)
	}
	return out, nil
}

func (a *api) getRaceEvent(ctx context.Context, in RaceEventArgs) (RaceEventDetail, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return RaceEventDetail{}, err
	}
	e, err := a.st.RaceEvent(ctx, uid, in.RaceEventID)
	if err != nil {
		return RaceEventDetail{}, notFound(err, "race event", in.RaceEventID)
	}
	d := RaceEventDetail{RaceEvent: a.raceEvent(ctx, e)}
	if p, ok, err := a.st.RacePreparation(ctx, uid, e.ID); err != nil {
		return RaceEventDetail{}, err
	} else if ok {
		prep, err := preparation(p)
		if err != nil {
			return RaceEventDetail{}, err
		}
		d.Preparation = &prep
	}
	rs, err := a.st.ReadinessAssessments(ctx, uid, e.ID)
	if err != nil {
		return RaceEventDetail{}, err
	}
	if len(rs) > 0 {
		r, err := readiness(rs[0])
		if err != nil {
			return RaceEventDetail{}, err
		}
		d.LatestReadiness = &r
	}
	return d, nil
}

// resolveEvent turns creation arguments into a store event.
func (a *api) resolveEvent(ctx context.Context, in CreateRaceEventArgs) (store.RaceEvent, string, error) {
	t, err := track(in.TrackName, "trackName")
	if err != nil {
		return store.RaceEvent{}, "", err
	}
	e := store.RaceEvent{Name: in.Name, TrackID: t.ID, Sim: in.Sim, StartsAt: in.StartsAt, DurationMin: in.DurationMin, Laps: in.Laps, Notes: in.Notes}
	if in.CarName != "" {
		c, err := a.car(ctx, in.CarName, "carName")
		if err != nil {
			return store.RaceEvent{}, "", err
		}
		e.CarID = c.ID
	}
	if (in.DurationMin > 0) == (in.Laps > 0) {
		return store.RaceEvent{}, "", issue("give exactly one of durationMin (timed race) and laps", "durationMin")
	}
	uid, err := a.userID(ctx)
	return e, uid, err
}

func (a *api) createRaceEvent(ctx context.Context, in CreateRaceEventArgs) (RaceEvent, error) {
	e, uid, err := a.resolveEvent(ctx, in)
	if err != nil {
		return RaceEvent{}, err
	}
	e, err = a.st.CreateRaceEvent(ctx, uid, e)
	if err != nil {
		return RaceEvent{}, err
	}
	return a.raceEvent(ctx, e), nil
}

func (a *api) validateUpdateRaceEvent(ctx context.Context, in UpdateRaceEventArgs) error {
	if in.DurationMin != nil && in.Laps != nil {
		return issue("give durationMin or laps, not both", "laps")
	}
	if in.CarName != nil && *in.CarName != "" {
		if _, err := a.car(ctx, *in.CarName, "carName"); err != nil {
			return err
		}
	}
	return a.ownEvent(ctx, RaceEventArgs{in.RaceEventID})
}

func (a *api) updateRaceEvent(ctx context.Context, in UpdateRaceEventArgs) (RaceEvent, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return RaceEvent{}, err
	}
	var carID *string
	if in.CarName != nil {
		id := ""
		if *in.CarName != "" {
			c, err := a.car(ctx, *in.CarName, "carName")
			if err != nil {
				return RaceEvent{}, err
			}
			id = c.ID
		}
		carID = &id
	}
	e, err := a.st.UpdateRaceEvent(ctx, uid, in.RaceEventID, func(e *store.RaceEvent) error {
		if in.Name != nil {
			e.Name = *in.Name
		}
		if carID != nil {
			e.CarID = *carID
		}
		if in.StartsAt != nil {
			e.StartsAt = *in.StartsAt
		}
		if in.DurationMin != nil {
			e.DurationMin, e.Laps = *in.DurationMin, 0
		}
		if in.Laps != nil {
			e.Laps, e.DurationMin = *in.Laps, 0
		}
		if in.Status != nil {
			e.Status = *in.Status
		}
		if in.Notes != nil {
			e.Notes = *in.Notes
		}
		return nil
	})
	if err != nil {
		return RaceEvent{}, notFound(err, "race event", in.RaceEventID)
	}
	return a.raceEvent(ctx, e), nil
}

func preparation(d store.Document) (Preparation, error) {
	p := Preparation{ID: d.ID, RaceEventID: d.ParentID, UpdatedAt: d.UpdatedAt}
	err := json.Unmarshal(d.Body, &p.PreparationBody)
	return p, err
}

func readiness(d store.Document) (Readiness, error) {
	r := Readiness{ID: d.ID, RaceEventID: d.ParentID, CreatedAt: d.CreatedAt}
	err := json.Unmarshal(d.Body, &r.ReadinessBody)
	return r, err
}

func (a *api) saveRacePreparation(ctx context.Context, in PreparationArgs) (Preparation, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return Preparation{}, err
	}
	body, err := json.Marshal(PreparationBody{TargetLapMs: in.TargetLapMs, SetupNotes: in.SetupNotes, FuelPlan: in.FuelPlan,
		Checklist: in.Checklist, Notes: in.Notes})
	if err != nil {
		return Preparation{}, err
	}
	d, err := a.st.SaveRacePreparation(ctx, uid, in.RaceEventID, body)
	if err != nil {
		return Preparation{}, notFound(err, "race event", in.RaceEventID)
	}
	return preparation(d)
}

func (a *api) getReadinessAssessments(ctx context.Context, in RaceEventArgs) ([]Readiness, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return nil, err
	}
	docs, err := a.st.ReadinessAssessments(ctx, uid, in.RaceEventID)
	if err != nil {
		return nil, notFound(err, "race event", in.RaceEventID)
	}
	out := []Readiness{}
	for _, d := range docs {
		r, err := readiness(d)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (a *api) saveReadinessAssessment(ctx context.Context, in ReadinessArgs) (Readiness, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return Readiness{}, err
	}
	body, err := json.Marshal(ReadinessBody{Score: in.Score, Verdict: in.Verdict, Summary: in.Summary,
		Strengths: in.Strengths, Risks: in.Risks, FocusAreas: in.FocusAreas})
	if err != nil {
		return Readiness{}, err
	}
	d, err := a.st.SaveReadinessAssessment(ctx, uid, in.RaceEventID, body)
	if err != nil {
		return Readiness{}, notFound(err, "race event", in.RaceEventID)
	}
	return readiness(d)
}
