// Command probe is a consumer of the library as a new user writes one:
// it imports only catalog and codemode, adds one function and serves it
// over stdio, or over HTTP when given an argument. .ci/weight copies it
// into a module of its own outside the repository, builds it, and checks
// what it pays: its module graph, its packages and its binary.
package main

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
)

type in struct {
	Name string `json:"name"`
}

func main() {
	cat, err := catalog.New("demo", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(cat, catalog.Func[in, string]{Name: "hello", Description: "Says hello.", Tier: catalog.ReadOnly,
		Handler: func(ctx context.Context, i in) (string, error) { return "hi " + i.Name, nil }})
	p := catalog.Principal{Subject: "local"}
	s, err := codemode.New(cat, &codemode.Options{Principal: &p})
	if err != nil {
		log.Fatal(err)
	}
	if len(os.Args) > 1 {
		log.Fatal(http.ListenAndServe("127.0.0.1:8099", s.Handler()))
	}
	log.Fatal(s.ServeStdio(context.Background(), p))
}
