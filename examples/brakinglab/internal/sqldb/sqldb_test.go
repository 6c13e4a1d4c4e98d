package sqldb_test

import (
	"fmt"
	"testing"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
)

func ExampleRebind() {
	fmt.Println(sqldb.Rebind(`SELECT id FROM notes WHERE user_id = ? AND note <> '?' AND "a?" = ? -- why?
LIMIT ?`))
	// Output:
	// SELECT id FROM notes WHERE user_id = $1 AND note <> '?' AND "a?" = $2 -- why?
	// LIMIT $3
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"brakinglab.db": "brakinglab.db",
		"postgres://lab:secret@db.internal:5432/lab":       "postgres://lab:xxxxx@db.internal:5432/lab",
		"postgres://lab@db/lab?password=s&sslmode=require": "postgres://lab@db/lab?password=xxxxx&sslmode=require",
		"postgresql://db/lab":                              "postgresql://db/lab",
	} {
		if got := sqldb.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsURL(t *testing.T) {
	for in, want := range map[string]bool{"postgres://x/y": true, "postgresql://x": true, "lab.db": false, "/var/lab.db": false} {
		if sqldb.IsURL(in) != want {
			t.Errorf("IsURL(%q) = %v", in, !want)
		}
	}
}
