// expect: RUNTIME
// The Function constructor reached through any function is disabled.
const g = (() => {}).constructor.constructor("return this")();
return typeof g.process;
