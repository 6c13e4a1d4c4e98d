package openapisource_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/openapisource"
	"github.com/brakinglab/codemode-go/typegen"
)

// doc wraps paths and components (JSON texts) in an OpenAPI 3.0 document.
func doc(paths, components string) []byte {
	return []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":` + paths + `,"components":{"schemas":` + components + `}}`)
}

func load(t *testing.T, spec []byte, opts *openapisource.Options) (*catalog.Catalog, *openapisource.Source, error) {
	t.Helper()
	if opts == nil {
		opts = &openapisource.Options{}
	}
	if opts.BaseURL == "" {
		opts.BaseURL = "http://127.0.0.1:1"
	}
	opts.Logger = quiet
	src, err := openapisource.New(spec, opts)
	if err != nil {
		return nil, nil, err
	}
	c, err := catalog.New("api", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	return c, src, src.Register(c)
}

const getTree = `{"/t":{"get":{"operationId":"tree","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}}}},
 "post":{"operationId":"plant","requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/A"}}}},"responses":{"201":{"description":"ok"}}}}}`

// $ref cycles load, stay recursive in declarations, and validate.
func TestRefCycles(t *testing.T) {
	for name, comps := range map[string]string{
		"self":      `{"A":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/components/schemas/A"}}}}}`,
		"mutual":    `{"A":{"type":"object","properties":{"b":{"$ref":"#/components/schemas/B"}}},"B":{"type":"object","properties":{"a":{"$ref":"#/components/schemas/A"}}}}`,
		"allOf":     `{"A":{"allOf":[{"$ref":"#/components/schemas/B"}],"properties":{"x":{"type":"integer"}}},"B":{"allOf":[{"$ref":"#/components/schemas/A"}]}}`,
		"alias":     `{"A":{"$ref":"#/components/schemas/B"},"B":{"$ref":"#/components/schemas/A"}}`,
		"oneOfSelf": `{"A":{"oneOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/components/schemas/A"}}]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			c, _, err := load(t, doc(getTree, comps), nil)
			if err != nil {
				// Refusing is allowed; it must say why: the document's
				// error, or the catalogue's naming the loop.
				if !errors.Is(err, openapisource.ErrDocument) && !strings.Contains(err.Error(), "refers back to itself") {
					t.Fatalf("%v", err)
				}
				t.Logf("refused: %v", err)
				return
			}
			d, err := typegen.Generate(c, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(d[strings.Index(d, "function tree"):])
			_, err = c.Call(t.Context(), "plant", json.RawMessage(`{"body":{"_validateOnly":1}, "_validateOnly": true}`))
			t.Logf("dry run: %v", err)
		})
	}
}

// A document with 10,000 operations is refused by default, quickly and
// with a reason; raising the bound loads it.
func TestManyOperations(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 10000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"/r%d/{id}":{"get":{"operationId":"op%d","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}`, i, i)
	}
	b.WriteString("}")
	spec := doc(b.String(), `{}`)
	_, _, err := load(t, spec, nil)
	if !errors.Is(err, openapisource.ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	_, src, err := load(t, spec, &openapisource.Options{MaxOperations: 10000})
	if err != nil || len(src.Funcs()) != 10000 {
		t.Fatalf("%v", err)
	}
}

// A schema past MaxSchemaNodes leaves its operation out with a reason;
// the others stay.
func TestHugeSchema(t *testing.T) {
	var props strings.Builder
	for i := range 30000 {
		if i > 0 {
			props.WriteString(",")
		}
		fmt.Fprintf(&props, `"p%d":{"type":"string"}`, i)
	}
	paths := `{"/big":{"post":{"operationId":"big","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Big"}}}},"responses":{"200":{"description":"ok"}}}},
	 "/small":{"get":{"operationId":"small","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"string"}}}}}}},
	 "/deep":{"get":{"operationId":"deep","responses":{"200":{"description":"ok","content":{"application/json":{"schema":` + nested(150) + `}}}}}}}`
	_, src, err := load(t, doc(paths, `{"Big":{"type":"object","properties":{`+props.String()+`}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	// big is left out by New (too many schema nodes), deep by Register
	// (150 levels, past the type model's 64): each with its reason.
	var names []string
	for _, f := range src.Funcs() {
		names = append(names, f.Name)
	}
	skipped := fmt.Sprint(src.Skipped())
	if strings.Join(names, ",") != "small" || !strings.Contains(skipped, "big") || !strings.Contains(skipped, "too large") ||
		!strings.Contains(skipped, "deep") || !strings.Contains(skipped, "nests too deeply") {
		t.Fatalf("functions %v, skipped %s", names, skipped)
	}
	// Deeper than 200 levels: refused before decoding.
	paths = `{"/deep":{"get":{"operationId":"deep","responses":{"200":{"description":"ok","content":{"application/json":{"schema":` + nested(100000) + `}}}}}}}`
	if _, _, err := load(t, doc(paths, `{}`), nil); !errors.Is(err, openapisource.ErrDocument) || !strings.Contains(err.Error(), "deep") {
		t.Fatalf("got %v", err)
	}
}

// nested is an array schema n levels deep.
func nested(n int) string {
	return strings.Repeat(`{"type":"array","items":`, n) + `{"type":"string"}` + strings.Repeat(`}`, n)
}

// The document's servers never receive a call, and external references
// are never fetched.
func TestServersAndExternalRefsIgnored(t *testing.T) {
	var elsewhere atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer evil.Close()
	rec := newRecorder(t)
	spec := []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"` + evil.URL + `"}],
	  "paths":{"/x":{"get":{"operationId":"x","servers":[{"url":"` + evil.URL + `"}],"responses":{"200":{"description":"ok"}}}}}}`)
	c, _, err := load(t, spec, &openapisource.Options{BaseURL: rec.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(t.Context(), "x", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{evil.URL + "/schema.json", "/etc/passwd", "other.yaml#/A"} {
		spec := doc(`{"/y":{"get":{"operationId":"y","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"`+ref+`"}}}}}}}}`, `{}`)
		if _, _, err := load(t, spec, nil); !errors.Is(err, openapisource.ErrDocument) {
			t.Errorf("$ref %s: got %v, want ErrDocument", ref, err)
		}
	}
	if rec.count() != 1 || elsewhere.Load() != 0 {
		t.Errorf("base got %d requests, the document's server %d", rec.count(), elsewhere.Load())
	}
}

// A header parameter whose name is not a header name leaves its
// operation out.
func TestBadHeaderName(t *testing.T) {
	spec := doc(`{"/h":{"get":{"operationId":"h","parameters":[{"name":"X-A\r\nHost: evil","in":"header","schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}},
	 "/ok":{"get":{"operationId":"ok","responses":{"200":{"description":"ok"}}}}}`, `{}`)
	_, src, err := load(t, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Funcs()) != 1 || len(src.Skipped()) != 1 || !strings.Contains(src.Skipped()[0].Reason, "not a valid header name") {
		t.Fatalf("functions %d, skipped %v", len(src.Funcs()), src.Skipped())
	}
}
