// Package codemode exposes a catalog of typed Go functions to AI clients
// through one MCP tool, execute_code: the model writes a short TypeScript
// program against the catalog's namespace, and the server runs it in a
// sandbox under hard limits and returns what it logged and returned.
//
// A host builds a [catalog.Catalog], then
//
//	srv, err := codemode.New(cat, &codemode.Options{Auth: &codemode.Auth{…}})
//	defer srv.Close()
//	http.ListenAndServe(addr, srv.Handler())
//
// or serves a local client over stdio with [Server.ServeStdio].
//
// # The tool
//
// execute_code takes {"code": string}. Its description tells the model how
// to write code (top-level await, a final return, console.log, the limits,
// _validateOnly dry runs, what errors look like) and ends with the
// catalog's complete TypeScript declarations, which are also served as the
// resource codemode://types/<namespace>.d.ts. Its annotations follow the
// catalog's tiers: readOnlyHint only when every function is READ-ONLY,
// destructiveHint when any is MUTATING. [Options.ReadOnlyTool] adds a second
// tool, execute_readonly_code, bound to the READ-ONLY functions only and
// marked read-only, so a client can auto-approve queries while mutations
// still ask the user.
//
// A result's text holds the logs, then the return value as JSON; its
// structuredContent is {result, logs, calls}. A failed run is an isError
// result whose text starts with the error kind (SYNTAX, RUNTIME, TIMEOUT,
// MEMORY_LIMIT, CALL_LIMIT, CODE_TOO_LARGE, …), the line and column in the
// model's own TypeScript and the validation issues, followed by the logs
// made before the failure; structuredContent.error carries the same fields.
// When the client sent a progress token, each function call is reported as
// a progress notification ("brakinglab.getSessions (2/20)"). Cancelling the
// request (a 2026-07-28 client closing its HTTP request, or a stdio client
// sending notifications/cancelled) interrupts the execution.
//
// # Identity
//
// Each function call runs as the principal of the request: over HTTP the
// subject, client and scopes of the bearer token verified by [Auth], over
// stdio the principal given to ServeStdio. The catalog checks each
// function's scopes; a missing scope reaches the model as an error naming
// it.
//
// # HTTP
//
// [Server.Handler] serves Streamable HTTP (stateless by default, which
// serves the 2025-06-18, 2025-11-25 and 2026-07-28 revisions alike) behind
// CORS, a body limit, bearer authentication with RFC 6750 challenges and
// RFC 9728 metadata, and a per-principal rate limit; go-sdk's DNS-rebinding
// guard stays on unless [Options.DisableLocalhostProtection] is set for a
// tunnel.
//
// # Audit
//
// Every execution produces structured audit events (see [AuditEvent]):
// started, one per function call, then finished or failed, with a trace id,
// the principal, the function, its tier, durations, result sizes and error
// kinds. The code itself never appears, only its SHA-256; result data never
// appears; argument values are reduced to keys and sizes unless
// [Options.AuditArgs] says otherwise.
package codemode
