const a = 3, b = 5, c = 7, d = 2, f = (...xs) => xs.length, g = (x) => (y) => [x, y];
const out = [];
class K { x = 1; static s = 2; #p = 3; m(v) { return v < this.x ? this.#p : v * 2 } }
out.push(await Promise.resolve((1
in [a, b]) < (/(?<n>x)\k<n>/.test(String(({ k: a }))) , ('<s>'))).catch(String))
out.push((() => { try { return ((g("x>y") ("x>y"))) } catch (e) { return e.message } })())
out.push((() => { try { return (1) | /(?<=a)b/s.test(String('<s>')) /* <T> */ == [[a, b] < /* <T> */ "x>y"] [0] .nope .deeper } catch (e) { return e.message } })())
return out
