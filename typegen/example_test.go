package typegen_test

import (
	"context"
	"fmt"
	"log"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// Declarations for a one-function catalog.
func ExampleGenerate() {
	type RateArgs struct {
		SessionID string `json:"sessionId" jsonschema:"Session to rate"`
		Corner    int    `json:"corner" validate:"min=1"`
		Verdict   string `json:"verdict" validate:"oneof=good needs_work critical"`
		Advice    string `json:"advice,omitempty"`
	}
	type Rating struct {
		ID string `json:"id"`
	}
	c, err := catalog.New("brakinglab", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAdd(c, catalog.Func[RateArgs, Rating]{
		Name:        "rateCorner",
		Description: "Stores a verdict for one corner.",
		Tier:        catalog.Mutating,
		Scopes:      []string{"reports:write"},
		Handler:     func(ctx context.Context, in RateArgs) (Rating, error) { return Rating{ID: "r1"}, nil },
	})
	decls, err := typegen.Generate(c, &typegen.Options{Compact: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(decls)
	// Output:
	// declare namespace brakinglab {
	// // MUTATING and CREATIVE functions change or create data; unknown argument fields are rejected. With `_validateOnly: true` a call only checks its arguments and resolves to `{ valid: true }`.
	// interface Write<A, R> { (args: A & { _validateOnly: true }): Promise<{ valid: true }>; (args: A & { _validateOnly?: false }): Promise<R>; }
	// // MUTATING functions (scope reports:write)
	// /** Stores a verdict for one corner. */
	// const rateCorner: Write<{ sessionId: string; corner: int; verdict: "good" | "needs_work" | "critical"; advice?: string }, Rating>;
	// interface Rating { id: string }
	// /** A whole number: 139617, not 139617.25. */
	// type int = number;
	// }
}
