// Package hostiletest builds and starts the misbehaving MCP server of
// internal/testdata/hostileupstream for the tests of mcpsource and of
// the gateway example, which each used to carry their own copy of the
// build. The gateway's module may import it because Go allows an
// internal package to be imported from any path below its parent.
//
// [Binary] builds the server once per test binary into a temporary
// directory, which [Remove] deletes; call it from TestMain after m.Run.
// [Command] returns a command factory for the server in given modes and
// the file it counts its tools/list answers in. [CPU] is the CPU time the
// test process has used, for tests that bound what a hostile server
// costs its host.
//
// The package uses the standard library only, so the root module gains
// no dependency from it.
package hostiletest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Package is the import path of the hostile server.
const Package = "github.com/brakinglab/codemode-go/internal/testdata/hostileupstream"

var (
	mu  sync.Mutex
	dir string // holds the built binary; "" before the first build
	bin string
	err error
)

// Binary returns the path of the hostile server, built with go build on
// first use. The build's error, if any, is returned every time.
func Binary() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if bin != "" || err != nil {
		return bin, err
	}
	d, e := os.MkdirTemp("", "hostileupstream")
	if e != nil {
		err = e
		return "", err
	}
	dir = d
	path := filepath.Join(d, "hostileupstream")
	if out, e := exec.Command("go", "build", "-o", path, Package).CombinedOutput(); e != nil {
		err = fmt.Errorf("building the hostile upstream: %v\n%s", e, out)
		return "", err
	}
	bin = path
	return bin, nil
}

// Remove deletes what Binary built. Call it from TestMain once the tests
// have run; a later Binary builds again.
func Remove() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	dir, bin, err = "", "", nil
}

// Command returns a function making a new command of the hostile server
// in the given modes (see its package doc), and the file, in a directory
// of tb's, that the server appends one line to per tools/list answer. It
// fails tb if the server cannot be built.
func Command(tb testing.TB, modes ...string) (cmd func() *exec.Cmd, lists string) {
	tb.Helper()
	path, err := Binary()
	if err != nil {
		tb.Fatal(err)
	}
	lists = filepath.Join(tb.TempDir(), "lists")
	return func() *exec.Cmd {
		c := exec.Command(path, modes...)
		c.Env = append(os.Environ(), "HOSTILE_LISTS="+lists)
		return c
	}, lists
}

// CPU returns the CPU time, user and system, this process has used.
func CPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
