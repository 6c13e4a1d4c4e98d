package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// The fast path's benchmarks. coaching.js is the coaching script without
// its one type annotation, so it is plain JavaScript:
//
//	go test -run '^$' -bench 'PlainDistinct|CoachingDistinct$|CompileDistinct' -benchtime 300x ./sandbox/

func loadPlainCoaching(b *testing.B) string {
	src, err := os.ReadFile("testdata/bench/coaching.js")
	if err != nil {
		b.Fatal(err)
	}
	if compileDirect(string(src), "") == nil {
		b.Fatal("coaching.js does not take the direct path")
	}
	return string(src)
}

// BenchmarkInProcessPlainDistinct is BenchmarkInProcessCoachingDistinct
// with the plain-JavaScript coaching script: never-seen code that skips
// esbuild.
func BenchmarkInProcessPlainDistinct(b *testing.B) {
	host, _ := loadFixtureHost(b)
	benchRunDistinct(b, benchSandbox(b), loadPlainCoaching(b), host)
}

// BenchmarkWorkerPlainDistinct is BenchmarkInProcessPlainDistinct in a
// worker process.
func BenchmarkWorkerPlainDistinct(b *testing.B) {
	host, _ := loadFixtureHost(b)
	benchRunDistinct(b, workerSandbox(b), loadPlainCoaching(b), host)
}

// BenchmarkCompileDistinct compiles never-seen code: the TypeScript
// coaching script through esbuild, the plain one directly, and the plain
// one forced through esbuild, for the fast path's saving alone.
func BenchmarkCompileDistinct(b *testing.B) {
	_, ts := loadFixtureHost(b)
	js := loadPlainCoaching(b)
	for _, c := range []struct{ name, src string }{
		{"typescript", ts},
		{"plain-direct", js},
		{"plain-esbuild", js + forceEsbuild},
	} {
		b.Run(c.name, func(b *testing.B) {

			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				src := c.src + "\n// " + strconv.Itoa(i)
				if _, err := compile(source{key: sourceKey("bench", src), ts: src}, DefaultMaxCodeBytes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDirectRefused is what the fast path costs TypeScript before
// esbuild runs: for the coaching script, whose "(c: any)" is one of
// typeHints, a scan; for the same script annotated "(c: Corner)", goja's
// parse that fails.
func BenchmarkDirectRefused(b *testing.B) {
	_, ts := loadFixtureHost(b)
	for _, c := range []struct{ name, src string }{
		{"hinted", ts},
		{"parsed", strings.Replace(ts, "(c: any)", "(c: Corner)", 1)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if compileDirect(c.src, "") != nil {
					b.Fatal("the TypeScript coaching script took the direct path")
				}
			}
		})
	}
}

// BenchmarkFastPathOrChain compiles a long || chain and a long + chain
// directly: the walk asks whether each || level's left operand has a
// known truth, and kept answers make that linear (a 3,300-operand chain
// took 1.1 s and half a gigabyte before).
func BenchmarkFastPathOrChain(b *testing.B) {
	for _, op := range []string{"||", "+"} {
		src := "let q = globalThis.x;\nreturn q" + strings.Repeat(op+"q", 3300) + ";"
		b.Run(op, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if compileDirect(src, "agent.ts") == nil {
					b.Fatal("not compiled directly")
				}
			}
		})
	}
}
