// expect: MEMORY_LIMIT
// fill() on the largest possible array materialises 2**32-1 elements.
return new Array(2 ** 32 - 1).fill(1).length;
