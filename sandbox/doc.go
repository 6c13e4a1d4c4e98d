// Package sandbox runs model-written TypeScript under limits.
//
// A program is transpiled by esbuild (TypeScript, top-level await, a final
// return; syntax goja lacks, such as async generators and for await, is
// lowered), compiled once per distinct source and run in a fresh goja
// runtime per execution, in strict mode, without eval, the Function
// constructors, require, timers or any access to the host beyond a [Host].
//
// Each function the Host lists is bound as namespace.function and returns a
// Promise; host calls run concurrently on their own goroutines, and every
// value crossing the boundary is a JSON copy. The execution ends when the
// script's top-level promise settles; host calls still in flight are then
// cancelled through their context.
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
// Two settings are process-wide: goja's backtracking regexp engine gets a
// 500 ms match timeout (regexp2.DefaultMatchTimeout) before the first
// program is compiled, and a match that hits it fails in the script with a
// RangeError instead of silently not matching.
//
// The package knows nothing about MCP, HTTP or catalogs.
package sandbox
