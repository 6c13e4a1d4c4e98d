const a = 3, b = 5, c = 7, d = 2, f = (...xs) => xs.length, g = (x) => (y) => [x, y];
const out = [];
class K { x = 1; static s = 2; #p = 3; m(v) { return v < this.x ? this.#p : v * 2 } }
try { out.push((null // a < b > (c)
in // a < b > (c)
0x10) >= (((x) => { return a
})("x>y") ? (x) => x < [K.s] [0] .nope .deeper : (y) => y)(null || K.s)) } catch (e) { out.push(String(e)) }
return out
