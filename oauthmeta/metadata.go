package oauthmeta

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta/internal/fetch"
)

// Well-known path prefixes (RFC 9728 §3, RFC 8414 §3, OpenID Discovery §4).
const (
	ProtectedResourcePath   = "/.well-known/oauth-protected-resource"
	AuthorizationServerPath = "/.well-known/oauth-authorization-server"
	OpenIDConfigurationPath = "/.well-known/openid-configuration"
)

// ResourceConfig describes this server as an OAuth 2.0 protected resource.
type ResourceConfig struct {
	// Resource is the canonical URI of the MCP endpoint, e.g.
	// "https://coach.example.com/mcp": the audience tokens must carry.
	// Required; https, or http on loopback.
	Resource string
	// AuthorizationServers lists the issuer identifiers whose tokens are
	// accepted. Required: MCP clients give up when it is empty.
	AuthorizationServers []string
	// ScopesSupported lists the scopes clients may request.
	ScopesSupported []string
	// ResourceName is a human-readable name shown on consent screens.
	ResourceName string
	// ResourceDocumentation is the URL of documentation for developers.
	ResourceDocumentation string
}

// NewResourceMetadata validates cfg and returns the RFC 9728 document to
// serve. Bearer tokens are advertised as accepted in the header only.
func NewResourceMetadata(cfg ResourceConfig) (*oauthex.ProtectedResourceMetadata, error) {
	prm := &oauthex.ProtectedResourceMetadata{
		Resource:               cfg.Resource,
		AuthorizationServers:   slices.Clone(cfg.AuthorizationServers),
		ScopesSupported:        slices.Clone(cfg.ScopesSupported),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           cfg.ResourceName,
		ResourceDocumentation:  cfg.ResourceDocumentation,
	}
	if err := checkResourceMetadata(prm); err != nil {
		return nil, err
	}
	return prm, nil
}

func checkResourceMetadata(prm *oauthex.ProtectedResourceMetadata) error {
	if prm == nil {
		return errors.New("protected resource metadata is nil")
	}
	if err := fetch.CheckResource(prm.Resource); err != nil {
		return err
	}
	if len(prm.AuthorizationServers) == 0 {
		return errors.New("authorization_servers is empty: name at least one issuer")
	}
	for i, as := range prm.AuthorizationServers {
		if _, err := fetch.CheckIssuer(as); err != nil {
			return fmt.Errorf("authorization_servers[%d]: %w", i, err)
		}
	}
	if prm.ResourceDocumentation != "" {
		if err := fetch.CheckHTTPSOrLoopback(prm.ResourceDocumentation); err != nil {
			return fmt.Errorf("resource_documentation: %w", err)
		}
	}
	for _, s := range prm.ScopesSupported {
		if s == "" || strings.ContainsAny(s, " \"\\") {
			return fmt.Errorf("scope %q is not a valid scope token", s)
		}
	}
	return nil
}

// ResourceMetadataURL returns where the metadata for resource is served:
// the well-known prefix inserted before the resource's path, e.g.
// "https://x/mcp" → "https://x/.well-known/oauth-protected-resource/mcp".
// This is the URL to put in [BearerOptions.ResourceMetadataURL].
func ResourceMetadataURL(resource string) (string, error) {
	if err := fetch.CheckResource(resource); err != nil {
		return "", err
	}
	u, _ := url.Parse(resource)
	u.Path = ProtectedResourcePath + strings.TrimSuffix(u.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String(), nil
}

// protectedResourcePaths lists the paths serving resource's metadata: the
// path-inserted form clients try first, and the root form.
func protectedResourcePaths(resource string) []string {
	u, err := url.Parse(resource)
	if err != nil {
		return nil
	}
	paths := []string{ProtectedResourcePath}
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		paths = append([]string{ProtectedResourcePath + p}, paths...)
	}
	return paths
}

// authServerPaths lists the paths serving issuer's RFC 8414 metadata: the
// path-inserted form (RFC 8414 §3.1) and, for an issuer with a path, the
// path-appended form some clients still request.
func authServerPaths(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" {
		return []string{AuthorizationServerPath}
	}
	return []string{AuthorizationServerPath + p, p + AuthorizationServerPath}
}
