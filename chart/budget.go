package chart

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/internal/threadcpu"
)

// Host CPU bounds of chart rendering. A renderer (chartpng's) keeps one
// chart under RenderCPU whatever its spec; a server keeps one execution's
// charts under ExecutionCPU with a [Budget].
const (
	RenderCPU    = 100 * time.Millisecond
	ExecutionCPU = 500 * time.Millisecond
)

// ErrBudgetSpent is returned (wrapped) by [Budget.Render] when the budget
// has too little left for another chart. Its message is written for the
// model.
var ErrBudgetSpent = errors.New("the charts of this run used their drawing time")

// Budget bounds the host CPU one execution's chart renderings take. It
// measures each rendering's CPU time on its own OS thread (Linux; wall time
// elsewhere), so a loaded machine does not make a rendering look costlier
// than it is. A rendering starts only while at least perChart is left: with
// a renderer that keeps every chart under perChart, the renderings of one
// budget never take more than its limit. Safe for concurrent use.
type Budget struct {
	limit, perChart time.Duration

	mu    sync.Mutex
	spent time.Duration
}

// NewBudget returns a budget of limit CPU time for renderings that each
// take at most perChart (for chartpng: NewBudget(ExecutionCPU, RenderCPU)).
func NewBudget(limit, perChart time.Duration) *Budget {
	return &Budget{limit: limit, perChart: perChart}
}

// Render draws s with r and charges the CPU time it took. When less than
// perChart is left it draws nothing and returns an error wrapping
// [ErrBudgetSpent] that tells the model what to do.
func (b *Budget) Render(r Renderer, s *Spec) ([]byte, error) {
	b.mu.Lock()
	if b.limit-b.spent < b.perChart {
		spent := b.spent
		b.mu.Unlock()
		return nil, fmt.Errorf("%w (%s of host CPU; the limit is %s): draw fewer charts, or fewer points in each", ErrBudgetSpent, spent.Round(time.Millisecond), b.limit)
	}
	// Reserve the worst case while drawing, so concurrent renderings of
	// one budget cannot all start on the same remainder.
	b.spent += b.perChart
	b.mu.Unlock()

	runtime.LockOSThread()
	start, wall := threadcpu.Now(), time.Now()
	png, err := r.RenderPNG(s)
	used := threadcpu.Now() - start
	if start == 0 {
		used = time.Since(wall)
	}
	runtime.UnlockOSThread()

	b.mu.Lock()
	b.spent += used - b.perChart
	b.mu.Unlock()
	return png, err
}

// Spent returns the CPU time charged so far.
func (b *Budget) Spent() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}
