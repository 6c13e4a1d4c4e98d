package openapisource_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/openapisource"
)

// BenchmarkLoadGitHub reads GitHub's REST description and registers its
// functions: time per load, bytes allocated, the heap live after and the
// process's peak resident memory (VmHWM, the test binary included).
func BenchmarkLoadGitHub(b *testing.B) {
	_, spec := githubSpec(b)
	var live uint64
	cpu0 := cpuTime()
	for b.Loop() {
		src, err := openapisource.New(spec, &openapisource.Options{BaseURL: "https://api.github.com", Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		c, _ := catalog.New("github", nil)
		if err := src.Register(c); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		live = m.HeapAlloc
		runtime.KeepAlive(c)
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportAllocs()
	b.ReportMetric(float64(live)/1e6, "MB-live")
	if hwm := peakRSS(); hwm > 0 {
		b.ReportMetric(hwm/1e6, "MB-peakRSS")
	}
}

// peakRSS is the process's peak resident set (Linux), in bytes.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb * 1024
		}
	}
	return 0
}

// BenchmarkCall compares a call through the catalogue (validation,
// request building, the answer read and checked) with a bare net/http
// GET of the same URL on the same loopback server; each reports its
// median (p50-ns). Run both in one invocation and compare.
func BenchmarkCall(b *testing.B) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"n1","title":"a note","state":"draft"}`)
	}))
	defer api.Close()
	src, err := openapisource.New(readSpec(b, "notes.yaml"), &openapisource.Options{BaseURL: api.URL, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	c, _ := catalog.New("notes", &catalog.Options{AllowAnonymous: true})
	if err := src.Register(c); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	median := func(b *testing.B, op func()) {
		var d []time.Duration
		for b.Loop() {
			t0 := time.Now()
			op()
			d = append(d, time.Since(t0))
		}
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
	}
	b.Run("bare", func(b *testing.B) {
		hc := &http.Client{}
		median(b, func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", api.URL+"/notes/n1", nil)
			req.Header.Set("Accept", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.ReadAll(resp.Body)
			resp.Body.Close()
		})
	})
	b.Run("openapisource", func(b *testing.B) {
		args := []byte(`{"id":"n1"}`)
		median(b, func() {
			if _, err := c.Call(ctx, "notes_get", args); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// cpuTime is the CPU time (user and system) the process has used: on a
// machine shared with other work it says what a load costs better than
// the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
