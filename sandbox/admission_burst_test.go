package sandbox

import (
	"context"
	"testing"
)

// TestAdmissionBurst checks the in-process burst: a caller alone runs up
// to burst executions; another caller still starts at once on the
// reserve; nobody takes a slot beyond the capacity while someone else
// runs or waits; and a caller alone again gets its burst back.
func TestAdmissionBurst(t *testing.T) {
	q := newAdmissionBurst(2, 4)
	quit := make(chan struct{})
	stopped, cancel := context.WithCancel(context.Background())
	cancel() // an acquire that must wait returns at once with an error
	try := func(key string) func() {
		t.Helper()
		release, err := q.acquire(stopped, key, quit)
		if err != nil {
			return nil
		}
		return release
	}
	var alice []func()
	for i := range 4 {
		r := try("alice")
		if r == nil {
			t.Fatalf("alice alone: execution %d waits, want burst of 4", i+1)
		}
		alice = append(alice, r)
	}
	if try("alice") != nil {
		t.Fatal("alice alone ran a fifth execution past the burst of 4")
	}
	bob := try("bob")
	if bob == nil {
		t.Fatal("bob, with nothing running, waits while alice holds her burst")
	}
	if try("bob") != nil {
		t.Fatal("bob ran a second execution on a full sandbox")
	}
	if try("carol") != nil {
		t.Fatal("carol took a second reserve slot")
	}
	// alice ends two: still at the capacity of 2 with bob running, so
	// neither she nor bob gets a burst slot.
	alice[0]()
	alice[1]()
	if try("alice") != nil {
		t.Fatal("alice took a slot beyond the capacity while bob runs")
	}
	alice[2]()
	r := try("bob")
	if r == nil {
		t.Fatal("bob waits with a slot of the capacity free")
	}
	r()
	bob()
	alice[3]()
	if running, waiting := q.counts(); running != 0 || waiting != 0 {
		t.Fatalf("after every release: %d running, %d waiting", running, waiting)
	}
	for i := range 4 {
		if r := try("alice"); r == nil {
			t.Fatalf("alice alone again: execution %d waits", i+1)
		}
	}
}

// TestAdmissionWorkerNoBurst checks that the pool's admission (burst equal
// to the capacity) is unchanged: a caller alone holds the capacity, and
// one more caller the reserve.
func TestAdmissionWorkerNoBurst(t *testing.T) {
	q := newAdmission(2)
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 2 {
		if _, err := q.acquire(stopped, "alice", nil); err != nil {
			t.Fatalf("alice's execution %d: %v", i+1, err)
		}
	}
	if _, err := q.acquire(stopped, "alice", nil); err == nil {
		t.Fatal("alice ran past the capacity of 2")
	}
	if _, err := q.acquire(stopped, "bob", nil); err != nil {
		t.Fatalf("bob on the reserve: %v", err)
	}
	if running, _ := q.counts(); running != 3 {
		t.Fatalf("%d running, want 3", running)
	}
}
