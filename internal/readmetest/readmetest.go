// Package readmetest finds the TypeScript scripts in the repository's
// README, so that tests run them as written: examples/brakinglab/e2e runs
// those against the reference server, examples/gateway the one against
// the gateway's upstreams. It uses the standard library only.
package readmetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Block is one ```ts code block of the README.
type Block struct {
	Line int    // the line of its opening fence, 1-based
	Code string // its text, without the fences
}

// Complete reports whether b is a complete script: it has no placeholder
// (…) standing for a value the reader fills in.
func (b Block) Complete() bool { return !strings.Contains(b.Code, "…") }

// Scripts returns the ```ts blocks of the README.md found in dir or the
// nearest of its parents, failing tb when there is none.
func Scripts(tb testing.TB, dir string) []Block {
	tb.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(abs, "README.md"))
		if err == nil && strings.Contains(string(b), "execute_code") {
			return parse(string(b))
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			tb.Fatalf("no README.md above %s", dir)
		}
		abs = parent
	}
}

func parse(text string) []Block {
	var out []Block
	var cur *Block
	var code []string
	for i, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case cur == nil && t == "```ts":
			cur, code = &Block{Line: i + 1}, nil
		case cur != nil && t == "```":
			cur.Code = strings.Join(code, "\n")
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			code = append(code, l)
		}
	}
	return out
}
