package functions

import (
	"context"
	"errors"
	"math"
	"sort"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/analysis"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// NoArgs is the argument of functions that take none.
type NoArgs struct{}

// Profile is the caller's account and driving summary.
type Profile struct {
	ID           string         `json:"id" jsonschema:"Your user ID"`
	Username     string         `json:"username"`
	DisplayName  string         `json:"displayName"`
	MemberSince  time.Time      `json:"memberSince"`
	SessionCount int            `json:"sessionCount"`
	LapCount     int            `json:"lapCount"`
	Tracks       []ProfileTrack `json:"tracks" jsonschema:"Tracks driven, most sessions first"`
	Cars         []string       `json:"cars" jsonschema:"Cars driven"`
}

// ProfileTrack is the caller's record at one track.
type ProfileTrack struct {
	TrackName      string    `json:"trackName"`
	Sessions       int       `json:"sessions"`
	PersonalBestMs int       `json:"personalBestMs,omitempty" jsonschema:"Fastest valid lap in milliseconds"`
	LastDrivenAt   time.Time `json:"lastDrivenAt"`
}

// TrackInfo describes a track.
type TrackInfo struct {
	ID             string       `json:"id"`
	Name           string       `json:"name"`
	Aliases        []string     `json:"aliases"`
	Country        string       `json:"country"`
	LengthM        float64      `json:"lengthM" jsonschema:"Lap length in metres"`
	SectorEndsM    []float64    `json:"sectorEndsM" jsonschema:"Where sectors 1 and 2 end, in metres from the start line"`
	Corners        []CornerInfo `json:"corners"`
	SessionCount   int          `json:"sessionCount" jsonschema:"Your sessions at this track"`
	PersonalBestMs int          `json:"personalBestMs,omitempty" jsonschema:"Your fastest valid lap here"`
}

// CornerInfo is one named corner.
type CornerInfo struct {
	CornerIndex int     `json:"cornerIndex" jsonschema:"What the other functions call cornerIndex"`
	Name        string  `json:"name"`
	ApexM       float64 `json:"apexM" jsonschema:"Apex distance from the start line in metres"`
	Direction   string  `json:"direction" validate:"oneof=left right"`
}

// SessionsArgs filter getSessions.
type SessionsArgs struct {
	TrackName string    `json:"trackName,omitempty" jsonschema:"Track name or part of it, e.g. \"Spa\""`
	CarName   string    `json:"carName,omitempty" jsonschema:"Car name or part of it, e.g. \"Porsche\""`
	Sim       string    `json:"sim,omitempty" jsonschema:"Simulator, e.g. \"iRacing\" (case-insensitive)"`
	Type      string    `json:"type,omitempty" validate:"omitempty,oneof=practice qualifying race"`
	Since     time.Time `json:"since,omitzero" jsonschema:"Only sessions started at or after this time (RFC 3339)"`
	Limit     int       `json:"limit,omitempty" validate:"omitempty,min=1,max=100" jsonschema:"Maximum rows, default 10"`
}

// SessionRow is one session in a list.
type SessionRow struct {
	ID            string    `json:"id"`
	TrackName     string    `json:"trackName"`
	CarName       string    `json:"carName"`
	Sim           string    `json:"sim"`
	Type          string    `json:"type" validate:"oneof=practice qualifying race"`
	BestLapMs     int       `json:"bestLapMs,omitempty" jsonschema:"Fastest valid lap in milliseconds; absent without a valid lap"`
	LapCount      int       `json:"lapCount"`
	ValidLapCount int       `json:"validLapCount"`
	StartedAt     time.Time `json:"startedAt"`
}

// SessionArgs name one session.
type SessionArgs struct {
	SessionID string `json:"sessionId" validate:"required" jsonschema:"A session id from getSessions"`
}

// SessionDetail is one session with its statistics.
type SessionDetail struct {
	SessionRow
	Weather           string  `json:"weather"`
	TrackTempC        float64 `json:"trackTempC"`
	AirTempC          float64 `json:"airTempC"`
	AverageLapMs      int     `json:"averageLapMs,omitempty" jsonschema:"Mean of the valid laps"`
	TheoreticalBestMs int     `json:"theoreticalBestMs,omitempty" jsonschema:"Sum of the best valid sectors"`
	ConsistencyPct    int     `json:"consistencyPct" jsonschema:"Share of valid laps within 1% of the best"`
	FuelPerLapL       float64 `json:"fuelPerLapL" jsonschema:"Mean fuel used per lap in litres"`
}

// LapsArgs select laps of a session.
type LapsArgs struct {
	SessionID string `json:"sessionId" validate:"required"`
	ValidOnly bool   `json:"validOnly,omitempty" jsonschema:"Only laps without track-limit violations"`
}

// LapRow is one lap.
type LapRow struct {
	LapNumber     int     `json:"lapNumber"`
	LapTimeMs     int     `json:"lapTimeMs"`
	SectorsMs     []int   `json:"sectorsMs" jsonschema:"Sector 1, 2 and 3 times"`
	Valid         bool    `json:"valid"`
	FuelUsedL     float64 `json:"fuelUsedL"`
	DeltaToBestMs int     `json:"deltaToBestMs" jsonschema:"Lap time minus the session's best valid lap"`
}

// TelemetryArgs select one lap's telemetry.
type TelemetryArgs struct {
	SessionID   string   `json:"sessionId" validate:"required"`
	LapNumber   int      `json:"lapNumber" validate:"min=1"`
	Channels    []string `json:"channels,omitempty" validate:"omitempty,max=5,dive,oneof=speedKph throttle brake gear steering" jsonschema:"Channels to return; default all"`
	ResolutionM int      `json:"resolutionM,omitempty" validate:"omitempty,min=10,max=500" jsonschema:"Metres per sample, a multiple of 10; default 50"`
}

// LapTelemetry is one lap's telemetry as parallel arrays indexed by sample.
type LapTelemetry struct {
	SessionID   string    `json:"sessionId"`
	LapNumber   int       `json:"lapNumber"`
	LapTimeMs   int       `json:"lapTimeMs"`
	ResolutionM int       `json:"resolutionM"`
	DistanceM   []float64 `json:"distanceM" jsonschema:"Start of each sample's stretch of track"`
	SpeedKph    []float64 `json:"speedKph,omitempty"`
	Throttle    []float64 `json:"throttle,omitempty" jsonschema:"0 to 1"`
	Brake       []float64 `json:"brake,omitempty" jsonschema:"0 to 1"`
	Gear        []int     `json:"gear,omitempty"`
	Steering    []float64 `json:"steering,omitempty" jsonschema:"-1 full left to 1 full right"`
}

func registerSessions(c *catalog.Catalog, a *api) error {
	return firstErr(
		add(c, catalog.Func[NoArgs, Profile]{
			Name: "getProfile", Tier: catalog.ReadOnly,
			Description: "Returns your account and driving summary: sessions, laps, per-track personal bests.",
			Handler:     a.getProfile,
		}),
		add(c, catalog.Func[NoArgs, []TrackInfo]{
			Name: "getTracks", Tier: catalog.ReadOnly,
			Description: "Lists every track with its length, sectors and named corners (cornerIndex), your session count and best there.",
			Handler:     a.getTracks,
		}),
		add(c, catalog.Func[SessionsArgs, []SessionRow]{
			Name: "getSessions", Tier: catalog.ReadOnly,
			Description: "Lists your sessions, newest first (default 10, max 100). Filter by track, car, sim, type or start time.",
			Handler:     a.getSessions,
		}),
		add(c, catalog.Func[SessionArgs, SessionDetail]{
			Name: "getSession", Tier: catalog.ReadOnly,
			Description: "Returns one session with conditions and lap statistics.",
			Handler:     a.getSession,
		}),
		add(c, catalog.Func[LapsArgs, []LapRow]{
			Name: "getLaps", Tier: catalog.ReadOnly,
			Description: "Lists a session's laps in order with sector times, validity and fuel used.",
			Handler:     a.getLaps,
		}),
		add(c, catalog.Func[TelemetryArgs, LapTelemetry]{
			Name: "getLapTelemetry", Tier: catalog.ReadOnly,
			Description: "Returns one lap's telemetry sampled by distance as parallel arrays. Ask only for the channels you need.",
			Handler:     a.getLapTelemetry,
			Validate: func(ctx context.Context, in TelemetryArgs) error {
				if in.ResolutionM%10 != 0 {
					return issue("must be a multiple of 10", "resolutionM")
				}
				return nil
			},
		}),
	)
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *api) getProfile(ctx context.Context, _ NoArgs) (Profile, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return Profile{}, err
	}
	u, err := a.st.UserBySubject(ctx, uid)
	if err != nil {
		return Profile{}, err
	}
	sessions, err := a.st.Sessions(ctx, uid, store.SessionFilter{})
	if err != nil {
		return Profile{}, err
	}
	p := Profile{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, MemberSince: u.CreatedAt, SessionCount: len(sessions),
		Tracks: []ProfileTrack{}, Cars: []string{}}
	byTrack := map[string]*ProfileTrack{}
	cars := map[string]bool{}
	for _, s := range sessions { // newest first
		p.LapCount += s.LapCount
		if !cars[s.CarName] {
			cars[s.CarName] = true
			p.Cars = append(p.Cars, s.CarName)
		}
		pt := byTrack[s.TrackID]
		if pt == nil {
			pt = &ProfileTrack{TrackName: trackName(s.TrackID), LastDrivenAt: s.StartedAt}
			byTrack[s.TrackID] = pt
		}
		pt.Sessions++
		if s.BestLapMs > 0 && (pt.PersonalBestMs == 0 || s.BestLapMs < pt.PersonalBestMs) {
			pt.PersonalBestMs = s.BestLapMs
		}
	}
	for _, pt := range byTrack {
		p.Tracks = append(p.Tracks, *pt)
	}
	sort.Slice(p.Tracks, func(i, j int) bool {
		if p.Tracks[i].Sessions != p.Tracks[j].Sessions {
			return p.Tracks[i].Sessions > p.Tracks[j].Sessions
		}
		return p.Tracks[i].TrackName < p.Tracks[j].TrackName
	})
	return p, nil
}

func (a *api) getTracks(ctx context.Context, _ NoArgs) ([]TrackInfo, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return nil, err
	}
	sessions, err := a.st.Sessions(ctx, uid, store.SessionFilter{})
	if err != nil {
		return nil, err
	}
	out := []TrackInfo{}
	for _, t := range tracks.All() {
		ti := TrackInfo{ID: t.ID, Name: t.Name, Aliases: t.Aliases, Country: t.Country, LengthM: t.LengthM,
			SectorEndsM: []float64{t.SectorEndsM[0], t.SectorEndsM[1]}, Corners: cornerInfos(t)}
		for _, s := range sessions {
			if s.TrackID == t.ID {
				ti.SessionCount++
				if s.BestLapMs > 0 && (ti.PersonalBestMs == 0 || s.BestLapMs < ti.PersonalBestMs) {
					ti.PersonalBestMs = s.BestLapMs
				}
			}
		}
		out = append(out, ti)
	}
	return out, nil
}

func cornerInfos(t tracks.Track) []CornerInfo {
	out := make([]CornerInfo, len(t.Corners))
	for i, c := range t.Corners {
		out[i] = CornerInfo{CornerIndex: c.Index, Name: c.Name, ApexM: c.ApexM, Direction: string(c.Direction)}
	}
	return out
}

func (a *api) getSessions(ctx context.Context, in SessionsArgs) ([]SessionRow, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return nil, err
	}
	f := store.SessionFilter{CarName: in.CarName, Sim: in.Sim, Type: in.Type, Since: in.Since, Limit: in.Limit}
	if f.Limit == 0 {
		f.Limit = 10
	}
	if in.TrackName != "" {
		t, err := track(in.TrackName, "trackName")
		if err != nil {
			return nil, err
		}
		f.TrackID = t.ID
	}
	sessions, err := a.st.Sessions(ctx, uid, f)
	if err != nil {
		return nil, err
	}
	out := make([]SessionRow, len(sessions))
	for i, s := range sessions {
		out[i] = sessionRow(s)
	}
	return out, nil
}

func sessionRow(s store.Session) SessionRow {
	return SessionRow{ID: s.ID, TrackName: trackName(s.TrackID), CarName: s.CarName, Sim: s.Sim, Type: s.Type,
		BestLapMs: s.BestLapMs, LapCount: s.LapCount, ValidLapCount: s.ValidLapCount, StartedAt: s.StartedAt}
}

func (a *api) getSession(ctx context.Context, in SessionArgs) (SessionDetail, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return SessionDetail{}, err
	}
	s, err := a.st.Session(ctx, uid, in.SessionID)
	if err != nil {
		return SessionDetail{}, notFound(err, "session", in.SessionID)
	}
	laps, err := a.st.Laps(ctx, uid, in.SessionID)
	if err != nil {
		return SessionDetail{}, notFound(err, "session", in.SessionID)
	}
	d := SessionDetail{SessionRow: sessionRow(s), Weather: s.Weather, TrackTempC: s.TrackTempC, AirTempC: s.AirTempC}
	var times, fuel []float64
	best := [3]int{math.MaxInt, math.MaxInt, math.MaxInt}
	for _, l := range laps {
		fuel = append(fuel, l.FuelUsedL)
		if !l.Valid {
			continue
		}
		times = append(times, float64(l.TimeMs))
		for i := range best {
			best[i] = min(best[i], l.SectorMs[i])
		}
	}
	if len(times) > 0 {
		mean, _ := analysis.MeanStdDev(times)
		d.AverageLapMs = ms(mean)
		d.TheoreticalBestMs = best[0] + best[1] + best[2]
	}
	d.ConsistencyPct = analysis.ConsistencyPct(times)
	meanFuel, _ := analysis.MeanStdDev(fuel)
	d.FuelPerLapL = r2(meanFuel)
	return d, nil
}

func (a *api) getLaps(ctx context.Context, in LapsArgs) ([]LapRow, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return nil, err
	}
	laps, err := a.st.Laps(ctx, uid, in.SessionID)
	if err != nil {
		return nil, notFound(err, "session", in.SessionID)
	}
	best := 0
	for _, l := range laps {
		if l.Valid && (best == 0 || l.TimeMs < best) {
			best = l.TimeMs
		}
	}
	out := []LapRow{}
	for _, l := range laps {
		if in.ValidOnly && !l.Valid {
			continue
		}
		row := LapRow{LapNumber: l.Number, LapTimeMs: l.TimeMs, SectorsMs: l.SectorMs[:], Valid: l.Valid, FuelUsedL: l.FuelUsedL}
		if best > 0 {
			row.DeltaToBestMs = l.TimeMs - best
		}
		out = append(out, row)
	}
	return out, nil
}

// lapTrace loads and decodes one lap's telemetry of the caller's session.
func (a *api) lapTrace(ctx context.Context, uid, sessionID string, lap int) (telemetry.Trace, error) {
	if _, err := a.st.Session(ctx, uid, sessionID); err != nil {
		return telemetry.Trace{}, notFound(err, "session", sessionID)
	}
	b, err := a.st.LapTelemetry(ctx, uid, sessionID, lap)
	if errors.Is(err, store.ErrNotFound) {
		return telemetry.Trace{}, catalog.NotFound("lap %d of session %q not found; getLaps lists its laps", lap, sessionID)
	}
	if err != nil {
		return telemetry.Trace{}, err
	}
	return telemetry.Decode(b)
}

func (a *api) getLapTelemetry(ctx context.Context, in TelemetryArgs) (LapTelemetry, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return LapTelemetry{}, err
	}
	tr, err := a.lapTrace(ctx, uid, in.SessionID, in.LapNumber)
	if err != nil {
		return LapTelemetry{}, err
	}
	res := in.ResolutionM
	if res == 0 {
		res = 50
	}
	lapMs := ms(tr.LapMs())
	if tr, err = tr.Resample(float64(res)); err != nil {
		return LapTelemetry{}, issue(err.Error(), "resolutionM")
	}
	want := map[string]bool{}
	for _, ch := range in.Channels {
		want[ch] = true
	}
	all := len(want) == 0
	out := LapTelemetry{SessionID: in.SessionID, LapNumber: in.LapNumber, LapTimeMs: lapMs, ResolutionM: res}
	for i := 0; i < tr.Len(); i++ {
		out.DistanceM = append(out.DistanceM, tr.StartM(i))
		if all || want["speedKph"] {
			out.SpeedKph = append(out.SpeedKph, r1(tr.SpeedKph[i]))
		}
		if all || want["throttle"] {
			out.Throttle = append(out.Throttle, r2(tr.Throttle[i]))
		}
		if all || want["brake"] {
			out.Brake = append(out.Brake, r2(tr.Brake[i]))
		}
		if all || want["gear"] {
			out.Gear = append(out.Gear, tr.Gear[i])
		}
		if all || want["steering"] {
			out.Steering = append(out.Steering, r2(tr.Steering[i]))
		}
	}
	return out, nil
}
