package tsclienttest

import (
	"bufio"
	"io"
	"path/filepath"
	"testing"
)

// Modules finds .ci/js/node_modules from a package two levels below the
// repository's root, as it does from any other.
func TestModules(t *testing.T) {
	want, err := filepath.Abs(filepath.Join("..", "..", ".ci", "js", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Modules(); got != want {
		t.Fatalf("Modules() = %q, want %q", got, want)
	}
}

// Start gives the script's standard input and output to the test and
// keeps its standard error.
func TestStart(t *testing.T) {
	Need(t)
	p := Start(t, t.Context(), "testdata/echo.mjs", []string{"ECHO_NAME=one"})
	if _, err := io.WriteString(p.Stdin, "hello\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(p.Stdout).ReadString('\n')
	if err != nil || line != "HELLO\n" {
		t.Fatalf("stdout %q, %v; stderr %s", line, err, p.Stderr())
	}
	p.Stdin.Close()
	if err := p.Wait(); err != nil {
		t.Fatalf("wait: %v\n%s", err, p.Stderr())
	}
	if got := p.Stderr(); got != "echoed one\n" {
		t.Fatalf("stderr %q", got)
	}
}
