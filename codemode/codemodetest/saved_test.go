package codemodetest_test

import (
	"fmt"
	"log"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/brakinglab/codemode-go/saved"
)

// fastLaps is a saved function of the garage catalog.
const saveFastLaps = `return await codemode.save({
  name: "fastLaps",
  description: "The laps of a track under a time, fastest first.",
  code: "const laps = await garage.getLaps({ track: input.track });\nreturn laps.filter((l) => l.timeMs < input.underMs).sort((a, b) => a.timeMs - b.timeMs);",
  input: { type: "object", properties: { track: { type: "string" }, underMs: { type: "integer", minimum: 1 } }, required: ["track", "underMs"] },
})`

// With Options.Server.Saved set, a test saves a function with
// codemode.save and calls it in a later script as saved.name.
func Example_savedFunctions() {
	h, err := codemodetest.Start(garage(), &codemodetest.Options{Server: &codemode.Options{Saved: saved.New(nil)}})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	if res, err := h.Execute(ctx, saveFastLaps, nil); err != nil || res.Err != nil {
		log.Fatal(err, res.Err)
	}
	res, err := h.Execute(ctx, `return await saved.fastLaps({ track: "Spa", underMs: 92000 })`, nil)
	if err != nil {
		log.Fatal(err)
	}
	fast, err := codemodetest.Decode[[]lap](res)
	fmt.Println(fast, err)
	res, _ = h.Execute(ctx, `return await saved.fastLaps({ track: "Spa" })`, nil)
	fmt.Println(res.Err)
	// Output:
	// [{2 91800}] <nil>
	// RUNTIME at line 1, column 20 (validation): Error: Validation failed
}

func TestSavedFunctionApprovalNamesIt(t *testing.T) {
	h := codemodetest.New(t, garage(), &codemodetest.Options{Approve: codemodetest.Accept, Server: &codemode.Options{Saved: saved.New(nil)}})
	res := h.Run(t, `return await codemode.save({ name: "dropLap", description: "Deletes a lap.", code: "return garage.deleteLap({ number: input.n })", input: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } })`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	res = h.Run(t, `return await saved.dropLap({ n: 2 })`)
	if res.Err != nil || len(res.Approvals) != 1 || !strings.Contains(res.Approvals[0].Message, "called by saved.dropLap version 1") {
		t.Fatalf("%v %+v", res.Err, res.Approvals)
	}
}

// BenchmarkSavedCall compares calling a saved function with running its
// code inline, each from a script never seen before (so the script
// itself is compiled every time): the saved function's code is compiled
// once per version and cached.
func BenchmarkSavedCall(b *testing.B) {
	h := codemodetest.New(b, garage(), &codemodetest.Options{Server: &codemode.Options{Saved: saved.New(nil), Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}}})
	if res := h.Run(b, saveFastLaps); res.Err != nil {
		b.Fatal(res.Err)
	}
	body := "const laps = await garage.getLaps({ track: input.track });\nreturn laps.filter((l) => l.timeMs < input.underMs).sort((a, b) => a.timeMs - b.timeMs);"
	for _, c := range []struct {
		name string
		code func(i int) string
	}{
		{"inline", func(i int) string {
			return fmt.Sprintf("// run %d\nconst input = { track: \"Spa\", underMs: %d };\n%s", i, 92000+i%7, body)
		}},
		{"saved", func(i int) string {
			return fmt.Sprintf("// run %d\nreturn await saved.fastLaps({ track: \"Spa\", underMs: %d });", i, 92000+i%7)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if res := h.Run(b, c.code(i)); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
