package sandbox

import (
	"sync"

	"github.com/dop251/goja"
)

// preludeJS evaluates to a function that hardens a fresh runtime and
// returns helpers the engine keeps
// out of the script's reach. It runs before the script, so the originals it
// captures cannot have been replaced.
const preludeJS = `(function (clean) {
"use strict";
const g = globalThis;
const OrigError = Error, TypeErr = TypeError, RangeErr = RangeError, stringify = JSON.stringify, parse = JSON.parse;
const defineProperty = Object.defineProperty, getPrototypeOf = Object.getPrototypeOf, keys = Object.keys;
const isArray = Array.isArray, SetC = Set, StringC = String;

// Well-known symbols goja lacks, defined the way esbuild's lowered
// helpers look them up (Symbol.for("Symbol." + name)), so user code and
// lowered for-await / using agree.
for (const name of ["asyncIterator", "dispose", "asyncDispose"]) {
	if (typeof Symbol[name] !== "symbol") {
		defineProperty(Symbol, name, { value: Symbol.for("Symbol." + name), writable: false, configurable: false });
	}
}

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

// format renders one console argument like Node: strings raw, errors as
// their stack, other objects as JSON (cycles, functions and BigInts shown
// in place instead of failing).
function jsonish(v) {
	const seen = new SetC();
	return stringify(v, function (k, x) {
		switch (typeof x) {
		case "bigint": return StringC(x) + "n";
		case "function": return "[Function: " + (x.name || "anonymous") + "]";
		case "symbol": return StringC(x);
		case "undefined": return isArray(this) ? null : undefined;
		case "object":
			if (x === null) return x;
			if (seen.has(x)) return "[Circular]";
			seen.add(x);
			if (x instanceof OrigError) return errorText(x);
			return x;
		}
		return x;
	});
}
function errorText(e) {
	let s = typeof e.stack === "string" && e.stack !== "" ? clean(e.stack) : StringC(e);
	const extra = {};
	let n = 0;
	for (const k of keys(e)) { if (k !== "message" && k !== "stack") { extra[k] = e[k]; n++; } }
	if (n > 0) s += " " + jsonish(extra);
	return s;
}
function format(v) {
	switch (typeof v) {
	case "string": return v;
	case "bigint": return StringC(v) + "n";
	case "function": return "[Function: " + (v.name || "anonymous") + "]";
	case "object":
		if (v === null) return "null";
		if (v instanceof OrigError) return errorText(v);
		try { const s = jsonish(v); return s === undefined ? StringC(v) : s; } catch (e) { return StringC(v); }
	}
	return StringC(v);
}
return { stringify, parse, Error: OrigError, TypeError: TypeErr, RangeError: RangeErr, format };
})`

var (
	preludeOnce sync.Once
	preludeProg *goja.Program
)

// prelude returns the compiled prelude, compiled once per process.
func prelude() *goja.Program {
	preludeOnce.Do(func() {
		preludeProg = goja.MustCompile("prelude.js", preludeJS, true)
	})
	return preludeProg
}
