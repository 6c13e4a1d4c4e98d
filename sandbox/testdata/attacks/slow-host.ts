// expect: TIMEOUT
// A host call that outlives the timeout.
await t.slow({});
