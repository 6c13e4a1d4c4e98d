// Package functions is BrakingLab's catalog: every function a model can
// call as brakinglab.<name>, with typed arguments and results, validation
// tags, tiers and scopes.
//
// Every function resolves the caller from catalog.PrincipalFrom: the
// principal's Subject is the store user ID (the "sub" of BrakingLab access
// tokens). IDs in arguments are looked up only among that user's records,
// so another user's ID gives exactly the same "not found" as a missing one.
//
// Track names are matched as tracks.Match documents: case-insensitive, on
// the ID, the full name or an alias, or a unique part of one ("Spa" finds
// Spa-Francorchamps). Car names match case-insensitively on any part of
// the name ("porsche" finds Porsche 911 GT3 R).
package functions

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// Namespace is the JavaScript namespace of the catalog.
const Namespace = "brakinglab"

// Scopes required by the functions.
const (
	// ScopeRead is required by every READ-ONLY function.
	ScopeRead = "brakinglab:read"
	// ScopeWrite is required by every MUTATING and CREATIVE function.
	ScopeWrite = "brakinglab:write"
)

// Options configures the catalog NewWithOptions builds.
type Options struct {
	// NoApprovals lets deletions and race-strategy generation run without
	// the user's approval. By default they are catalog.ApprovalRequired:
	// the code-mode server shows the user each validated call and runs only
	// the calls the user approved.
	NoApprovals bool
}

// New returns the BrakingLab catalog backed by st, with the default
// Options.
func New(st *store.Store) (*catalog.Catalog, error) { return NewWithOptions(st, nil) }

// NewWithOptions returns the BrakingLab catalog backed by st. opts may be nil.
func NewWithOptions(st *store.Store, opts *Options) (*catalog.Catalog, error) {
	c, err := catalog.New(Namespace, nil)
	if err != nil {
		return nil, err
	}
	a := &api{st: st, corners: newCornerCache(), approval: catalog.ApprovalRequired}
	if opts != nil && opts.NoApprovals {
		a.approval = catalog.ApprovalDefault
	}
	for _, register := range []func(*catalog.Catalog, *api) error{
		registerSessions, registerAnalysis, registerEvents, registerNotes, registerCoaching,
	} {
		if err := register(c, a); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// api holds what the handlers share.
type api struct {
	st       *store.Store
	corners  *cornerCache     // measured corners of each session's valid laps
	approval catalog.Approval // of deletions and race-strategy generation
}

// add registers one function with the scope its tier requires.
func add[In, Out any](c *catalog.Catalog, f catalog.Func[In, Out]) error {
	if f.Tier == catalog.ReadOnly {
		f.Scopes = []string{ScopeRead}
	} else {
		f.Scopes = []string{ScopeWrite}
		h := f.Handler
		f.Handler = func(ctx context.Context, in In) (Out, error) {
			out, err := h(ctx, in)
			return out, quotaError(err)
		}
	}
	return catalog.Add(c, f)
}

// quotaError turns a store.QuotaError into a conflict the model can act on.
func quotaError(err error) error {
	var qe *store.QuotaError
	if !errors.As(err, &qe) {
		return err
	}
	what, del := strings.ReplaceAll(qe.Kind, "_", " "), quotaDelete[qe.Kind]
	return catalog.Conflict("you already have %d %s, the most kept per account; delete some with %s first", qe.Limit, what, del)
}

// quotaDelete names the function that makes room for each deletable kind.
var quotaDelete = map[string]string{
	store.KindNotepad: "deleteNotepad", store.KindTrackNote: "deleteTrackNote", store.KindRaceEvent: "deleteRaceEvent",
}

// userID returns the caller's store user ID.
func (a *api) userID(ctx context.Context) (string, error) {
	p, ok := catalog.PrincipalFrom(ctx)
	if !ok || p.Subject == "" {
		return "", catalog.ErrUnauthenticated
	}
	u, err := a.st.UserBySubject(ctx, p.Subject)
	if errors.Is(err, store.ErrNotFound) {
		return "", &catalog.Error{Code: catalog.CodeUnauthenticated, Message: "this account no longer exists: sign in again"}
	}
	if err != nil {
		return "", err
	}
	return u.ID, nil
}

// track resolves a track name or reports a model-friendly issue at path.
func track(name string, path ...any) (tracks.Track, error) {
	t, err := tracks.Match(name)
	if err == nil {
		return t, nil
	}
	msg := fmt.Sprintf("no track matches %q; known tracks: %s", name, strings.Join(tracks.Names(), ", "))
	if errors.Is(err, tracks.ErrAmbiguous) {
		msg = err.Error() + "; use more of the name"
	}
	return tracks.Track{}, issue(msg, path...)
}

// car resolves a car name (case-insensitive, any part of the name).
func (a *api) car(ctx context.Context, name string, path ...any) (store.Car, error) {
	cars, err := a.st.Cars(ctx)
	if err != nil {
		return store.Car{}, err
	}
	var found []store.Car
	names := make([]string, 0, len(cars))
	for _, c := range cars {
		names = append(names, c.Name)
		if strings.EqualFold(c.Name, strings.TrimSpace(name)) || c.ID == name {
			return c, nil
		}
		if strings.Contains(strings.ToLower(c.Name), strings.ToLower(strings.TrimSpace(name))) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return store.Car{}, issue(fmt.Sprintf("no car matches %q; known cars: %s", name, strings.Join(names, ", ")), path...)
	}
	return store.Car{}, issue(fmt.Sprintf("car %q is ambiguous; use more of the name", name), path...)
}

// issue is a one-issue validation error at path.
func issue(msg string, path ...any) error {
	if path == nil {
		path = []any{}
	}
	return &catalog.ValidationError{Issues: []catalog.Issue{{Path: path, Message: msg}}}
}

// notFound maps store.ErrNotFound to a model-safe error naming what was
// looked for; other errors pass through (and become internal errors).
func notFound(err error, what, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		if hint := listHint[what]; hint != "" {
			return catalog.NotFound("%s %q not found; %s lists yours", what, id, hint)
		}
		return catalog.NotFound("%s %q not found", what, id)
	}
	return err
}

// listHint names the function that lists each kind of record.
var listHint = map[string]string{
	"session": "getSessions", "race event": "getRaceEvents", "notepad": "getNotepads", "track note": "getTrackNotes",
}

func trackName(id string) string {
	if t, ok := tracks.ByID(id); ok {
		return t.Name
	}
	return id
}

// ms rounds a duration in milliseconds to a whole number.
func ms(x float64) int { return int(math.Round(x)) }

// r1 and r2 round to one and two decimals.
func r1(x float64) float64 { return math.Round(x*10) / 10 }
func r2(x float64) float64 { return math.Round(x*100) / 100 }

func fold(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Example is the program BrakingLab's execute_code description shows: a
// coaching question answered with a chart (progress over time), the way
// lap comparisons, speed traces and braking consistency are best shown.
const Example = `const p = await brakinglab.getProgress({ trackName: "Spa" });
const s = p.sessions.filter(s => s.bestLapMs);
await codemode.chart({ title: "Best laps", y: { unit: "s" },
  series: [{ name: "best", x: s.map((_, i) => i + 1), y: s.map(s => s.bestLapMs! / 1e3) }] });
return p.trend;`
