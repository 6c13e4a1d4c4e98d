package openapisource

// What a function's arguments are, and how they become a request: one
// member per path, query and header parameter, and "body" for a JSON
// request body.

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// BodyMember is the argument that holds a JSON request body.
const BodyMember = "body"

// param is one parameter of an operation, as the request needs it.
type param struct {
	name, in, style string
	explode         bool
	json            bool // serialised as JSON text (content: application/json)
}

// request is what a call of one operation needs, and its schemas.
type request struct {
	method, path  string
	params        []param
	bodyType      string // the media type of the body, "" for none
	accept        string
	input, output json.RawMessage
}

// ignoredHeaders are header parameters that OpenAPI says to ignore, or
// that the transport owns.
var ignoredHeaders = map[string]bool{"Accept": true, "Content-Type": true, "Authorization": true, "Host": true,
	"Content-Length": true, "Transfer-Encoding": true, "Connection": true, "Cookie": true}

// headerName is RFC 9110's token, what a header's name may be.
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// pathParam finds {name} in a path template.
var pathParam = regexp.MustCompile(`\{([^{}]+)\}`)

// newRequest reads an operation. reason says why it is left out ("" to
// keep it); err is a fault of the document.
func newRequest(method, path string, item *openapi3.PathItem, op *openapi3.Operation, conv *converter) (r *request, reason string, err error) {
	r = &request{method: method, path: path}
	// Parameters of the path item, overridden by the operation's.
	all := map[string]*openapi3.Parameter{}
	var order []string
	for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, pr := range ps {
			if pr == nil || pr.Value == nil {
				return nil, "", fmt.Errorf("a parameter $ref points nowhere")
			}
			p := pr.Value
			k := p.In + " " + p.Name
			if _, ok := all[k]; !ok {
				order = append(order, k)
			}
			all[k] = p
		}
	}
	obj := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Properties: openapi3.Schemas{}}
	descs := map[string]string{}
	inPath := map[string]bool{}
	for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
		inPath[m[1]] = true
	}
	for _, k := range order {
		p := all[k]
		switch p.In {
		case openapi3.ParameterInCookie:
			if p.Required {
				return nil, "required cookie parameter " + p.Name + " (cookies are not supported)", nil
			}
			continue
		case openapi3.ParameterInHeader:
			if ignoredHeaders[http.CanonicalHeaderKey(p.Name)] {
				continue
			}
			if !headerName.MatchString(p.Name) {
				return nil, "header parameter " + strconv.Quote(p.Name) + " is not a valid header name", nil
			}
		case openapi3.ParameterInPath:
			if !inPath[p.Name] {
				return nil, "", fmt.Errorf("path parameter %s is not in the path %s", p.Name, path)
			}
			delete(inPath, p.Name)
		case openapi3.ParameterInQuery:
		default:
			return nil, "", fmt.Errorf("parameter %s is in %q", p.Name, p.In)
		}
		if p.Name == BodyMember || p.Name == "_validateOnly" {
			return nil, "parameter named " + p.Name + ", which the function's arguments reserve", nil
		}
		if _, dup := obj.Properties[p.Name]; dup {
			return nil, "two parameters named " + p.Name + " (in different places)", nil
		}
		pp := param{name: p.Name, in: p.In, style: p.Style}
		if pp.style == "" {
			pp.style = map[string]string{"path": "simple", "query": "form", "header": "simple"}[p.In]
		}
		pp.explode = pp.style == "form"
		if p.Explode != nil {
			pp.explode = *p.Explode
		}
		schema := p.Schema
		if schema == nil {
			mt, ok := jsonMedia(p.Content)
			if !ok {
				return nil, "parameter " + p.Name + " has neither a schema nor JSON content", nil
			}
			schema, pp.json = p.Content[mt].Schema, true
		}
		switch pp.style {
		case "simple", "label", "matrix", "form", "spaceDelimited", "pipeDelimited", "deepObject":
		default:
			return nil, "parameter " + p.Name + " has the unknown style " + pp.style, nil
		}
		if schema == nil {
			schema = openapi3.NewSchemaRef("", &openapi3.Schema{})
		}
		obj.Properties[p.Name] = schema
		if p.Description != "" {
			descs[p.Name] = p.Description
		}
		if p.Required || p.In == openapi3.ParameterInPath {
			obj.Required = append(obj.Required, p.Name)
		}
		r.params = append(r.params, pp)
	}
	if len(inPath) > 0 {
		var missing []string
		for n := range inPath {
			missing = append(missing, n)
		}
		sort.Strings(missing)
		return nil, "", fmt.Errorf("path %s has {%s} but no parameter for it", path, strings.Join(missing, "}, {"))
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil && len(rb.Value.Content) > 0 {
		mt, ok := jsonMedia(rb.Value.Content)
		switch {
		case ok:
			r.bodyType = mt
			s := rb.Value.Content[mt].Schema
			if s == nil {
				s = openapi3.NewSchemaRef("", &openapi3.Schema{})
			}
			obj.Properties[BodyMember] = s
			if rb.Value.Description != "" {
				descs[BodyMember] = rb.Value.Description
			}
			if rb.Value.Required {
				obj.Required = append(obj.Required, BodyMember)
			}
		case rb.Value.Required:
			return nil, "request body only as " + strings.Join(mediaTypes(rb.Value.Content), ", ") + " (only JSON bodies are supported)", nil
		}
	}
	in, err := conv.root(openapi3.NewSchemaRef("", obj))
	if err == errSchemaTooLarge {
		return nil, "input schema too large (over Options.MaxSchemaNodes)", nil
	} else if err != nil {
		return nil, "", err
	}
	if props, ok := in["properties"].(map[string]any); ok {
		for n, d := range descs {
			if p, ok := props[n].(map[string]any); ok && p["description"] == nil {
				p["description"] = d
			}
		}
	}
	if r.input, err = json.Marshal(in); err != nil {
		return nil, "", err
	}
	r.accept = "application/json"
	if method == http.MethodHead {
		r.output = json.RawMessage(`{"type":"null"}`)
		return r, "", nil
	}
	if resp := success(op); resp != nil {
		if mt, ok := jsonMedia(resp.Content); ok {
			r.accept = mt
			if s := resp.Content[mt].Schema; s != nil {
				out, err := conv.root(s)
				if err == errSchemaTooLarge {
					return nil, "result schema too large (over Options.MaxSchemaNodes)", nil
				} else if err != nil {
					return nil, "", err
				}
				if r.output, err = json.Marshal(out); err != nil {
					return nil, "", err
				}
			}
		} else if len(resp.Content) == 0 {
			r.output = json.RawMessage(`{"type":"null"}`)
		}
	}
	return r, "", nil
}

// success returns the response of the lowest 2xx status, or 2XX.
func success(op *openapi3.Operation) *openapi3.Response {
	if op.Responses == nil {
		return nil
	}
	best := 0
	var out *openapi3.Response
	for code, rr := range op.Responses.Map() {
		n, err := strconv.Atoi(code)
		if code == "2XX" || code == "2xx" {
			n, err = 299, nil
		}
		if err != nil || n < 200 || n > 299 || rr == nil || rr.Value == nil {
			continue
		}
		if best == 0 || n < best {
			best, out = n, rr.Value
		}
	}
	return out
}

// jsonMedia returns the JSON media type of content: application/json, or
// any type with a +json suffix, or "" when it has none.
func jsonMedia(content openapi3.Content) (string, bool) {
	var found []string
	for mt := range content {
		base, _, err := mime.ParseMediaType(mt)
		if err != nil {
			continue
		}
		if base == "application/json" || strings.HasSuffix(base, "+json") {
			found = append(found, mt)
		}
	}
	if len(found) == 0 {
		return "", false
	}
	sort.Strings(found) // application/json before vendor types
	for _, mt := range found {
		if strings.HasPrefix(mt, "application/json") {
			return mt, true
		}
	}
	return found[0], true
}

func mediaTypes(content openapi3.Content) []string {
	var l []string
	for mt := range content {
		l = append(l, mt)
	}
	sort.Strings(l)
	return l
}
