package codemode_test

import (
	"context"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/internal/testdata/ghcatalog"
)

// benchMulti serves the generated GitHub catalog (large) beside a small
// one, as a gateway over two upstreams would.
func benchMulti(b *testing.B) (*codemode.Server, *catalog.Catalog) {
	gh, err := ghcatalog.New()
	if err != nil {
		b.Fatal(err)
	}
	small, err := catalog.New("notes", nil)
	if err != nil {
		b.Fatal(err)
	}
	catalog.MustAdd(small, catalog.Func[struct{}, int]{Name: "count", Tier: catalog.ReadOnly, Handler: func(context.Context, struct{}) (int, error) { return 1, nil }})
	o := &codemode.Options{Principal: &catalog.Principal{Subject: "dev"}, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}}
	withPool(b, o, 1)
	srv, err := codemode.NewMulti([]*catalog.Catalog{gh, small}, o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	return srv, small
}

// BenchmarkViewUnchanged is what every request pays to notice that no
// catalog changed: one Version per catalog.
func BenchmarkViewUnchanged(b *testing.B) {
	srv, _ := benchMulti(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = srv.Declarations()
	}
}

// BenchmarkRefreshRebuild is one change followed: declarations,
// description, search index and approvals of every function rebuilt.
func BenchmarkRefreshRebuild(b *testing.B) {
	srv, small := benchMulti(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			catalog.MustAdd(small, catalog.Func[struct{}, int]{Name: "extra", Tier: catalog.ReadOnly, Handler: func(context.Context, struct{}) (int, error) { return 2, nil }})
		} else {
			small.Remove("extra")
		}
		if err := srv.Refresh(); err != nil {
			b.Fatal(err)
		}
	}
}
