package typegen_test

import (
	"context"
	"encoding/json"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
)

// A BrakingLab-like catalog: sessions, laps, coaching reports with enums
// and nested arrays, a plan created from a report.

type SessionSummary struct {
	ID        string    `json:"id" jsonschema:"Session ID, e.g. ses_01"`
	Track     string    `json:"track"`
	Car       string    `json:"car"`
	StartedAt time.Time `json:"startedAt"`
	Laps      int       `json:"laps"`
	BestLapMs *int      `json:"bestLapMs,omitempty" jsonschema:"Best valid lap in milliseconds; absent when no lap was valid"`
}

type GetSessionsArgs struct {
	Track string     `json:"track,omitempty" jsonschema:"Only sessions on this track"`
	Limit int        `json:"limit,omitempty" validate:"omitempty,min=1,max=100" jsonschema:"Maximum number of sessions"`
	Since *time.Time `json:"since,omitempty"`
}

type Page[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty" jsonschema:"Cursor for the next page"`
}

type Audit struct {
	CreatedBy string    `json:"createdBy"`
	CreatedAt time.Time `json:"createdAt"`
}

type CornerNote struct {
	Corner  int      `json:"corner" validate:"min=1" jsonschema:"Corner number as on the track map"`
	Verdict string   `json:"verdict" validate:"required,oneof=good needs_work critical"`
	Advice  string   `json:"advice,omitempty" validate:"max=500"`
	Tags    []string `json:"tags,omitempty" validate:"dive,oneof=braking apex exit"`
}

type SaveReportArgs struct {
	SessionID string            `json:"sessionId" validate:"required"`
	Summary   string            `json:"summary" validate:"min=10,max=2000"`
	Corners   []CornerNote      `json:"corners" validate:"min=1,dive"`
	Focus     *string           `json:"focus,omitempty" validate:"omitempty,oneof=consistency pace"`
	Meta      map[string]string `json:"meta,omitempty"`
	Extra     json.RawMessage   `json:"extra,omitempty"`
	Internal  string            `json:"-"`
}

type Report struct {
	Audit
	ID        string       `json:"id"`
	SessionID string       `json:"sessionId"`
	Corners   []CornerNote `json:"corners"`
	Score     float64      `json:"score" validate:"gte=0,lte=100"`
}

type LapArgs struct {
	SessionID string `json:"sessionId" validate:"required"`
	Lap       int    `json:"lap" validate:"min=1"`
}

type LapTelemetry struct {
	Lap     int             `json:"lap"`
	Sectors [3]int          `json:"sectors" jsonschema:"Sector times in milliseconds"`
	Samples [][]float64     `json:"samples"`
	Flags   map[string]bool `json:"flags"`
	Time    time.Duration   `json:"time"`
}

type PlanStep struct {
	Title string    `json:"title"`
	Drill *PlanStep `json:"drill,omitempty" jsonschema:"A follow-up drill"`
	Laps  int       `json:"laps" validate:"oneof=1 3 5"`
	Info  any       `json:"info,omitempty"`
}

type CreatePlanArgs struct {
	ReportID string     `json:"reportId" validate:"required"`
	Steps    []PlanStep `json:"steps" validate:"min=1,max=10,dive"`
	Notes    struct {
		Text string `json:"text"`
		Pin  bool   `json:"pin,omitempty"`
	} `json:"notes,omitzero"`
}

type CreatePlanResult struct {
	PlanID string `json:"planId"`
}

func fixture() *catalog.Catalog {
	c, err := catalog.New("brakinglab", nil)
	if err != nil {
		panic(err)
	}
	catalog.MustAdd(c, catalog.Func[GetSessionsArgs, Page[SessionSummary]]{
		Name:        "getSessions",
		Description: "Lists the driver's sessions, newest first.",
		Tier:        catalog.ReadOnly,
		Scopes:      []string{"sessions:read"},
		Handler: func(ctx context.Context, in GetSessionsArgs) (Page[SessionSummary], error) {
			return Page[SessionSummary]{}, nil
		},
	})
	catalog.MustAdd(c, catalog.Func[LapArgs, *LapTelemetry]{
		Name:        "getLap",
		Description: "Returns one lap's telemetry.",
		Tier:        catalog.ReadOnly,
		Scopes:      []string{"sessions:read"},
		Handler:     func(ctx context.Context, in LapArgs) (*LapTelemetry, error) { return nil, nil },
	})
	catalog.MustAdd(c, catalog.Func[struct{}, []string]{
		Name:        "listTracks",
		Description: "Lists known track names.",
		Tier:        catalog.ReadOnly,
		Handler:     func(ctx context.Context, in struct{}) ([]string, error) { return nil, nil },
	})
	catalog.MustAdd(c, catalog.Func[SaveReportArgs, Report]{
		Name:        "saveReport",
		Description: "Saves a coaching report for a session.\nOverwrites the previous report of that session.",
		Tier:        catalog.Mutating,
		Scopes:      []string{"sessions:read", "reports:write"},
		Handler:     func(ctx context.Context, in SaveReportArgs) (Report, error) { return Report{}, nil },
	})
	catalog.MustAdd(c, catalog.Func[CreatePlanArgs, CreatePlanResult]{
		Name:        "createPlan",
		Description: "Creates a training plan from a report.",
		Tier:        catalog.Creative,
		Scopes:      []string{"plans:write"},
		Handler:     func(ctx context.Context, in CreatePlanArgs) (CreatePlanResult, error) { return CreatePlanResult{}, nil },
	})
	return c
}
