package saved

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/watchers"
)

// Memory is the in-process [state.SavedFunctions] store: right for one
// replica, forgotten when the process ends. It reports its changes
// ([state.SavedChanges]) to every Library that shares it. Its zero value
// is ready.
type Memory struct {
	mu  sync.Mutex
	fns map[[2]string][]state.SavedFunction // owner, name → versions, oldest first
	pub map[[2]string]bool

	watch watchers.Set[func(owner string, everyone bool)]
}

var (
	_ state.SavedFunctions = (*Memory)(nil)
	_ state.SavedChanges   = (*Memory)(nil)
)

// WatchSaved implements state.SavedChanges: fn is called on the
// goroutine that made the change, after the store has it.
func (m *Memory) WatchSaved(fn func(owner string, everyone bool)) (stop func()) {
	return m.watch.Add(fn)
}

// report tells the watchers of a change of owner's functions; m.mu must
// not be held.
func (m *Memory) report(owner string, everyone bool) {
	for _, fn := range m.watch.All() {
		fn(owner, everyone)
	}
}

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{} }

// Save implements state.SavedFunctions.
func (m *Memory) Save(_ context.Context, f state.SavedFunction, maxNames int) (int, error) {
	v, everyone, err := m.save(f, maxNames)
	if err == nil {
		m.report(f.Owner, everyone)
	}
	return v, err
}

func (m *Memory) save(f state.SavedFunction, maxNames int) (version int, published bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fns == nil {
		m.fns, m.pub = map[[2]string][]state.SavedFunction{}, map[[2]string]bool{}
	}
	k := [2]string{f.Owner, f.Name}
	vs := m.fns[k]
	if len(vs) == 0 && maxNames > 0 {
		n := 0
		for o := range m.fns {
			if o[0] == f.Owner {
				n++
			}
		}
		if n >= maxNames {
			return 0, false, state.ErrSavedLimit
		}
	}
	f.Version = 1
	if len(vs) > 0 {
		f.Version = vs[len(vs)-1].Version + 1
	}
	f.Input, f.Output, f.Uses = slices.Clone(f.Input), slices.Clone(f.Output), slices.Clone(f.Uses)
	m.fns[k] = append(vs, f)
	return f.Version, m.pub[k], nil
}

func (m *Memory) get(k [2]string, version int) *state.SavedFunction {
	vs := m.fns[k]
	if len(vs) == 0 {
		return nil
	}
	f := vs[len(vs)-1]
	if version != 0 {
		i := slices.IndexFunc(vs, func(f state.SavedFunction) bool { return f.Version == version })
		if i < 0 {
			return nil
		}
		f = vs[i]
	}
	f.Published = m.pub[k]
	return &f
}

// Get implements state.SavedFunctions.
func (m *Memory) Get(_ context.Context, owner, name string, version int) (*state.SavedFunction, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.get([2]string{owner, name}, version), nil
}

// Published implements state.SavedFunctions.
func (m *Memory) Published(_ context.Context, name string, version int) (*state.SavedFunction, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, p := range m.pub {
		if p && k[1] == name {
			return m.get(k, version), nil
		}
	}
	return nil, nil
}

// List implements state.SavedFunctions.
func (m *Memory) List(_ context.Context, owner string) ([]state.SavedFunction, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []state.SavedFunction
	for k := range m.fns {
		if k[0] == owner || m.pub[k] {
			out = append(out, *m.get(k, 0))
		}
	}
	slices.SortFunc(out, func(a, b state.SavedFunction) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Owner, b.Owner)
	})
	return out, nil
}

// History implements state.SavedFunctions.
func (m *Memory) History(_ context.Context, owner, name string) ([]state.SavedFunction, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{owner, name}
	out := slices.Clone(m.fns[k])
	for i := range out {
		out[i].Published = m.pub[k]
	}
	return out, nil
}

// Remove implements state.SavedFunctions.
func (m *Memory) Remove(_ context.Context, owner, name string) (bool, error) {
	m.mu.Lock()
	k := [2]string{owner, name}
	_, ok := m.fns[k]
	published := m.pub[k]
	delete(m.fns, k)
	delete(m.pub, k)
	m.mu.Unlock()
	if ok {
		m.report(owner, published)
	}
	return ok, nil
}

// Publish implements state.SavedFunctions.
func (m *Memory) Publish(_ context.Context, owner, name string, published bool) (bool, error) {
	m.mu.Lock()
	k := [2]string{owner, name}
	_, ok := m.fns[k]
	if ok {
		m.pub[k] = published
	}
	m.mu.Unlock()
	if ok {
		m.report(owner, true)
	}
	return ok, nil
}
