// Package integration holds tests of the root module that need libraries
// its go.mod must not require. Every requirement of the root go.mod, a
// test-only one too, lands in the module graph of every service that
// imports the library, so these tests live in a module of their own,
// github.com/brakinglab/codemode-go/internal/integration, which is never
// published and which nothing imports. Today that is the OpenTelemetry
// SDK: the tests that check codemode's spans, metrics and Stats against
// the real SDK, its godoc-style example, and the benchmarks that measure
// what the SDK adds to an execution; and go-playground/validator, the
// reference the catalog's own validate-tag checker (internal/validate)
// is held to by a differential test (validatediff_test.go).
//
// The root module's tests check everything else; run these with the rest:
// .ci/test tests every module of go.work.
package integration
