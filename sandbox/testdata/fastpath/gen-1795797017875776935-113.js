const a = 3, b = 5, c = 7, d = 2, f = (...xs) => xs.length, g = (x) => (y) => [x, y];
const out = [];
class K { x = 1; static s = 2; #p = 3; m(v) { return v < this.x ? this.#p : v * 2 } }
out.push((() => { try { return ("x>y" <= "x>y") <= // a < b > (c)
(d.toString ()) } catch (e) { return e.message } })())
return out
