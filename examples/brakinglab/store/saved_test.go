package store

import (
	"testing"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/saved/savedtest"
)

// The store keeps saved functions as the contract says, on SQLite and (in
// TestOnPostgreSQL's pass) on PostgreSQL.
func TestSavedFunctions(t *testing.T) {
	savedtest.Store(t, func(t *testing.T) state.SavedFunctions {
		s, _ := open(t)
		return s.SavedFunctions()
	})
}
