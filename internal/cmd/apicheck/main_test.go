package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"
)

const src = `package p

type Kind string

const (
	Big         = 1 << 40
	Small  Kind = "small"
	hidden      = 2
)

var Default *Options

type Options struct {
	Name string
	Kind
	secret int
}

type Sink interface {
	Write(p []byte, flush bool) (n int, err error)
}

type Pair[K comparable, V any] struct{ Key K }

func New(name string, opts ...Options) (*Options, error) { return nil, nil }

func Map[T any](xs []T, f func(T) T) []T { return nil }

func (o *Options) Close() error { return nil }
func (o Options) String() string { return "" }
func (o *Options) unexported() {}
`

// TestDescribe: one line per exported declaration, without parameter
// names, which a caller cannot depend on.
func TestDescribe(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := new(types.Config).Check("example.com/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := describe(pkg)
	slices.Sort(got)
	want := []string{
		"const Big = 1099511627776",
		`const Small Kind = "small"`,
		"func Map[T any]([]T, func(T) T) []T",
		"func New(string, ...Options) (*Options, error)",
		"method (*Options) Close() error",
		"method (Options) String() string",
		"type Kind string",
		"type Options struct",
		"type Options struct, Name string",
		"type Options struct, embedded Kind",
		"type Pair[K comparable, V any] struct",
		"type Pair[K comparable, V any] struct, Key K",
		"type Sink interface",
		"type Sink interface, Write([]byte, bool) (int, error)",
		"var Default *Options",
	}
	for i := range want {
		want[i] = "pkg example.com/p, " + want[i]
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDiff(t *testing.T) {
	removed, added := diff([]string{"a", "b", "c"}, []string{"a", "c2", "c"})
	if !slices.Equal(removed, []string{"b"}) || !slices.Equal(added, []string{"c2"}) {
		t.Fatalf("removed %v, added %v", removed, added)
	}
}
