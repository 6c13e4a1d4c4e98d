package codemode_test

import (
	"testing"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/testdata/approvaldiff"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestApprovalDifferential proves the approval invariant on generated
// scripts with internal/testdata/approvaldiff (its doc says how): 100
// scripts per configuration, 12 with -short, and the failing cases kept
// in testdata/approval_differential/.
//
// It runs in five configurations: both sandbox modes, both ways to ask
// (2026-07-28's input-required result and retry over stateless HTTP;
// 2025-11-25's elicitation/create on a stateful HTTP session or stdio),
// and two replicas sharing the sealing key and the spent approvals, where
// each retry goes to the other replica. Here the replicas share one
// in-process store: this module's tests may not import pgx (its go.mod
// would carry it to every consumer). codemode/pgstate's
// TestApprovalDifferentialReplicas runs the same scripts on two replicas
// sharing pgstate's spent approvals in PostgreSQL.
//
//	go test -race -run 'TestApprovalDifferential/worker-2026-07-28/seed=300017$' ./codemode/
func TestApprovalDifferential(t *testing.T) {
	approvaldiff.Run(t, []approvaldiff.Config{
		{Name: "in-process-2026-07-28", Mode: sandbox.ModeInProcess, Version: "2026-07-28", Seeds: 100000},
		{Name: "in-process-2025-11-25-stdio", Mode: sandbox.ModeInProcess, Version: "2025-11-25", Stdio: true, Seeds: 200000},
		{Name: "worker-2026-07-28", Mode: sandbox.ModeWorker, Version: "2026-07-28", Seeds: 300000},
		{Name: "worker-2025-11-25-http", Mode: sandbox.ModeWorker, Version: "2025-11-25", Seeds: 400000},
		{Name: "replicas-2026-07-28", Mode: sandbox.ModeInProcess, Version: "2026-07-28", Seeds: 500000, Replicas: func(*testing.T) []state.SpentApprovals {
			shared := approval.NewSpentMemory()
			return []state.SpentApprovals{shared, shared}
		}},
	}, approvaldiff.Options{N: 100, Short: 12, Regressions: "testdata/approval_differential"})
}
