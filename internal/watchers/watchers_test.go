package watchers

import "testing"

func TestSet(t *testing.T) {
	var s Set[func() int]
	if len(s.All()) != 0 {
		t.Fatal("a zero Set is not empty")
	}
	stop1 := s.Add(func() int { return 1 })
	stop2 := s.Add(func() int { return 2 })
	sum := 0
	for _, fn := range s.All() {
		sum += fn()
	}
	if sum != 3 {
		t.Fatalf("sum %d, want 3", sum)
	}
	stop1()
	stop1() // twice is harmless
	if all := s.All(); len(all) != 1 || all[0]() != 2 {
		t.Fatalf("after stop: %d watchers", len(all))
	}
	// A watcher may stop itself while the set is being called.
	for _, fn := range s.All() {
		_ = fn()
		stop2()
	}
	if len(s.All()) != 0 {
		t.Fatal("stopped watcher still listed")
	}
}
