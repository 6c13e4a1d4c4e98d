package sandbox

import (
	"sync"

	"github.com/dop251/goja"
)

// preludeJS evaluates to a function that hardens a fresh runtime and
// returns helpers the engine keeps
// out of the script's reach. It runs before the script, so the originals it
// captures cannot have been replaced.
const preludeJS = `(function (promiseOrigin) {
"use strict";
const g = globalThis;
const OrigError = Error, TypeErr = TypeError, RangeErr = RangeError, stringify = JSON.stringify;
const defineProperty = Object.defineProperty, getPrototypeOf = Object.getPrototypeOf;

// Errors serialize as "Name: message" (plus their own properties, such as
// a host error's issues) instead of {}, so an error inside logged or
// returned data still says what went wrong.
defineProperty(OrigError.prototype, "toJSON", { writable: true, enumerable: false, configurable: true, value: function () {
	const text = (this.name ? this.name + ": " : "") + this.message;
	const own = Object.keys(this);
	if (own.length === 0) return text;
	const o = { error: text };
	for (const k of own) if (k !== "message" && k !== "stack") o[k] = this[k];
	return o;
} });

// A promise inside logged or returned data is almost always a missing
// await; say so instead of printing {}.
defineProperty(Promise.prototype, "toJSON", { writable: true, enumerable: false, configurable: true, value: function () {
	return "[Promise: not awaited; add await before the call]";
} });

// Reading a property a Promise does not have (sessions.filter, rows[0],
// for…of) is almost always a missing await. A proxy between
// Promise.prototype and Object.prototype turns it into a TypeError that
// names the host function the Promise came from; every real property
// (then, catch, constructor, toString, …) is found before the proxy.
// promiseOrigin (native) names the host function a Promise came from.
// Neither Reflect, Symbol nor WeakMap is touched up front: instantiating
// them costs every execution (see symbolsJS). Object.prototype's only
// accessor is __proto__, hence the one special case.
const objectProto = getPrototypeOf(Promise.prototype);
Object.setPrototypeOf(Promise.prototype, new Proxy(objectProto, { get(t, k, r) {
	if (k === "__proto__") return getPrototypeOf(r);
	if ((typeof k === "symbol" && k !== Symbol.iterator) || k in t) return t[k];
	const from = promiseOrigin(r);
	const what = typeof k === "symbol" ? "iterate over" : "read '" + k + "' of";
	throw new TypeErr(from
		? "cannot " + what + " a Promise: this value is the Promise returned by " + from + ", not its result. Add await: const x = await " + from + "(...); for several calls, await Promise.all([...])."
		: "cannot " + what + " a Promise, not its result: add await before the call that returned it (an async function returns a Promise).");
} }));

// JSON.parse of an object converts it to "[object Object]" and fails with
// the decoder's "invalid character 'o'": say instead that host functions
// already return parsed values.
const parseJSON = JSON.parse;
defineProperty(JSON, "parse", { writable: true, enumerable: false, configurable: true, value: function parse(text, reviver) {
	if (text !== null && (typeof text === "object" || typeof text === "function")) {
		const what = Array.isArray(text) ? "an array" : typeof text === "function" ? "a function" : "an object";
		throw new TypeErr("JSON.parse takes a JSON string, but this value is already " + what + ": host functions return parsed values, so use it directly, without JSON.parse.");
	}
	return reviver === undefined ? parseJSON(text) : parseJSON(text, reviver);
} });

function deny(what, instead) {
	const f = function () { throw new EvalError(what + " is disabled in the sandbox; " + instead); };
	return f;
}
const code = "write the code directly instead.";
g.eval = deny("eval", code);
const F = deny("The Function constructor", "use a function expression or arrow function instead.");
F.prototype = Function.prototype;
defineProperty(Function.prototype, "constructor", { value: F, writable: false, configurable: false });
g.Function = F;
defineProperty(getPrototypeOf(async function () {}), "constructor", {
	value: deny("The AsyncFunction constructor", "use an async function expression instead."), writable: false, configurable: false });
defineProperty(getPrototypeOf(function* () {}), "constructor", {
	value: deny("The GeneratorFunction constructor", "use a generator function expression instead."), writable: false, configurable: false });

return { stringify, Error: OrigError, TypeError: TypeErr, RangeError: RangeErr };
})`

// symbolsJS defines the well-known symbols goja lacks the way esbuild's
// lowered helpers look them up (Symbol.for("Symbol." + name)), so user code
// and lowered for-await / using agree. It runs only for programs that
// mention Symbol: initialising Symbol costs a tenth of an empty execution.
const symbolsJS = `(function () {
"use strict";
for (const name of ["asyncIterator", "dispose", "asyncDispose"]) {
	if (typeof Symbol[name] !== "symbol") {
		Object.defineProperty(Symbol, name, { value: Symbol.for("Symbol." + name), writable: false, configurable: false });
	}
}
})()`

var (
	preludeOnce sync.Once
	preludeProg *goja.Program
	symbolsProg *goja.Program
)

func compilePrelude() {
	preludeProg = goja.MustCompile("prelude.js", preludeJS, true)
	symbolsProg = goja.MustCompile("symbols.js", symbolsJS, true)
}

// prelude returns the compiled prelude, compiled once per process.
func prelude() *goja.Program {
	preludeOnce.Do(compilePrelude)
	return preludeProg
}

// symbolsPolyfill returns the compiled symbol definitions.
func symbolsPolyfill() *goja.Program {
	preludeOnce.Do(compilePrelude)
	return symbolsProg
}
