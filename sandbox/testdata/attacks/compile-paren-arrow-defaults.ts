// expect: TIMEOUT
// Nested parenthesised arrows with defaults: goja's parser backtracks exponentially.
const f = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = ((a = 1) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0)) => 0);
return 1;
