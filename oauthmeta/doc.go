// Package oauthmeta makes an MCP server an OAuth 2.1 protected resource that
// Claude, ChatGPT and the official SDK clients can discover without manual
// configuration: it builds, checks, serves and fetches the discovery
// documents.
//
// Most services start with package codemode, which builds on this one (see
// its documentation); use this package directly for finer control.
//
// It serves RFC 9728 protected-resource metadata and, for a service that is
// its own authorization server, RFC 8414 authorization-server metadata
// ([Mount]), and fetches and caches an issuer's metadata
// ([FetchIssuerMetadata], [MetadataCache]). Verifying access tokens and
// admitting requests that carry them is the job of the sub-package
// oauthmeta/bearer, as go-sdk keeps oauthex (metadata) apart from auth
// (bearer tokens).
//
// It builds on go-sdk's oauthex package for the metadata types and the
// protected-resource metadata handler.
package oauthmeta
