// expect: RUNTIME
// A result nested 11,000 deep: a RUNTIME error naming the depth limit, no Go encoder text.
let v: any = 1;
for (let i = 0; i < 11000; i++) v = [v];
return v;
