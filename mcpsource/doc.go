// Package mcpsource turns MCP tools into catalogue functions: the tools a
// go-sdk server already has ([AddTool]), and the tools of MCP servers the
// host runs but does not own ([Connect]), reached over stdio, Streamable
// HTTP or in process. Both go through one path, a *mcp.ClientSession or a
// go-sdk handler adapted to a [catalog.SchemaFunc], so the functions get
// what typed ones get: validation against the tool's input schema, tiers,
// scopes, approvals, audit, declarations and discovery.
//
// Names. A tool name that is a valid JavaScript identifier is the
// function's name as it is; any other is converted by [FuncName]
// ("get-notes" → "get_notes"). [ToolConfig.Name] overrides it. Two tools
// whose names collide after conversion are an error for AddTool, and for
// Connect leave the second tool out (see [Upstream.Skipped]).
//
// Tiers. [TierOf] reads the tool's annotations, with the MCP
// specification's defaults for the hints a tool leaves out (readOnlyHint
// false, destructiveHint true): readOnlyHint true gives READ-ONLY;
// destructiveHint false gives CREATIVE, which decodes strictly and accepts
// dry runs; anything else, a tool without annotations included, gives
// MUTATING with every call approved by the user, so a tool that says
// nothing about itself never writes without asking. A host that trusts a
// server's tools says so: per tool with [ToolConfig.Tier] and
// [ToolConfig.Approval], and for an upstream's tools that do not say
// whether they are destructive with [Options.UnannotatedTier] and
// [Options.UnannotatedApproval].
//
// Requests. A go-sdk handler gets a real *mcp.CallToolRequest: its Params
// name the tool and carry the validated arguments; its Session and Extra
// (token info, headers) are those of the request carried by the call's
// context ([WithRequest]), which codemode sets to each execute_code
// request. An upstream never sees that request: its session is the
// upstream's own, authenticated by what the host configured, and a user's
// token is never passed through.
//
// Results. A successful call returns, in order of preference, the typed
// output of a go-sdk handler (when Out is not any), the result's
// structuredContent, or its content as values: a text block is a string,
// an image or audio block {type, mimeType, data} with data in base64, a
// resource link {type: "resource_link", uri, name, mimeType}, an embedded
// resource {type: "resource", uri, mimeType, text or blob}; one block is
// its value, several an array, none null. A tool's outputSchema types the
// return value in declarations; a tool without one is declared with what
// its content becomes, string | ContentBlock | (string | ContentBlock)[] |
// null, ContentBlock being the object of a block other than text.
//
// Errors. A handler's error and an isError result reach the model as the
// tool's own text, as a [catalog.Error] with code [catalog.CodeToolError].
// An upstream that exits, does not answer within [Options.CallTimeout],
// is busy with [Options.MaxConcurrent] calls, answers with something that
// is not MCP or with more than [Options.MaxResultBytes], fails that call
// with code [catalog.CodeUpstream] and a message saying which and whether
// to retry; the cause is logged. A tool that may write (not READ-ONLY)
// is never told to retry once its call was sent: a lost or unusable
// answer, or an execution that ends while the call is in flight, fails
// it with [catalog.CodeOutcomeUnknown] and a message saying the call may
// have taken effect and to check before calling again, so a model does
// not make the change twice. A refusal (a JSON-RPC error) stays
// CodeUpstream: nothing ran. A server that exits is restarted with
// backoff, and its tools re-listed. notifications/tools/list_changed
// re-lists the tools too: functions gone or changed are removed, new ones
// added, and the catalogue's Version changes. A tool whose schema the
// catalogue cannot compile is left out, logged and reported by
// [Upstream.Skipped]; the server's other tools are still served.
//
// A server cannot make its host do unbounded work: its schemas are
// bounded by the catalogue (size, depth, recursion), at most
// Options.MaxTools tools are registered, a listing reads at most
// MaxListPages pages and MaxListBytes of JSON, and re-listing after
// list_changed is debounced (ListChangedDelay) and rate-limited
// (MinListInterval). A tool nested deeper than go-sdk reads is cut out
// of the list (and Skipped) rather than failing it, over stdio and
// Streamable HTTP; over stdio, list_changed notifications are handled
// before go-sdk's dispatch.
//
// This package imports catalog and go-sdk, never codemode or sandbox.
package mcpsource
