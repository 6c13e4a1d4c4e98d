package hostiletest_test

import (
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/internal/hostiletest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	hostiletest.Remove()
	os.Exit(code)
}

// The built server speaks MCP over stdio, lists its ok tool in the
// default mode and counts each tools/list answer in the lists file; a
// second Binary reuses the first build.
func TestCommand(t *testing.T) {
	cmd, lists := hostiletest.Command(t)
	first, err := hostiletest.Binary()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := hostiletest.Binary(); again != first {
		t.Fatalf("built twice: %s, %s", first, again)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "ok" {
		t.Fatalf("tools %+v", res.Tools)
	}
	if b, err := os.ReadFile(lists); err != nil || string(b) != "list\n" {
		t.Fatalf("lists file %q, %v", b, err)
	}
}

// CPU time only grows.
func TestCPU(t *testing.T) {
	a := hostiletest.CPU()
	s := 0
	for i := range 1_000_000 {
		s += i
	}
	if b := hostiletest.CPU(); b < a || s == 0 {
		t.Fatalf("CPU went from %v to %v", a, b)
	}
}
