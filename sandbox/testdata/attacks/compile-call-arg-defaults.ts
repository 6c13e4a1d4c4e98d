// expect: TIMEOUT
// Nested call arguments that are arrows with defaults: the same backtracking.
function f(x: any) { return x; }
const g = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = f((a = 1) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0);
return 1;
