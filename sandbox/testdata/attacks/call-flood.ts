// expect: CALL_LIMIT
// More concurrent host calls than allowed.
await Promise.all(Array.from({ length: 1000 }, (_, i) => t.echo(i)));
