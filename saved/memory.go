package saved

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/brakinglab/codemode-go/codemode/state"
)

// Memory is the in-process [state.SavedFunctions] store: right for one
// replica, forgotten when the process ends. Its zero value is ready.
type Memory struct {
	mu  sync.Mutex
	fns map[[2]string][]state.SavedFunction // owner, name → versions, oldest first
	pub map[[2]string]bool
}

var _ state.SavedFunctions = (*Memory)(nil)

// NewMemory returns an empty store.
func NewMemory() *Memory { return &Memory{} }

// Save implements state.SavedFunctions.
func (m *Memory) Save(_ context.Context, f state.SavedFunction, maxNames int) (int, error) {
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
			return 0, state.ErrSavedLimit
		}
	}
	f.Version = 1
	if len(vs) > 0 {
		f.Version = vs[len(vs)-1].Version + 1
	}
	f.Input, f.Output, f.Uses = slices.Clone(f.Input), slices.Clone(f.Output), slices.Clone(f.Uses)
	m.fns[k] = append(vs, f)
	return f.Version, nil
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
	defer m.mu.Unlock()
	k := [2]string{owner, name}
	_, ok := m.fns[k]
	delete(m.fns, k)
	delete(m.pub, k)
	return ok, nil
}

// Publish implements state.SavedFunctions.
func (m *Memory) Publish(_ context.Context, owner, name string, published bool) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{owner, name}
	if _, ok := m.fns[k]; !ok {
		return false, nil
	}
	m.pub[k] = published
	return true, nil
}
