package pgtest_test

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/brakinglab/codemode-go/internal/pgtest"
)

func TestServerServesAndStops(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Start(t)

	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	var user string
	if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&user); err != nil {
		t.Fatal(err)
	}
	if user != "postgres" {
		t.Errorf("current_user = %q, want postgres", user)
	}
	conn.Close(ctx)

	// Two databases of one server do not share tables.
	a, b := srv.NewDatabase(t), srv.NewDatabase(t)
	if a == b {
		t.Fatalf("NewDatabase returned %q twice", a)
	}
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cb.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
		t.Fatalf("database %s sees a table created in %s: %v", b, a, err)
	}
	cb.Close(ctx)

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if c, err := pgx.Connect(ctx, srv.URL()); err == nil {
		c.Close(ctx)
		t.Fatal("connected after Stop")
	}
}

func TestServersAreIndependent(t *testing.T) {
	a, b := pgtest.Start(t), pgtest.Start(t)
	if a.URL() == b.URL() {
		t.Fatalf("two servers share the URL %s", a.URL())
	}
}

func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// Databases from NewDatabase share one server but no tables.
func TestNewDatabase(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
	ua, _ := url.Parse(a)
	ub, _ := url.Parse(b)
	if ua.Host != ub.Host || ua.Path == ub.Path {
		t.Fatalf("want two databases on one server: %s, %s", a, b)
	}
	for _, u := range []string{a, b} {
		c, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		c.Close(ctx)
	}
}
