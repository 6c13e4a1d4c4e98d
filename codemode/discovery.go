package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/rank"
	"github.com/brakinglab/codemode-go/typegen"
)

// Discovery says how the code tools present the catalog to the model.
type Discovery int

const (
	// DiscoveryAuto uses DiscoveryFull while the full description fits
	// Options.DiscoveryBudget and DiscoveryIndex above it. The default.
	DiscoveryAuto Discovery = iota
	// DiscoveryFull puts every declaration in the tool description: the
	// model needs no lookup, at the cost of the whole catalog's tokens in
	// every conversation.
	DiscoveryFull
	// DiscoveryIndex puts the rules once and one line per function (name,
	// tier, summary) in the description; the script looks declarations up
	// with codemode.search and codemode.describe in the same execution
	// that then makes the calls.
	DiscoveryIndex
)

// String returns "auto", "full" or "index".
func (d Discovery) String() string {
	switch d {
	case DiscoveryAuto:
		return "auto"
	case DiscoveryFull:
		return "full"
	case DiscoveryIndex:
		return "index"
	}
	return fmt.Sprintf("Discovery(%d)", int(d))
}

// DefaultDiscoveryBudget is the token budget of DiscoveryAuto: the full
// description is used while it costs at most this many tokens, estimated
// as characters / 4.
const DefaultDiscoveryBudget = 4000

// DiscoveryNamespace is the global that holds the discovery functions,
// codemode.search and codemode.describe, in every execution. A catalog
// may not use it as its namespace.
const DiscoveryNamespace = "codemode"

// Limits of the discovery functions, so one call cannot produce more text
// than a script may return.
const (
	defaultSearchLimit = 5
	maxSearchLimit     = 50
	maxDescribeNames   = 50
	maxQueryBytes      = 1000
	summaryChars       = 80
)

// discovery is the search index over a view's functions, keyed by
// qualified name.
type discovery struct {
	ix      *rank.Index
	summary map[string]string
	info    map[string]boundFunc
}

// newDiscovery indexes fns by name, description, and the names and docs
// of their argument and result fields.
func newDiscovery(fns []boundFunc) *discovery {
	d := &discovery{summary: map[string]string{}, info: map[string]boundFunc{}}
	docs := make([]rank.Doc, 0, len(fns))
	for _, f := range fns {
		q := f.qualified()
		d.summary[q] = firstSentence(f.Description)
		d.info[q] = f
		var argNames, argDocs, resNames, resDocs strings.Builder
		in, out := f.Nodes()
		fieldText(in, &argNames, &argDocs, map[*jsontype.Node]bool{}, 0)
		fieldText(out, &resNames, &resDocs, map[*jsontype.Node]bool{}, 0)
		// The name and the summary say what a function is for; field
		// names and docs say what it takes and gives, and weigh less.
		docs = append(docs, rank.Doc{ID: q, Fields: []rank.Field{
			{Text: f.Name, Weight: 4},
			{Text: d.summary[q], Weight: 3},
			{Text: f.Description, Weight: 1},
			{Text: argNames.String(), Weight: 0.7},
			{Text: argDocs.String(), Weight: 0.4},
			{Text: resNames.String(), Weight: 0.2},
			{Text: resDocs.String(), Weight: 0.1},
		}})
	}
	d.ix = rank.New(docs)
	return d
}

// fieldText collects the member names and docs reachable from n, three
// levels deep, from the type model every kind of function shares.
func fieldText(n *jsontype.Node, names, docs *strings.Builder, seen map[*jsontype.Node]bool, depth int) {
	for n != nil && n.Shape != jsontype.Struct && n.Elem != nil {
		n = n.Elem // pointers, arrays, records
	}
	if n == nil || n.Shape != jsontype.Struct || seen[n] || depth > 2 {
		return
	}
	seen[n] = true
	for _, f := range n.Fields {
		names.WriteString(f.Name + " ")
		if f.Doc != "" {
			docs.WriteString(f.Doc + " ")
		}
		fieldText(f.Node, names, docs, seen, depth+1)
	}
}

// firstSentence returns the first sentence of a description, at most
// summaryChars long, cut at a word.
func firstSentence(desc string) string {
	s := strings.TrimSpace(desc)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > summaryChars {
		cut := strings.LastIndexByte(s[:summaryChars], ' ')
		if cut < summaryChars/2 {
			cut = summaryChars
		}
		s = strings.TrimRight(s[:cut], " ,;:") + "…"
	}
	return s
}

// searchHit is one codemode.search answer.
type searchHit struct {
	Name    string `json:"name"`
	Tier    string `json:"tier"`
	Summary string `json:"summary"`
}

// discoveryCall answers codemode.search and codemode.describe for one
// tool: sp decides which functions exist. args is the JSON array of the
// script's arguments.
func (s *Server) discoveryCall(sp *toolSpec, fn string, args json.RawMessage) (json.RawMessage, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(args, &list); err != nil {
		return nil, errors.New("codemode." + fn + ": unreadable arguments")
	}
	switch fn {
	case "search":
		return s.search(sp, list)
	case "describe":
		return s.describeCall(sp, list)
	}
	return nil, fmt.Errorf("codemode.%s is not a function. Use codemode.search(query, { limit }) or codemode.describe(names)", fn)
}

func (s *Server) search(sp *toolSpec, args []json.RawMessage) (json.RawMessage, error) {
	const usage = `codemode.search takes a query string and optional options: codemode.search("braking consistency", { limit: 5 })`
	var query string
	if len(args) == 0 || json.Unmarshal(args[0], &query) != nil || strings.TrimSpace(query) == "" {
		return nil, errors.New(usage)
	}
	if len(query) > maxQueryBytes {
		return nil, fmt.Errorf("codemode.search: the query is %d bytes; use a few words (at most %d bytes)", len(query), maxQueryBytes)
	}
	limit := defaultSearchLimit
	if len(args) > 1 && string(args[1]) != "null" {
		var opts struct {
			Limit *float64 `json:"limit"`
		}
		if json.Unmarshal(args[1], &opts) != nil {
			return nil, errors.New(usage)
		}
		if opts.Limit != nil {
			if *opts.Limit < 1 || *opts.Limit != float64(int(*opts.Limit)) {
				return nil, fmt.Errorf("codemode.search: limit must be a whole number from 1 to %d", maxSearchLimit)
			}
			limit = min(int(*opts.Limit), maxSearchLimit)
		}
	}
	disc := sp.v.disc
	hits := disc.ix.Search(query, limit, func(id string) bool { _, ok := sp.tiers[id]; return ok })
	out := make([]searchHit, len(hits))
	for i, h := range hits {
		out[i] = searchHit{Name: sp.v.display(h.ID), Tier: sp.tiers[h.ID].String(), Summary: disc.summary[h.ID]}
	}
	return json.Marshal(out)
}

func (s *Server) describeCall(sp *toolSpec, args []json.RawMessage) (json.RawMessage, error) {
	const usage = `codemode.describe takes a function name or an array of names: codemode.describe(["getSessions"])`
	if len(args) != 1 {
		return nil, errors.New(usage)
	}
	var names []string
	if json.Unmarshal(args[0], &names) != nil {
		var one string
		if json.Unmarshal(args[0], &one) != nil {
			return nil, errors.New(usage)
		}
		names = []string{one}
	}
	if len(names) == 0 || len(names) > maxDescribeNames {
		return nil, fmt.Errorf("codemode.describe: give 1 to %d function names", maxDescribeNames)
	}
	text, err := s.describeFuncs(sp, names)
	if err != nil {
		return nil, err
	}
	return json.Marshal(text)
}

// describeFuncs returns the declarations of names as sp exposes them; a
// name sp does not bind is an error (unknownDescribed): a write the
// read-only tool leaves out is named as the full tool's, anything else
// as if it did not exist. A name is namespace.function, or just the
// function where that is unambiguous.
func (s *Server) describeFuncs(sp *toolSpec, names []string) (string, error) {
	var fns []boundFunc
	seen := map[string]bool{}
	for _, n := range names {
		q, ok := sp.resolve(n)
		if !ok {
			return "", errors.New(s.unknownDescribed(sp, n))
		}
		if !seen[q] {
			seen[q] = true
			fns = append(fns, sp.v.disc.info[q])
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].qualified() < fns[j].qualified() })
	return s.declarationsOf(sp.v, fns)
}

// resolve finds the qualified name sp binds for n: n itself, or the one
// function of that name when n is unqualified.
func (sp *toolSpec) resolve(n string) (string, bool) {
	if _, ok := sp.tiers[n]; ok {
		return n, true
	}
	found := ""
	for _, ns := range sp.v.namespaces {
		if _, ok := sp.tiers[ns+"."+n]; ok {
			if found != "" {
				return "", false // in two namespaces: say which
			}
			found = ns + "." + n
		}
	}
	return found, found != ""
}

// discoveryDeclarations declares the discovery namespace for the model.
func discoveryDeclarations(ns string) string {
	return fmt.Sprintf(`declare namespace %[1]s {
  /** Ranks the functions of %[2]s for a query in plain words (matched against names, summaries, field names and docs), best first. limit: default %[3]d, at most %[4]d. */
  function search(query: string, options?: { limit?: number }): Promise<{ name: string; tier: string; summary: string }[]>;
  /** The exact TypeScript declarations (signature, argument and result types, field docs, constraints) of the named functions, as text to read or return. */
  function describe(names: string | string[]): Promise<string>;
  /** Reports progress of long work to the client (done of total units, a short message); free, and ignored when the client did not ask for progress. */
  function progress(done: number, total?: number, message?: string): Promise<null>;
%[5]s
}`, DiscoveryNamespace, ns, defaultSearchLimit, maxSearchLimit, chartDeclaration)
}

// index lists fns for the index-mode description: one line per function
// with its summary, grouped by tier.
func (s *Server) index(v *view, fns []boundFunc) string {
	var b strings.Builder
	for _, t := range []catalog.Tier{catalog.ReadOnly, catalog.Mutating, catalog.Creative} {
		first := true
		for _, f := range fns {
			if f.Tier != t {
				continue
			}
			if first {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				b.WriteString(t.String() + ":\n")
				first = false
			}
			b.WriteString("- " + v.display(f.qualified()))
			if sum := v.disc.summary[f.qualified()]; sum != "" {
				b.WriteString(": " + sum)
			}
			if v.needsApproval(f) {
				b.WriteString(" " + typegen.ApprovalTag)
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// addFunctionResources adds the resource templates that serve one
// function of namespace ns per URI, for clients that browse resources: its
// TypeScript declarations ({name}.d.ts) and the JSON Schemas of its
// arguments and result ({name}.schema.json, from typegen, for clients and
// tools that validate with JSON Schema). They serve what execute_code
// binds in the view current when the resource is read.
func (s *Server) addFunctionResources(srv *mcp.Server, ns string) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "codemode://functions/" + ns + "/{name}.d.ts",
		Name:        ns + "-function",
		Title:       "TypeScript declarations of one " + ns + " function",
		Description: "The declarations of one function " + ToolName + " can call: its signature, argument and result types, field docs and constraints. {name} is the function name.",
		MIMEType:    "application/typescript",
	}, s.functionResource(ns, ".d.ts", "application/typescript", func(sp *toolSpec, q string) (string, error) {
		return s.describeFuncs(sp, []string{q})
	}))
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "codemode://functions/" + ns + "/{name}.schema.json",
		Name:        ns + "-function-schema",
		Title:       "JSON Schemas of one " + ns + " function",
		Description: "The JSON Schemas (draft 2020-12) of the arguments and the result of one function " + ToolName + " can call: {\"input\": …, \"output\": …}. {name} is the function name.",
		MIMEType:    "application/schema+json",
	}, s.functionResource(ns, ".schema.json", "application/schema+json", func(sp *toolSpec, q string) (string, error) {
		f := sp.v.disc.info[q].FuncInfo
		in, err := typegen.InputSchema(f)
		if err != nil {
			return "", err
		}
		out, err := typegen.OutputSchema(f)
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(struct {
			Input  json.RawMessage `json:"input"`
			Output json.RawMessage `json:"output"`
		}{in, out})
		return string(b), err
	}))
}

// functionResource serves codemode://functions/<ns>/<name><suffix> with
// render, for the functions execute_code binds.
func (s *Server) functionResource(ns, suffix, mime string, render func(sp *toolSpec, qualified string) (string, error)) mcp.ResourceHandler {
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
		sp := &s.current().all
		q := ns + "." + name
		if _, bound := sp.tiers[q]; !bound {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		text, err := render(sp, q)
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
	}
}
