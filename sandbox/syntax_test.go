package sandbox

import "testing"

// TestModernSyntax checks that TypeScript using modern syntax runs and
// returns the right value, including what esbuild must lower for goja.
func TestModernSyntax(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"types and interfaces", "interface P { x: number; y?: string }\nconst p: P = { x: 1 };\nenum E { A = 2 }\nreturn p.x + E.A as number;", `3`},
		{"optional chaining", "const o: any = { a: { b: 2 } };\nreturn [o?.a?.b, o?.z?.b, o.f?.()];", `[2, null, null]`},
		{"nullish coalescing", "const a: any = null; let b: any = 0; b ??= 5; let c: any; c ??= 7;\nreturn [a ?? 'd', b ?? 'd', c];", `["d", 0, 7]`},
		{"spread", "const a = [1, 2]; const o = { x: 1 };\nreturn { arr: [...a, 3], obj: { ...o, y: 2 }, max: Math.max(...a) };", `{"arr":[1,2,3],"obj":{"x":1,"y":2},"max":2}`},
		{"destructuring", "const { a, b: [c, , d = 4], ...rest } = { a: 1, b: [2, 3], e: 5, f: 6 };\nreturn [a, c, d, rest];", `[1, 2, 4, {"e":5,"f":6}]`},
		{"classes with private fields", "class C { #n = 1; static #k = 10; get n() { return this.#n; } inc() { this.#n++; return this; } static k() { return C.#k; } #priv() { return 3; } p() { return this.#priv(); } static has(o: any) { return #n in o; } }\nreturn [new C().inc().n, C.k(), new C().p(), C.has(new C())];", `[2, 10, 3, true]`},
		{"class inheritance and static blocks", "class A { constructor(public v: number) {} twice() { return this.v * 2; } }\nclass B extends A { static s: number; static { B.s = 9; } twice() { return super.twice() + 1; } }\nreturn [new B(3).twice(), B.s];", `[7, 9]`},
		{"for...of over Map and Set", "const m = new Map([['a', 1], ['b', 2]]); let s = 0;\nfor (const [, v] of m) s += v;\nfor (const v of new Set([3, 3, 4])) s += v;\nreturn s;", `10`},
		{"sync generators", "function* g() { yield 1; yield* [2, 3]; }\nreturn [...g()];", `[1, 2, 3]`},
		{"async iterators and for await", "async function* gen() { for (let i = 1; i <= 3; i++) { await null; yield i; } }\nlet s = 0;\nfor await (const v of gen()) s += v;\nconst it = { [Symbol.asyncIterator]() { let n = 0; return { next: async () => ({ done: n >= 2, value: n++ }) }; } };\nfor await (const v of it) s += v * 10;\nreturn s;", `16`},
		{"for await over promises", "let out: number[] = [];\nfor await (const v of [Promise.resolve(1), 2]) out.push(v);\nreturn out;", `[1, 2]`},
		{"template literals", "const n = 3;\nconst tag = (s: TemplateStringsArray, ...v: any[]) => s.raw.join('|') + v.join(',');\nreturn [`n=${n} ${n > 2 ? 'big' : 'small'}`, tag`a${1}b${2}c`];", `["n=3 big", "a|b|c1,2"]`},
		{"Array.prototype.at and flatMap", "return [[1, 2, 3].at(-1), [1, [2]].flatMap((x) => x), 'abc'.at(-2), [[1, [2, [3]]]].flat(Infinity)];", `[3, [1, 2], "b", [1, 2, 3]]`},
		{"Object.fromEntries and entries", "return Object.fromEntries(Object.entries({ a: 1, b: 2 }).map(([k, v]) => [k.toUpperCase(), v * 2]));", `{"A":2,"B":4}`},
		{"BigInt", "const b = 2n ** 64n + 1n;\nreturn [b.toString(), typeof b, BigInt(7) * 3n === 21n];", `["18446744073709551617", "bigint", true]`},
		{"async await and top-level await", "const f = async (x: number) => x * 2;\nconst v = await f(4);\nreturn await Promise.all([f(v), Promise.resolve(1)]);", `[16, 1]`},
		{"Promise.allSettled and any", "const r = await Promise.allSettled([Promise.reject(new Error('no')), Promise.resolve(2)]);\nreturn [r.map((x) => x.status), await Promise.any([Promise.reject(1), Promise.resolve(5)])];", `[["rejected", "fulfilled"], 5]`},
		{"regex named groups and lookbehind", "const m = /(?<y>\\d{4})-(?<m>\\d{2})/.exec('on 2024-05')!;\nreturn [m.groups!.y, 'price: $42'.match(/(?<=\\$)\\d+/)![0], 'a1b2'.replace(/\\d/g, '#')];", `["2024", "42", "a#b#"]`},
		{"labels, switch, try/finally", "let n = 0;\nouter: for (let i = 0; i < 3; i++) { for (let j = 0; j < 3; j++) { if (j === 1) continue outer; n++; } }\nlet f = 0; try { throw new Error('x'); } catch { f = 1; } finally { f += 1; }\nswitch (n) { case 3: return [n, f]; default: return null; }", `[3, 2]`},
		{"satisfies, as const, generics", "const cfg = { mode: 'fast' } as const satisfies { mode: string };\nfunction id<T>(x: T): T { return x; }\nreturn id<string>(cfg.mode);", `"fast"`},
		{"Date and JSON", "const d = new Date(Date.UTC(2024, 0, 2));\nreturn JSON.parse(JSON.stringify({ d: d.toISOString() }));", `{"d":"2024-01-02T00:00:00.000Z"}`},
		{"using declarations are lowered", "let closed = false;\n{ using r = { [Symbol.dispose]() { closed = true; } }; }\nreturn closed;", `true`},
		{"no final return", "const x = 1;", `null`},
	}
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				res := mustRun(t, sb, tc.src, nil)
				if tc.want != "" && !jsonEqual(t, res.Value, tc.want) {
					t.Errorf("value = %s, want %s", res.Value, tc.want)
				}
			})
		}
	})
}
