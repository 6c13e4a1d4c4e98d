package leakcheck

import (
	"strings"
	"testing"
	"time"
)

func TestFindsALeak(t *testing.T) {
	stop := make(chan struct{})
	go leaker(stop)
	err := Find()
	close(stop)
	if err == nil || !strings.Contains(err.Error(), "leakcheck.leaker") {
		t.Fatalf("Find: %v, want the leaker's stack", err)
	}
}

func TestIgnores(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	go leaker(stop)
	time.Sleep(10 * time.Millisecond) // let it reach its receive
	if err := Find(IgnoreTopFunction("github.com/brakinglab/codemode-go/internal/leakcheck.leaker")); err != nil {
		t.Errorf("IgnoreTopFunction: %v", err)
	}
	if err := Find(IgnoreCurrent()); err != nil {
		t.Errorf("IgnoreCurrent: %v", err)
	}
}

// TestWaitsForEnding: a goroutine that ends soon after the check starts
// is not a leak.
func TestWaitsForEnding(t *testing.T) {
	stop := make(chan struct{})
	go leaker(stop)
	time.AfterFunc(50*time.Millisecond, func() { close(stop) })
	if err := Find(); err != nil {
		t.Errorf("Find: %v", err)
	}
}

func TestParse(t *testing.T) {
	gs := parse([]byte(`goroutine 1 [running]:
main.main()
	/x/main.go:3 +0x1

goroutine 18 gp=0xc000 m=nil [select, 2 minutes]:
net/http.(*persistConn).readLoop(0xc0001)
	/go/src/net/http/transport.go:2 +0x2
created by net/http.(*Transport).dialConn in goroutine 7
	/go/src/net/http/transport.go:1 +0x3
`))
	if len(gs) != 2 || gs[1].id != 18 || gs[1].state != "select, 2 minutes" || gs[1].top != "net/http.(*persistConn).readLoop" || len(gs[1].funcs) != 1 {
		t.Fatalf("%+v", gs)
	}
}

func leaker(stop chan struct{}) { <-stop }
