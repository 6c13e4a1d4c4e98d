// expect: RUNTIME
// Awaiting a promise nothing can resolve ends with an error, not a hang.
await new Promise(() => {});
