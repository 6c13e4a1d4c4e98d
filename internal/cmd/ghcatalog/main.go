// Command ghcatalog writes the test catalog internal/testdata/ghcatalog:
// Go argument and result structs and stub registrations for a slice of
// the GitHub REST API, read from the OpenAPI description that the npm
// package @octokit/openapi ships.
//
//	npm install --prefix /tmp/octokit @octokit/openapi@23.0.2
//	go generate ./internal/testdata/ghcatalog  # with OCTOKIT_OPENAPI unset, the path above
//
// Its output is committed, so tests need neither npm nor this command.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"regexp"
	"sort"
	"strings"
)

// tags are the API areas turned into functions: together just over 300
// operations with every shape the catalog must handle.
var tags = map[string]bool{
	"issues": true, "pulls": true, "users": true, "activity": true, "gists": true, "reactions": true,
	"git": true, "checks": true, "search": true, "teams": true, "projects": true, "meta": true,
	"emojis": true, "gitignore": true, "licenses": true, "markdown": true, "rate-limit": true,
	"codes-of-conduct": true,
}

type schema struct {
	Ref                  string             `json:"$ref"`
	Type                 any                `json:"type"`
	Description          string             `json:"description"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	Items                *schema            `json:"items"`
	Enum                 []any              `json:"enum"`
	AdditionalProperties any                `json:"additionalProperties"`
	AllOf                []*schema          `json:"allOf"`
	OneOf                []*schema          `json:"oneOf"`
	AnyOf                []*schema          `json:"anyOf"`
	Nullable             bool               `json:"nullable"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	MaxLength            *int               `json:"maxLength"`
}

type param struct {
	Ref         string  `json:"$ref"`
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Required    bool    `json:"required"`
	Description string  `json:"description"`
	Schema      *schema `json:"schema"`
}

type operation struct {
	OperationID string   `json:"operationId"`
	Summary     string   `json:"summary"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Parameters  []*param `json:"parameters"`
	RequestBody *struct {
		Ref     string `json:"$ref"`
		Content map[string]struct {
			Schema *schema `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Ref     string `json:"$ref"`
		Content map[string]struct {
			Schema *schema `json:"schema"`
		} `json:"content"`
	} `json:"responses"`
}

type spec struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Schemas    map[string]*schema `json:"schemas"`
		Parameters map[string]*param  `json:"parameters"`
	} `json:"components"`
}

type gen struct {
	sp       *spec
	types    bytes.Buffer
	declared map[string]bool   // Go type names taken
	byRef    map[string]string // component schema → Go type name
	depth    int
}

func main() {
	def := os.Getenv("OCTOKIT_OPENAPI")
	if def == "" {
		def = "/tmp/octokit/node_modules/@octokit/openapi/generated/api.github.com.json"
	}
	in := flag.String("spec", def, "the OpenAPI description (api.github.com.json from @octokit/openapi)")
	out := flag.String("o", "catalog_gen.go", "output file")
	flag.Parse()
	raw, err := os.ReadFile(*in)
	if err != nil {
		log.Fatalf("%v (install @octokit/openapi and pass -spec)", err)
	}
	var sp spec
	if err := json.Unmarshal(raw, &sp); err != nil {
		log.Fatal(err)
	}
	g := &gen{sp: &sp, declared: map[string]bool{}, byRef: map[string]string{}}
	type op struct {
		method, path string
		o            operation
	}
	var ops []op
	for path, item := range sp.Paths {
		for method, body := range item {
			switch method {
			case "get", "post", "put", "patch", "delete":
			default:
				continue
			}
			var o operation
			if err := json.Unmarshal(body, &o); err != nil {
				log.Fatal(err)
			}
			if len(o.Tags) > 0 && tags[o.Tags[0]] {
				ops = append(ops, op{method, path, o})
			}
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].o.OperationID < ops[j].o.OperationID })

	var reg bytes.Buffer
	names := map[string]bool{}
	for _, o := range ops {
		name := lowerFirst(pascal(o.o.OperationID))
		if names[name] {
			continue
		}
		names[name] = true
		in := g.args(name, o.o)
		out := g.result(name, o.o)
		tier := "catalog.ReadOnly"
		switch o.method {
		case "post":
			tier = "catalog.Creative"
		case "put", "patch", "delete":
			tier = "catalog.Mutating"
		}
		fmt.Fprintf(&reg, "\tif err := add(c, catalog.Func[%s, %s]{Name: %q, Description: %q, Tier: %s, Handler: stub[%s, %s]}); err != nil {\n\t\treturn err\n\t}\n",
			in, out, name, describe(o.o, o.method, o.path), tier, in, out)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/cmd/ghcatalog from @octokit/openapi (api.github.com.json); DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package ghcatalog\n\nimport \"github.com/brakinglab/codemode-go/catalog\"\n\n")
	fmt.Fprintf(&b, "// Operations is the number of functions Register adds.\nconst Operations = %d\n\n", len(names))
	fmt.Fprintf(&b, "func register(c *catalog.Catalog) error {\n%s\treturn nil\n}\n\n", reg.String())
	b.Write(g.types.Bytes())
	src, err := format.Source(b.Bytes())
	if err != nil {
		os.WriteFile(*out+".broken", b.Bytes(), 0o644)
		log.Fatalf("format: %v", err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d operations, %d types", len(names), len(g.declared))
}

// describe is the function description: the summary, the first sentence
// of the description, and the HTTP route.
func describe(o operation, method, path string) string {
	d := strings.TrimSpace(o.Summary)
	if s := sentence(o.Description); s != "" && !strings.EqualFold(strings.TrimSuffix(s, "."), strings.TrimSuffix(d, ".")) {
		d = strings.TrimSuffix(d, ".") + ". " + s
	}
	return d + " (" + strings.ToUpper(method) + " " + path + ")"
}

var mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// sentence returns the first sentence of markdown text, plain, at most
// 160 characters.
func sentence(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("`", "", "*", "", "\n", " ", "\r", "", "\"", "'").Replace(strings.TrimSpace(s))
	if strings.HasPrefix(s, ">") {
		return ""
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > 160 {
		s = strings.TrimSpace(s[:strings.LastIndexByte(s[:160], ' ')]) + "…"
	}
	return s
}

// fieldDoc is a jsonschema tag value: plain text without the characters
// struct tags and tag options give meaning to.
func fieldDoc(s string) string {
	s = sentence(s)
	return strings.NewReplacer(",", ";", "=", " is ", "\\", "").Replace(s)
}

func (g *gen) param(p *param) *param {
	if p.Ref != "" {
		return g.sp.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
	}
	return p
}

// args declares the argument struct: path and query parameters, then the
// members of a JSON object body.
func (g *gen) args(fn string, o operation) string {
	name := g.unique(pascal(fn) + "Args")
	var fields []field
	seen := map[string]bool{}
	for _, p := range o.Parameters {
		p = g.param(p)
		if p == nil || (p.In != "path" && p.In != "query") || seen[p.Name] {
			continue
		}
		seen[p.Name] = true
		s := p.Schema
		if s == nil {
			s = &schema{Type: "string"}
		}
		fields = append(fields, g.field(name, p.Name, s, p.Required || p.In == "path", p.Description))
	}
	if o.RequestBody != nil {
		if c, ok := o.RequestBody.Content["application/json"]; ok && c.Schema != nil {
			s := g.resolve(c.Schema)
			req := map[string]bool{}
			for _, r := range s.Required {
				req[r] = true
			}
			for _, k := range sortedKeys(s.Properties) {
				if seen[k] {
					continue
				}
				seen[k] = true
				fields = append(fields, g.field(name, k, s.Properties[k], req[k], ""))
			}
		}
	}
	g.writeStruct(name, fields)
	return name
}

// result is the Go type of the success response.
func (g *gen) result(fn string, o operation) string {
	for _, code := range []string{"200", "201", "202"} {
		r, ok := o.Responses[code]
		if !ok {
			continue
		}
		if c, ok := r.Content["application/json"]; ok && c.Schema != nil {
			t := g.goType(pascal(fn)+"Result", c.Schema)
			return t
		}
	}
	return "struct{}"
}
