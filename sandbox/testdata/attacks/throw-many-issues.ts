// expect: RUNTIME
// An Error carrying 20,000 issues: its data is cut structurally at the output limit.
const e: any = new Error("Validation failed");
e.issues = Array.from({ length: 20000 }, (_, i) => ({ path: ["corners", i, "verdict"], message: "must be one of early, late, ok" }));
throw e;
