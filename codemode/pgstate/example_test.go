package pgstate_test

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/pgstate"
	"github.com/brakinglab/codemode-go/saved"
)

// Every replica of a service runs the same code against the same
// database: the execution budget, the failed-authentication budget,
// cancellations, single-use approvals and saved functions then hold
// across replicas. (Not run: it needs a PostgreSQL server; the package
// tests run it against one.)
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	st, err := pgstate.New(ctx, pool, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	cat, _ := catalog.New("inventory", nil)
	// ... register the service's functions on cat ...
	srv, err := codemode.New(cat, &codemode.Options{
		// Auth: ... as for one replica.
		State: codemode.SharedState{
			RateLimiter:    st.Limiter("executions", codemode.DefaultRatePerSec, codemode.DefaultRateBurst),
			FailureLimiter: st.Limiter("auth-failures", codemode.DefaultAuthFailuresPerSec, codemode.DefaultAuthFailureBurst),
			Cancellations:  st.Cancellations(),
		},
		// The same approval key on every replica, and approvals spent once
		// whichever replica a retry reaches.
		Approvals: approval.Options{Key: []byte(os.Getenv("APPROVAL_KEY")), Spent: st.SpentApprovals()},
		// Saved functions in the database: saved on one replica, called on
		// any; a change made on one notifies the sessions every replica holds.
		Saved: saved.New(&saved.Options{Store: st.SavedFunctions()}),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	log.Fatal(http.ListenAndServe(":8080", srv.Handler()))
}
