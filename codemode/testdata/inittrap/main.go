// Command inittrap embeds codemode in a binary whose package initialiser
// fails without the host's environment: New must say so at start-up.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/testdata/inittrap/config"
)

func main() {
	cat, err := catalog.New("trap", nil)
	if err != nil {
		panic(err)
	}
	catalog.MustAdd(cat, catalog.Func[struct{}, bool]{Name: "configured", Tier: catalog.ReadOnly,
		Handler: func(context.Context, struct{}) (bool, error) { return config.DatabaseURL != "", nil }})
	srv, err := codemode.New(cat, &codemode.Options{Principal: &catalog.Principal{Subject: "dev"}, Sandbox: codemode.SandboxOptions{WorkerPath: os.Getenv("INITTRAP_WORKER")}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	srv.Close()
	fmt.Println("started")
}
