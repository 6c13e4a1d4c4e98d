package functions

import (
	"context"
	"sort"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/analysis"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/examples/brakinglab/telemetry"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// LapSelectArgs select a session and optionally one lap of it.
type LapSelectArgs struct {
	SessionID string `json:"sessionId" validate:"required"`
	LapNumber int    `json:"lapNumber,omitempty" validate:"omitempty,min=1" jsonschema:"One lap; default all valid laps of the session"`
}

// CornerAnalysis is per-corner timing of a lap or a session.
type CornerAnalysis struct {
	SessionID string        `json:"sessionId"`
	TrackName string        `json:"trackName"`
	LapNumber int           `json:"lapNumber,omitempty" jsonschema:"The lap analysed; absent for a session summary"`
	Laps      int           `json:"laps" jsonschema:"Valid laps measured"`
	Corners   []CornerTimes `json:"corners"`
}

// CornerTimes is one corner's timing and speeds. A corner runs from halfway
// after the previous apex to halfway to the next, so corner times add up to
// the lap time.
type CornerTimes struct {
	CornerIndex   int     `json:"cornerIndex"`
	CornerName    string  `json:"cornerName"`
	TimeMs        int     `json:"timeMs" jsonschema:"This lap's time in the corner, or the session mean"`
	BestMs        int     `json:"bestMs" jsonschema:"Best time in this corner in the session"`
	TimeLostMs    int     `json:"timeLostMs" jsonschema:"timeMs minus bestMs"`
	StdDevMs      int     `json:"stdDevMs,omitempty" jsonschema:"Spread across the session's laps"`
	EntrySpeedKph float64 `json:"entrySpeedKph"`
	MinSpeedKph   float64 `json:"minSpeedKph"`
	ExitSpeedKph  float64 `json:"exitSpeedKph" jsonschema:"150 m after the apex"`
}

// BrakingZone is how the driver brakes into one corner.
type BrakingZone struct {
	CornerIndex       int     `json:"cornerIndex"`
	CornerName        string  `json:"cornerName"`
	BrakePointM       float64 `json:"brakePointM" jsonschema:"Where brake pressure reaches 10%, metres from the start line"`
	PeakPressure      float64 `json:"peakPressure" jsonschema:"0 to 1"`
	BrakingMs         int     `json:"brakingMs" jsonschema:"Brake point to release"`
	TrailBrakeMs      int     `json:"trailBrakeMs" jsonschema:"Time braking while turning"`
	ReleasePointM     float64 `json:"releasePointM" jsonschema:"Where pressure falls below 5%"`
	EntrySpeedKph     float64 `json:"entrySpeedKph" jsonschema:"Speed at the brake point"`
	MinSpeedKph       float64 `json:"minSpeedKph"`
	ExitSpeedKph      float64 `json:"exitSpeedKph"`
	BrakePointSpreadM float64 `json:"brakePointSpreadM" jsonschema:"Standard deviation of the brake point across laps"`
	ConsistencyPct    int     `json:"consistencyPct" jsonschema:"100 minus 5 per metre of brake point spread"`
	Laps              int     `json:"laps" jsonschema:"Laps that braked for this corner"`
}

// WeakCornersArgs select the laps to judge.
type WeakCornersArgs struct {
	TrackName string `json:"trackName" validate:"required" jsonschema:"Track name or part of it, e.g. \"Spa\""`
	CarName   string `json:"carName,omitempty"`
	Limit     int    `json:"limit,omitempty" validate:"omitempty,min=1,max=30" jsonschema:"Corners to return, default 5"`
	Sessions  int    `json:"sessions,omitempty" validate:"omitempty,min=1,max=50" jsonschema:"How many recent sessions to judge, default 5"`
}

// WeakCorner is one corner where the driver loses time.
type WeakCorner struct {
	CornerIndex       int     `json:"cornerIndex"`
	CornerName        string  `json:"cornerName"`
	WeaknessScore     int     `json:"weaknessScore" jsonschema:"0-100: 70% time lost against your best in this corner, 30% lap-to-lap spread"`
	TopIssue          string  `json:"topIssue" validate:"oneof=late_braking early_braking over_slowing poor_exit inconsistent trail_brake_release"`
	TimeLostMs        int     `json:"timeLostMs" jsonschema:"Mean time lost per lap against your best in this corner"`
	StdDevMs          int     `json:"stdDevMs"`
	BrakePointDeltaM  float64 `json:"brakePointDeltaM" jsonschema:"Against your best laps here; positive = braking later"`
	MinSpeedDeltaKph  float64 `json:"minSpeedDeltaKph"`
	ExitSpeedDeltaKph float64 `json:"exitSpeedDeltaKph"`
	Laps              int     `json:"laps"`
}

// LapRef names one lap.
type LapRef struct {
	SessionID string `json:"sessionId" validate:"required"`
	LapNumber int    `json:"lapNumber" validate:"min=1"`
}

// CompareArgs are two laps of the same track.
type CompareArgs struct {
	A LapRef `json:"a" jsonschema:"The reference lap"`
	B LapRef `json:"b" jsonschema:"The lap compared with it"`
}

// LapComparison is lap B against lap A; deltas are B minus A (negative = B faster).
type LapComparison struct {
	TrackName string        `json:"trackName"`
	AMs       int           `json:"aMs"`
	BMs       int           `json:"bMs"`
	DeltaMs   int           `json:"deltaMs"`
	Sectors   []SectorDelta `json:"sectors"`
	Corners   []CornerDelta `json:"corners"`
}

// SectorDelta compares one sector.
type SectorDelta struct {
	Sector            int `json:"sector"`
	AMs               int `json:"aMs"`
	BMs               int `json:"bMs"`
	DeltaMs           int `json:"deltaMs"`
	CumulativeDeltaMs int `json:"cumulativeDeltaMs"`
}

// CornerDelta compares one corner.
type CornerDelta struct {
	CornerIndex       int      `json:"cornerIndex"`
	CornerName        string   `json:"cornerName"`
	AMs               int      `json:"aMs"`
	BMs               int      `json:"bMs"`
	DeltaMs           int      `json:"deltaMs"`
	CumulativeDeltaMs int      `json:"cumulativeDeltaMs"`
	AMinSpeedKph      float64  `json:"aMinSpeedKph"`
	BMinSpeedKph      float64  `json:"bMinSpeedKph"`
	ABrakePointM      *float64 `json:"aBrakePointM,omitempty"`
	BBrakePointM      *float64 `json:"bBrakePointM,omitempty"`
}

// ProgressArgs select a track (and optionally a car).
type ProgressArgs struct {
	TrackName string `json:"trackName" validate:"required"`
	CarName   string `json:"carName,omitempty"`
}

// Progress is how the driver's pace at a track has developed.
type Progress struct {
	TrackName      string            `json:"trackName"`
	PersonalBestMs int               `json:"personalBestMs,omitempty"`
	FirstBestMs    int               `json:"firstBestMs,omitempty" jsonschema:"Best lap of the first session"`
	LatestBestMs   int               `json:"latestBestMs,omitempty" jsonschema:"Best lap of the latest session"`
	ImprovementMs  int               `json:"improvementMs" jsonschema:"firstBestMs minus latestBestMs"`
	Trend          string            `json:"trend" validate:"oneof=improving stable declining" jsonschema:"Least-squares trend of session bests (50 ms per session)"`
	Sessions       []ProgressSession `json:"sessions" jsonschema:"Oldest first"`
}

// ProgressSession is one session's pace.
type ProgressSession struct {
	SessionID      string    `json:"sessionId"`
	StartedAt      time.Time `json:"startedAt"`
	CarName        string    `json:"carName"`
	BestLapMs      int       `json:"bestLapMs,omitempty"`
	AverageLapMs   int       `json:"averageLapMs,omitempty"`
	ValidLaps      int       `json:"validLaps"`
	ConsistencyPct int       `json:"consistencyPct"`
}

func registerAnalysis(c *catalog.Catalog, a *api) error {
	return firstErr(
		add(c, catalog.Func[LapSelectArgs, CornerAnalysis]{
			Name: "getCornerAnalysis", Tier: catalog.ReadOnly,
			Description: "Per-corner time and entry/minimum/exit speeds for one lap, or the mean over a session's valid laps, with time lost against the session's best in each corner.",
			Handler:     a.getCornerAnalysis,
		}),
		add(c, catalog.Func[LapSelectArgs, []BrakingZone]{
			Name: "getBrakingZones", Tier: catalog.ReadOnly,
			Description: "Braking into each corner from telemetry: brake point, peak pressure, trail-brake time, release point, speeds and brake-point consistency over a session's valid laps (or one lap); corners taken flat are left out.",
			Handler:     a.getBrakingZones,
		}),
		add(c, catalog.Func[WeakCornersArgs, []WeakCorner]{
			Name: "getWeakCorners", Tier: catalog.ReadOnly,
			Description: "Your weakest corners at a track, worst first, scored from time lost against your own best there and lap-to-lap spread, with the main issue. Empty without valid laps there.",
			Handler:     a.getWeakCorners,
		}),
		add(c, catalog.Func[CompareArgs, LapComparison]{
			Name: "compareLaps", Tier: catalog.ReadOnly,
			Description: "Compares two laps of the same track aligned by distance: total, sector and corner deltas (B minus A; negative means B was faster).",
			Handler:     a.compareLaps,
		}),
		add(c, catalog.Func[ProgressArgs, Progress]{
			Name: "getProgress", Tier: catalog.ReadOnly,
			Description: "Your pace at a track session by session (oldest first) with personal best, improvement and trend.",
			Handler:     a.getProgress,
		}),
	)
}

// sessionLaps measures the corners of one lap (lapNumber > 0) or of every
// valid lap of the caller's session.
func (a *api) sessionLaps(ctx context.Context, uid, sessionID string, lapNumber int) (store.Session, tracks.Track, map[int][]analysis.CornerLap, error) {
	s, err := a.st.Session(ctx, uid, sessionID)
	if err != nil {
		return store.Session{}, tracks.Track{}, nil, notFound(err, "session", sessionID)
	}
	t, _ := tracks.ByID(s.TrackID)
	if lapNumber == 0 {
		laps, err := a.validLaps(ctx, uid, s, t)
		return s, t, laps, err
	}
	encoded, err := a.st.SessionTelemetry(ctx, uid, sessionID, false)
	if err != nil {
		return store.Session{}, tracks.Track{}, nil, notFound(err, "session", sessionID)
	}
	b, ok := encoded[lapNumber]
	if !ok {
		return store.Session{}, tracks.Track{}, nil, catalog.NotFound("lap %d of session %q not found; the session has %d laps", lapNumber, sessionID, s.LapCount)
	}
	one, err := measure(t, map[int][]byte{lapNumber: b})
	return s, t, one, err
}

// validLaps measures the corners of every valid lap of s, a session the
// caller owns (the caller has just read it from the store for uid). The
// answer is cached: a session's laps never change.
func (a *api) validLaps(ctx context.Context, uid string, s store.Session, t tracks.Track) (map[int][]analysis.CornerLap, error) {
	if laps, ok := a.corners.get(s.ID); ok {
		return laps, nil
	}
	encoded, err := a.st.SessionTelemetry(ctx, uid, s.ID, true)
	if err != nil {
		return nil, notFound(err, "session", s.ID)
	}
	laps, err := measure(t, encoded)
	if err != nil {
		return nil, err
	}
	a.corners.put(s.ID, laps)
	return laps, nil
}

// measure decodes encoded laps and measures their corners.
func measure(t tracks.Track, encoded map[int][]byte) (map[int][]analysis.CornerLap, error) {
	out := make(map[int][]analysis.CornerLap, len(encoded))
	for n, b := range encoded {
		tr, err := telemetry.Decode(b)
		if err != nil {
			return nil, err
		}
		out[n] = analysis.Corners(t, tr)
	}
	return out, nil
}

func values(m map[int][]analysis.CornerLap) [][]analysis.CornerLap {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([][]analysis.CornerLap, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

func (a *api) getCornerAnalysis(ctx context.Context, in LapSelectArgs) (CornerAnalysis, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return CornerAnalysis{}, err
	}
	s, t, laps, err := a.sessionLaps(ctx, uid, in.SessionID, 0)
	if err != nil {
		return CornerAnalysis{}, err
	}
	stats := analysis.Aggregate(values(laps))
	out := CornerAnalysis{SessionID: s.ID, TrackName: t.Name, LapNumber: in.LapNumber, Laps: len(laps), Corners: []CornerTimes{}}
	if in.LapNumber > 0 {
		_, _, one, err := a.sessionLaps(ctx, uid, in.SessionID, in.LapNumber)
		if err != nil {
			return CornerAnalysis{}, err
		}
		for i, cl := range one[in.LapNumber] {
			best := cl.TimeMs
			if stats != nil {
				best = min(best, stats[i].BestMs)
			}
			out.Corners = append(out.Corners, CornerTimes{CornerIndex: i, CornerName: t.Corners[i].Name, TimeMs: ms(cl.TimeMs),
				BestMs: ms(best), TimeLostMs: ms(cl.TimeMs - best), EntrySpeedKph: r1(cl.EntrySpeedKph),
				MinSpeedKph: r1(cl.MinSpeedKph), ExitSpeedKph: r1(cl.ExitSpeedKph)})
		}
		return out, nil
	}
	for i, st := range stats {
		out.Corners = append(out.Corners, CornerTimes{CornerIndex: i, CornerName: t.Corners[i].Name, TimeMs: ms(st.MeanMs),
			BestMs: ms(st.BestMs), TimeLostMs: ms(st.MeanMs - st.BestMs), StdDevMs: ms(st.StdDevMs),
			EntrySpeedKph: r1(st.EntrySpeedKph), MinSpeedKph: r1(st.MinSpeedKph), ExitSpeedKph: r1(st.ExitSpeedKph)})
	}
	return out, nil
}

func (a *api) getBrakingZones(ctx context.Context, in LapSelectArgs) ([]BrakingZone, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return nil, err
	}
	_, t, laps, err := a.sessionLaps(ctx, uid, in.SessionID, in.LapNumber)
	if err != nil {
		return nil, err
	}
	out := []BrakingZone{}
	for i, st := range analysis.Aggregate(values(laps)) {
		if st.BrakedLaps == 0 {
			continue
		}
		out = append(out, BrakingZone{CornerIndex: i, CornerName: t.Corners[i].Name, BrakePointM: r1(st.BrakePointM),
			PeakPressure: r2(st.PeakBrake), BrakingMs: ms(st.BrakingMs), TrailBrakeMs: ms(st.TrailBrakeMs),
			ReleasePointM: r1(st.ReleasePointM), EntrySpeedKph: r1(st.EntrySpeedKph), MinSpeedKph: r1(st.MinSpeedKph),
			ExitSpeedKph: r1(st.ExitSpeedKph), BrakePointSpreadM: r1(st.BrakePointStdDevM), ConsistencyPct: st.ConsistencyPct,
			Laps: st.BrakedLaps})
	}
	return out, nil
}

// historySessions caps how many sessions the driver's best per corner is
// taken from, so a long history does not make getWeakCorners slow.
const historySessions = 30

// trackLaps measures the valid laps of the caller's last historySessions
// sessions at a track (optionally one car): all of them, and those of the
// newest recentSessions.
func (a *api) trackLaps(ctx context.Context, uid string, t tracks.Track, carName string, recentSessions int) (all, recent [][]analysis.CornerLap, err error) {
	sessions, err := a.st.Sessions(ctx, uid, store.SessionFilter{TrackID: t.ID, CarName: carName, Limit: max(historySessions, recentSessions)})
	if err != nil {
		return nil, nil, err
	}
	for i, s := range sessions { // newest first, all the caller's
		laps, err := a.validLaps(ctx, uid, s, t)
		if err != nil {
			return nil, nil, err
		}
		v := values(laps)
		all = append(all, v...)
		if i < recentSessions {
			recent = append(recent, v...)
		}
	}
	return all, recent, nil
}

func (a *api) getWeakCorners(ctx context.Context, in WeakCornersArgs) ([]WeakCorner, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return nil, err
	}
	t, err := track(in.TrackName, "trackName")
	if err != nil {
		return nil, err
	}
	if in.Sessions == 0 {
		in.Sessions = 5
	}
	if in.Limit == 0 {
		in.Limit = 5
	}
	all, recent, err := a.trackLaps(ctx, uid, t, in.CarName, in.Sessions)
	if err != nil {
		return nil, err
	}
	out := []WeakCorner{}
	for _, w := range analysis.WeakCorners(t, all, recent) {
		if len(out) == in.Limit {
			break
		}
		out = append(out, WeakCorner{CornerIndex: w.CornerIndex, CornerName: w.CornerName, WeaknessScore: w.Score,
			TopIssue: string(w.TopIssue), TimeLostMs: ms(w.TimeLostMs), StdDevMs: ms(w.StdDevMs),
			BrakePointDeltaM: r1(w.BrakePointDeltaM), MinSpeedDeltaKph: r1(w.MinSpeedDeltaKph),
			ExitSpeedDeltaKph: r1(w.ExitSpeedDeltaKph), Laps: w.Laps})
	}
	return out, nil
}

func (a *api) compareLaps(ctx context.Context, in CompareArgs) (LapComparison, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return LapComparison{}, err
	}
	sa, err := a.st.Session(ctx, uid, in.A.SessionID)
	if err != nil {
		return LapComparison{}, notFound(err, "session", in.A.SessionID)
	}
	sb, err := a.st.Session(ctx, uid, in.B.SessionID)
	if err != nil {
		return LapComparison{}, notFound(err, "session", in.B.SessionID)
	}
	if sa.TrackID != sb.TrackID {
		return LapComparison{}, catalog.Invalid("laps a and b are from different tracks (%s and %s); compare laps of one track", trackName(sa.TrackID), trackName(sb.TrackID))
	}
	ta, err := a.lapTrace(ctx, uid, in.A.SessionID, in.A.LapNumber)
	if err != nil {
		return LapComparison{}, err
	}
	tb, err := a.lapTrace(ctx, uid, in.B.SessionID, in.B.LapNumber)
	if err != nil {
		return LapComparison{}, err
	}
	t, _ := tracks.ByID(sa.TrackID)
	cmp, err := analysis.CompareLaps(t, ta, tb)
	if err != nil {
		return LapComparison{}, catalog.Invalid("%v", err)
	}
	out := LapComparison{TrackName: t.Name, AMs: ms(cmp.AMs), BMs: ms(cmp.BMs), DeltaMs: ms(cmp.DeltaMs)}
	for _, s := range cmp.Sectors {
		out.Sectors = append(out.Sectors, SectorDelta{Sector: s.Sector, AMs: ms(s.AMs), BMs: ms(s.BMs), DeltaMs: ms(s.DeltaMs), CumulativeDeltaMs: ms(s.CumulativeDeltaMs)})
	}
	for _, c := range cmp.Corners {
		d := CornerDelta{CornerIndex: c.CornerIndex, CornerName: c.CornerName, AMs: ms(c.A.TimeMs), BMs: ms(c.B.TimeMs),
			DeltaMs: ms(c.DeltaMs), CumulativeDeltaMs: ms(c.CumulativeDeltaMs), AMinSpeedKph: r1(c.A.MinSpeedKph), BMinSpeedKph: r1(c.B.MinSpeedKph)}
		if c.A.Braked {
			v := r1(c.A.BrakePointM)
			d.ABrakePointM = &v
		}
		if c.B.Braked {
			v := r1(c.B.BrakePointM)
			d.BBrakePointM = &v
		}
		out.Corners = append(out.Corners, d)
	}
	return out, nil
}

func (a *api) getProgress(ctx context.Context, in ProgressArgs) (Progress, error) {
	uid, err := a.userID(ctx)
	if err != nil {
		return Progress{}, err
	}
	t, err := track(in.TrackName, "trackName")
	if err != nil {
		return Progress{}, err
	}
	sessions, err := a.st.Sessions(ctx, uid, store.SessionFilter{TrackID: t.ID, CarName: in.CarName})
	if err != nil {
		return Progress{}, err
	}
	p := Progress{TrackName: t.Name, Sessions: []ProgressSession{}, Trend: string(analysis.Stable)}
	var bests []float64
	for i := len(sessions) - 1; i >= 0; i-- {
		s := sessions[i]
		laps, err := a.st.Laps(ctx, uid, s.ID)
		if err != nil {
			return Progress{}, err
		}
		var times []float64
		for _, l := range laps {
			if l.Valid {
				times = append(times, float64(l.TimeMs))
			}
		}
		mean, _ := analysis.MeanStdDev(times)
		p.Sessions = append(p.Sessions, ProgressSession{SessionID: s.ID, StartedAt: s.StartedAt, CarName: s.CarName,
			BestLapMs: s.BestLapMs, AverageLapMs: ms(mean), ValidLaps: len(times), ConsistencyPct: analysis.ConsistencyPct(times)})
		if s.BestLapMs > 0 {
			bests = append(bests, float64(s.BestLapMs))
			if p.PersonalBestMs == 0 || s.BestLapMs < p.PersonalBestMs {
				p.PersonalBestMs = s.BestLapMs
			}
		}
	}
	if len(bests) > 0 {
		p.FirstBestMs, p.LatestBestMs = int(bests[0]), int(bests[len(bests)-1])
		p.ImprovementMs = p.FirstBestMs - p.LatestBestMs
		p.Trend = string(analysis.TrendOf(bests, 50))
	}
	return p, nil
}
