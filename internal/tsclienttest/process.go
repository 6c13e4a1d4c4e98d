package tsclienttest

import (
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/brakinglab/codemode-go/internal/logtest"
)

// Process is a script that [Start] started, whose standard input and
// output are pipes: a stdio MCP client the test serves, or a helper the
// test reads a first line from.
type Process struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser // closing it tells the script its input ended
	Stdout io.ReadCloser
	stderr logtest.Buffer
}

// Stderr returns what the script has written to its standard error so
// far.
func (p *Process) Stderr() string { return p.stderr.String() }

// Wait waits for the script to exit, as exec.Cmd.Wait does.
func (p *Process) Wait() error { return p.Cmd.Wait() }

// Start starts the script at path as [Command] does, with its standard
// input and output as pipes and its standard error kept for [Process.Stderr].
// When tb ends it closes the script's input and waits for it, unless the
// test has waited already.
func Start(tb testing.TB, ctx context.Context, path string, env []string, args ...string) *Process {
	tb.Helper()
	cmd := Command(tb, ctx, path, env, args...)
	p := &Process{Cmd: cmd}
	var err error
	if p.Stdin, err = cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	if p.Stdout, err = cmd.StdoutPipe(); err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		p.Stdin.Close()
		if cmd.ProcessState == nil {
			cmd.Wait()
		}
	})
	return p
}
