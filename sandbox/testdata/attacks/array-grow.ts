// expect: MEMORY_LIMIT
// An array that grows forever: the heap watchdog stops it.
const a: any[] = [];
while (true) a.push({ i: a.length, s: "abcdefgh" });
