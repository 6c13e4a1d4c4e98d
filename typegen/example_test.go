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
	//   // MUTATING functions change data and CREATIVE ones create it; unknown argument fields are rejected. Add `_validateOnly: true` to their arguments to check them without changing anything: the call then resolves to `{ valid: true }`.
	//   // MUTATING functions require scope reports:write.
	//   interface Write<A, R> { (args: A & { _validateOnly: true }): Promise<{ valid: true }>; (args: A & { _validateOnly?: false }): Promise<R>; }
	//   /** Stores a verdict for one corner. MUTATING. */
	//   const rateCorner: Write<RateCornerArgs, Rating>;
	//   interface RateCornerArgs {
	//     sessionId: string;
	//     corner: integer;
	//     verdict: "good" | "needs_work" | "critical";
	//     advice?: string;
	//   }
	//   interface Rating {
	//     id: string;
	//   }
	//
	//   /** A whole number such as 139617; a fraction such as 139617.25 is rejected. */
	//   type integer = number;
	// }
}
