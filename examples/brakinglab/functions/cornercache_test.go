package functions_test

import (
	"bytes"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// TestCornerCache: the analysis functions answer the second call for a
// session from the cached corner measurements with exactly the first
// answer, and a session cached for its owner is still refused to another
// user (the ownership check comes before the cache).
func TestCornerCache(t *testing.T) {
	var sessions []struct{ ID string }
	mustCall(t, demoU, "getSessions", obj{"trackName": "Spa", "limit": 1}, &sessions)
	if len(sessions) == 0 {
		t.Fatal("demo has no Spa session")
	}
	id := sessions[0].ID
	for _, c := range []struct {
		name string
		args obj
	}{
		{"getBrakingZones", obj{"sessionId": id}},
		{"getCornerAnalysis", obj{"sessionId": id}},
		{"getWeakCorners", obj{"trackName": "Spa"}},
	} {
		first, err := call(demoU, c.name, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		second, err := call(demoU, c.name, c.args)
		if err != nil {
			t.Fatalf("%s (cached): %v", c.name, err)
		}
		if !bytes.Equal(first, second) || len(first) < 10 {
			t.Errorf("%s: cached answer differs:\nfirst  %s\nsecond %s", c.name, first, second)
		}
	}
	for _, name := range []string{"getBrakingZones", "getCornerAnalysis"} {
		if res, err := call(rivalU, name, obj{"sessionId": id}); code(err) != catalog.CodeNotFound {
			t.Errorf("rival %s on demo's cached session: %s, %v; want not_found", name, res, err)
		}
	}
}
