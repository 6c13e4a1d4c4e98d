// expect: TIMEOUT|RUNTIME
// Exponential backtracking in the backtracking engine (the lookahead keeps
// the pattern off the linear-time one), which ignores interrupts.
return /^(a+)+(?=!)$/.test("a".repeat(64) + "!");
