// Package pgtest starts a throwaway PostgreSQL server for a test: initdb
// into a temporary directory, postgres listening on a free loopback port,
// stopped and deleted when the test ends. It uses the server binaries of
// Debian's postgresql package (/usr/lib/postgresql/<version>/bin, the
// newest version found) or, failing that, initdb and postgres on PATH.
//
// PostgreSQL refuses to run as root, so when the test runs as root the
// server runs as the postgres user (or nobody when there is none).
//
// [Start] gives a test a server of its own; [NewDatabase] gives it a fresh
// database on a server shared by the test binary, which the package's
// TestMain stops with [Run].
//
// Without the binaries a test is skipped, except in CI (CI=true), where it
// fails: .ci/setup installs them, so their absence there is a broken setup.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// startTimeout bounds how long a server may take to accept connections
// (initdb excluded). Generous: CI machines are often loaded.
const startTimeout = 60 * time.Second

// Server is a running PostgreSQL server owned by one test.
type Server struct {
	dir  string // temporary directory: data/, server.log, socket
	port int
	cmd  *exec.Cmd
	done chan struct{} // closed when the postgres process has exited

	stopOnce sync.Once
	stopErr  error
	dbs      atomic.Int64
}

// Start starts a new PostgreSQL server for tb and stops and deletes it in
// tb.Cleanup. The superuser is postgres and every loopback connection is
// trusted, so no password is needed. Tests that only need an empty
// database are faster with [NewDatabase], which shares one server.
func Start(tb testing.TB) *Server {
	tb.Helper()
	s, err := launch()
	if err != nil {
		failOrSkip(tb, err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Errorf("pgtest: %v", err)
		}
		if tb.Failed() {
			tb.Logf("pgtest: server log:\n%s", s.logTail(4096))
		}
		os.RemoveAll(s.dir)
	})
	return s
}

// errNoBinaries marks a machine without PostgreSQL.
var errNoBinaries = errors.New("PostgreSQL server binaries (initdb, postgres) not found in /usr/lib/postgresql/*/bin or on PATH")

func failOrSkip(tb testing.TB, err error) {
	tb.Helper()
	if !errors.Is(err, errNoBinaries) {
		tb.Fatalf("pgtest: %v", err)
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("pgtest: %v (CI runs .ci/setup, which installs postgresql)", err)
	}
	tb.Skipf("pgtest: %v; install Debian's postgresql package to run this test", err)
}

// shared is the server NewDatabase hands out databases on.
var shared struct {
	mu      sync.Mutex
	running bool // inside Run
	srv     *Server
	err     error
}

// Run runs the package's tests and then stops the server [NewDatabase]
// started, if any; it returns m.Run's exit code. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
func Run(m *testing.M) int {
	shared.mu.Lock()
	shared.running = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.running = false
	if s := shared.srv; s != nil {
		if err := s.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			code = max(code, 1)
		}
		os.RemoveAll(s.dir)
		shared.srv = nil
	}
	return code
}

// NewDatabase returns the URL of a new, empty database on a server shared
// by the test binary, started on first use and stopped by [Run], which the
// package's TestMain must call. Each call costs one CREATE DATABASE rather
// than a server start.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	shared.mu.Lock()
	if !shared.running {
		shared.mu.Unlock()
		tb.Fatal("pgtest: NewDatabase needs the package's TestMain to call pgtest.Run, which stops the shared server")
	}
	if shared.srv == nil && shared.err == nil {
		shared.srv, shared.err = launch()
	}
	s, err := shared.srv, shared.err
	shared.mu.Unlock()
	if err != nil {
		failOrSkip(tb, err)
	}
	return s.NewDatabase(tb)
}

// launch runs initdb in a new temporary directory and starts postgres on
// it. The caller stops the server and removes its directory.
func launch() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s, err := launchIn(bin, dir, cred)
	if err != nil {
		os.RemoveAll(dir)
	}
	return s, err
}

func launchIn(bin, dir string, cred *syscall.Credential) (*Server, error) {
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"),
		"-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	// The free port is found by listening and closing, so another process
	// may take it before postgres binds it: try a few ports.
	for attempt := 0; ; attempt++ {
		s, err := start(bin, dir, data, cred)
		if err == nil || attempt == 2 || !errors.Is(err, errPortTaken) {
			return s, err
		}
	}
}

var errPortTaken = errors.New("port taken")

func start(bin, dir, data string, cred *syscall.Credential) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child keeps its own descriptor
	cmd := exec.Command(filepath.Join(bin, "postgres"),
		"-D", data,
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories="+dir,
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "shared_buffers=32MB",
		"-c", "max_connections=200",
	)
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	// Pdeathsig: a test binary that dies without running its cleanups
	// must not leave a server behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting postgres: %w", err)
	}
	s := &Server{dir: dir, port: port, cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(); err != nil {
		s.Stop()
		log := s.logTail(4096)
		if strings.Contains(log, "could not bind") || strings.Contains(log, "Address already in use") {
			return nil, fmt.Errorf("%w: %v\n%s", errPortTaken, err, log)
		}
		return nil, fmt.Errorf("%v\nserver log:\n%s", err, log)
	}
	return s, nil
}

func (s *Server) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, s.URL())
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
		}
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return errors.New("postgres exited during start-up")
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within %v: %v", startTimeout, err)
		}
	}
}

// URL returns the connection URL of the server's postgres database, as
// the superuser, for pgx or any libpq-style client.
func (s *Server) URL() string { return s.urlFor("postgres") }

func (s *Server) urlFor(db string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// NewDatabase creates an empty database with a fresh name on s and returns
// its connection URL, so that tests sharing one server do not share data.
func (s *Server) NewDatabase(tb testing.TB) string {
	tb.Helper()
	name := "test" + strconv.FormatInt(s.dbs.Add(1), 10)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatalf("pgtest: creating database: %v", err)
	}
	return s.urlFor(name)
}

// Stop shuts the server down (fast shutdown: open sessions are ended) and
// waits for it to exit. Tests that check how code behaves when the
// database goes away call it; otherwise the cleanup Start registers does.
// Calling it again does nothing.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		select {
		case <-s.done:
			return
		default:
		}
		// The server may run as another user, which the test process
		// (root) may still signal.
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
			s.stopErr = errors.New("postgres did not shut down within 30s; killed")
		}
	})
	return s.stopErr
}

func (s *Server) logTail(n int) string {
	b, err := os.ReadFile(filepath.Join(s.dir, "server.log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// binDir finds the directory holding initdb and postgres.
func binDir() (string, error) {
	if dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin"); len(dirs) > 0 {
		// Newest major version first (numeric, so 9 sorts before 15).
		slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
		for _, d := range dirs {
			if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
				return d, nil
			}
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			d := filepath.Dir(real)
			if isExec(filepath.Join(d, "postgres")) {
				return d, nil
			}
		}
	}
	return "", errNoBinaries
}

func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// serverCredential is who runs the server: nil (this process's user)
// unless that is root, which PostgreSQL refuses.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
	}
	return nil, errors.New("running as root and found no unprivileged user (postgres, nobody) to run PostgreSQL as")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
