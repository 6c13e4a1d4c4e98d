// Package openapisource turns the operations of an OpenAPI document into
// catalogue functions ([catalog.SchemaFunc]), so that an HTTP API gets
// what typed functions get: validation against the operation's schemas,
// tiers, scopes, approvals, audit, declarations and discovery.
//
// Library. Documents are read with github.com/getkin/kin-openapi rather
// than libopenapi: it reads OpenAPI 3.0 and 3.1 (type arrays, const,
// $defs, boolean schemas, numeric exclusive bounds), converts Swagger
// 2.0 to 3.0 (openapi2conv; libopenapi has a separate 2.0 model and no
// conversion, so every 2.0 construct would need its own code here),
// keeps $ref cycles as references, never follows external references
// when told not to, and decodes JSON into plain Go structs, which New
// does on every core for a large document; libopenapi builds a YAML
// node tree beside its model, which costs memory on a 13 MB
// description like GitHub's. [New] refuses a JSON document nested more
// than 200 levels deep before decoding it, as decoding nested schemas
// costs the square of their depth.
//
// Functions. [New] reads the document (JSON or YAML) and makes one
// function per operation. Its arguments are one object: a member per
// path, query and header parameter, named as the parameter is, and
// [BodyMember] ("body") for a JSON request body. Components become the
// schema's $defs, so recursive schemas stay recursive; nullable, enum,
// oneOf, anyOf and allOf are translated to JSON Schema. The success
// response (the lowest 2xx) types the result when it has a JSON schema.
// What cannot be expressed is left out with a reason ([Source.Skipped]):
// a required request body that is not JSON (multipart, form, XML), a
// required cookie parameter, a parameter named "body", a schema past
// [Options.MaxSchemaNodes], OPTIONS and TRACE. Optional cookie
// parameters and non-JSON optional bodies are omitted; header parameters
// that OpenAPI ignores (Accept, Content-Type, Authorization) are too.
//
// Names. A function is named by [FuncName]: the operationId with every
// run of characters that cannot be in an identifier turned into one
// underscore ("pulls/list" → "pulls_list"); without one, the method and
// path. Two operations with the same name are an error
// ([ErrNameCollision]); [Options.Operations] renames one.
//
// Tiers. [TierOf] gives the method's tier: GET and HEAD READ-ONLY; POST
// CREATIVE; PUT, PATCH and DELETE MUTATING with every call approved by
// the user. An operation's "x-codemode-tier" extension ("read-only",
// "creative", "mutating") and "x-codemode-approval" ("required",
// "not-required") change it, and [Options.Operations] overrides both.
//
// Requests. Every request goes to [Options.BaseURL], whose path prefixes
// the operation's; the document's servers are ignored. Each parameter
// value is serialised by its style and explode (simple, label, matrix,
// form, spaceDelimited, pipeDelimited, deepObject) with every character
// but RFC 3986's unreserved ones percent-encoded, "/" included, so no
// argument can change the scheme, host or path prefix; a path value that
// is empty, "." or ".." and a header value with a line break or NUL are
// refused as validation errors. Redirects are followed only to the same
// scheme and host under the base path. The host's [Options.HTTPClient]
// sends the request and [Options.Authorize] adds the calling principal's
// credentials; nothing of the execute_code request (its bearer token
// included) is forwarded. Each call is bounded by [Options.Timeout] and
// its answer by [Options.MaxResponseBytes].
//
// A JSON body is sent as the catalogue passes it on, which drops optional
// members given null at every level: a PATCH cannot send null to clear a
// field.
//
// Results. A 2xx answer's JSON body is the result; a text body is a
// string; other content is {contentType, base64}; an empty body is null.
//
// Errors. A request is sent once: nothing is retried, and Go's transport
// replays only bodiless GET and HEAD requests on a stale connection. A
// 4xx answer reaches the model as the API's own message (its message,
// error, detail or title member, or its text), cut to
// [Options.MaxErrorBytes], with code not_found (404, 410), conflict (409,
// 412), invalid (400, 422) or tool_error; a 429 adds when to retry
// (Retry-After). A read that fails with a 5xx, a timeout, a lost
// connection, an oversized or malformed answer fails with
// [catalog.CodeUpstream] and says whether to retry (not after 501 or
// 505; after Retry-After when given). A function that
// may write (not READ-ONLY) is never told to retry once its request may
// have left: a 5xx, a redirect it did not follow, a lost or unusable
// answer, or an execution that ends while the call is in flight fails it
// with [catalog.CodeOutcomeUnknown] and a message saying it may have
// taken effect and to check before calling again, as mcpsource does. A
// connection that could not be made is CodeUpstream: nothing was sent.
//
// This package is a module of its own, so that kin-openapi stays out of
// the module graph of a service that does not use it. It imports catalog
// and kin-openapi, never codemode or sandbox.
package openapisource
