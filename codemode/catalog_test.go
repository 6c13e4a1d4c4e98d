package codemode_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// A BrakingLab-like catalog answering from testdata/bench/fixture.json,
// the data the shared coaching benchmark uses.

//go:embed testdata/bench/fixture.json
var fixtureJSON []byte

//go:embed testdata/bench/coaching.ts
var coachingTS string

type fixture struct {
	Sessions []Session     `json:"getSessions"`
	Weak     []WeakCorner  `json:"getWeakCorners"`
	Zones    []BrakingZone `json:"getBrakingZones"`
	Saved    SavedReport   `json:"saveCoachingReport"`
}

// Session is one recorded driving session.
type Session struct {
	ID        string `json:"id"`
	TrackName string `json:"trackName"`
	CarName   string `json:"carName"`
	BestLapMs int    `json:"bestLapMs" jsonschema:"best lap time in milliseconds"`
	LapCount  int    `json:"lapCount"`
	StartedAt string `json:"startedAt"`
}

type GetSessionsIn struct {
	TrackName string `json:"trackName,omitempty" jsonschema:"filter by circuit name"`
	Limit     int    `json:"limit,omitempty" validate:"omitempty,min=1,max=50" jsonschema:"most recent first; default 10"`
}

type WeakCorner struct {
	CornerIndex   int    `json:"cornerIndex"`
	CornerName    string `json:"cornerName"`
	WeaknessScore int    `json:"weaknessScore" jsonschema:"0-100, higher is weaker"`
	TopIssue      string `json:"topIssue"`
	TimeLostMs    int    `json:"timeLostMs"`
}

type GetWeakCornersIn struct {
	TrackName string `json:"trackName" validate:"required"`
	Limit     int    `json:"limit,omitempty" validate:"omitempty,min=1,max=20"`
}

type BrakingZone struct {
	CornerIndex   int     `json:"cornerIndex"`
	BrakePointM   float64 `json:"brakePointM"`
	PeakPressure  float64 `json:"peakPressure"`
	TrailBrakeMs  int     `json:"trailBrakeMs"`
	EntrySpeedKph float64 `json:"entrySpeedKph"`
	MinSpeedKph   float64 `json:"minSpeedKph"`
}

type SessionRef struct {
	SessionID string `json:"sessionId" validate:"required"`
}

type Overview struct {
	Assessment string `json:"assessment" validate:"oneof=strong good needs_work"`
	Summary    string `json:"summary" validate:"required,max=2000"`
}

type Pace struct {
	BestLapMs        int     `json:"bestLapMs" validate:"min=1"`
	AverageLapMs     int     `json:"averageLapMs" validate:"min=1"`
	ConsistencyPct   float64 `json:"consistencyPct" validate:"min=0,max=100"`
	ImprovementTrend string  `json:"improvementTrend" validate:"oneof=improving stable declining"`
}

type CornerVerdict struct {
	CornerIndex int    `json:"cornerIndex" validate:"min=0"`
	CornerName  string `json:"cornerName"`
	Verdict     string `json:"verdict" validate:"oneof=good needs_work critical"`
	Issue       string `json:"issue,omitempty"`
	Detail      string `json:"detail,omitempty"`
}

type ActionItem struct {
	Priority int    `json:"priority" validate:"min=1,max=5"`
	Action   string `json:"action" validate:"required"`
	Why      string `json:"why" validate:"required"`
}

type CoachingReport struct {
	SessionID   string          `json:"sessionId" validate:"required"`
	Overview    Overview        `json:"overview"`
	Pace        Pace            `json:"pace"`
	Corners     []CornerVerdict `json:"corners" validate:"dive"`
	ActionItems []ActionItem    `json:"actionItems" validate:"min=1,dive"`
}

type SavedReport struct {
	ID string `json:"id"`
}

type Deleted struct {
	Deleted bool `json:"deleted"`
}

// Scopes of the test catalog.
const (
	scopeRead   = "sessions:read"
	scopeWrite  = "reports:write"
	scopeDelete = "sessions:delete"
)

// testCatalog is the catalog plus what its handlers observed.
type testCatalog struct {
	*catalog.Catalog
	saved    atomic.Int64
	deleted  atomic.Int64
	lastUser atomic.Value // string: Subject of the last getSessions call
}

func newTestCatalog(tb testing.TB) *testCatalog {
	tb.Helper()
	var fx fixture
	if err := json.Unmarshal(fixtureJSON, &fx); err != nil {
		tb.Fatal(err)
	}
	cat, err := catalog.New("brakinglab", nil)
	if err != nil {
		tb.Fatal(err)
	}
	tc := &testCatalog{Catalog: cat}
	catalog.MustAdd(cat, catalog.Func[GetSessionsIn, []Session]{
		Name:        "getSessions",
		Description: "Lists the driver's sessions, most recent first.",
		Tier:        catalog.ReadOnly,
		Scopes:      []string{scopeRead},
		Handler: func(ctx context.Context, in GetSessionsIn) ([]Session, error) {
			p, _ := catalog.PrincipalFrom(ctx)
			tc.lastUser.Store(p.Subject)
			out := fx.Sessions
			if in.Limit > 0 && in.Limit < len(out) {
				out = out[:in.Limit]
			}
			return out, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[GetWeakCornersIn, []WeakCorner]{
		Name:        "getWeakCorners",
		Description: "Ranks the corners of a track where the driver loses the most time.",
		Tier:        catalog.ReadOnly,
		Scopes:      []string{scopeRead},
		Handler: func(ctx context.Context, in GetWeakCornersIn) ([]WeakCorner, error) {
			out := fx.Weak
			if in.Limit > 0 && in.Limit < len(out) {
				out = out[:in.Limit]
			}
			return out, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[SessionRef, []BrakingZone]{
		Name:        "getBrakingZones",
		Description: "Braking metrics per corner for one session.",
		Tier:        catalog.ReadOnly,
		Scopes:      []string{scopeRead},
		Handler: func(ctx context.Context, in SessionRef) ([]BrakingZone, error) {
			if in.SessionID == "missing" {
				return nil, catalog.NotFound("session %q not found: list sessions with getSessions", in.SessionID)
			}
			return fx.Zones, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[CoachingReport, SavedReport]{
		Name:        "saveCoachingReport",
		Description: "Saves a coaching report for a session and returns its id.",
		Tier:        catalog.Creative,
		Scopes:      []string{scopeWrite},
		Handler: func(ctx context.Context, in CoachingReport) (SavedReport, error) {
			tc.saved.Add(1)
			return fx.Saved, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[SessionRef, Deleted]{
		Name:        "deleteSession",
		Description: "Deletes a session and its laps. Cannot be undone.",
		Tier:        catalog.Mutating,
		Scopes:      []string{scopeDelete},
		Handler: func(ctx context.Context, in SessionRef) (Deleted, error) {
			tc.deleted.Add(1)
			return Deleted{Deleted: true}, nil
		},
	})
	return tc
}

// allScopes is granted to the default test principal.
var allScopes = []string{scopeRead, scopeWrite, scopeDelete}

func principal(sub string, scopes ...string) catalog.Principal {
	return catalog.Principal{Subject: sub, ClientID: "test-client", Scopes: scopes}
}

// newReadOnlyCatalog has READ-ONLY functions only.
func newReadOnlyCatalog(tb testing.TB) *catalog.Catalog {
	cat, err := catalog.New("stats", nil)
	if err != nil {
		tb.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[struct{}, int]{
		Name: "count", Tier: catalog.ReadOnly,
		Handler: func(context.Context, struct{}) (int, error) { return 1, nil },
	})
	return cat
}
