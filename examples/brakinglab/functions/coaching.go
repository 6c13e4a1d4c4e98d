package functions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/analysis"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// CoachingReportArgs are a coaching report about one session.
type CoachingReportArgs struct {
	SessionID   string         `json:"sessionId" validate:"required" jsonschema:"The session the report is about"`
	Overview    ReportOverview `json:"overview"`
	Pace        ReportPace     `json:"pace"`
	Corners     []ReportCorner `json:"corners" validate:"max=30,dive"`
	ActionItems []ActionItem   `json:"actionItems" validate:"max=20,dive"`
}

// ReportOverview is the report's headline.
type ReportOverview struct {
	Assessment string `json:"assessment" validate:"oneof=excellent good needs_work critical"`
	Summary    string `json:"summary" validate:"required,max=2000"`
}

// ReportPace summarises the session's pace.
type ReportPace struct {
	BestLapMs        int    `json:"bestLapMs,omitempty" validate:"omitempty,min=1" jsonschema:"Fastest valid lap in milliseconds; omit without a valid lap"`
	AverageLapMs     int    `json:"averageLapMs" validate:"min=1"`
	ConsistencyPct   int    `json:"consistencyPct" validate:"min=0,max=100"`
	ImprovementTrend string `json:"improvementTrend" validate:"oneof=improving stable declining"`
}

// ReportCorner is the verdict on one corner.
type ReportCorner struct {
	CornerIndex int    `json:"cornerIndex" validate:"min=0" jsonschema:"cornerIndex from getTracks or getWeakCorners"`
	CornerName  string `json:"cornerName" validate:"required"`
	Verdict     string `json:"verdict" validate:"oneof=good needs_work critical"`
	Issue       string `json:"issue,omitempty" validate:"omitempty,oneof=late_braking early_braking over_slowing poor_exit inconsistent trail_brake_release" jsonschema:"A topIssue value from getWeakCorners"`
	Detail      string `json:"detail" validate:"max=2000"`
}

// ActionItem is one thing to practise.
type ActionItem struct {
	Priority int    `json:"priority" validate:"min=1,max=10" jsonschema:"1 is most important"`
	Action   string `json:"action" validate:"required,max=500"`
	Why      string `json:"why" validate:"required,max=1000"`
}

// CoachingReport is a saved report.
type CoachingReport struct {
	ID          string         `json:"id"`
	SessionID   string         `json:"sessionId"`
	TrackName   string         `json:"trackName,omitempty"`
	CreatedAt   time.Time      `json:"createdAt"`
	Overview    ReportOverview `json:"overview"`
	Pace        ReportPace     `json:"pace"`
	Corners     []ReportCorner `json:"corners"`
	ActionItems []ActionItem   `json:"actionItems"`
}

// CoachingReportsArgs filter getCoachingReports.
type CoachingReportsArgs struct {
	SessionID string `json:"sessionId,omitempty" jsonschema:"Only reports about this session"`
	Limit     int    `json:"limit,omitempty" validate:"omitempty,min=1,max=50" jsonschema:"Default 10"`
}

// StrategyArgs describe a race to plan. Give raceEventId, or trackName with
// raceLaps or raceDurationMin.
type StrategyArgs struct {
	RaceEventID     string  `json:"raceEventId,omitempty" validate:"required_without=TrackName" jsonschema:"Plan for this event (its track, car and length unless given). Required without trackName."`
	TrackName       string  `json:"trackName,omitempty"`
	CarName         string  `json:"carName,omitempty" jsonschema:"Only use your laps in this car"`
	RaceLaps        int     `json:"raceLaps,omitempty" validate:"omitempty,min=1,max=1000"`
	RaceDurationMin int     `json:"raceDurationMin,omitempty" validate:"omitempty,min=1,max=1440"`
	TankL           float64 `json:"tankL,omitempty" validate:"omitempty,gt=0,max=200" jsonschema:"Usable fuel; default the car's tank (120 L if unknown)"`
	MaxStintLaps    int     `json:"maxStintLaps,omitempty" validate:"omitempty,min=1,max=500"`
	MandatoryStops  int     `json:"mandatoryStops,omitempty" validate:"omitempty,min=0,max=10"`
	PitLossS        float64 `json:"pitLossS,omitempty" validate:"omitempty,gt=0,max=300" jsonschema:"Time one stop costs; default 25"`
	ReserveLaps     float64 `json:"reserveLaps,omitempty" validate:"omitempty,min=0,max=5" jsonschema:"Fuel margin per stint in laps; default 1"`
}

// Strategy is a saved fuel and pit plan.
type Strategy struct {
	ID              string          `json:"id"`
	TrackName       string          `json:"trackName"`
	RaceEventID     string          `json:"raceEventId,omitempty"`
	Basis           StrategyBasis   `json:"basis"`
	TotalLaps       int             `json:"totalLaps"`
	TotalFuelL      float64         `json:"totalFuelL"`
	MaxStintLaps    int             `json:"maxStintLaps"`
	Stops           int             `json:"stops"`
	PitLaps         []int           `json:"pitLaps" jsonschema:"Stop at the end of these laps"`
	Stints          []StrategyStint `json:"stints"`
	EstimatedRaceMs int             `json:"estimatedRaceMs"`
}

// StrategyBasis is what the plan was computed from.
type StrategyBasis struct {
	Sessions    int     `json:"sessions" jsonschema:"Your recent sessions used"`
	Laps        int     `json:"laps" jsonschema:"Valid laps used"`
	LapMs       int     `json:"lapMs" jsonschema:"Median valid lap plus 1% race margin"`
	FuelPerLapL float64 `json:"fuelPerLapL"`
	TankL       float64 `json:"tankL"`
	PitLossS    float64 `json:"pitLossS"`
	ReserveLaps float64 `json:"reserveLaps"`
}

// StrategyStint is one stint.
type StrategyStint struct {
	Number   int     `json:"number"`
	StartLap int     `json:"startLap"`
	EndLap   int     `json:"endLap"`
	Laps     int     `json:"laps"`
	FuelL    float64 `json:"fuelL" jsonschema:"Fuel to start the stint with"`
}

func registerCoaching(c *catalog.Catalog, a *api) error {
	return firstErr(
		add(c, catalog.Func[CoachingReportArgs, CoachingReport]{
			Name: "saveCoachingReport", Tier: catalog.Creative,
			Description: "Saves a coaching report about one of your sessions: overview, pace, corner verdicts, action items.",
			Handler:     a.saveCoachingReport,
			Validate:    a.validateReport,
		}),
		add(c, catalog.Func[CoachingReportsArgs, []CoachingReport]{
			Name: "getCoachingReports", Tier: catalog.ReadOnly,
			Description: "Lists your saved coaching reports, newest first, optionally for one session.",
			Handler:     a.getCoachingReports,
		}),
		add(c, catalog.Func[StrategyArgs, Strategy]{
			Name: "generateRaceStrategy", Tier: catalog.Creative,
			Approval:    a.approval,
			Description: "Plans and saves fuel, stints and pit laps for a race from your valid laps at the track (median pace, mean fuel per lap); refuses a race that cannot be run, saying why.",
			Handler:     a.generateRaceStrategy,
			Validate: func(ctx context.Context, in StrategyArgs) error {
				_, err := a.planStrategy(ctx, in)
				return err
			},
		}),
	)
}

// validateReport checks the session is the caller's and the corners are
// the track's.
func (a *api) validateReport(ctx context.Context, in CoachingReportArgs) error {
	uid, err := a.userID(ctx)
	if err != nil {
		return err
	}
	s, err := a.st.Session(ctx, uid, in.SessionID)
	if err != nil {
		return notFound(err, "session", in.SessionID)
	}
	t, _ := tracks.ByID(s.TrackID)
	var issues []catalog.Issue
	for i, c := range in.Corners {
		switch {
		case c.CornerIndex >= len(t.Corners):
			issues = append(issues, catalog.Issue{Path: []any{"corners", i, "cornerIndex"},
				Message: fmt.Sprintf("%s has corners 0 to %d", t.Name, len(t.Corners)-1)})
		case !equalFold(t.Corners[c.CornerIndex].Name, c.CornerName):
			issues = append(issues, catalog.Issue{Path: []any{"corners", i, "cornerName"},
				Message: fmt.Sprintf("corner %d of %s is %q", c.CornerIndex, t.Name, t.Corners[c.CornerIndex].Name)})
		}
	}
	if issues != nil {
		return &catalog.ValidationError{Issues: issues}
	}
	return nil
}

func (a *api) saveCoachingReport(ctx context.Context, in CoachingReportArgs) (CoachingReport, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return CoachingReport{}, err
	}
	if in.Corners == nil {
		in.Corners = []ReportCorner{}
	}
	if in.ActionItems == nil {
		in.ActionItems = []ActionItem{}
	}
	body, err := json.Marshal(in)
	if err != nil {
		return CoachingReport{}, err
	}
	d, err := a.st.SaveCoachingReport(ctx, uid, in.SessionID, body)
	if err != nil {
		return CoachingReport{}, notFound(err, "session", in.SessionID)
	}
	return a.report(ctx, uid, d)
}

func (a *api) report(ctx context.Context, uid string, d store.Document) (CoachingReport, error) {
	var in CoachingReportArgs
	if err := json.Unmarshal(d.Body, &in); err != nil {
		return CoachingReport{}, err
	}
	r := CoachingReport{ID: d.ID, SessionID: d.ParentID, CreatedAt: d.CreatedAt, Overview: in.Overview, Pace: in.Pace,
		Corners: in.Corners, ActionItems: in.ActionItems}
	if s, err := a.st.Session(ctx, uid, d.ParentID); err == nil {
		r.TrackName = trackName(s.TrackID)
	}
	return r, nil
}

func (a *api) getCoachingReports(ctx context.Context, in CoachingReportsArgs) ([]CoachingReport, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return nil, err
	}
	if in.Limit == 0 {
		in.Limit = 10
	}
	if in.SessionID != "" {
		if _, err := a.st.Session(ctx, uid, in.SessionID); err != nil {
			return nil, notFound(err, "session", in.SessionID)
		}
	}
	docs, err := a.st.CoachingReports(ctx, uid, in.SessionID, in.Limit)
	if err != nil {
		return nil, err
	}
	out := []CoachingReport{}
	for _, d := range docs {
		r, err := a.report(ctx, uid, d)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// strategyPlan is a computed strategy before it is saved.
type strategyPlan struct {
	uid, trackID, eventID string
	out                   Strategy
}

// planStrategy resolves the race and computes the plan; it writes nothing.
func (a *api) planStrategy(ctx context.Context, in StrategyArgs) (strategyPlan, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return strategyPlan{}, err
	}
	p := strategyPlan{uid: uid, eventID: in.RaceEventID}
	var carID string
	trackQuery := in.TrackName
	laps, minutes := in.RaceLaps, in.RaceDurationMin
	if in.RaceEventID != "" {
		e, err := a.st.RaceEvent(ctx, uid, in.RaceEventID)
		if err != nil {
			return strategyPlan{}, notFound(err, "race event", in.RaceEventID)
		}
		if trackQuery == "" {
			trackQuery = e.TrackID
		}
		carID = e.CarID
		if laps == 0 && minutes == 0 {
			laps, minutes = e.Laps, e.DurationMin
		}
	}
	if trackQuery == "" {
		return strategyPlan{}, issue("give raceEventId or trackName", "trackName")
	}
	t, err := track(trackQuery, "trackName")
	if err != nil {
		return strategyPlan{}, err
	}
	p.trackID = t.ID
	if (laps > 0) == (minutes > 0) {
		return strategyPlan{}, issue("give exactly one of raceLaps and raceDurationMin", "raceLaps")
	}
	tank, carName := in.TankL, ""
	if in.CarName != "" {
		c, err := a.car(ctx, in.CarName, "carName")
		if err != nil {
			return strategyPlan{}, err
		}
		carID = c.ID
	}
	if carID != "" {
		cars, err := a.st.Cars(ctx)
		if err != nil {
			return strategyPlan{}, err
		}
		for _, c := range cars {
			if c.ID == carID {
				carName = c.Name
				if tank == 0 {
					tank = c.FuelTankL
				}
			}
		}
	}
	if tank == 0 {
		tank = 120
	}
	pitLoss := in.PitLossS
	if pitLoss == 0 {
		pitLoss = 25
	}
	reserve := in.ReserveLaps
	if reserve == 0 {
		reserve = 1
	}
	sessions, err := a.st.Sessions(ctx, uid, store.SessionFilter{TrackID: t.ID, CarName: carName, Limit: 5})
	if err != nil {
		return strategyPlan{}, err
	}
	var times, fuel []float64
	for _, s := range sessions {
		ls, err := a.st.Laps(ctx, uid, s.ID)
		if err != nil {
			return strategyPlan{}, err
		}
		for _, l := range ls {
			if l.Valid {
				times = append(times, float64(l.TimeMs))
				fuel = append(fuel, l.FuelUsedL)
			}
		}
	}
	if len(times) == 0 {
		in := ""
		if carName != "" {
			in = " in the " + carName
		}
		return strategyPlan{}, catalog.Invalid("you have no valid laps at %s%s to plan from; drive a practice session there first", t.Name, in)
	}
	lapMs := analysis.Median(times) * 1.01
	fuelPerLap, _ := analysis.MeanStdDev(fuel)
	plan, err := analysis.PlanStrategy(analysis.StrategyInput{
		RaceLaps: laps, RaceDurationMs: float64(minutes) * 60000, LapMs: lapMs, FuelPerLapL: fuelPerLap, TankL: tank,
		MaxStintLaps: in.MaxStintLaps, MandatoryStops: in.MandatoryStops, PitLossMs: pitLoss * 1000, ReserveLaps: reserve,
	})
	if errors.Is(err, analysis.ErrInfeasible) {
		return strategyPlan{}, catalog.Invalid("cannot plan this race: %s", strings.TrimPrefix(err.Error(), analysis.ErrInfeasible.Error()+": "))
	}
	if err != nil {
		return strategyPlan{}, err
	}
	p.out = Strategy{TrackName: t.Name, RaceEventID: in.RaceEventID,
		Basis: StrategyBasis{Sessions: len(sessions), Laps: len(times), LapMs: ms(lapMs), FuelPerLapL: r2(fuelPerLap),
			TankL: tank, PitLossS: pitLoss, ReserveLaps: reserve},
		TotalLaps: plan.TotalLaps, TotalFuelL: plan.TotalFuelL, MaxStintLaps: plan.MaxStintLaps, Stops: plan.Stops,
		PitLaps: append([]int{}, plan.PitLaps...), EstimatedRaceMs: int(math.Round(plan.EstimatedMs))}
	for _, s := range plan.Stints {
		p.out.Stints = append(p.out.Stints, StrategyStint{Number: s.Number, StartLap: s.StartLap, EndLap: s.EndLap, Laps: s.Laps, FuelL: s.FuelL})
	}
	return p, nil
}

func (a *api) generateRaceStrategy(ctx context.Context, in StrategyArgs) (Strategy, error) {
	p, err := a.planStrategy(ctx, in)
	if err != nil {
		return Strategy{}, err
	}
	body, err := json.Marshal(p.out)
	if err != nil {
		return Strategy{}, err
	}
	d, err := a.st.SaveRaceStrategy(ctx, p.uid, p.trackID, p.eventID, body)
	if err != nil {
		return Strategy{}, notFound(err, "race event", p.eventID)
	}
	p.out.ID = d.ID
	return p.out, nil
}

func equalFold(a, b string) bool { return fold(a) == fold(b) }
