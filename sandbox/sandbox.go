package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"time"
)

// Mode selects where executions run.
type Mode int

const (
	// ModeWorker runs each execution in a pooled worker process with a
	// memory watchdog and a kernel memory cap. It is the default and the
	// only mode that enforces Limits.MemoryBytes.
	ModeWorker Mode = iota
	// ModeInProcess runs executions on goroutines of the calling process.
	// It enforces every limit except memory (apart from refusing an
	// ArrayBuffer or typed array larger than Limits.MemoryBytes): a script
	// can exhaust the process. Compilation cannot be interrupted either: the caller gets
	// TIMEOUT at the hard deadline (timeout + 1 s) and the compilation is
	// abandoned but keeps its CPU until it ends; while
	// [MaxAbandonedInProcess] are still running, new executions are refused.
	// Use it for tests and trusted code.
	ModeInProcess
)

// String returns "worker" or "in-process".
func (m Mode) String() string {
	switch m {
	case ModeWorker:
		return "worker"
	case ModeInProcess:
		return "in-process"
	}
	return "unknown"
}

// Options configures a [Sandbox]. The zero value is valid.
type Options struct {
	// Limits are the maximum limits of every execution; zero fields take
	// the defaults. RunWith can lower them per execution, never raise them.
	Limits Limits
	// Mode selects worker processes (the default) or in-process execution.
	Mode Mode
	// PoolSize is the number of worker processes; zero means GOMAXPROCS.
	// One more worker is kept in reserve for a caller with nothing running
	// while the others hold the whole pool (see the package doc). In
	// ModeInProcess it bounds the executions running at once in the same
	// way.
	PoolSize int
	// WorkerPath, if set, is a separately installed worker binary to run
	// instead of re-executing the current binary. The binary must import
	// this package and be built from the same codemode-go version (the
	// protocol version is checked at start). Ignored in ModeInProcess.
	WorkerPath string
	// Logger receives operational events (worker restarts, internal
	// errors); nil means slog.Default(). Script output never goes here.
	Logger *slog.Logger
}

// RunOptions adjusts one execution.
type RunOptions struct {
	// Limits lower the sandbox's limits for this execution; zero fields and
	// values above the sandbox's maximum keep the sandbox's value.
	Limits Limits
	// Partition names the caller. Servers set it to the caller's identity
	// (codemode uses the principal's subject); "" is a partition like any
	// other. It separates compile caches: executions in different
	// partitions never share a cached compilation, so the speed of a cache
	// hit cannot tell one partition what another ran. It is also the unit
	// of fair admission: a partition with nothing running may take the
	// reserved extra worker while the others are busy; when every worker
	// is busy a freed one goes to the waiting partition with the fewest
	// executions running; and a partition with too many executions waiting
	// (twice the pool size, at least 8) is refused with a BUSY error.
	Partition string
	// Entropy, if set, makes the run reproducible: the script's clock
	// readings (Date.now, new Date()) and Math.random values are recorded
	// in Result.Entropy, and the values of this record are returned first,
	// in order, before live ones. An empty Entropy only records. Hosts
	// that run the same code again and need it to take the same path (a
	// run resumed after the user approved a call) pass the earlier run's
	// Result.Entropy.
	Entropy *Entropy
}

// Sandbox runs TypeScript programs. It is safe for concurrent use.
type Sandbox struct {
	limits Limits
	mode   Mode
	logger *slog.Logger
	exec   executor

	mu     sync.RWMutex
	closed bool
	// quit is closed when Close starts: executions waiting for a worker
	// give up at once instead of delaying Close.
	quit     chan struct{}
	quitOnce sync.Once
}

// executor runs compiled programs. The in-process executor and the worker
// pool implement it.
type executor interface {
	// run compiles and executes src with lim (defaults applied, already
	// lowered), all within lim.Timeout plus the hard-deadline grace.
	run(ctx context.Context, src source, host Host, lim Limits) (*Result, error)
	// close releases the executor's resources; run is not called after it.
	close() error
}

// New returns a Sandbox configured by opts; nil opts means all defaults.
func New(opts *Options) (*Sandbox, error) {
	if opts == nil {
		opts = &Options{}
	}
	s := &Sandbox{
		limits: opts.Limits.withDefaults(),
		mode:   opts.Mode,
		logger: opts.Logger,
		quit:   make(chan struct{}),
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	o := *opts
	if o.PoolSize <= 0 {
		o.PoolSize = runtime.GOMAXPROCS(0)
	}
	switch opts.Mode {
	case ModeInProcess:
		s.exec = newInProcess(o.PoolSize, s.quit)
	case ModeWorker:
		p, err := newPool(&o, s.limits, s.quit)
		if err != nil {
			return nil, err
		}
		s.exec = p
	default:
		return nil, newError(KindInternal, "unknown sandbox mode %d", int(opts.Mode))
	}
	return s, nil
}

// Limits returns the sandbox's maximum limits with defaults applied.
func (s *Sandbox) Limits() Limits { return s.limits }

// Stats is a snapshot of a sandbox's admission to its workers.
type Stats struct {
	// Workers is the pool size: how many executions any caller may run at
	// once. In process it is the same bound on executions running at once.
	Workers int
	// Running is how many executions hold a worker. In worker mode it
	// exceeds Workers by at most one: the worker kept in reserve for a
	// caller with nothing running while the others are busy. In process a
	// caller alone may run up to 2 × Workers, plus that one.
	Running int
	// Waiting is how many executions wait for one.
	Waiting int
}

// Stats reports the sandbox's workers and the executions running on and
// waiting for them.
func (s *Sandbox) Stats() Stats {
	var admit *admission
	switch e := s.exec.(type) {
	case *pool:
		admit = e.admit
	case *inProcess:
		admit = e.admit
	default:
		return Stats{}
	}
	running, waiting := admit.counts()
	return Stats{Workers: admit.capacity, Running: running, Waiting: waiting}
}

// Mode returns the mode the sandbox runs in.
func (s *Sandbox) Mode() Mode { return s.mode }

// Run executes the TypeScript program ts with the sandbox's limits, binding
// the functions host lists. See RunWith.
func (s *Sandbox) Run(ctx context.Context, ts string, host Host) (*Result, error) {
	return s.RunWith(ctx, ts, host, nil)
}

// RunWith executes the TypeScript program ts, binding the functions host
// lists; opts may lower the limits for this execution and may be nil.
//
// On success the error is nil. A failed execution returns an [*Error] and,
// except for CODE_TOO_LARGE, SYNTAX and failures before the script started,
// a non-nil Result with the logs and calls made so far (Value is then nil).
// After Close, RunWith returns ErrClosed.
func (s *Sandbox) RunWith(ctx context.Context, ts string, host Host, opts *RunOptions) (*Result, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	lim := s.limits
	partition := ""
	if opts != nil {
		lim = lim.lower(opts.Limits)
		partition = opts.Partition
	}
	var entropy *Entropy
	if opts != nil {
		entropy = opts.Entropy
	}
	if host == nil {
		host = noHost{}
	}
	if err := ctx.Err(); err != nil {
		return nil, cancelledError(ctx)
	}
	if err := codeTooLarge(ts, lim.MaxCodeBytes); err != nil {
		return nil, err
	}
	// Transpiling and compiling happen in the executor, under the
	// execution's deadline: their cost is not bounded by the source size.
	res, err := s.exec.run(ctx, source{key: sourceKey(partition, ts), ts: ts, partition: partition, entropy: entropy}, host, lim)
	var se *Error
	if errors.As(err, &se) && se.Kind == KindInternal {
		s.logger.Error("sandbox: internal failure", "mode", s.mode.String(), "err", se.Message)
	}
	return res, err
}

// Close stops the sandbox and releases its worker processes. Executions
// waiting for a worker end with ErrClosed; running ones are waited for,
// each no longer than its hard deadline (timeout + 1 s). It is safe to call
// more than once.
func (s *Sandbox) Close() error {
	s.quitOnce.Do(func() { close(s.quit) })
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.exec.close()
}

// hardDeadlineGrace is how long past its timeout (or its context's end) an
// execution may run before the caller stops waiting for it. The worker
// pool kills the worker's process group then (builtins such as
// Array(2**32-1).indexOf(1) and backtracking regexes ignore the in-worker
// interrupt; the kill is what bounds them); in process, the execution is
// abandoned.
const hardDeadlineGrace = time.Second

// noHost binds nothing.
type noHost struct{}

func (noHost) Functions() map[string][]string { return nil }

func (noHost) Call(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, newError(KindInternal, "no host")
}

func cancelledError(ctx context.Context) *Error {
	if ctx.Err() == context.DeadlineExceeded {
		return newError(KindCancelled, "the request's deadline passed before the script finished")
	}
	return newError(KindCancelled, "the request was cancelled before the script finished")
}
