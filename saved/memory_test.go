package saved_test

import (
	"testing"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/saved"
	"github.com/brakinglab/codemode-go/saved/savedtest"
)

func TestMemoryStore(t *testing.T) {
	savedtest.Store(t, func(*testing.T) state.SavedFunctions { return saved.NewMemory() })
}

func TestMemoryChanges(t *testing.T) {
	savedtest.Changes(t, func(*testing.T) (a, b state.SavedFunctions) {
		m := saved.NewMemory()
		return m, m
	})
}
