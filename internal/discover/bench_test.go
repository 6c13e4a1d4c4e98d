package discover_test

import (
	"testing"

	"github.com/brakinglab/codemode-go/internal/discover"
	"github.com/brakinglab/codemode-go/internal/testdata/ghcatalog"
)

// ghFuncs are the functions of the generated GitHub catalog (313
// operations) as the index sees them.
func ghFuncs(tb testing.TB) []discover.Func {
	tb.Helper()
	cat, err := ghcatalog.New()
	if err != nil {
		tb.Fatal(err)
	}
	var fns []discover.Func
	for _, f := range cat.Functions() {
		args, result := f.Nodes()
		fns = append(fns, discover.Func{ID: "github." + f.Name, Name: f.Name, Description: f.Description, Args: args, Result: result})
	}
	return fns
}

// benchQueries are tasks of codemode/testdata/search_tasks_github.json.
var benchQueries = []string{
	"open a new issue in a repository",
	"list the pull requests of a repository",
	"add a reaction emoji to an issue",
	"star a repository for the authenticated user",
	"get a tree of a commit recursively",
}

// BenchmarkSearch ranks one query over the GitHub catalog, uncached (what
// codemode.search costs on a cache miss).
func BenchmarkSearch(b *testing.B) {
	x := discover.New(ghFuncs(b))
	all := func(string) bool { return true }
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		x.Rank(benchQueries[i%len(benchQueries)], 5, all)
		i++
	}
}

// BenchmarkNew indexes the GitHub catalog (once per catalogue version).
func BenchmarkNew(b *testing.B) {
	fns := ghFuncs(b)
	b.ReportAllocs()
	for b.Loop() {
		discover.New(fns)
	}
}
