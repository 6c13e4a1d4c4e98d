// Package approval makes calls wait for the user's approval: which calls
// need it, how the user is asked, how the execution resumes once the
// user has answered, and what the model reads when it does not. A
// maintainer who wants to change how approvals ask opens this package;
// package codemode only wires it in (codemode/approvals.go).
//
// Which calls. A function needs approval when its tier is in
// [Options.Tiers], unless its catalog.Func says otherwise
// (catalog.ApprovalRequired, catalog.ApprovalNotRequired); READ-ONLY is
// refused, a read having no dry run to show. [Service.Policy] computes it
// for the functions a server serves now.
//
// Asking. A call that needs approval is first validated as a dry run
// ([Caller.DryRun]); nothing is written and the execution stops. The
// calls that need approval issued together with it (before the script saw
// any answer after it) form one question; every other call is stopped.
// The user is asked, naming the client, each function, its tier, its
// validated arguments and the writes the execution already made:
//
//   - on protocol [ProtocolMRTR] (2026-07-28), with an input-required
//     result whose request state is the execution, sealed with
//     [Options.Key] (AES-GCM) and bound to the principal, the tool, the
//     code's hash and an expiry: nothing is kept on the server;
//   - on earlier revisions, with elicitation/create on the session;
//   - for a client that cannot ask (no elicitation, only URL-mode
//     elicitation, or no session), on the approval page ([Page]): the
//     model gets a link for the user ([KindPending]), or a URL-mode
//     elicitation opens it and the call waits;
//   - else, by [Options.Fallback]: refused ([KindUnavailable]) or run.
//
// Resuming. On accept the execution is resumed, not re-executed: the
// code runs again, its earlier host calls answered from their record and
// its clock and Math.random replayed (sandbox.RunOptions.Entropy), so no
// write runs twice; calls are decided in the order the script made them
// (sandbox.CallPosition), whatever the scheduling. The approved calls
// run, once, and by default the approved functions' further calls in the
// same execution ([Options.PerCall] asks for each). A resumed run that
// makes a call its record does not hold, where the record says it had to
// make another, stops there ([KindDiverged]). A request state, and an
// approval of the page, is spent by its first use ([Options.Spent]); a
// client retrying after a lost response gets the first use's outcome.
//
// Outcomes. Every outcome that ends the execution without running the
// calls is an error whose kind ([KindDeclined], [KindCancelled],
// [KindUnavailable], [KindInvalid], [KindDiverged], [KindTooLarge],
// [KindPending], [KindExpired]) the model reads in
// structuredContent.error.kind and a Go caller matches with
// errors.Is(err, &sandbox.Error{Kind: approval.KindDeclined}). Every
// outcome lists the writes the execution made ([Write]); none says
// "nothing was written" when something was. The audit trail gets one
// [Event] per call asked about, granted, declined or diverged.
//
// The driver. A server hands each tools/call to [Service.Execute] with a
// [Call]: the request, what the approval is bound to, the [Policy], the
// execution's [Gate] (whose [Gate.Decide] and [Gate.Record] it puts in
// its host call chain) and an [Execution], the narrow interface through
// which this package runs the code, renders results, audits and elicits.
// It serves the page with [Service.Handler]. driver.go holds that seam.
//
// State. The spent approvals and the page's pending approvals are
// interfaces of package [github.com/brakinglab/codemode-go/codemode/state]
// (SpentApprovals, PendingApprovals), in process by default
// ([NewSpentMemory]), on PostgreSQL with package codemode/pgstate for
// replicas, which must also share [Options.Key].
//
// This package imports catalog, sandbox, codemode/state and go-sdk, never
// codemode.
package approval
