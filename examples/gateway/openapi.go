package main

// The configuration's "openapi" entries: HTTP APIs described by OpenAPI,
// served through openapisource beside the MCP servers.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/openapisource"
)

// OpenAPIConfig is one HTTP API. Values may use ${VAR} for the gateway's
// environment, headers above all: "Authorization": "Bearer ${GITHUB_TOKEN}".
type OpenAPIConfig struct {
	// Spec is the OpenAPI document (3.0, 3.1 or Swagger 2.0; JSON or
	// YAML): a file, relative to the configuration's directory, or an
	// http(s) URL read once at start. Required.
	Spec string `json:"spec"`
	// BaseURL is where every call goes; the document's servers are
	// never used. Required.
	BaseURL string `json:"baseUrl"`
	// Headers are added to every request (an API key, a token).
	Headers map[string]string `json:"headers,omitempty"`
	// Namespace is how scripts call the API; empty means the entry's
	// key converted as a server's is ("github-api" → github_api).
	Namespace string `json:"namespace,omitempty"`
	// MaxOperations raises openapisource's bound on the document's
	// operations (3,000 by default).
	MaxOperations int `json:"maxOperations,omitempty"`
}

// maxSpecBytes bounds a spec read from a URL.
const maxSpecBytes = 64 << 20

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// parseOpenAPI checks the "openapi" entries, whose namespaces must not
// clash with each other's or the servers' (byNS).
func parseOpenAPI(entries map[string]OpenAPIConfig, byNS map[string]string) ([]Upstream, error) {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Upstream
	for _, k := range keys {
		o := entries[k]
		ex := func(s string) string { return os.Expand(s, os.Getenv) }
		o.Spec, o.BaseURL = ex(o.Spec), ex(o.BaseURL)
		h := map[string]string{}
		for name, v := range o.Headers {
			h[name] = ex(v)
		}
		o.Headers = h
		for name, v := range o.Headers {
			if strings.ContainsAny(name+v, "\r\n\x00") || name == "" {
				return nil, fmt.Errorf("config: openapi %q: header %q: a name or value with a line break or NUL", k, name)
			}
		}
		switch {
		case o.Spec == "":
			return nil, fmt.Errorf("config: openapi %q has no spec: give a file or an http(s) URL of its OpenAPI document", k)
		case o.BaseURL == "":
			return nil, fmt.Errorf("config: openapi %q has no baseUrl: give the URL every call goes to", k)
		}
		ns := o.Namespace
		if ns == "" {
			ns = Namespace(k)
		} else if Namespace(ns) != ns {
			return nil, fmt.Errorf("config: openapi %q: namespace %q is not an identifier the gateway allows; try %q", k, ns, Namespace(ns))
		}
		if prev, dup := byNS[ns]; dup {
			return nil, fmt.Errorf("config: %q and openapi %q both become the namespace %s; rename one", prev, k, ns)
		}
		byNS[ns] = "openapi " + k
		out = append(out, Upstream{Key: k, Namespace: ns, OpenAPI: &o})
	}
	return out, nil
}

// openAPI reads the entry's document and registers its operations in cat.
func openAPI(ctx context.Context, cat *catalog.Catalog, u Upstream, opts *openapisource.Options) error {
	o := u.OpenAPI
	spec, err := readSpec(ctx, o.Spec)
	if err != nil {
		return fmt.Errorf("reading the spec %s: %w", o.Spec, err)
	}
	header := http.Header{}
	for k, v := range o.Headers {
		header.Set(k, v)
	}
	opts.BaseURL = o.BaseURL
	opts.MaxOperations = o.MaxOperations
	opts.Authorize = func(req *http.Request, _ *catalog.Principal) error {
		for k, vs := range header {
			req.Header[k] = vs
		}
		return nil
	}
	src, err := openapisource.New(spec, opts)
	if err != nil {
		return err
	}
	for _, s := range src.Skipped() {
		opts.Logger.Warn("gateway: operation left out", "api", u.Key, "operation", s.Operation, "reason", s.Reason)
	}
	return src.Register(cat)
}

// readSpec reads a file, or fetches a URL with a bound on time and size.
func readSpec(ctx context.Context, spec string) ([]byte, error) {
	if !isURL(spec) {
		return os.ReadFile(spec)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, spec, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxSpecBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSpecBytes {
		return nil, fmt.Errorf("larger than %d MiB", maxSpecBytes>>20)
	}
	return b, nil
}
