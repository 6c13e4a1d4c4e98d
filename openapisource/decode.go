package openapisource

// Decoding a JSON document into kin-openapi's model, its component
// schemas and paths on every core: they are nearly all of a large
// document, and kin-openapi's decoders are the bulk of loading it.

import (
	"encoding/json"
	"runtime"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// decodeJSON decodes an OpenAPI 3 document in JSON, references not yet
// resolved.
func decodeJSON(b []byte) (*openapi3.T, error) {
	var top map[string]json.RawMessage
	err := json.Unmarshal(b, &top)
	if err != nil {
		return nil, err
	}
	var paths, comps map[string]json.RawMessage
	if raw, ok := top["paths"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &paths); err != nil {
			return nil, err
		}
		top["paths"] = json.RawMessage("{}")
	}
	var schemas map[string]json.RawMessage
	if raw, ok := top["components"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &comps); err != nil {
			return nil, err
		}
		// Examples are documentation the functions never use (GitHub's
		// are a fifth of its description): each becomes empty, so that
		// references to them still resolve.
		if ex, ok := comps["examples"]; ok && !isNull(ex) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(ex, &m); err != nil {
				return nil, err
			}
			for k := range m {
				m[k] = json.RawMessage("{}")
			}
			if comps["examples"], err = json.Marshal(m); err != nil {
				return nil, err
			}
		}
		if s, ok := comps["schemas"]; ok && !isNull(s) {
			if err := json.Unmarshal(s, &schemas); err != nil {
				return nil, err
			}
			comps["schemas"] = json.RawMessage("{}")
		}
		if top["components"], err = json.Marshal(comps); err != nil {
			return nil, err
		}
	}
	rest, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	doc := &openapi3.T{}
	if err := json.Unmarshal(rest, doc); err != nil {
		return nil, err
	}

	// The large parts, on every core.
	type job struct {
		key  string
		path bool
		raw  json.RawMessage
	}
	var (
		mu       sync.Mutex
		firstErr error
		items    = make(map[string]*openapi3.PathItem, len(paths))
		refs     = make(openapi3.Schemas, len(schemas))
		jobs     = make(chan job)
		wg       sync.WaitGroup
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				var err error
				if j.path {
					item := &openapi3.PathItem{}
					if err = json.Unmarshal(j.raw, item); err == nil {
						mu.Lock()
						items[j.key] = item
						mu.Unlock()
					}
				} else {
					ref := &openapi3.SchemaRef{}
					if err = json.Unmarshal(j.raw, ref); err == nil {
						mu.Lock()
						refs[j.key] = ref
						mu.Unlock()
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for k, raw := range schemas {
		jobs <- job{key: k, raw: raw}
	}
	for k, raw := range paths {
		if strings.HasPrefix(k, "x-") {
			continue // an extension of the paths object, not a path
		}
		jobs <- job{key: k, path: true, raw: raw}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if schemas != nil {
		if doc.Components == nil {
			doc.Components = &openapi3.Components{}
		}
		doc.Components.Schemas = refs
	}
	if paths != nil {
		doc.Paths = openapi3.NewPathsWithCapacity(len(items))
		for k, item := range items {
			doc.Paths.Set(k, item)
		}
	}
	return doc, nil
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }
