// expect: MEMORY_LIMIT
// Doubling a string: each step allocates twice the last one.
let s = "x";
while (true) s = s + s;
