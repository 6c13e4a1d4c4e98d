// expect: MEMORY_LIMIT
// One builtin call asking for 1 GiB: no interrupt can stop it mid-way.
return "x".repeat(2 ** 30).length;
