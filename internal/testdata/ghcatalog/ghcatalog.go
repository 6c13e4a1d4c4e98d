// Package ghcatalog is a large, realistic catalog for tests and
// benchmarks: just over 300 operations of the GitHub REST API (issues,
// pull requests, users, activity, gists, reactions, git, checks, search,
// teams, projects and a few small areas) as Go argument and result
// structs with json, jsonschema and validate tags, registered with stub
// handlers that return the zero result. It exercises nested objects,
// enums, optional fields, arrays of objects and maps.
//
// It is test data, not part of the library: it lives under a testdata
// directory, which the go command leaves out of ./... (so nothing builds
// it but the tests of codemode and typegen, which import it by its path)
// and which no non-test package imports. It imports catalog, which the
// internal packages below catalog must not.
//
// catalog_gen.go is generated from the OpenAPI description in the npm
// package @octokit/openapi by internal/cmd/ghcatalog (go generate) and
// committed, so nothing outside Go is needed to use it.
package ghcatalog

//go:generate go run ../../cmd/ghcatalog -o catalog_gen.go

import (
	"context"

	"github.com/brakinglab/codemode-go/catalog"
)

// Namespace is the namespace of the generated catalog.
const Namespace = "github"

// New returns the generated catalog.
func New() (*catalog.Catalog, error) {
	c, err := catalog.New(Namespace, nil)
	if err != nil {
		return nil, err
	}
	if err := register(c); err != nil {
		return nil, err
	}
	return c, nil
}

func add[In, Out any](c *catalog.Catalog, f catalog.Func[In, Out]) error { return catalog.Add(c, f) }

// stub is every function's handler: the zero result, without error.
func stub[In, Out any](context.Context, In) (Out, error) {
	var out Out
	return out, nil
}
