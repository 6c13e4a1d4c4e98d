// expect: TIMEOUT
// A single builtin scanning 2**32-1 holes: only a process kill stops it.
return Array(2 ** 32 - 1).indexOf(1);
