// Package sandbox runs model-written TypeScript under limits.
//
// A program is transpiled by esbuild (TypeScript, top-level await, a final
// return), compiled once per distinct source and run in a fresh goja
// runtime per execution. The script reaches the embedding service only
// through a [Host]: each bound function returns a Promise, host calls run
// concurrently on their own goroutines, and every value crossing the
// boundary is a JSON copy.
//
// Every execution is bounded by [Limits]: wall-clock time, heap memory,
// number of host calls, source size and output size. A breach ends the
// execution with an [*Error] whose [Kind] the caller can switch on; where it
// applies, the error carries the line and column in the model's own
// TypeScript.
//
// goja has no heap limit, and a single builtin call such as
// "x".repeat(2**30) can exhaust a Go process. [ModeWorker] (the default)
// therefore runs each execution in a separate worker process with a memory
// watchdog and a kernel cap; [ModeInProcess] runs in the caller's process
// and is meant for tests and trusted code: it enforces every limit except
// memory.
//
// The package knows nothing about MCP, HTTP or catalogs.
package sandbox
