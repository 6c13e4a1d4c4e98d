package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/logtest"
)

// binary is the BrakingLab server built once by TestMain.
var binary string

// repoRoot is the module root (three levels above this package).
var repoRoot = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}()

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "brakinglab-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "brakinglab")
	args := []string{"build", "-o", binary}
	// The server is built without the race detector unless asked: under it
	// each start (demo seeding included) takes about 20 s on two cores
	// instead of one. Its packages run their own tests under -race, and
	// main_test.go runs the whole server in-process under -race.
	if raceEnabled && os.Getenv("BRAKINGLAB_E2E_RACE") == "1" {
		args = append(args, "-race")
	}
	args = append(args, "github.com/brakinglab/codemode-go/examples/brakinglab")
	build := exec.Command("go", args...)
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building BrakingLab: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is one running BrakingLab process.
type server struct {
	MCPURL string            // e.g. http://127.0.0.1:43123/mcp
	Base   string            // MCPURL without /mcp
	Users  map[string]string // demo user → password, from the start-up banner
	DB     string            // database file

	cmd    *exec.Cmd
	stdout *logtest.Buffer
	stderr *logtest.Buffer
	done   chan struct{}
	err    error // from cmd.Wait, valid after done is closed
}

var (
	mcpLineRE  = regexp.MustCompile(`MCP URL:\s+(\S+)`)
	userLineRE = regexp.MustCompile(`(\w+) \(password: (\S+)\)`)
)

// startServer runs BrakingLab on a free loopback port with a fresh database
// in a temporary directory (or the database given by a -db argument) and
// waits for its start-up banner. The server is stopped with SIGTERM when the
// test ends, and the test fails unless it then exits cleanly.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	return startServerEnv(t, nil, args...)
}

// startServerEnv is startServer with env added to the process's
// environment (OTEL_* variables, say).
func startServerEnv(t testing.TB, env []string, args ...string) *server {
	t.Helper()
	s := &server{DB: filepath.Join(t.TempDir(), "brakinglab.db"), Users: map[string]string{}}
	for i, a := range args {
		if a == "-db" && i+1 < len(args) {
			s.DB = args[i+1]
		}
	}
	full := append([]string{"-addr", "127.0.0.1:0", "-db", s.DB}, args...)
	s.cmd = exec.Command(binary, full...)
	s.cmd.Env = append(cleanEnv(), env...)
	s.stdout, s.stderr = &logtest.Buffer{}, &logtest.Buffer{}
	s.cmd.Stderr = s.stderr
	pipe, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.done = make(chan struct{})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pipe)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			s.stdout.Write([]byte(line + "\n"))
			if signalled {
				continue
			}
			if m := mcpLineRE.FindStringSubmatch(line); m != nil {
				s.MCPURL = m[1]
				s.Base = strings.TrimSuffix(m[1], "/mcp")
			}
			if m := userLineRE.FindStringSubmatch(line); m != nil {
				s.Users[m[1]] = m[2]
			}
			if strings.Contains(line, "Press Ctrl+C to stop") {
				signalled = true
				close(ready)
			}
		}
		io.Copy(io.Discard, pipe)
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	select {
	case <-ready:
	case <-s.done:
		t.Fatalf("BrakingLab exited before it was ready (%v)\nstdout:\n%s\nstderr:\n%s", s.err, s.stdout, s.stderr)
	case <-time.After(2 * time.Minute):
		s.cmd.Process.Kill()
		<-s.done
		t.Fatalf("BrakingLab did not print its banner within 2 minutes\nstdout:\n%s\nstderr:\n%s", s.stdout, s.stderr)
	}
	if s.MCPURL == "" {
		t.Fatalf("banner has no MCP URL line:\n%s", s.stdout)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop sends SIGTERM and checks that the server shuts down cleanly.
func (s *server) stop(t testing.TB) {
	t.Helper()
	select {
	case <-s.done:
	default:
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(time.Minute):
			s.cmd.Process.Kill()
			<-s.done
			t.Errorf("BrakingLab did not exit within a minute of SIGTERM\nstderr:\n%s", s.stderr)
			return
		}
	}
	if s.err != nil {
		t.Errorf("BrakingLab exited with %v\nstderr:\n%s", s.err, s.stderr)
	}
	if strings.Contains(s.stderr.String(), "DATA RACE") || strings.Contains(s.stderr.String(), "panic:") {
		t.Errorf("BrakingLab's stderr reports a race or panic:\n%s", s.stderr)
	}
	if t.Failed() {
		t.Logf("BrakingLab stdout:\n%s\nstderr:\n%s", s.stdout, s.stderr)
	}
}

// cleanEnv is the test's environment without BRAKINGLAB_* variables, so a
// developer's settings cannot change what the tests run.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BRAKINGLAB_") {
			env = append(env, kv)
		}
	}
	return env
}

// runBinary runs BrakingLab to completion (for one-shot modes such as
// -print-types) and returns its output and exit code.
func runBinary(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = cleanEnv()
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	default:
		t.Fatalf("running BrakingLab: %v", err)
	}
	return out.String(), errOut.String(), code
}
