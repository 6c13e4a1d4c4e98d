package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
)

// A BrakingLab-like catalog used across the tests.

type Session struct {
	ID        string            `json:"id"`
	Track     string            `json:"track"`
	StartedAt time.Time         `json:"startedAt"`
	BestLapMs *int              `json:"bestLapMs"`
	Tags      []string          `json:"tags"`
	Notes     map[string]string `json:"notes"`
}

type GetSessionsArgs struct {
	Track string `json:"track,omitempty"`
	Limit int    `json:"limit,omitempty" validate:"omitempty,min=1,max=50"`
}

type CornerNote struct {
	Corner  int      `json:"corner" validate:"min=1"`
	Verdict string   `json:"verdict" validate:"required,oneof=good needs_work critical"`
	Advice  string   `json:"advice,omitempty" validate:"max=20"`
	Tags    []string `json:"tags,omitempty" validate:"max=2,dive,oneof=braking apex exit"`
}

type Meta struct {
	Source string `json:"source,omitempty" validate:"omitempty,oneof=manual ai"`
}

type SaveReportArgs struct {
	Meta
	SessionID string          `json:"sessionId" validate:"required"`
	Summary   string          `json:"summary" validate:"min=3"`
	Corners   []CornerNote    `json:"corners" validate:"min=1,dive"`
	Weights   map[string]int  `json:"weights,omitempty" validate:"omitempty,dive,gte=0"`
	Contact   string          `json:"contact,omitempty" validate:"omitempty,email"`
	When      *time.Time      `json:"when,omitempty"`
	Laps      [2]int          `json:"laps,omitzero"`
	Ratio     float32         `json:"ratio,omitempty"`
	Small     int8            `json:"small,omitempty"`
	Count     uint16          `json:"count,omitempty"`
	Flag      bool            `json:"flag,omitempty"`
	Extra     json.RawMessage `json:"extra,omitempty"`
	Any       any             `json:"any,omitempty"`
	Labels    map[int]string  `json:"labels,omitempty"`
}

type Report struct {
	ID      string       `json:"id"`
	Corners []CornerNote `json:"corners"`
	Rating  *int         `json:"rating"`
}

// store records what handlers did, to prove dry runs write nothing.
type store struct {
	saved []SaveReportArgs
}

var errBoom = errors.New("database is on fire")

func newFixture(opts *catalog.Options) (*catalog.Catalog, *store) {
	c, err := catalog.New("brakinglab", opts)
	if err != nil {
		panic(err)
	}
	st := &store{}
	catalog.MustAdd(c, catalog.Func[GetSessionsArgs, []Session]{
		Name:        "getSessions",
		Description: "Lists sessions.",
		Tier:        catalog.ReadOnly,
		Scopes:      []string{"sessions:read"},
		Handler: func(ctx context.Context, in GetSessionsArgs) ([]Session, error) {
			best := 83456
			all := []Session{
				{ID: "ses_1", Track: "Spa", StartedAt: time.Date(2026, 3, 1, 14, 30, 0, 0, time.UTC), BestLapMs: &best, Tags: []string{"wet"}},
				{ID: "ses_2", Track: "Monza", StartedAt: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)},
			}
			var out []Session
			for _, s := range all {
				if in.Track == "" || s.Track == in.Track {
					out = append(out, s)
				}
			}
			if in.Limit > 0 && len(out) > in.Limit {
				out = out[:in.Limit]
			}
			return out, nil
		},
	})
	catalog.MustAdd(c, catalog.Func[SaveReportArgs, Report]{
		Name:        "saveReport",
		Description: "Saves a coaching report.",
		Tier:        catalog.Mutating,
		Scopes:      []string{"reports:write"},
		Validate: func(ctx context.Context, in SaveReportArgs) error {
			if in.SessionID == "ses_other" {
				return catalog.NotFound("no session %s", in.SessionID)
			}
			if in.SessionID == "ses_hook_issue" {
				return &catalog.ValidationError{Issues: []catalog.Issue{{Path: []any{"sessionId"}, Message: "Session is archived"}}}
			}
			return nil
		},
		Handler: func(ctx context.Context, in SaveReportArgs) (Report, error) {
			switch in.SessionID {
			case "ses_locked":
				return Report{}, catalog.Conflict("session %s is locked by another coach", in.SessionID)
			case "ses_wrapped":
				return Report{}, errors.Join(errors.New("loading"), catalog.Invalid("session has no laps yet"))
			case "ses_fire":
				return Report{}, errBoom
			case "ses_panic":
				var corners []CornerNote
				_ = corners[len(in.SessionID)] // a bug: index out of range
			case "ses_slow":
				<-ctx.Done()
				return Report{}, ctx.Err()
			}
			st.saved = append(st.saved, in)
			return Report{ID: "rep_" + strings.TrimPrefix(in.SessionID, "ses_"), Corners: in.Corners}, nil
		},
	})
	catalog.MustAdd(c, catalog.Func[struct{}, map[string]any]{
		Name:        "status",
		Description: "Reports service status.",
		Tier:        catalog.ReadOnly,
		Handler: func(ctx context.Context, in struct{}) (map[string]any, error) {
			return map[string]any{"ok": true, "maintenance": nil, "list": []int{}, "nested": map[string]any{"a": nil, "b": []any{nil, 1}}}, nil
		},
	})
	return c, st
}

func driver() context.Context {
	return catalog.WithPrincipal(context.Background(), catalog.Principal{
		Subject: "user_1", ClientID: "claude", Scopes: []string{"sessions:read", "reports:write"},
	})
}
