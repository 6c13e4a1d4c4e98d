package openapisource

// Reading a document and turning each operation into a function.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/jsident"
)

// Source is the functions of one OpenAPI document, ready to register.
type Source struct {
	funcs   []catalog.SchemaFunc
	ops     map[string]Skipped // each function's operation, by name (Reason unset)
	logger  *slog.Logger
	skipped []Skipped
}

// Skipped is an operation New left out, and why, in words a host can
// show: "request body only as multipart/form-data", "required cookie
// parameter session", "schema too large", "skipped by Options.Operations".
type Skipped struct {
	Operation string // operationId, or "METHOD /path"
	Method    string
	Path      string
	Reason    string
}

// Funcs returns the functions, sorted by name.
func (s *Source) Funcs() []catalog.SchemaFunc { return slices.Clone(s.funcs) }

// Skipped returns the operations left out, in the document's order of
// paths and methods.
func (s *Source) Skipped() []Skipped { return slices.Clone(s.skipped) }

// Register adds every function to c with [catalog.AddSchema], compiling
// their schemas on every core. A function the catalogue refuses (a schema
// past the type model's bounds, a name c already has) is left out and
// added to Skipped with the catalogue's reason, and logged; the others are
// registered, and Funcs lists only them from then on. Register returns
// an error only when c refused every one.
func (s *Source) Register(c *catalog.Catalog) error {
	errs := make([]error, len(s.funcs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(s.funcs)) {
		wg.Go(func() {
			for i := range next {
				errs[i] = catalog.AddSchema(c, s.funcs[i])
			}
		})
	}
	for i := range s.funcs {
		next <- i
	}
	close(next)
	wg.Wait()
	var first error
	refused := 0
	for i, err := range errs {
		if err == nil {
			continue
		}
		refused++
		first = cmp.Or(first, err)
		sk := s.ops[s.funcs[i].Name]
		sk.Reason = err.Error()
		s.logger.Warn("openapisource: operation left out", "operation", sk.Operation, "reason", sk.Reason)
		s.skipped = append(s.skipped, sk)
	}
	if refused > 0 && refused == len(s.funcs) {
		return first
	}
	kept := s.funcs[:0:0]
	for i, f := range s.funcs {
		if errs[i] == nil {
			kept = append(kept, f)
		}
	}
	s.funcs = kept
	return nil
}

// New reads an OpenAPI 3.0 or 3.1 document, or a Swagger 2.0 one
// (converted to 3.0), as JSON or YAML, and returns its operations as
// functions that call opts.BaseURL. Every problem it can find is reported
// here, before the first call: see the Err variables. External $refs
// (other files, URLs) are never followed.
func New(spec []byte, opts *Options) (*Source, error) {
	s, err := opts.settings()
	if err != nil {
		return nil, err
	}
	doc, err := load(spec, s.MaxOperations)
	if err != nil {
		return nil, err
	}
	return build(doc, s)
}

// load parses and validates spec, converting Swagger 2.0.
func load(spec []byte, maxOps int) (*openapi3.T, error) {
	var probe struct {
		Swagger string `json:"swagger" yaml:"swagger"`
		OpenAPI string `json:"openapi" yaml:"openapi"`
	}
	trimmed := bytes.TrimSpace(spec)
	var err error
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if d := depth(trimmed); d > maxDepth {
			return nil, fmt.Errorf("%w: nested %d levels deep, more than %d", ErrDocument, d, maxDepth)
		}
		err = json.Unmarshal(trimmed, &probe)
	} else {
		err = yaml.Unmarshal(trimmed, &probe)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDocument, err)
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	loader.Context = context.Background()
	var doc *openapi3.T
	switch {
	case strings.HasPrefix(probe.Swagger, "2."):
		var doc2 openapi2.T
		js := trimmed
		if trimmed[0] != '{' {
			// openapi2's types decode JSON only.
			var v any
			if err = yaml.Unmarshal(trimmed, &v); err == nil {
				js, err = json.Marshal(v)
			}
		}
		if err == nil {
			err = json.Unmarshal(js, &doc2)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: swagger 2.0: %v", ErrDocument, err)
		}
		if doc, err = openapi2conv.ToV3WithLoader(&doc2, loader, nil); err != nil {
			return nil, fmt.Errorf("%w: converting swagger 2.0: %v", ErrDocument, err)
		}
	case strings.HasPrefix(probe.OpenAPI, "3.") && trimmed[0] == '{':
		// JSON straight into the model: the loader would parse it as
		// YAML first (for positions), at twice the time.
		if doc, err = decodeJSON(trimmed); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDocument, err)
		}
		if n := countOperations(doc); n > maxOps {
			return nil, fmt.Errorf("%w: %d, more than %d (Options.MaxOperations)", ErrTooLarge, n, maxOps)
		}
		if err = loader.ResolveRefsIn(doc, nil); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDocument, err)
		}
	case strings.HasPrefix(probe.OpenAPI, "3."):
		if doc, err = loader.LoadFromData(trimmed); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDocument, err)
		}
	default:
		return nil, fmt.Errorf("%w: neither \"openapi\": \"3.x\" nor \"swagger\": \"2.0\"", ErrDocument)
	}
	if doc.Paths == nil || doc.Paths.Len() == 0 {
		return nil, fmt.Errorf("%w: no paths", ErrDocument)
	}
	return doc, nil
}

// methods are the methods an operation may have, in the order they are
// read.
var methods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions, http.MethodTrace}

func build(doc *openapi3.T, s *settings) (*Source, error) {
	type found struct {
		key, method, path string
		item              *openapi3.PathItem
		op                *openapi3.Operation
	}
	var ops []found
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, p := range paths {
		item := doc.Paths.Value(p)
		if item == nil {
			continue
		}
		for _, m := range methods {
			op := item.GetOperation(m)
			if op == nil {
				continue
			}
			key := op.OperationID
			if key == "" {
				key = m + " " + p
			}
			ops = append(ops, found{key, m, p, item, op})
			if len(ops) > s.MaxOperations {
				return nil, fmt.Errorf("%w: more than %d (Options.MaxOperations)", ErrTooLarge, s.MaxOperations)
			}
		}
	}
	known := map[string]bool{}
	for _, f := range ops {
		known[f.key] = true
	}
	for k, cfg := range s.Operations {
		if !known[k] {
			return nil, fmt.Errorf("%w: %q", ErrUnknownOperation, k)
		}
		if cfg.Name != "" && !jsident.Valid(cfg.Name) {
			return nil, fmt.Errorf("%w: %s: Name %q is not a JavaScript identifier", ErrConfig, k, cfg.Name)
		}
	}
	src := &Source{ops: map[string]Skipped{}, logger: s.Logger}
	conv := newConverter(doc, s.MaxSchemaNodes)
	byName := map[string]string{}
	for _, f := range ops {
		cfg := s.Operations[f.key]
		skip := func(reason string) {
			s.Logger.Info("openapisource: operation left out", "operation", f.key, "reason", reason)
			src.skipped = append(src.skipped, Skipped{Operation: f.key, Method: f.method, Path: f.path, Reason: reason})
		}
		if cfg.Skip {
			skip("skipped by Options.Operations")
			continue
		}
		if f.method == http.MethodOptions || f.method == http.MethodTrace {
			skip(f.method + " operations are not exposed")
			continue
		}
		tier, approval, err := tierOf(f.method, f.op, cfg)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrConfig, f.key, err)
		}
		name := cfg.Name
		if name == "" {
			name = FuncName(f.op.OperationID, f.method, f.path)
		}
		if prev, dup := byName[name]; dup {
			return nil, fmt.Errorf("%w: %q and %q are both %s; rename one with Options.Operations", ErrNameCollision, prev, f.key, name)
		}
		r, reason, err := newRequest(f.method, f.path, f.item, f.op, conv)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrDocument, f.key, err)
		}
		if reason != "" {
			skip(reason)
			continue
		}
		byName[name] = f.key
		fn := catalog.SchemaFunc{
			Name:         name,
			Description:  description(f.method, f.path, f.op),
			Tier:         tier,
			Approval:     approval,
			Scopes:       slices.Clone(cfg.Scopes),
			InputSchema:  r.input,
			OutputSchema: r.output,
		}
		c := &caller{s: s, r: r, name: name, write: tier != catalog.ReadOnly}
		fn.Handler = c.call
		src.funcs = append(src.funcs, fn)
		src.ops[name] = Skipped{Operation: f.key, Method: f.method, Path: f.path}
	}
	sort.Slice(src.funcs, func(i, j int) bool { return src.funcs[i].Name < src.funcs[j].Name })
	return src, nil
}

// FuncName returns the function name New derives for an operation: its
// operationId with every run of characters that cannot be in an
// identifier replaced by one underscore ("pulls/list" → "pulls_list",
// "get-user" → "get_user"), an underscore before a leading digit and
// after a reserved word; without an operationId, the method and the
// path's literal segments and parameter names ("GET /pets/{id}" →
// "get_pets_id").
func FuncName(operationID, method, path string) string {
	src := operationID
	if src == "" {
		src = strings.ToLower(method) + " " + path
	}
	return jsident.From(src, "operation_")
}

// description is the function's documentation: summary, description
// (cut) and the HTTP method and path, which discovery searches too.
func description(method, path string, op *openapi3.Operation) string {
	var parts []string
	if op.Summary != "" {
		parts = append(parts, strings.TrimSpace(op.Summary))
	}
	if d := strings.TrimSpace(op.Description); d != "" && d != op.Summary {
		// The first paragraph: what the operation does. The rest (media
		// types, permissions, pagination) would dilute what search ranks.
		if i := strings.Index(d, "\n\n"); i > 0 {
			d = d[:i]
		}
		if len(d) > 300 {
			d = d[:300]
			for len(d) > 0 && !utf8.ValidString(d) {
				d = d[:len(d)-1]
			}
			d += "…"
		}
		parts = append(parts, d)
	}
	if op.Deprecated {
		parts = append(parts, "Deprecated.")
	}
	parts = append(parts, method+" "+path)
	return strings.Join(parts, "\n\n")
}

// maxDepth bounds the nesting of a JSON document. Decoding nested
// schemas costs the square of their depth (each level's decoder checks
// the text below it), so a deeper document is refused before it is
// decoded; real descriptions nest a few dozen levels (GitHub's, 21).
const maxDepth = 200

// depth returns the deepest nesting of objects and arrays in JSON text.
func depth(b []byte) int {
	d, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// countOperations counts the operations of every path, before references
// are resolved.
func countOperations(doc *openapi3.T) int {
	n := 0
	if doc.Paths == nil {
		return 0
	}
	for _, item := range doc.Paths.Map() {
		if item != nil {
			n += len(item.Operations())
		}
	}
	return n
}
