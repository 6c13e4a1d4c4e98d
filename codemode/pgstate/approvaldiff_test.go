package pgstate_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/pgtest"
	"github.com/brakinglab/codemode-go/internal/testdata/approvaldiff"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestApprovalDifferentialReplicas is codemode's TestApprovalDifferential
// (internal/testdata/approvaldiff) on two replicas that share the
// sealing key and pgstate's spent approvals in one PostgreSQL database,
// each with its own pool and State as separate processes would have:
// every 2026-07-28 retry goes to the other replica, so each approval is
// sealed by one and spent through PostgreSQL by the other. 100 generated
// scripts, 12 with -short (the seeds of codemode's in-process replicas
// configuration), and the failing cases kept in
// testdata/approval_differential/.
//
//	go test -race -run 'TestApprovalDifferentialReplicas/replicas-pg-2026-07-28/seed=500017$' ./codemode/pgstate/
func TestApprovalDifferentialReplicas(t *testing.T) {
	approvaldiff.Run(t, []approvaldiff.Config{{
		Name: "replicas-pg-2026-07-28", Mode: sandbox.ModeInProcess, Version: "2026-07-28", Seeds: 500000,
		Replicas: func(t *testing.T) []state.SpentApprovals {
			db := pgtest.NewDatabase(t)
			spent := []state.SpentApprovals{openState(t, db).SpentApprovals(), openState(t, db).SpentApprovals()}
			t.Cleanup(func() { logSpent(t, db) }) // after the servers stop, before the pools close
			return spent
		},
	}}, approvaldiff.Options{N: 100, Short: 12, Regressions: "testdata/approval_differential"})
}

// logSpent logs how many approvals the replicas spent in PostgreSQL: one
// per answer retried, so none means the runs did not reach pgstate.
func logSpent(t *testing.T, db string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM codemode_approvals").Scan(&n); err != nil {
		t.Error(err)
		return
	}
	t.Logf("%d approvals spent in PostgreSQL", n)
}
