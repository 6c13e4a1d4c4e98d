package openapisource_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/openapisource"
	"github.com/brakinglab/codemode-go/typegen"
)

// Swagger 2.0 is converted: body parameters become the JSON body, a
// query array's collectionFormat its style, definitions components.
func TestSwagger2(t *testing.T) {
	rec := newRecorder(t)
	spec := []byte(`swagger: "2.0"
info: {title: Pets, version: "1"}
basePath: /v2
paths:
  /pets:
    get:
      operationId: findPets
      parameters:
        - {name: tags, in: query, type: array, items: {type: string}, collectionFormat: pipes}
        - {name: limit, in: query, type: integer, maximum: 100}
      responses:
        "200": {description: ok, schema: {type: array, items: {$ref: "#/definitions/Pet"}}}
    post:
      operationId: addPet
      consumes: [application/json]
      parameters:
        - {name: pet, in: body, required: true, schema: {$ref: "#/definitions/Pet"}}
      responses:
        "200": {description: ok, schema: {$ref: "#/definitions/Pet"}}
definitions:
  Pet:
    type: object
    required: [name]
    properties: {name: {type: string}, tag: {type: string, enum: [cat, dog]}}
`)
	c, _, err := load(t, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := typegen.Generate(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tags?: string[];\n}): Promise<Pet[]>", `tag?: "cat" | "dog"`, "const addPet: Write<{ body: Pet }, Pet>"} {
		if !strings.Contains(d, want) {
			t.Errorf("declarations lack %s:\n%s", want, d)
		}
	}
	c2, _, err := load(t, spec, &openapisource.Options{BaseURL: rec.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Call(t.Context(), "findPets", json.RawMessage(`{"tags":["a","b"],"limit":5}`)); err != nil {
		t.Fatal(err)
	}
	if got := rec.last(t).RawURI; got != "/pets?tags=a%7Cb&limit=5" {
		t.Errorf("GET %s", got)
	}
	if _, err := c2.Call(t.Context(), "addPet", json.RawMessage(`{"body":{"name":"Rex","tag":"dog"}}`)); err != nil {
		t.Fatal(err)
	}
	if r := rec.last(t); r.Method != "POST" || r.Body != `{"name":"Rex","tag":"dog"}` {
		t.Errorf("%+v", r)
	}
}

// OpenAPI 3.1: type arrays, const, numeric exclusive bounds, $defs-style
// JSON Schema keywords.
func TestOpenAPI31(t *testing.T) {
	spec := []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},
"paths":{"/m":{"post":{"operationId":"measure","requestBody":{"required":true,"content":{"application/json":{"schema":{
  "type":"object","required":["kind","value"],
  "properties":{"kind":{"const":"speed"},"value":{"type":"number","exclusiveMinimum":0},"note":{"type":["string","null"]}}}}}},
  "responses":{"201":{"description":"ok"}}}}}}`)
	c, _, err := load(t, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := typegen.Generate(c, nil)
	for _, want := range []string{`kind: "speed"`, "note?: string | null"} {
		if !strings.Contains(d, want) {
			t.Errorf("declarations lack %s:\n%s", want, d)
		}
	}
	for args, ok := range map[string]bool{
		`{"body":{"kind":"speed","value":1,"_validateOnly":false},"_validateOnly":true}`: false,
		`{"body":{"kind":"speed","value":1},"_validateOnly":true}`:                       true,
		`{"body":{"kind":"speed","value":0},"_validateOnly":true}`:                       false,
		`{"body":{"kind":"slope","value":1},"_validateOnly":true}`:                       false,
	} {
		_, err := c.Call(t.Context(), "measure", json.RawMessage(args))
		if (err == nil) != ok {
			t.Errorf("%s: %v", args, err)
		}
	}
}

// Extensions of the paths object are not paths; null components are
// none; a document whose parts are the wrong JSON type is refused.
func TestDecodeShapes(t *testing.T) {
	_, src, err := load(t, []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"components":null,
	  "paths":{"x-note":{"a":1},"/a":{"get":{"operationId":"a","responses":{"200":{"description":"ok"}}}}}}`), nil)
	if err != nil || len(src.Funcs()) != 1 {
		t.Fatalf("%v", err)
	}
	for _, bad := range []string{
		`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":[]}`,
		`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}},"components":{"schemas":{"A":7}}}`,
		`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a":[]}}`,
	} {
		if _, _, err := load(t, []byte(bad), nil); !errors.Is(err, openapisource.ErrDocument) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
