package discover

import (
	"fmt"
	"strings"
	"testing"
)

// TestListBounded checks the index of a catalogue of 5,000 functions
// beside a small one: within MaxIndexChars, the small catalogue listed
// whole, the large one cut to its share with a line saying how many are
// left out and that search finds them.
func TestListBounded(t *testing.T) {
	var read Group
	read.Tier = "READ-ONLY"
	for i := range 5000 {
		read.Entries = append(read.Entries, Entry{Name: fmt.Sprintf("big.tool_%d", i), Summary: fmt.Sprintf("Tool number %d of a server that lists far too many.", i)})
	}
	small := Group{Tier: "CREATIVE", Entries: []Entry{{Name: "small.addNote", Summary: "Adds a note.", Approval: "@approval"}, {Name: "small.ping"}}}
	list := List([]Group{read, {Tier: "MUTATING"}, small})
	t.Logf("%d characters for 5,002 functions", len(list))
	if len(list) > MaxIndexChars+200 {
		t.Errorf("the index is %d characters", len(list))
	}
	if !strings.Contains(list, "CREATIVE:\n- small.addNote: Adds a note. @approval\n- small.ping\n") {
		t.Errorf("the small catalogue is not listed whole:\n%s", list[len(list)-300:])
	}
	kept := strings.Count(list, "\n- big.")
	want := fmt.Sprintf("… and %d more functions of big, not listed here for length: codemode.search(\"what you need\") finds them.", 5000-kept)
	if kept < 100 || !strings.HasSuffix(list, want) {
		t.Errorf("%d of big listed; the index ends:\n%s\nwant %q", kept, list[len(list)-300:], want)
	}
	// Under the bound, nothing changes.
	if got := List([]Group{small}); got != "CREATIVE:\n- small.addNote: Adds a note. @approval\n- small.ping" {
		t.Errorf("a short index: %q", got)
	}
}
