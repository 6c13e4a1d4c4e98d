package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// gateHost's g.wait() reports who entered, then blocks until a release
// or the call's context ends.
type gateHost struct {
	who     string
	entered chan string
	release chan struct{}
}

func (h *gateHost) Functions() map[string][]string { return map[string][]string{"g": {"wait"}} }

func (h *gateHost) Call(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
	h.entered <- h.who
	select {
	case <-h.release:
		return json.RawMessage(`1`), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// waitFor polls the sandbox until cond holds on its stats.
func waitFor(t *testing.T, sb *Sandbox, what string, cond func(Stats) bool) {
	t.Helper()
	for i := 0; !cond(sb.Stats()); i++ {
		if i == 10000 {
			t.Fatalf("%s: stats %+v", what, sb.Stats())
		}
		time.Sleep(time.Millisecond)
	}
}

// One caller starting many long scripts cannot starve another: with both
// workers busy with the flooder's runs and more of them queued, another
// caller's run starts at once on the reserved extra worker. A third caller
// then waits, but the worker freed next goes to it, not to the flooder's
// queue; running executions never exceed the pool size plus the reserve.
func TestAdmissionIsFairBetweenPartitions(t *testing.T) {
	sb, _ := newWorkerSandbox(t, Limits{Timeout: 30 * time.Second}, 2)
	entered, release := make(chan string, 8), make(chan struct{})
	run := func(who string, errs chan<- error) {
		_, err := sb.RunWith(context.Background(), "return await g.wait()", &gateHost{who, entered, release}, &RunOptions{Partition: who})
		errs <- err
	}
	errs := make(chan error, 8)
	for range 2 {
		go run("flooder", errs)
		if who := <-entered; who != "flooder" {
			t.Fatalf("%s entered", who)
		}
	}
	for i := range 3 {
		go run("flooder", errs)
		waitFor(t, sb, "flooder queued", func(s Stats) bool { return s.Waiting == i+1 })
	}
	go run("other", errs)
	if who := <-entered; who != "other" {
		t.Fatalf("%s entered, want the other caller on the reserve", who)
	}
	if s := sb.Stats(); s.Workers != 2 || s.Running != 3 || s.Waiting != 3 {
		t.Fatalf("stats %+v, want 2 workers, 3 running (one on the reserve), 3 waiting", s)
	}
	go run("third", errs)
	waitFor(t, sb, "third queued", func(s Stats) bool { return s.Waiting == 4 })
	if s := sb.Stats(); s.Running != 3 {
		t.Fatalf("stats %+v: the reserve holds one execution", s)
	}
	release <- struct{}{}
	if who := <-entered; who != "third" {
		t.Fatalf("the freed worker went to %s while the third caller waited", who)
	}
	close(release)
	for range 7 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// Past its bound of waiting runs a caller is refused with BUSY at once,
// and a waiting run whose context ends leaves the queue; Close fails the
// runs still waiting with ErrClosed.
func TestAdmissionBoundsCancelAndClose(t *testing.T) {
	sb, p := newWorkerSandbox(t, Limits{Timeout: 30 * time.Second}, 1)
	entered, release := make(chan string, 16), make(chan struct{})
	host := &gateHost{"a", entered, release}
	errs := make(chan error, 16)
	go func() {
		_, err := sb.RunWith(context.Background(), "return await g.wait()", host, &RunOptions{Partition: "a"})
		errs <- err
	}()
	<-entered
	max := p.admit.maxWaiting
	for i := range max {
		go func() {
			_, err := sb.RunWith(context.Background(), "return 1", host, &RunOptions{Partition: "a"})
			errs <- err
		}()
		waitFor(t, sb, "queued", func(s Stats) bool { return s.Waiting == i+1 })
	}
	_, err := sb.RunWith(context.Background(), "return 1", host, &RunOptions{Partition: "a"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindBusy || !strings.Contains(e.Message, "already waiting") {
		t.Fatalf("over the bound: err = %v, want BUSY", err)
	}

	// Another caller takes the reserve; a third may still queue, and
	// cancelling its wait removes it.
	go func() {
		_, err := sb.RunWith(context.Background(), "return await g.wait()", &gateHost{"c", entered, release}, &RunOptions{Partition: "c"})
		errs <- err
	}()
	if who := <-entered; who != "c" {
		t.Fatalf("%s entered, want c on the reserve", who)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := sb.RunWith(ctx, "return 1", host, &RunOptions{Partition: "b"})
		done <- err
	}()
	waitFor(t, sb, "b queued", func(s Stats) bool { return s.Waiting == max+1 })
	cancel()
	if err := <-done; !errors.As(err, &e) || e.Kind != KindCancelled {
		t.Fatalf("cancelled wait: err = %v, want CANCELLED", err)
	}
	if s := sb.Stats(); s.Waiting != max {
		t.Fatalf("after the cancelled wait: %+v", s)
	}

	closed := make(chan error, 1)
	go func() { closed <- sb.Close() }()
	for range max {
		if err := <-errs; !errors.Is(err, ErrClosed) {
			t.Errorf("queued run at Close: err = %v, want ErrClosed", err)
		}
	}
	close(release)
	<-errs // the running ones
	<-errs
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}
