package oauthmeta

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta/internal/fetch"
)

// AuthServerMetadataHandler serves meta as RFC 8414 authorization-server
// metadata, for a service that is its own authorization server. Like
// go-sdk's [auth.ProtectedResourceMetadataHandler] it answers GET and CORS
// preflights from any origin, since the document is public. Check meta
// with [CheckAuthServerMeta] first ([Mount] does).
func AuthServerMetadataHandler(meta *oauthex.AuthServerMeta) http.Handler {
	body, err := json.Marshal(meta)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Mcp-Protocol-Version")
		switch r.Method {
		case http.MethodOptions:
			w.WriteHeader(http.StatusNoContent)
			return
		case http.MethodGet, http.MethodHead:
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if err != nil || meta == nil {
			http.Error(w, "authorization server metadata unavailable", http.StatusInternalServerError)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(body)
	})
}

// CheckAuthServerMeta reports what is missing or unsafe in meta for MCP
// clients: the RFC 8414 required fields, https (or loopback) endpoints,
// "code" among the response types, and PKCE S256, without which MCP clients
// refuse to continue.
func CheckAuthServerMeta(meta *oauthex.AuthServerMeta) error {
	if meta == nil {
		return errors.New("authorization server metadata is nil")
	}
	if _, err := fetch.CheckIssuer(meta.Issuer); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{
		{"authorization_endpoint", meta.AuthorizationEndpoint},
		{"token_endpoint", meta.TokenEndpoint},
	} {
		if f.v == "" {
			return fmt.Errorf("%s is required", f.name)
		}
		if err := fetch.CheckHTTPSOrLoopback(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	for _, f := range []struct{ name, v string }{
		{"jwks_uri", meta.JWKSURI},
		{"registration_endpoint", meta.RegistrationEndpoint},
		{"revocation_endpoint", meta.RevocationEndpoint},
		{"introspection_endpoint", meta.IntrospectionEndpoint},
		{"service_documentation", meta.ServiceDocumentation},
	} {
		if f.v == "" {
			continue
		}
		if err := fetch.CheckHTTPSOrLoopback(f.v); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if !slices.Contains(meta.ResponseTypesSupported, "code") {
		return errors.New(`response_types_supported must include "code"`)
	}
	if !slices.Contains(meta.CodeChallengeMethodsSupported, "S256") {
		return errors.New(`code_challenge_methods_supported must include "S256": MCP clients require PKCE`)
	}
	return nil
}

// Mount registers the well-known routes on mux: the RFC 9728 metadata prm
// at ProtectedResourcePath and at its path-inserted form for prm.Resource,
// and, when asm is not nil (the service is its own authorization server),
// asm at the RFC 8414 location(s) for its issuer. Both documents are
// checked first; a route that clashes with one already on mux is reported
// as an error, and then nothing has been registered.
func Mount(mux *http.ServeMux, prm *oauthex.ProtectedResourceMetadata, asm *oauthex.AuthServerMeta) (err error) {
	if mux == nil {
		return errors.New("mux is nil")
	}
	if err := checkResourceMetadata(prm); err != nil {
		return err
	}
	routes := map[string]http.Handler{}
	prmHandler := auth.ProtectedResourceMetadataHandler(prm)
	for _, p := range protectedResourcePaths(prm.Resource) {
		routes[p] = prmHandler
	}
	if asm != nil {
		if err := CheckAuthServerMeta(asm); err != nil {
			return err
		}
		h := AuthServerMetadataHandler(asm)
		for _, p := range authServerPaths(asm.Issuer) {
			routes[p] = h
		}
	}
	// ServeMux panics on a conflicting pattern. Refuse a path that is
	// already routed explicitly before registering anything, so that mux is
	// left untouched in the common case; recover from the exotic rest.
	for p := range routes {
		_, pattern := mux.Handler(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: p}})
		if _, path, ok := strings.Cut(pattern, "/"); ok && "/"+path == p {
			return fmt.Errorf("route %s is already registered", p)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("registering well-known routes: %v", r)
		}
	}()
	for _, p := range slices.Sorted(maps.Keys(routes)) {
		mux.Handle(p, routes[p])
	}
	return nil
}
