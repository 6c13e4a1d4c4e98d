// Command minimal is the smallest codemode server: two functions, served over
// stdio (-stdio) or over HTTP on loopback, acting as the local user without sign-in.
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
)

type greetIn struct {
	Name string `json:"name" jsonschema:"Who to greet." validate:"required"`
}

type addIn struct{ A, B float64 }

func main() {
	stdio := flag.Bool("stdio", false, "serve one client over stdin and stdout instead of HTTP")
	addr := flag.String("addr", "127.0.0.1:8080", "HTTP address; keep it on loopback, since there is no sign-in")
	flag.Parse()

	cat := must(catalog.New("demo", nil))
	catalog.MustAdd(cat, catalog.Func[greetIn, string]{
		Name: "greet", Description: "Greets someone by name.", Tier: catalog.ReadOnly,
		Handler: func(_ context.Context, in greetIn) (string, error) { return "Hello, " + in.Name + "!", nil },
	})
	catalog.MustAdd(cat, catalog.Func[addIn, float64]{
		Name: "add", Description: "Adds two numbers.", Tier: catalog.ReadOnly,
		Handler: func(_ context.Context, in addIn) (float64, error) { return in.A + in.B, nil },
	})
	me := catalog.Principal{Subject: "local-user"}          // who every call acts as
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil)) // stderr: stdout is the stdio transport
	srv := must(codemode.New(cat, &codemode.Options{Principal: &me, Logger: logger}))
	defer srv.Close()
	var err error
	if *stdio {
		err = srv.ServeStdio(context.Background(), me) // until the client disconnects
	} else {
		ln := must(net.Listen("tcp", *addr))
		logger.Info("serving", "url", "http://"+ln.Addr().String()+codemode.DefaultMCPPath)
		err = http.Serve(ln, srv.Handler())
	}
	if err != nil {
		log.Fatal(err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}
