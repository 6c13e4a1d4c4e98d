package codemode

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/brakinglab/codemode-go/oauthmeta"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
)

// Auth configures OAuth bearer-token authentication of the HTTP endpoint:
// the token check (bearer.RequireBearer: RFC 6750 challenges, go-sdk
// TokenInfo plumbing) and the RFC 9728 protected-resource metadata clients
// use to find the authorization server.
type Auth struct {
	// Verifier checks access tokens: jwtverify.New(issuer, Resource, nil)
	// for JWTs (module github.com/brakinglab/codemode-go/oauthmeta/jwtverify),
	// bearer.NewIntrospectionVerifier for opaque tokens, or your own.
	// Required.
	Verifier bearer.Verifier
	// Resource is the canonical URI of the MCP endpoint as clients reach
	// it, e.g. "https://coach.example/mcp": the audience tokens must carry.
	// Its path is normally Options.HTTP.MCPPath (unless a proxy strips a
	// prefix); the metadata is served at the well-known path derived from
	// it. Required.
	Resource string
	// AuthorizationServers are the issuer URLs advertised in the metadata.
	// Required (at least one).
	AuthorizationServers []string
	// Scopes are required of every request. The challenge to a request
	// without a token suggests ScopesSupported, so a client asks for
	// everything the catalog may need in one authorization.
	// Functions' own scopes are checked per call on top of these.
	Scopes []string
	// ScopesSupported is advertised in the metadata. Default: Scopes plus
	// every scope a catalog function requires.
	ScopesSupported []string
	// ResourceName is the human-readable name in the metadata. Default:
	// Options.Title, else Options.Name.
	ResourceName string
	// AuthServer, when the service is its own authorization server, is
	// its RFC 8414 metadata, served at the well-known location for its
	// issuer. The authorization server's own endpoints are the host's to
	// mount.
	AuthServer *oauthex.AuthServerMeta
}

func (a *Auth) check() error {
	if a.Verifier == nil {
		return errors.New("Auth.Verifier is required")
	}
	if len(a.AuthorizationServers) == 0 {
		return errors.New("Auth.AuthorizationServers needs at least one issuer URL")
	}
	_, err := oauthmeta.ResourceMetadataURL(a.Resource)
	return err
}
