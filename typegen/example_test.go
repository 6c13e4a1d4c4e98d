package typegen_test

import (
	"context"
	"encoding/json"
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

// Declarations for a function known by JSON Schema: the same style as for
// Go types, with $defs as named interfaces, nullable types, enums and
// bounds as JSDoc.
func ExampleGenerate_schema() {
	c, err := catalog.New("notes", nil)
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAddSchema(c, catalog.SchemaFunc{
		Name:        "find_notes",
		Description: "Finds notes.",
		Tier:        catalog.ReadOnly,
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"query": {"type": "string", "description": "Words to look for"},
				"limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
				"mood": {"enum": ["good", "bad"]},
				"after": {"type": ["string", "null"], "format": "date-time"}
			},
			"required": ["query"]
		}`),
		OutputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {"notes": {"type": "array", "items": {"$ref": "#/$defs/Note"}}},
			"required": ["notes"],
			"$defs": {"Note": {"type": "object", "properties": {"id": {"type": "string"}, "text": {"type": "string"}}, "required": ["id", "text"]}}
		}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"notes":[]}`), nil
		},
	})
	decls, err := typegen.Generate(c, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(decls)
	// Output:
	// declare namespace notes {
	// // READ-ONLY functions only read; an unknown argument field is ignored and reported as a warning.
	// /** Finds notes. */
	// function find_notes(args: {
	// query: string; // Words to look for
	// limit?: int; // @minimum 1 @maximum 50 @default 10
	// mood?: "good" | "bad"; after?: datetime | null;
	// }): Promise<FindNotesResult>;
	// interface FindNotesResult { notes: Note[] }
	// interface Note { id: string; text: string }
	// /** A whole number: 139617, not 139617.25. */
	// type int = number;
	// /** ISO 8601, e.g. "2026-03-01T14:30:00Z". */
	// type datetime = string;
	// }
}
