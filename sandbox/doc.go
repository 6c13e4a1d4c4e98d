// Package sandbox runs model-written TypeScript under limits.
//
// Most services start with package codemode, which builds on this one (see
// its documentation); use this package directly for finer control.
//
// A program is transpiled by esbuild (TypeScript, top-level await, a final
// return; syntax goja lacks, such as async generators and for await, is
// lowered), except plain JavaScript that esbuild would leave alone, which
// goja compiles directly (docs/sandbox.md, "The plain-JavaScript fast
// path"); it is compiled once per distinct source and partition
// ([RunOptions.Partition]) and run in a fresh goja
// runtime per execution, in strict mode, without eval, the Function
// constructors, require, timers or any access to the host beyond a [Host].
//
// Each function the Host lists is bound as namespace.function and returns a
// Promise; host calls run concurrently on their own goroutines, and every
// value crossing the boundary is a JSON copy.
//
// The execution ends when the script's top-level promise has settled and
// no host call is in flight. A call the script did not await (a write
// inside forEach) is never abandoned: the execution waits for it, within
// the time limit, and its continuations run as in Node. When the time
// limit or the caller ends the execution first, the calls still in flight
// have their context cancelled and are waited for a moment longer. Each
// [CallRecord] reports what the host returned: ok or error; cancelled only
// for an error returned after that cancellation; unknown only for a host
// that did not return at all. Every call the script did not await is named
// in [Result.Warnings] with its position and outcome, as is an argument
// member whose value was undefined (JSON drops it, so the host never saw
// it); a host may add warnings of its own to a call with [Warn].
//
// Errors a model makes often are answered with what to do: reading a
// member of a Promise (a missing await) names the host function that
// returned it, a circular return value names the path of the cycle,
// Node or browser globals (setTimeout, Buffer, process, require, fetch)
// say what the sandbox offers instead and name the host's namespaces,
// JSON.parse of an object says it is already parsed, a member read from
// an array a host call returned (latest.id) is named when it leaves an
// argument undefined, a Map, Set, function, NaN or undefined in an array
// that JSON would silently change is a warning with its path and the fix,
// and a function that does not exist names the namespace that has it or
// the closest ones. A Host that is also an [Explainer] supplies its own
// ranking of close functions and the argument object a function takes;
// one that is a [Withholder] says why a function it has is not bound for
// this execution, and where it is. A [SubprogramHost] binds namespaces of
// sub-programs: named code it keeps (saved functions) that runs inside
// the current execution, within its limits, compiled once per version.
//
// Every execution is bounded by [Limits]: wall-clock time, heap memory,
// number of host calls, source size and output size. A breach ends the
// execution with an [*Error] whose [Kind] the caller can switch on; where it
// applies, the error carries the line and column in the model's own
// TypeScript, and a stack in those coordinates.
//
// goja has no heap limit, and a single builtin call such as
// "x".repeat(2**30) can exhaust a Go process. [ModeWorker] (the default)
// therefore runs each execution in a separate worker process with a memory
// watchdog, a kernel cap and a hard deadline; [ModeInProcess] runs in the
// caller's process and is meant for tests and trusted code: it enforces
// every limit except memory. A single builtin call that ignores the
// interrupt (indexOf over a huge array) cannot be stopped there: the caller
// gets TIMEOUT at timeout + 1 s and the abandoned goroutine stops when the
// builtin returns.
//
// Compiling costs time and memory out of proportion to the source (goja's
// parser backtracks exponentially on nested arrow functions with default
// parameters: 300 bytes can take hours), so it is part of the execution:
// a worker compiles under the watchdog and the execution's timeout, and
// answers TIMEOUT saying the program is too complex to compile when the
// timeout passes first. In process the caller gets that answer at the hard
// deadline while the compilation runs on to its end; with
// [MaxAbandonedInProcess] such goroutines still running, new executions
// are refused. The host process never transpiles or compiles a program in
// worker mode.
//
// A worker is the embedding binary itself, re-executed (on Linux through
// /proc/self/exe) with CODEMODE_SANDBOX_WORKER=1 and nothing else in its
// environment: this package's init function turns such a process into a
// worker before main runs, so services and test binaries need no extra
// binary. [Options.WorkerPath] may name any other binary that imports this
// package. Initialisers of the host's packages that do not import this one
// may still run in a worker first, with that empty environment: one that
// exits without a variable or a database kills every worker.
// [Sandbox.CheckWorker] (which codemode.New calls) reports that at
// start-up with the worker's stderr; move such side effects into main, or
// use a separate WorkerPath binary. Workers run in their own process group (Unix), are killed with
// the parent (Linux), run one execution at a time, are reused after clean
// executions and replaced after a memory or time breach, a cancellation,
// an internal failure, a crash or 1000 executions. Each applies
// RLIMIT_DATA of its start-up data size plus 64 MiB + 2 × Limits.MemoryBytes
// (Linux; elsewhere only the heap watchdog and the parent's hard deadline
// at timeout + 1 s apply). In a cgo build every thread's 8 MiB stack counts
// against that cap, so a memory-hungry script may end with a worker death
// rather than the watchdog's interrupt; both are reported as MEMORY_LIMIT.
// An ArrayBuffer or typed array larger than Limits.MemoryBytes is refused
// with MEMORY_LIMIT before goja allocates it, in both modes: the watchdog
// samples every millisecond, and an untouched 800 MB Float64Array could
// be allocated, used and dropped between two samples.
// Race-detector builds multiply the headroom by 4 (build tag race); normal
// builds never relax it. An embedding service must call [Sandbox.Close]
// when it is done with a sandbox: Close kills its workers, which otherwise
// stay idle until the process exits. Close waits for running executions
// no longer than their hard deadline (timeout + 1 s). A worker idle for a
// second returns its free heap pages to the kernel, so an idle pool costs
// about 4 MiB of its own memory per worker beyond the binary's shared
// pages.
//
// The pool is the one owner of admission to its workers: beyond the pool
// size it keeps one extra worker in reserve that only a caller
// ([RunOptions.Partition]) with nothing running may take, so while one
// caller's long scripts hold every worker another caller's execution
// starts at once; at most PoolSize + 1 executions run. When every slot is
// taken, a freed worker goes to the waiting caller with the fewest
// executions running, so one caller starting many long scripts cannot
// hold every worker while others wait. In process the same admission
// bounds the executions running at once, except that a caller alone (no
// other caller running or waiting) may run up to 2 × PoolSize: an
// execution waiting for a host call leaves its core idle. The reserve is
// counted apart from those, so another caller still starts at once. A
// caller with
// max(2 × PoolSize, 8) executions already waiting is refused at once with
// [KindBusy]. [Sandbox.Stats] reports the pool size and how many
// executions run and wait.
//
// One output limit, [Limits.MaxOutputBytes], covers every byte of an
// execution's outcome: value, logs, call records' errors and a failure's
// message, stack and data. Parts that do not fit are cut with a visible
// note, and cut data stays valid JSON.
//
// In both modes the JSON arguments of one host call are capped at 1 MiB:
// the call's promise rejects and the host never sees it (in worker mode the
// parent holds every call's arguments in its own memory). Runtimes are
// usually made ahead of the request they serve (by a worker while it
// waits, or in the background in process); each serves exactly one
// execution.
//
// Design notes and measurements: docs/sandbox.md in the repository.
//
// Two settings are process-wide: goja's backtracking regexp engine gets a
// 500 ms match timeout (regexp2.DefaultMatchTimeout) before the first
// program is compiled, and a match that hits it fails in the script with a
// RangeError instead of silently not matching.
//
// The package knows nothing about MCP, HTTP or catalogs.
package sandbox
