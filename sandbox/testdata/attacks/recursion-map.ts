// expect: MEMORY_LIMIT
// Recursion through a native callback grows the Go stack, not the JS one.
function f(): any {
  return [1].map(f);
}
return f();
