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
// or serves a local client over stdio with [Server.ServeStdio]. This package
// is where to start; catalog, sandbox, oauthmeta and typegen are its parts.
//
// # Fail fast
//
// New refuses settings that would otherwise only show when traffic
// arrives: neither Auth nor Principal ([ErrNoIdentity]; a stdio-only
// server sets Principal to its local user), both, an Auth whose verifier
// requires another audience or issuer than Auth.Resource and
// Auth.AuthorizationServers say (a trailing slash counts), and, in the
// default worker mode, a binary that cannot run as a sandbox worker. Workers
// re-execute the host binary with an empty environment, so a package
// initialiser that needs the host's environment (var dbURL =
// mustEnv("DATABASE_URL")) kills every worker: New starts one worker and
// fails with [ErrWorkerStart], quoting its stderr. Move such side effects
// into main, or build a separate worker binary and set
// [SandboxOptions.WorkerPath]. catalog.Add likewise refuses a function without a
// Tier. Without Auth, [Options.Principal] serves loopback peers only;
// others get 403 unless [Options.InsecureRemotePrincipal] is set.
//
// # The tool
//
// execute_code takes {"code": string}. Its description tells the model how
// to write code (top-level await, a final return, console.log, the limits,
// _validateOnly dry runs, what errors look like) and ends with the
// catalog's complete TypeScript declarations, which are also served as the
// resource codemode://types/<namespace>.d.ts.
//
// # Discovery
//
// A large catalog does not fit a description. [Options.Discovery] chooses
// between the full declarations ([DiscoveryFull]) and an index
// ([DiscoveryIndex]: the rules once and one line per function); the
// default, [DiscoveryAuto], is full while the description costs at most
// [Options.DiscoveryBudget] tokens and the index above. In every mode a
// script can look functions up and then call them in the same execution:
//
//	const hits = await codemode.search("braking consistency", { limit: 5 });
//	console.log(await codemode.describe([hits[0].name]));
//
// search ranks functions by name, summary and field names and docs
// (BM25F); describe returns their exact TypeScript declarations. These
// lookups are free (not host calls, no scope needed) and show only what
// the tool can call. Each function's declarations are also a resource,
// codemode://functions/<namespace>/{name}.d.ts, and the JSON Schemas of its
// arguments and result another, codemode://functions/<namespace>/{name}.schema.json
// (typegen.InputSchema and OutputSchema). Its annotations follow the
// catalog's tiers: readOnlyHint only when every function is READ-ONLY,
// destructiveHint when any is MUTATING. [Options.ReadOnlyTool] adds a second
// tool, execute_readonly_code, bound to the READ-ONLY functions only and
// marked read-only, so a client can auto-approve queries while mutations
// still ask the user.
//
// A result's text holds the calls that failed (the script caught their
// errors: function, line, first error), the warnings and the logs, then
// the return value as JSON; its structuredContent is {result, logs, calls}.
// A failed run is an isError result whose text starts with the error kind
// (SYNTAX, RUNTIME, TIMEOUT, MEMORY_LIMIT, CALL_LIMIT, CODE_TOO_LARGE, …),
// the line and column in the model's own TypeScript and the validation
// issues, followed by the other calls that failed, the warnings and the
// logs made before the failure; structuredContent.error carries the same
// fields.
// When the client sent a progress token, each function call is reported as
// a progress notification ("brakinglab.getSessions (2/20)").
//
// # Cancellation
//
// Cancelling a call interrupts its execution: the sandbox stops the script
// and the host function's context ends, and the call fails with CANCELLED.
// A 2026-07-28 client cancels by closing its HTTP request. A 2025-06-18 or
// 2025-11-25 client, like a stdio client, sends notifications/cancelled
// naming the request id. A stateful HTTP session delivers it to the session
// that runs the call; in the default stateless mode the notification's POST
// is served apart from the call's, so the handler keeps a registry of the
// tools/call requests in flight keyed by (principal, request id), and the
// notification cancels the call of the same principal with that id: the
// same token subject through the same OAuth client, or without
// authentication the same client address. Another user's notification, or
// one that two in-flight calls of the same principal match, cancels
// nothing. An entry lives as long as the call's HTTP request. The call's
// POST is still answered, with the CANCELLED result: the specification
// says a receiver should not answer a cancelled request, but go-sdk
// answers every request, an open POST must end somehow, and the same
// specification tells the client to ignore a response to a request it
// cancelled. A batch (2025-03-26) is not tracked. With more than one
// replica, set [SharedState.Cancellations] (package codemode/pgstate) so that
// the notification reaches the replica that runs the call.
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
// [Server.Handler] serves Streamable HTTP on one endpoint for every
// revision: a client before 2026-07-28 that declares elicitation (or the
// MCP Apps extension) at initialize gets a session, so the server can ask
// it during a call; every other request, 2026-07-28 included, is served
// statelessly (see [HTTPOptions.Stateful], [HTTPOptions.Stateless] and, behind
// several replicas, [HTTPOptions.SessionIDPrefix]). A session belongs to the
// principal that opened it. [Server.StreamableHTTPHandler] builds the same
// endpoint for a host's own server. It sits behind
// CORS, a body limit, a per-IP limit on failed authentication (checked
// before the token, so a flood of bad tokens stops reaching the verifier),
// bearer authentication with RFC 6750 challenges and RFC 9728 metadata,
// and a per-principal limit on executions (each tools/call costs one
// token; see [RateLimitOptions.RatePerSecond]); go-sdk's DNS-rebinding
// guard stays on unless [HTTPOptions.DisableLocalhostProtection] is set for a
// tunnel. The limiters and the cancellation registry are interfaces
// (RateLimiter, FailureLimiter and Cancellations of package
// [github.com/brakinglab/codemode-go/codemode/state]) so that replicas can
// share them.
//
// # Approvals
//
// A function can require the user's approval of each call
// (catalog.Func.Approval, or a tier default in [Options.Approvals]). Such a
// call without an approval is validated as a dry run, nothing is written,
// and the execution stops; the calls issued with it form one batch. The
// server asks the user through MCP elicitation, naming the client, each
// function, its tier and its validated arguments: on 2026-07-28 with an
// input-required result whose request state is the batch, sealed and bound
// to the principal, the tool, the code's hash and an expiry (nothing is
// kept on the server); on earlier revisions with elicitation/create, which
// needs a session (the HTTP endpoint opens one for a client that declares
// elicitation; over stdio the connection is one). On accept the execution
// resumes: the code runs again with its earlier host calls answered from
// their record and its clock and Math.random replayed, so no write runs
// twice; the approved function's further calls in the execution run too
// (approval.Options.PerCall asks for each). A resumed run that differs from
// its record ends in APPROVAL_DIVERGED. Declined, cancelled, unavailable
// and invalid approvals reach the model as APPROVAL_DECLINED,
// APPROVAL_CANCELLED, APPROVAL_UNAVAILABLE and APPROVAL_INVALID; every
// outcome lists the writes the execution made. A sealed state is spent
// once (approval.Options.Spent). The model knows beforehand: the
// declarations, the index and codemode.describe tag exactly these
// functions @approval, and the rule is stated once.
//
// Package [github.com/brakinglab/codemode-go/approval] holds all of this:
// the policy, the questions and outcome texts, the record and replay, the
// sealed states and the approval page; this package only wires it in.
//
// # Audit
//
// Every execution produces structured audit events (see [AuditEvent]):
// started, one per function call (and one per call asked about, granted,
// declined or diverged from an approval), then finished or failed, with a trace id,
// the principal, the function, its tier, durations, result sizes and error
// kinds. The code itself never appears, only its SHA-256; result data never
// appears; argument values are reduced to keys and sizes unless
// [AuditOptions.Args] says otherwise. With Options.Saved, each save,
// publication and removal of a saved function is an event too
// ([FunctionSaved] and the others), naming its version and code hash.
// [NoAudit] turns auditing off. The JSON form of an event and the slog
// sink use the same field names.
//
// # Errors the model reads
//
// An uncaught error from a host function keeps its code (not_found,
// conflict, invalid, insufficient_scope…): it is a property of the
// JavaScript error inside the script, a "code:" line in the result's text,
// and structuredContent.error.code.
package codemode
