// expect: MEMORY_LIMIT
// Indentation makes the output quadratic in the nesting depth.
let o: any = {};
for (let i = 0; i < 20000; i++) o = { o };
return JSON.stringify(o, null, 10).length;
