// expect: MEMORY_LIMIT
// A 2 GiB typed array in one allocation.
return new Uint8Array(2 ** 31).length;
