package openapisource_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/openapisource"
)

func Example() {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q,"name":"Rex","seenBy":%q}`, r.URL.EscapedPath(), r.Header.Get("Authorization"))
	}))
	defer api.Close()
	spec := []byte(`openapi: 3.1.0
info: {title: Pets, version: "1"}
paths:
  /pets/{id}:
    get:
      operationId: pets/get
      summary: Get a pet
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200":
          description: the pet
          content: {application/json: {schema: {$ref: "#/components/schemas/Pet"}}}
    delete:
      operationId: pets/delete
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"204": {description: gone}}
components:
  schemas:
    Pet: {type: object, properties: {id: {type: string}, name: {type: string}}}
`)
	src, err := openapisource.New(spec, &openapisource.Options{
		BaseURL: api.URL,
		Authorize: func(req *http.Request, p *catalog.Principal) error {
			req.Header.Set("Authorization", "Bearer token-of-"+p.Subject)
			return nil
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		panic(err)
	}
	c, _ := catalog.New("pets", nil)
	if err := src.Register(c); err != nil {
		panic(err)
	}
	for _, f := range c.Functions() {
		fmt.Println(f.Name, f.Tier, f.Approval)
	}
	ctx := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "alice"})
	out, err := c.Call(ctx, "pets_get", []byte(`{"id":"a/b"}`))
	fmt.Println(string(out), err)
	// Output:
	// pets_delete MUTATING required
	// pets_get READ-ONLY default
	// {"path":"/pets/a%2Fb","name":"Rex","seenBy":"Bearer token-of-alice"} <nil>
}
