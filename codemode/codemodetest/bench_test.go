package codemodetest_test

import (
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/sandbox"
)

// BenchmarkRun measures one Run (an in-memory session, the tool call and
// the decoding) in each sandbox mode: what a test pays per script.
func BenchmarkRun(b *testing.B) {
	for _, mode := range []struct {
		name string
		mode sandbox.Mode
	}{{"worker", sandbox.ModeWorker}, {"in-process", sandbox.ModeInProcess}} {
		b.Run(mode.name, func(b *testing.B) {
			h := codemodetest.New(b, garage(), &codemodetest.Options{Server: &codemode.Options{Sandbox: codemode.SandboxOptions{Mode: mode.mode}}})
			for b.Loop() {
				if res := h.Run(b, `return (await garage.getLaps({ track: "Spa" })).length`); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
