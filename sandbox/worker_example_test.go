//go:build unix

package sandbox_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/brakinglab/codemode-go/sandbox"
)

// Worker processes are the default mode: a script that allocates without
// bound is stopped with MEMORY_LIMIT, its worker is replaced, and the next
// execution runs normally.
func ExampleModeWorker() {
	sb, err := sandbox.New(nil)
	if err != nil {
		panic(err)
	}
	defer sb.Close()
	ctx := context.Background()

	_, err = sb.Run(ctx, `const a: string[] = []; while (true) a.push("x".repeat(100000) + a.length);`, nil)
	var e *sandbox.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind)
	}

	res, err := sb.Run(ctx, "return 1 + 1", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Value))
	// Output:
	// MEMORY_LIMIT
	// 2
}
