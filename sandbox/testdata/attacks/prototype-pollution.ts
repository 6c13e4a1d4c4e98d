// expect: value {"polluted":false,"pushed":false}
// Run twice: the second run must not see the first run's changes.
const seen = { polluted: ({} as any).pwned === 1, pushed: (Array.prototype.push as any).evil === true };
(Object.prototype as any).pwned = 1;
const push = Array.prototype.push;
Array.prototype.push = function (...args: any[]) { return push.apply(this, args); };
(Array.prototype.push as any).evil = true;
(globalThis as any).leak = "secret";
JSON.parse = () => "hijacked";
return seen;
