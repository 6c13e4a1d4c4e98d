const a = 3, b = 5, c = 7, d = 2, f = (...xs) => xs.length, g = (x) => (y) => [x, y];
const out = [];
class K { x = 1; static s = 2; #p = 3; m(v) { return v < this.x ? this.#p : v * 2 } }
try {
  const v = ((0x10 // a < b > (c)
&& '<s>'))
  out.push(v)
} catch (e) { out.push(e.name + ': ' + e.message) }
out.push(await Promise.resolve((null
||null in // a < b > (c)
(2.5))).catch(String))
out.push((() => { try { return `<${`<${new K()}>` + `${`${this}`}`}>` + `${`${d ?? this}`}`.toString () } catch (e) { return e.message } })())
return out
