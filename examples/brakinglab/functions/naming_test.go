package functions_test

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/sandbox"
)

// bestTime matches the names of lap times that exist only with a valid lap.
var bestTime = regexp.MustCompile(`^((personal|first|latest)BestMs|bestLapMs)$`)

// TestOneNamePerConcept walks every result type of the catalog: a corner
// is always cornerIndex (never index), and a lap time that may not exist
// is always absent when it does not (omitempty), never 0.
func TestOneNamePerConcept(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(fn string, ty reflect.Type)
	walk = func(fn string, ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Array || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty.PkgPath() == "time" {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "index" {
				t.Errorf("%s: %s.%s is named index; the catalog calls it cornerIndex", fn, ty.Name(), f.Name)
			}
			if bestTime.MatchString(name) {
				if !strings.Contains(opts, "omitempty") && ty.Name() != "ReportPace" {
					t.Errorf("%s: %s.%s is 0 when there is no lap; make it absent (omitempty) like the others", fn, ty.Name(), name)
				}
			}
			walk(fn, f.Type)
		}
	}
	for _, f := range cat.Functions() {
		walk(f.Name, f.Out)
	}
}

// TestCornerIndexFromGetTracks runs the script from the report: a note
// saved with a corner taken from getTracks is about that corner, not the
// whole track.
func TestCornerIndexFromGetTracks(t *testing.T) {
	sb, err := sandbox.New(&sandbox.Options{Mode: sandbox.ModeInProcess})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	src := `const tracks = await brakinglab.getTracks({});
const spa = tracks.find((t) => t.name.includes("Spa"))!;
const c = spa.corners[3];
return await brakinglab.addTrackNote({ trackName: spa.name, cornerIndex: c.cornerIndex, note: "naming test: brake at the 100 board" });`
	res, err := sb.Run(context.Background(), src, catalogHost{})
	if err != nil {
		t.Fatal(err)
	}
	var note struct {
		CornerIndex *int   `json:"cornerIndex"`
		CornerName  string `json:"cornerName"`
	}
	if err := json.Unmarshal(res.Value, &note); err != nil {
		t.Fatal(err)
	}
	if note.CornerIndex == nil || *note.CornerIndex != 3 || note.CornerName == "" {
		t.Errorf("note = %s, want one about corner 3", res.Value)
	}
}
