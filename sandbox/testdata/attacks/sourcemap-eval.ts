// expect: RUNTIME
// eval is disabled, so a source-map comment can never make the parser read a file.
return eval("1\n//# sourceMappingURL=file:///dev/zero");
