// Package sqldbtest runs BrakingLab's database tests on both engines. A
// package's tests open their databases through DSN (or NewDSN in a
// TestMain) and call RunOnPostgres from one test: the normal run uses
// SQLite files, and RunOnPostgres runs the binary's other tests again in a
// child process where every DSN is a fresh database on a PostgreSQL server.
package sqldbtest

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
	"github.com/brakinglab/codemode-go/internal/pgtest"
)

// serverEnv carries the PostgreSQL server's URL into the child process;
// set, it makes every DSN a database on that server.
const serverEnv = "BRAKINGLAB_TEST_POSTGRES"

// OnPostgres reports whether this process is the PostgreSQL pass.
func OnPostgres() bool { return os.Getenv(serverEnv) != "" }

// DSN returns a new, empty database for t: an SQLite file in t.TempDir(),
// or in the PostgreSQL pass a database of its own on the server, dropped
// when t ends.
func DSN(t testing.TB) string {
	t.Helper()
	dsn, cleanup, err := NewDSN(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	return dsn
}

// DSNOn returns a new, empty database on the PostgreSQL server at
// serverURL, dropped when t ends.
func DSNOn(t testing.TB, serverURL string) string {
	t.Helper()
	dsn, drop, err := CreateDatabase(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	return dsn
}

// NewDSN is DSN for code without a testing.TB (a TestMain): SQLite files
// go in dir. Call cleanup when done.
func NewDSN(dir string) (dsn string, cleanup func(), err error) {
	server := os.Getenv(serverEnv)
	if server == "" {
		return filepath.Join(dir, "brakinglab.db"), func() {}, nil
	}
	return CreateDatabase(server)
}

// CreateDatabase creates an empty database on the PostgreSQL server at
// serverURL and returns its URL and a function that drops it.
func CreateDatabase(serverURL string) (dsn string, drop func(), err error) {
	ctx := context.Background()
	admin, _, err := sqldb.Open(ctx, serverURL)
	if err != nil {
		return "", nil, err
	}
	name := "brakinglab_test_" + strings.ToLower(rand.Text())
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		admin.Close()
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		admin.Close()
	}, nil
}

// RunOnPostgres runs every other test of the binary again with each DSN
// on the PostgreSQL server at serverURL, and fails t with their output if
// any fails. In the PostgreSQL pass itself it returns at once.
func RunOnPostgres(t *testing.T, serverURL string) {
	t.Helper()
	if OnPostgres() {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-test.count=1", "-test.v", "-test.skip=^" + regexp.QuoteMeta(t.Name()) + "$"}
	if f := flag.Lookup("test.timeout"); f != nil {
		args = append(args, "-test.timeout="+f.Value.String()) // the child's default is 10m
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), serverEnv+"="+serverURL)
	out, err := cmd.CombinedOutput()
	passed := strings.Count(string(out), "--- PASS: ")
	if err != nil {
		t.Fatalf("tests on PostgreSQL failed: %v\n%s", err, out)
	}
	if passed == 0 {
		t.Fatalf("no test ran on PostgreSQL:\n%s", out)
	}
	t.Logf("%d tests passed on PostgreSQL", passed)
}

// Server starts a PostgreSQL server for t (internal/pgtest: Debian's
// binaries on a loopback port, gone when t ends) and returns its URL.
// Without the binaries t fails under CI=true and is skipped otherwise.
func Server(t testing.TB) string {
	t.Helper()
	return pgtest.Start(t).URL()
}
