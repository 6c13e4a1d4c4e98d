package openapisource

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
)

func TestSmokeGitHub(t *testing.T) {
	b, err := os.ReadFile("../.ci/js/node_modules/@octokit/openapi/generated/api.github.com.json")
	if err != nil {
		t.Skip(err)
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	src, err := New(b, &Options{BaseURL: "https://api.github.com"})
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Since(start)
	c, _ := catalog.New("github", nil)
	if err := src.Register(c); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	t.Logf("funcs %d skipped %d; New %s total %s; alloc %d MB", len(src.Funcs()), len(src.Skipped()), t1, time.Since(start), (m1.TotalAlloc-m0.TotalAlloc)>>20)
	for _, s := range src.Skipped() {
		t.Log(s)
	}
}

func BenchmarkSmokeLoad(b *testing.B) {
	spec, err := os.ReadFile("../.ci/js/node_modules/@octokit/openapi/generated/api.github.com.json")
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		src, err := New(spec, &Options{BaseURL: "https://api.github.com"})
		if err != nil {
			b.Fatal(err)
		}
		c, _ := catalog.New("github", nil)
		if err := src.Register(c); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSmokeSizes(t *testing.T) {
	b, err := os.ReadFile("../.ci/js/node_modules/@octokit/openapi/generated/api.github.com.json")
	if err != nil {
		t.Skip(err)
	}
	src, err := New(b, &Options{BaseURL: "https://api.github.com"})
	if err != nil {
		t.Fatal(err)
	}
	in, out, maxo := 0, 0, 0
	for _, f := range src.Funcs() {
		in += len(f.InputSchema)
		out += len(f.OutputSchema)
		maxo = max(maxo, len(f.OutputSchema))
	}
	t.Logf("in %d out %d max out %d", in, out, maxo)
}
