package functions_test

import (
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentCalls mixes writes and heavy reads from several goroutines,
// as concurrent executions do: SQLite must neither fail with "database is
// locked" nor lose a write.
func TestConcurrentCalls(t *testing.T) {
	before := counts(t)["notepads"]
	const workers, rounds = 6, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				if _, err := call(demoU, "createNotepad", obj{"title": fmt.Sprintf("w%d r%d", w, r), "body": "x"}); err != nil {
					errs <- err
				}
				name, args := "getSessions", obj{"trackName": "Spa"}
				if r%2 == 1 {
					name, args = "getWeakCorners", obj{"trackName": "Monza"}
				}
				if _, err := call(rivalU, name, args); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := counts(t)["notepads"] - before; got != workers*rounds {
		t.Fatalf("%d notepads written, want %d", got, workers*rounds)
	}
}
