package codemode_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The scripts of TestApprovalDifferential, generated from a seed.
//
// Every script keeps a trace of what it did and returns it, so that the
// test can check an execution against itself whatever the script's
// randomness: T.w lists every write it attempted (function, arguments,
// whether it succeeded and, if not, the error's code) and T.b the values
// it branched on. Writes go through W, which records and swallows the
// error, or WT, which records and rethrows it (for try/catch in the
// script). The returned value is {w: the trace's entries as JSON, sorted
// (calls issued together finish in any order), b: T.b}.
//
// Ingredients: reads (diff.getItem fast, diff.slowItem a few ms,
// diff.listItems for loops, diff.version which changes each time the user
// accepts), writes that need approval (deleteItem and updateItem, MUTATING;
// archiveItem, CREATIVE with catalog.ApprovalRequired), writes that do not
// (createItem, CREATIVE; tagItem, MUTATING with catalog.ApprovalNotRequired),
// writes that fail their dry run or in the host, Promise.all groups of
// mixed calls, loops, if/else on read values, try/catch, Date.now and
// Math.random, more than sandbox.MaxEntropyValues of them before a write
// that needs approval, Promise.race between a slow and a fast read whose
// winner is a later write's argument, and codemode.search/describe loops
// that pass the 50-call discovery budget.

// diffPrelude and diffEpilogue surround every generated script.
const (
	diffPrelude = `const T = { w: [], b: [] };
const code = (e) => (e && typeof e.code === "string" ? e.code : "error");
async function W(fn, args) {
  try { const r = await diff[fn](args); T.w.push([fn, args, true]); return r; }
  catch (e) { T.w.push([fn, args, false, code(e)]); return null; }
}
async function WT(fn, args) {
  try { const r = await diff[fn](args); T.w.push([fn, args, true]); return r; }
  catch (e) { T.w.push([fn, args, false, code(e)]); throw e; }
}
const B = (v) => { T.b.push(v); return v; };
`
	diffEpilogue = `return { w: T.w.map((x) => JSON.stringify(x)).sort(), b: T.b };
`
)

// diffScript is one generated script.
type diffScript struct {
	Code  string
	Flags diffFlags
}

// diffGen writes one script.
type diffGen struct {
	r           *rand.Rand
	b           bytes.Buffer
	depth       int      // nesting of blocks
	n           int      // names given out
	vars        []string // integer expressions (>= 0) in scope
	calls       int      // host calls left (an estimate: loops multiply)
	mult        int      // iterations of the enclosing loops
	flags       diffFlags
	approvals   int // writes that need approval written so far
	discoveries int
	fixed       bool // no ingredient that makes runs differ (half the scripts)
}

// genDiffScript generates the script of seed: 3 to 8 statements, at most
// two levels of blocks, about 30 host calls at most.
func genDiffScript(seed uint64) diffScript {
	g := &diffGen{r: rand.New(rand.NewPCG(seed, 0x5eed_d1ff)), calls: 30, mult: 1}
	g.fixed = g.r.IntN(2) == 0
	g.b.WriteString(diffPrelude)
	for range 3 + g.r.IntN(6) {
		g.stmt()
	}
	if g.approvals == 0 && g.r.IntN(8) != 0 {
		g.approvalWrite()
	}
	g.b.WriteString(diffEpilogue)
	return diffScript{Code: g.b.String(), Flags: g.flags}
}

func (g *diffGen) line(format string, args ...any) {
	g.b.WriteString(strings.Repeat("  ", g.depth))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteString("\n")
}

// name returns a fresh variable name.
func (g *diffGen) name(prefix string) string {
	g.n++
	return prefix + strconv.Itoa(g.n)
}

// spend reports whether n more host calls (per iteration of the enclosing
// loops) fit, and counts them.
func (g *diffGen) spend(n int) bool {
	if g.calls < n*g.mult {
		return false
	}
	g.calls -= n * g.mult
	return true
}

// num is an integer expression >= 0: a literal or a variable.
func (g *diffGen) num() string {
	if len(g.vars) == 0 || g.r.IntN(3) == 0 {
		return strconv.Itoa(g.r.IntN(10))
	}
	return g.vars[g.r.IntN(len(g.vars))]
}

// id is an item id from 1 to 12 (5 and 10 fail in the host).
func (g *diffGen) id() string {
	if len(g.vars) == 0 || g.r.IntN(2) == 0 {
		return strconv.Itoa(1 + g.r.IntN(12))
	}
	return "1 + (" + g.vars[g.r.IntN(len(g.vars))] + " % 12)"
}

// approvalArgs is a valid call of a write that needs approval.
func (g *diffGen) approvalArgs() (fn, args string) {
	switch g.r.IntN(3) {
	case 0:
		return "deleteItem", "{ id: " + g.id() + " }"
	case 1:
		return "updateItem", "{ id: " + g.id() + ", value: (" + g.num() + ") % 100 }"
	}
	return "archiveItem", "{ id: " + g.id() + " }"
}

// freeArgs is a call of a write that needs no approval.
func (g *diffGen) freeArgs() (fn, args string) {
	if g.r.IntN(2) == 0 {
		return "createItem", `{ name: "n" + (` + g.num() + `) }`
	}
	return "tagItem", "{ id: " + g.id() + `, tag: "t" + (` + g.num() + `) }`
}

// invalidArgs is a write whose dry run (or run) fails validation.
func (g *diffGen) invalidArgs() (fn, args string) {
	switch g.r.IntN(5) {
	case 0:
		return "deleteItem", "{ id: 0 }" // validate: min=1
	case 1:
		return "updateItem", "{ id: " + g.id() + ", value: 150 }" // validate: max=99
	case 2:
		return "archiveItem", "{ id: 11 }" // the Validate hook: not found
	case 3:
		return "createItem", `{ name: "" }` // validate: required
	}
	return "tagItem", "{ id: " + g.id() + `, tag: "" }`
}

// anyWrite is a write of any of the three kinds, mostly ones that need approval.
func (g *diffGen) anyWrite() (fn, args string) {
	switch n := g.r.IntN(10); {
	case n < 5:
		g.approvals++
		return g.approvalArgs()
	case n < 8:
		return g.freeArgs()
	}
	return g.invalidArgs()
}

// block writes body inside { } at one more level, with the variables it
// declares dropped at its end.
func (g *diffGen) block(open string, body func()) {
	g.line("%s {", open)
	g.depth++
	keep := len(g.vars)
	body()
	g.vars = g.vars[:keep]
	g.depth--
	g.line("}")
}

type diffStmt struct {
	weight int
	ok     func() bool
	write  func()
}

func (g *diffGen) stmt() {
	top, varies := g.depth == 0, !g.fixed
	kinds := []diffStmt{
		{12, func() bool { return g.spend(1) }, g.read},
		{14, func() bool { return g.spend(1) }, g.approvalWrite},
		{8, func() bool { return g.spend(1) }, g.freeWrite},
		{4, func() bool { return g.spend(1) }, g.invalidWrite},
		{6, func() bool { return g.depth < 2 && g.spend(2) }, g.tryCatch},
		{10, func() bool { return g.depth < 2 && g.spend(3) }, g.group},
		{6, func() bool { return g.depth < 2 }, g.loop},
		{6, func() bool { return g.depth < 2 }, g.ifElse},
		{3, func() bool { return varies }, g.clock},
		{4, func() bool { return varies }, g.random},
		{3, func() bool { return varies && top && !g.flags.Burn && g.spend(1) }, g.burn},
		{6, func() bool { return varies && g.spend(3) }, g.race},
		{5, func() bool { return top && g.discoveries < 2 }, g.discovery},
		{3, func() bool { return varies && g.spend(1) }, g.volatile},
	}
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	for range 20 {
		x := g.r.IntN(total)
		for _, k := range kinds {
			if x -= k.weight; x < 0 {
				if k.ok() {
					k.write()
					return
				}
				break
			}
		}
	}
	g.line("B(%s);", g.num()) // nothing else fits
}

func (g *diffGen) read() {
	v := g.name("v")
	fn := []string{"getItem", "slowItem"}[g.r.IntN(2)]
	g.line("const %s = (await diff.%s({ id: %s })).value;", v, fn, g.id())
	g.vars = append(g.vars, v)
}

func (g *diffGen) approvalWrite() {
	g.approvals++
	fn, args := g.approvalArgs()
	if g.r.IntN(3) == 0 {
		v := g.name("v")
		g.line("const %s = (await W(%q, %s)) ? 1 : 0;", v, fn, args)
		g.vars = append(g.vars, v)
		return
	}
	g.line("await W(%q, %s);", fn, args)
}

func (g *diffGen) freeWrite() {
	fn, args := g.freeArgs()
	g.line("await W(%q, %s);", fn, args)
}

func (g *diffGen) invalidWrite() {
	fn, args := g.invalidArgs()
	g.line("await W(%q, %s);", fn, args)
}

// tryCatch wraps a call that may throw (a write that needs approval, fails
// validation or fails in the host; a read that fails validation) in the
// script's own try/catch.
func (g *diffGen) tryCatch() {
	g.block("try", func() {
		if g.r.IntN(2) == 0 {
			g.read()
		}
		switch g.r.IntN(4) {
		case 0:
			g.line("await diff.getItem({ id: 0 });")
		default:
			fn, args := g.anyWrite()
			g.line("await WT(%q, %s);", fn, args)
		}
		g.line(`B("ok");`)
	})
	g.b.Truncate(g.b.Len() - 1) // the "}" line's newline
	g.b.WriteString(" catch (e) {\n")
	g.depth++
	g.line("B(code(e));")
	g.depth--
	g.line("}")
}

// group is a Promise.all of mixed calls, each giving a number.
func (g *diffGen) group() {
	gv, v := g.name("g"), g.name("v")
	if g.r.IntN(4) == 0 {
		fn, _ := g.approvalArgs()
		g.approvals++
		ids := []string{g.id(), g.id(), g.id()}
		args := "{ id: x }"
		if fn == "updateItem" {
			args = "{ id: x, value: (" + g.num() + ") % 100 }"
		}
		g.line("const %s = await Promise.all([%s].map((x) => W(%q, %s).then((r) => (r ? 1 : 0))));", gv, strings.Join(ids, ", "), fn, args)
	} else {
		var els []string
		for range 2 + g.r.IntN(3) {
			switch g.r.IntN(3) {
			case 0:
				fn := []string{"getItem", "slowItem"}[g.r.IntN(2)]
				els = append(els, fmt.Sprintf("diff.%s({ id: %s }).then((r) => r.value)", fn, g.id()))
			default:
				fn, args := g.anyWrite()
				els = append(els, fmt.Sprintf("W(%q, %s).then((r) => (r ? 1 : 0))", fn, args))
			}
		}
		g.line("const %s = await Promise.all([%s]);", gv, strings.Join(els, ", "))
	}
	g.line("const %s = %s.reduce((a, c) => a + c, 0);", v, gv)
	g.vars = append(g.vars, v)
}

func (g *diffGen) loop() {
	n := 1 + g.r.IntN(3)
	i := g.name("i")
	var open string
	var vars []string
	switch g.r.IntN(3) {
	case 0:
		ids := make([]string, n)
		for k := range ids {
			ids[k] = g.id()
		}
		open, vars = fmt.Sprintf("for (const %s of [%s])", i, strings.Join(ids, ", ")), []string{i}
	case 1:
		if !g.spend(1) {
			return
		}
		open, vars = fmt.Sprintf("for (const %s of await diff.listItems({ n: %d }))", i, n), []string{i + ".id", i + ".value"}
	default:
		open, vars = fmt.Sprintf("for (let %s = 0; %s < %d; %s++)", i, i, n, i), []string{i}
	}
	g.mult *= n
	g.block(open, func() {
		g.vars = append(g.vars, vars...)
		for range 1 + g.r.IntN(2) {
			g.stmt()
		}
	})
	g.mult /= n
}

func (g *diffGen) ifElse() {
	cond := fmt.Sprintf("B(%s %% 2 === 0)", g.num())
	if g.r.IntN(2) == 0 {
		cond = fmt.Sprintf("B(%s > %d)", g.num(), 2+g.r.IntN(5))
	}
	g.block("if ("+cond+")", func() { g.stmt() })
	if g.r.IntN(2) == 0 {
		g.b.Truncate(g.b.Len() - 1)
		g.b.WriteString(" else {\n")
		g.depth++
		keep := len(g.vars)
		g.stmt()
		g.vars = g.vars[:keep]
		g.depth--
		g.line("}")
	}
}

func (g *diffGen) clock() {
	g.flags.Clock = true
	g.value("Date.now() % 4")
}

func (g *diffGen) random() {
	g.flags.Random = true
	g.value("Math.floor(Math.random() * 4)")
}

// value binds a fresh variable to B(expr), so that the trace records it
// as a value the script branched on, offers it to later statements as a
// number, and returns its name.
func (g *diffGen) value(expr string) string {
	v := g.name("v")
	g.line("const %s = B(%s);", v, expr)
	g.vars = append(g.vars, v)
	return v
}

// burn reads more clock or random values than an approval records, then
// makes a write that needs approval with an argument taken from the last.
func (g *diffGen) burn() {
	g.flags.Burn = true
	e, j := g.name("e"), g.name("j")
	g.line("let %s = 0;", e)
	last := e + " % 4"
	if g.r.IntN(2) == 0 {
		g.flags.Random = true
		g.line("for (let %s = 0; %s < 4200; %s++) %s = Math.random();", j, j, j, e)
		last = "Math.floor(" + e + " * 4)"
	} else {
		g.flags.Clock = true
		g.line("for (let %s = 0; %s < 4200; %s++) %s = Date.now();", j, j, j, e)
	}
	g.writeOf(g.value(last), 1)
}

// writeOf makes a write that needs approval and takes its argument from
// the value v: it deletes item base + v or sets an item's value to v.
func (g *diffGen) writeOf(v string, base int) {
	g.approvals++
	if g.r.IntN(2) == 0 {
		g.line(`await W("deleteItem", { id: %d + %s });`, base, v)
	} else {
		g.line(`await W("updateItem", { id: %s, value: %s });`, g.id(), v)
	}
}

// race is a Promise.race between a slow read and a fast one; its winner
// is often the argument of the next write.
func (g *diffGen) race() {
	g.flags.Race = true
	els := []string{
		fmt.Sprintf("diff.slowItem({ id: %s }).then(() => 0)", g.id()),
		fmt.Sprintf("diff.getItem({ id: %s }).then(() => 1)", g.id()),
	}
	if g.r.IntN(2) == 0 {
		slices.Reverse(els)
	}
	v := g.value("await Promise.race([" + strings.Join(els, ", ") + "])")
	if g.r.IntN(5) < 3 {
		g.writeOf(v, 3)
	}
}

// discovery loops over codemode.search or codemode.describe and counts
// the calls that answered: past 50 in one run they fail.
func (g *diffGen) discovery() {
	g.discoveries++
	g.flags.Discovery = true
	k, j := g.name("k"), g.name("j")
	n := []int{2, 20, 30, 55}[g.r.IntN(4)]
	call := `codemode.search("item", { limit: 2 })`
	if g.r.IntN(3) == 0 {
		call = `codemode.describe(["diff.getItem"])`
	}
	g.line("let %s = 0;", k)
	g.line("for (let %s = 0; %s < %d; %s++) { try { await %s; %s++; } catch (e) {} }", j, j, n, j, call, k)
	g.line("B(%s);", k)
	g.vars = append(g.vars, k)
}

// volatile reads diff.version, which counts the questions the user
// accepted so far in the execution: a resumed run must read what the
// asking run read.
func (g *diffGen) volatile() {
	g.flags.Volatile = true
	g.value("(await diff.version({})).v")
}
