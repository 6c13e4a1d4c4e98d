// expect: MEMORY_LIMIT
// Sorting a sparse array whose length is 2**32-1.
const a: number[] = [];
a[2 ** 32 - 2] = 1;
a.sort();
return a.length;
