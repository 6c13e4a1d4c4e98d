// expect: RUNTIME
// An Error carrying 5,000 issues (about 400 KB as JSON, four times the
// output limit): its data is cut structurally at the output limit.
const e: any = new Error("Validation failed");
e.issues = Array.from({ length: 5000 }, (_, i) => ({ path: ["corners", i, "verdict"], message: "must be one of early, late, ok" }));
throw e;
