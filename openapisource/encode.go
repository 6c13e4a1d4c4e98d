package openapisource

// Parameter serialisation (OpenAPI's style and explode), with every value
// escaped so that no argument can change the URL's host, scheme or path
// prefix, or add a header.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
)

// build makes the request for args, checked by the catalogue against the
// input schema. A value that cannot be sent safely is a validation error
// naming the argument.
func (r *request) build(base *url.URL, raw json.RawMessage) (*http.Request, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, err
	}
	bad := func(name, msg string) error {
		return &catalog.ValidationError{Issues: []catalog.Issue{{Path: []any{name}, Message: msg}}}
	}
	path := r.path
	var rawQuery []string // deepObject and delimited pairs, already escaped
	header := http.Header{}
	for _, p := range r.params {
		v, ok := args[p.name]
		if !ok || v == nil {
			continue
		}
		if p.json {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			v = string(b)
		}
		switch p.in {
		case "path":
			s, ok := pathValue(p, v)
			if !ok {
				return nil, bad(p.name, "must not be empty, \".\" or \"..\": it is a segment of the URL's path")
			}
			path = strings.Replace(path, "{"+p.name+"}", s, 1)
		case "query":
			rawQuery = append(rawQuery, queryPairs(p, v)...)
		case "header":
			s := join(scalarsOf(v, p.explode), ",")
			if strings.ContainsAny(s, "\r\n\x00") {
				return nil, bad(p.name, "must not contain line breaks or NUL: it is sent as a header")
			}
			header.Set(p.name, s)
		}
	}
	u := *base
	u.RawPath = base.EscapedPath() + path
	var err error
	if u.Path, err = url.PathUnescape(u.RawPath); err != nil {
		return nil, err
	}
	u.RawQuery = strings.Join(rawQuery, "&")
	if !within(base, &u) {
		// Unreachable with escaped values; kept as the last guard.
		return nil, bad("", "the arguments would leave the API's base URL")
	}
	var body *bytes.Reader
	if b, ok := args[BodyMember]; ok && r.bodyType != "" {
		buf, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(buf)
	}
	var req *http.Request
	if body != nil {
		req, err = http.NewRequest(r.method, u.String(), body)
	} else {
		req, err = http.NewRequest(r.method, u.String(), nil)
	}
	if err != nil {
		return nil, err
	}
	req.Header = header
	if body != nil {
		req.Header.Set("Content-Type", r.bodyType)
	}
	req.Header.Set("Accept", r.accept)
	return req, nil
}

// escape percent-encodes everything but RFC 3986's unreserved
// characters, so a value is always data: "/", "?", "#", "%", ";", ","
// and "=" included.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// scalar writes a primitive as text; anything else as JSON.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// scalarsOf flattens a value for the simple and form styles: a primitive
// is one item; an array its items; an object its keys and values
// (k,v,k,v) or, exploded, k=v items. Items are not escaped.
func scalarsOf(v any, explode bool) []string {
	switch x := v.(type) {
	case []any:
		l := make([]string, len(x))
		for i, e := range x {
			l[i] = scalar(e)
		}
		return l
	case map[string]any:
		var l []string
		for _, k := range sortedKeys(x) {
			if explode {
				l = append(l, k+"="+scalar(x[k]))
			} else {
				l = append(l, k, scalar(x[k]))
			}
		}
		return l
	}
	return []string{scalar(v)}
}

func join(l []string, sep string) string { return strings.Join(l, sep) }

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// pathValue serialises a path parameter (styles simple, label, matrix).
// ok is false for a value that would be an empty, "." or ".." segment.
func pathValue(p param, v any) (string, bool) {
	if s, isStr := v.(string); isStr && (s == "" || s == "." || s == "..") {
		return "", false
	}
	name := escape(p.name)
	var parts []string // escaped items
	obj, isObj := v.(map[string]any)
	switch {
	case isObj && p.explode:
		for _, k := range sortedKeys(obj) {
			parts = append(parts, escape(k)+"="+escape(scalar(obj[k])))
		}
	default:
		for _, s := range scalarsOf(v, false) {
			parts = append(parts, escape(s))
		}
	}
	_, isArr := v.([]any)
	var out string
	switch p.style {
	case "label":
		sep := ","
		if p.explode {
			sep = "."
		}
		out = "." + strings.Join(parts, sep)
	case "matrix":
		switch {
		case isArr && p.explode:
			for _, s := range parts {
				out += ";" + name + "=" + s
			}
		case isObj && p.explode:
			out = ";" + strings.Join(parts, ";")
		default:
			out = ";" + name + "=" + strings.Join(parts, ",")
		}
	default: // simple
		out = strings.Join(parts, ",")
	}
	if out == "" || out == "." || out == ".." {
		return "", false
	}
	return out, true
}

// queryPairs serialises a query parameter (styles form, spaceDelimited,
// pipeDelimited, deepObject) as escaped name=value pairs.
func queryPairs(p param, v any) []string {
	name := escape(p.name)
	obj, isObj := v.(map[string]any)
	arr, isArr := v.([]any)
	var out []string
	switch {
	case p.style == "deepObject" && isObj:
		for _, k := range sortedKeys(obj) {
			out = append(out, name+"%5B"+escape(k)+"%5D="+escape(scalar(obj[k])))
		}
	case isArr && p.explode:
		for _, e := range arr {
			out = append(out, name+"="+escape(scalar(e)))
		}
	case isObj && p.explode:
		for _, k := range sortedKeys(obj) {
			out = append(out, escape(k)+"="+escape(scalar(obj[k])))
		}
	default:
		sep := ","
		switch p.style {
		case "spaceDelimited":
			sep = "%20"
		case "pipeDelimited":
			sep = "%7C"
		}
		items := scalarsOf(v, false)
		for i, s := range items {
			items[i] = escape(s)
		}
		out = append(out, name+"="+strings.Join(items, sep))
	}
	return out
}
