// Package saved keeps saved functions: a script that worked, saved under
// a name with a typed argument, that later scripts (and the user) call as
// saved.name(input). Package codemode wires it in (Options.Saved); this
// package holds their store, versions, tier derivation, argument checks
// and declarations.
//
// # Names
//
// A name is a JavaScript identifier, at most 64 bytes, that is not a
// reserved word or a property every object has (constructor, then,
// toJSON, …). A principal's own functions and the published ones share
// one namespace: saving a name that another owner has published is
// refused, and so is publishing a name that another published function
// holds.
//
// # Saving
//
// [Library.Save] checks everything at once and reports every problem with
// its path and the fix, as catalog.Add does (a *catalog.ValidationError):
// the name; the input schema (required, an object, compiled through the
// catalog's one type model with its bounds); the output schema (optional);
// the code (it compiles with the sandbox's compiler, as the body of
// async function (input) {…}); sizes (Limits); and the functions the code
// calls. Each save is a new version; earlier versions stay readable
// ([Library.History]).
//
// # Tiers
//
// The tier is derived at save time from the functions the code
// references, ns.fn or ns["fn"]: the highest of them, MUTATING above
// CREATIVE above READ-ONLY (a function that calls nothing is READ-ONLY).
// A reference to a function the caller cannot see, or a namespace used
// other than to call one of its functions by name, is refused. Calls of
// other saved functions count with their own tier.
//
// # Calling
//
// A call runs as the caller (invoker rights): the saved function grants
// nothing. Its arguments are checked like any function's, _validateOnly
// included (MUTATING and CREATIVE only). Before it runs, every function
// it references is looked up again: one that was removed, or whose tier
// rose above the saved tier, fails the call with an error naming it. The
// code then runs inside the caller's execution (sandbox.SubprogramHost):
// its host calls are checked, approved and audited as the script's own,
// and carry "saved.name version N" as their origin.
//
// # Privacy
//
// A principal sees and calls only their own functions and published
// ones. Another owner's name or version is "not found", exactly as a
// missing one. Anonymous principals (subject "") may call published
// functions and may not save.
//
// # Changes and replicas
//
// [Library.Watch] reports each save, publication, withdrawal and removal
// the Library makes, with its version, tier and code digest (codemode
// audits them). [Library.WatchAll] reports whose functions changed, from
// every Library that shares the store, on any replica, when the store
// implements state.SavedChanges (the in-memory store does; pgstate's does
// across processes, by PostgreSQL's NOTIFY); codemode tells the
// connected clients from it. Every answer reads the store when asked, so
// a replica never serves a stale list; the reports only tell clients to
// ask again.
//
// # Errors
//
// Problems with what was asked are *catalog.ValidationError (a save) or
// *catalog.Error with code not_found or invalid; a store's errors are
// returned wrapped, and codemode reports them as internal errors.
package saved
