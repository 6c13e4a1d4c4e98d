package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/brakinglab/codemode-go/catalog"
)

// Interceptors wrap a call; the first is the outermost.
func ExampleChain() {
	logged := func(name string) catalog.Interceptor {
		return func(next catalog.CallFunc) catalog.CallFunc {
			return func(ctx context.Context, fn string, args json.RawMessage) (json.RawMessage, error) {
				fmt.Println(name, "before", fn)
				out, err := next(ctx, fn, args)
				fmt.Println(name, "after", fn)
				return out, err
			}
		}
	}
	// An interceptor may answer without calling the function.
	cached := func(next catalog.CallFunc) catalog.CallFunc {
		return func(ctx context.Context, fn string, args json.RawMessage) (json.RawMessage, error) {
			if fn == "ns.cached" {
				return json.RawMessage(`"from the cache"`), nil
			}
			return next(ctx, fn, args)
		}
	}
	call := catalog.Chain(func(_ context.Context, fn string, _ json.RawMessage) (json.RawMessage, error) {
		fmt.Println("call", fn)
		return json.RawMessage(`"done"`), nil
	}, logged("outer"), logged("inner"), cached)

	out, _ := call(context.Background(), "ns.get", nil)
	fmt.Println(string(out))
	out, _ = call(context.Background(), "ns.cached", nil)
	fmt.Println(string(out))
	// Output:
	// outer before ns.get
	// inner before ns.get
	// call ns.get
	// inner after ns.get
	// outer after ns.get
	// "done"
	// outer before ns.cached
	// inner before ns.cached
	// inner after ns.cached
	// outer after ns.cached
	// "from the cache"
}
