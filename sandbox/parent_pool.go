package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/brakinglab/codemode-go/sandbox/internal/proc"
)

// The parent side of ModeWorker: a pool of worker processes, each running
// one execution at a time. Workers are reused after clean executions and
// replaced after a breach, a crash, a timeout or a cancellation, so no
// execution ever runs in a process a previous script left dirty.

// maxWorkerUses bounds how many executions one worker serves before it is
// replaced, so slow drift (fragmentation, caches) cannot accumulate.
const maxWorkerUses = 1000

// pool implements executor with worker processes.
type pool struct {
	path     string
	size     int
	headroom int64 // RLIMIT_DATA headroom sent to workers
	memory   int64 // the sandbox's maximum memory limit
	logger   *slog.Logger

	admit *admission      // who gets the next free worker
	quit  <-chan struct{} // closed when the sandbox starts closing

	mu       sync.Mutex
	idle     []*workerProc // most recently used last
	live     map[*workerProc]struct{}
	starting int           // spawns in flight
	changed  chan struct{} // closed (and replaced) when idle or starting changes
	closed   bool

	bg sync.WaitGroup // spawns and host-call goroutines

	peakRSS atomic.Int64 // the largest peak RSS of a discarded worker, in bytes
}

// newPool returns a pool for a sandbox with options o and maximum limits
// ceiling. Workers start lazily; one is started in the background right
// away so the first execution rarely waits for a spawn.
func newPool(o *Options, ceiling Limits, quit <-chan struct{}) (*pool, error) {
	path := o.WorkerPath
	if path == "" {
		var err error
		if path, err = selfExecutable(); err != nil {
			return nil, newError(KindInternal, "cannot find the current executable to start sandbox workers: %v", err)
		}
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	p := &pool{
		path:     path,
		size:     max1(o.PoolSize),
		headroom: proc.DataHeadroom(ceiling.MemoryBytes),
		memory:   ceiling.MemoryBytes,
		logger:   logger,
		admit:    newAdmission(max1(o.PoolSize)),
		quit:     quit,
		live:     map[*workerProc]struct{}{},
		changed:  make(chan struct{}),
	}
	p.prewarm()
	return p, nil
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// run compiles and executes src on a worker, waiting for a free one (or
// ctx, or the sandbox closing); admission shares the workers out fairly
// between src's partitions.
func (p *pool) run(ctx context.Context, src source, host Host, lim Limits) (*Result, error) {
	release, err := p.admit.acquire(ctx, src.partition, p.quit)
	if err != nil {
		return nil, err
	}
	defer release()

	for attempt := 0; ; attempt++ {
		w, err := p.get(ctx)
		if err != nil {
			return nil, err
		}
		p.prewarmSpare()
		res, err, reuse := w.run(ctx, p, src, host, lim)
		p.put(w, reuse)
		if err == errLostBeforeStart {
			// Nothing of src ran, so trying again is safe. Every idle
			// worker and the spare may have died together (killed from
			// outside) before their exits were noticed: allow one attempt
			// per worker that can be idle, and one on a fresh worker.
			if attempt <= p.size {
				continue
			}
			e := *errLostBeforeStart
			return nil, &e
		}
		return res, err
	}
}

// get returns an idle live worker, waits for one being started, or starts
// one itself.
func (p *pool) get(ctx context.Context) (*workerProc, error) {
	p.mu.Lock()
	for {
		for len(p.idle) > 0 {
			w := p.idle[len(p.idle)-1]
			p.idle = p.idle[:len(p.idle)-1]
			if w.alive() {
				p.mu.Unlock()
				return w, nil
			}
			// Died while idle (killed from outside): drop it.
			delete(p.live, w)
			w.kill() // already exited: returns at once
		}
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		if p.starting == 0 {
			break
		}
		// A worker is being started (prewarm): wait for it rather than
		// start a second one.
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, cancelledError(ctx)
		case <-p.quit:
			return nil, ErrClosed
		}
		p.mu.Lock()
	}
	p.starting++
	p.mu.Unlock()
	w, err := startWorker(p.path, p.setup())
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starting--
	p.broadcast()
	if err != nil {
		p.logger.Error("sandbox: cannot start a worker", "err", err)
		return nil, newError(KindInternal, "the sandbox could not start a worker process; retry shortly")
	}
	if p.closed {
		w.kill()
		return nil, ErrClosed
	}
	p.live[w] = struct{}{}
	return w, nil
}

// broadcast wakes every get waiting for a change; p.mu must be held.
func (p *pool) broadcast() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *pool) setup() setupMsg {
	return setupMsg{Version: protocolVersion, DataHeadroom: p.headroom, MemoryBytes: p.memory}
}

// put returns w to the pool after an execution, or discards it and starts
// a replacement in the background.
func (p *pool) put(w *workerProc, reuse bool) {
	w.uses++
	reuse = reuse && w.uses < maxWorkerUses && w.alive()
	p.mu.Lock()
	// The reserved worker is kept idle too, so a newcomer does not wait
	// for a spawn while the pool is saturated.
	if reuse && !p.closed && len(p.idle) < p.size+admissionReserve {
		p.idle = append(p.idle, w)
		p.broadcast()
		p.mu.Unlock()
		return
	}
	delete(p.live, w)
	closed := p.closed
	p.mu.Unlock()
	if !closed {
		p.logger.Debug("sandbox: replacing worker", "pid", w.pid, "uses", w.uses, "clean", reuse)
	}
	w.kill()
	storeMax(&p.peakRSS, w.peakRSS)
	if !closed {
		p.prewarm()
	}
}

// prewarm starts one worker in the background and parks it as idle, so the
// next execution does not pay for a spawn.
func (p *pool) prewarm() { p.prewarmUpTo(p.size) }

// prewarmSpare starts one worker when none is left idle or starting, up
// to the pool size plus the reserve: the execution the reserve admits
// while every other worker is busy should not wait for a spawn, which on
// a host whose cores busy workers keep loaded takes seconds.
func (p *pool) prewarmSpare() {
	p.mu.Lock()
	spare := len(p.idle) == 0 && p.starting == 0
	p.mu.Unlock()
	if spare {
		p.prewarmUpTo(p.size + admissionReserve)
	}
}

// prewarmUpTo is prewarm while fewer than limit workers live or start.
func (p *pool) prewarmUpTo(limit int) {
	select {
	case <-p.quit: // closing: a new worker would only delay Close
		return
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.live)+p.starting >= limit {
		return
	}
	p.starting++
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		w, err := startWorker(p.path, p.setup())
		p.mu.Lock()
		defer p.mu.Unlock()
		p.starting--
		p.broadcast()
		if err != nil {
			p.logger.Warn("sandbox: cannot prestart a worker", "err", err)
			return
		}
		if p.closed || len(p.live) >= limit {
			w.kill()
			return
		}
		p.live[w] = struct{}{}
		p.idle = append([]*workerProc{w}, p.idle...)
	}()
}

// close kills every worker and waits for background goroutines (spawns and
// host calls, which see their contexts cancelled).
func (p *pool) close() error {
	p.mu.Lock()
	p.closed = true
	ws := make([]*workerProc, 0, len(p.live))
	for w := range p.live {
		ws = append(ws, w)
	}
	p.live, p.idle = map[*workerProc]struct{}{}, nil
	p.mu.Unlock()
	for _, w := range ws {
		w.kill()
	}
	p.bg.Wait()
	return nil
}

// stats reports the pool's live and idle worker counts (for tests).
func (p *pool) stats() (live, idle int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.live), len(p.idle)
}

// pids returns the process ids of live workers (for tests).
func (p *pool) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for w := range p.live {
		out = append(out, w.pid)
	}
	return out
}

// busyPIDs returns the process ids of live workers that are running an
// execution, not idle (for tests: the spare started beside a busy worker
// is live too).
func (p *pool) busyPIDs() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	idle := map[*workerProc]bool{}
	for _, w := range p.idle {
		idle[w] = true
	}
	var out []int
	for w := range p.live {
		if !idle[w] {
			out = append(out, w.pid)
		}
	}
	return out
}

var _ executor = (*pool)(nil)

func (w *workerProc) String() string { return fmt.Sprintf("worker %d", w.pid) }

// storeMax raises a to v if v is larger.
func storeMax(a *atomic.Int64, v int64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// selfExecutable is the binary workers re-execute. On Linux it is
// /proc/self/exe, which names the running binary even after a deployment
// replaced or deleted the file: workers always run the parent's own code.
func selfExecutable() (string, error) {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	return os.Executable()
}
