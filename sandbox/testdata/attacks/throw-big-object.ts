// expect: RUNTIME
// A thrown non-Error value of 1.4 MB: the error message is cut at the output limit.
throw { big: "Z".repeat(1_400_000) };
