package approvaldiff

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
)

// The catalog of the differential test: namespace diff, over a
// diffStore that logs every write a handler made (the ground truth the
// test compares everything else with).
//
// Every read and every write result is a pure function of its arguments,
// except diff.version, so that two executions of a deterministic script
// return the same value. Writes with an id that is a multiple of 5, and
// creates of a name ending in 9, fail in the host (after their dry run
// passed); archiveItem of id 11 fails its Validate hook.

// diffStore logs writes per subject: each case runs as its own subject.
// Replicas share one diffStore (a process-shared Go store rather than
// PostgreSQL: what the replicas must share for the invariant is the
// approval state, which goes through Config.Replicas, pgstate's in
// codemode/pgstate's test; a log in Go records each handler run exactly,
// with no transaction semantics of its own to get wrong, and costs
// nothing).
type diffStore struct {
	mu   sync.Mutex
	logs map[string]*diffLog
}

type diffLog struct {
	writes []diffWrite
	epoch  int // questions the user accepted so far in the execution
}

// diffWrite is one write a handler made.
type diffWrite struct {
	Key   string // diffKey: "diff.fn {canonical args}"
	Epoch int    // questions accepted before it ran
}

func newDiffStore() *diffStore { return &diffStore{logs: map[string]*diffLog{}} }

// logOf returns sub's log; s.mu is held.
func (s *diffStore) logOf(sub string) *diffLog {
	l := s.logs[sub]
	if l == nil {
		l = &diffLog{}
		s.logs[sub] = l
	}
	return l
}

func (s *diffStore) write(ctx context.Context, fn string, in any) {
	b, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	key := diffKey("diff."+fn, b)
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.logOf(subject(ctx))
	l.writes = append(l.writes, diffWrite{Key: key, Epoch: l.epoch})
}

// accepted counts a question sub's user accepted; it is called before the
// answer is sent, so every write that answer allows has a higher epoch.
func (s *diffStore) accepted(sub string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logOf(sub).epoch++
}

func (s *diffStore) epoch(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logOf(sub).epoch
}

// snapshot returns the keys of sub's writes so far.
func (s *diffStore) snapshot(sub string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, w := range s.logOf(sub).writes {
		out = append(out, w.Key)
	}
	return out
}

// take returns sub's writes and starts a new execution.
func (s *diffStore) take(sub string) []diffWrite {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.logOf(sub)
	out := l.writes
	*l = diffLog{}
	return out
}

type diffIDIn struct {
	ID int `json:"id" validate:"min=1,max=99"`
}

type diffItem struct {
	ID    int `json:"id"`
	Value int `json:"value"`
}

type diffListIn struct {
	N int `json:"n" validate:"min=0,max=5"`
}

type diffUpdateIn struct {
	ID    int `json:"id" validate:"min=1,max=99"`
	Value int `json:"value" validate:"min=0,max=99"`
}

type diffCreateIn struct {
	Name string `json:"name" validate:"required,max=12"`
}

type diffTagIn struct {
	ID  int    `json:"id" validate:"min=1,max=99"`
	Tag string `json:"tag" validate:"required,max=12"`
}

type diffVersion struct {
	V int `json:"v"`
}

type diffDone struct {
	ID   int  `json:"id"`
	Done bool `json:"done"`
}

func diffValue(id int) int { return (id*7 + 3) % 10 }

// diffApprovalFns are the functions that need approval: MUTATING is in
// approval.Options.Tiers, and archiveItem says ApprovalRequired.
var diffApprovalFns = map[string]bool{"diff.deleteItem": true, "diff.updateItem": true, "diff.archiveItem": true}

func diffLocked(id int) error {
	if id%5 == 0 {
		return catalog.Conflict("item %d is locked", id)
	}
	return nil
}

// newDiffCatalog builds the diff catalog over s. Without approvals,
// archiveItem does not say ApprovalRequired, so that no function needs
// approval.
func newDiffCatalog(t testing.TB, s *diffStore, approvals bool) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New("diff", nil)
	if err != nil {
		t.Fatal(err)
	}
	item := func(id int) diffItem { return diffItem{ID: id, Value: diffValue(id)} }
	catalog.MustAdd(cat, catalog.Func[diffIDIn, diffItem]{
		Name: "getItem", Description: "Returns one item.", Tier: catalog.ReadOnly,
		Handler: func(_ context.Context, in diffIDIn) (diffItem, error) { return item(in.ID), nil },
	})
	catalog.MustAdd(cat, catalog.Func[diffIDIn, diffItem]{
		Name: "slowItem", Description: "Returns one item, slowly.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, in diffIDIn) (diffItem, error) {
			select {
			case <-time.After(time.Duration(2+in.ID%3) * time.Millisecond):
			case <-ctx.Done():
				return diffItem{}, ctx.Err()
			}
			return item(in.ID), nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[diffListIn, []diffItem]{
		Name: "listItems", Description: "Lists the first n items.", Tier: catalog.ReadOnly,
		Handler: func(_ context.Context, in diffListIn) ([]diffItem, error) {
			out := []diffItem{}
			for id := 1; id <= in.N; id++ {
				out = append(out, item(id))
			}
			return out, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[struct{}, diffVersion]{
		Name: "version", Description: "Returns how many approvals the user gave in this execution.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, _ struct{}) (diffVersion, error) {
			return diffVersion{V: s.epoch(subject(ctx))}, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[diffIDIn, diffDone]{
		Name: "deleteItem", Description: "Deletes an item.", Tier: catalog.Mutating,
		Handler: func(ctx context.Context, in diffIDIn) (diffDone, error) {
			if err := diffLocked(in.ID); err != nil {
				return diffDone{}, err
			}
			s.write(ctx, "deleteItem", in)
			return diffDone{ID: in.ID, Done: true}, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[diffUpdateIn, diffDone]{
		Name: "updateItem", Description: "Sets an item's value.", Tier: catalog.Mutating,
		Handler: func(ctx context.Context, in diffUpdateIn) (diffDone, error) {
			if err := diffLocked(in.ID); err != nil {
				return diffDone{}, err
			}
			s.write(ctx, "updateItem", in)
			return diffDone{ID: in.ID, Done: true}, nil
		},
	})
	archive := catalog.ApprovalDefault
	if approvals {
		archive = catalog.ApprovalRequired
	}
	catalog.MustAdd(cat, catalog.Func[diffIDIn, diffDone]{
		Name: "archiveItem", Description: "Archives an item.", Tier: catalog.Creative, Approval: archive,
		Validate: func(_ context.Context, in diffIDIn) error {
			if in.ID == 11 {
				return catalog.NotFound("item %d not found", in.ID)
			}
			return nil
		},
		Handler: func(ctx context.Context, in diffIDIn) (diffDone, error) {
			if err := diffLocked(in.ID); err != nil {
				return diffDone{}, err
			}
			s.write(ctx, "archiveItem", in)
			return diffDone{ID: in.ID, Done: true}, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[diffCreateIn, diffDone]{
		Name: "createItem", Description: "Creates an item.", Tier: catalog.Creative,
		Handler: func(ctx context.Context, in diffCreateIn) (diffDone, error) {
			if strings.HasSuffix(in.Name, "9") {
				return diffDone{}, catalog.Conflict("name %q is taken", in.Name)
			}
			s.write(ctx, "createItem", in)
			return diffDone{ID: 100 + len(in.Name), Done: true}, nil
		},
	})
	catalog.MustAdd(cat, catalog.Func[diffTagIn, diffDone]{
		Name: "tagItem", Description: "Tags an item.", Tier: catalog.Mutating, Approval: catalog.ApprovalNotRequired,
		Handler: func(ctx context.Context, in diffTagIn) (diffDone, error) {
			if err := diffLocked(in.ID); err != nil {
				return diffDone{}, err
			}
			s.write(ctx, "tagItem", in)
			return diffDone{ID: in.ID, Done: true}, nil
		},
	})
	return cat
}

// diffKey names a call: its function and canonical arguments (members
// sorted, no whitespace, numbers as written). Arguments that are not
// JSON are kept as written, marked.
func diffKey(fn string, args []byte) string {
	c, err := canonJSON(args)
	if err != nil {
		return fmt.Sprintf("%s !%s", fn, args)
	}
	return fn + " " + c
}

// canonJSON re-encodes JSON with object members sorted and no whitespace.
func canonJSON(b []byte) (string, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	return string(out), err
}
