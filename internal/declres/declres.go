// Package declres serves the declarations of code mode as MCP resources,
// for clients that browse resources rather than read the tool
// description:
//
//   - codemode://types/<ns>.d.ts: the TypeScript declarations of every
//     function of namespace ns;
//   - codemode://functions/<ns>/{name}.d.ts: those of one function (its
//     signature, argument and result types, field docs and constraints);
//   - codemode://functions/<ns>/{name}.schema.json: the JSON Schemas
//     (draft 2020-12) of its arguments and result, {"input": …,
//     "output": …}, for clients and tools that validate with JSON Schema.
//
// What a function's resources say, and whether it exists, is the
// caller's: a [Namespace] gives it as functions, asked when a resource is
// read. A name the caller does not know, or cannot render, is a resource
// not found.
package declres

import (
	"context"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Namespace is what one namespace's resources serve.
type Namespace struct {
	// Name is the namespace.
	Name string
	// Tool is the code tool that calls its functions, for the resources'
	// descriptions.
	Tool string
	// Declarations are the namespace's declarations.
	Declarations string
	// Function returns the declarations of the function name, or an error
	// when there is no such function to show.
	Function func(name string) (string, error)
	// Schemas returns the JSON Schemas of the function name's arguments
	// and result as {"input": …, "output": …}, or an error.
	Schemas func(name string) (string, error)
}

// Add serves ns's resources on srv, replacing what an earlier Add of the
// same namespace served.
func Add(srv *mcp.Server, ns Namespace) {
	uri := "codemode://types/" + ns.Name + ".d.ts"
	decls := ns.Declarations
	srv.AddResource(&mcp.Resource{
		URI:         uri,
		Name:        ns.Name + ".d.ts",
		Title:       "TypeScript declarations of " + ns.Name,
		Description: "The functions " + ns.Tool + " can call in " + ns.Name + ", as TypeScript declarations.",
		MIMEType:    "application/typescript",
		Size:        int64(len(decls)),
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/typescript", Text: decls}}}, nil
	})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "codemode://functions/" + ns.Name + "/{name}.d.ts",
		Name:        ns.Name + "-function",
		Title:       "TypeScript declarations of one " + ns.Name + " function",
		Description: "The declarations of one function " + ns.Tool + " can call: its signature, argument and result types, field docs and constraints. {name} is the function name.",
		MIMEType:    "application/typescript",
	}, serve(ns.Name, ".d.ts", "application/typescript", ns.Function))
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "codemode://functions/" + ns.Name + "/{name}.schema.json",
		Name:        ns.Name + "-function-schema",
		Title:       "JSON Schemas of one " + ns.Name + " function",
		Description: "The JSON Schemas (draft 2020-12) of the arguments and the result of one function " + ns.Tool + " can call: {\"input\": …, \"output\": …}. {name} is the function name.",
		MIMEType:    "application/schema+json",
	}, serve(ns.Name, ".schema.json", "application/schema+json", ns.Schemas))
}

// Remove stops serving the resources of namespace ns on srv.
func Remove(srv *mcp.Server, ns string) {
	srv.RemoveResources("codemode://types/" + ns + ".d.ts")
	srv.RemoveResourceTemplates("codemode://functions/"+ns+"/{name}.d.ts", "codemode://functions/"+ns+"/{name}.schema.json")
}

// serve answers codemode://functions/<ns>/<name><suffix> with render.
func serve(ns, suffix, mime string, render func(name string) (string, error)) mcp.ResourceHandler {
	prefix := "codemode://functions/" + ns + "/"
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		name, ok := strings.CutPrefix(uri, prefix)
		name, ok2 := strings.CutSuffix(name, suffix)
		if u, err := url.PathUnescape(name); err == nil {
			name = u
		}
		if !ok || !ok2 {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		text, err := render(name)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
	}
}
