// expect: RUNTIME
// A host error that echoes a 1 MB argument: the message and the call record are cut.
await t.missing({ id: "Q".repeat(1_000_000) });
