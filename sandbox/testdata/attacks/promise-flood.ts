// expect: MEMORY_LIMIT
// Millions of promises that never settle.
const ps: Promise<void>[] = [];
while (true) ps.push(new Promise<void>(() => {}));
