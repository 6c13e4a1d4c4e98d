package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/brakinglab/codemode-go/catalog"
)

// A function known only by JSON Schema, such as an upstream MCP server's
// tool, is checked like a typed one: the arguments' types, required and
// unknown members, bounds and enums, with JSON paths.
func ExampleAddSchema() {
	c, err := catalog.New("notes", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		log.Fatal(err)
	}
	catalog.MustAddSchema(c, catalog.SchemaFunc{
		Name:        "addNote",
		Description: "Adds a note to a lap.",
		Tier:        catalog.Creative,
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"lap":  {"type": "integer", "minimum": 1},
				"text": {"type": "string", "maxLength": 200},
				"mood": {"enum": ["good", "bad"]}
			},
			"required": ["lap", "text"]
		}`),
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"id":"note_1","received":` + string(args) + `}`), nil
		},
	})
	ctx := context.Background()

	out, err := c.Call(ctx, "addNote", json.RawMessage(`{"lap": 3, "text": "Late apex in T4", "mood": "good"}`))
	fmt.Println(string(out), err)

	_, err = c.Call(ctx, "addNote", json.RawMessage(`{"lap": 0, "txt": "Late apex", "mood": "meh"}`))
	b, _ := json.Marshal(err)
	fmt.Println(string(b))
	// Output:
	// {"id":"note_1","received":{"lap":3,"mood":"good","text":"Late apex in T4"}} <nil>
	// {"error":"Validation failed","issues":[{"path":["text"],"message":"Required field"},{"path":["txt"],"message":"Unknown field (did you mean \"text\"?)"},{"path":["lap"],"message":"Must be at least 1"},{"path":["mood"],"message":"Must be one of: good, bad"}]}
}
