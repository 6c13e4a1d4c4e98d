package sandbox

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// framePos finds "agent.ts:LINE:COL" (with goja's optional "(pc)") in a
// stack line.
var framePos = regexp.MustCompile(`agent\.ts:(\d+):(\d+)(\(\d+\))?`)

// maxFrames bounds the stack a model reads; deep recursion would
// otherwise fill it with one repeated frame.
const maxFrames = 12

// original maps a goja position (generated line, 1-based column) to the
// model's TypeScript (1-based line and column). ok is false for positions
// in the wrapper or without a mapping.
func (c *compiled) original(line, col int) (int, int, bool) {
	if c.direct {
		return c.directOriginal(line, col)
	}
	m := c.sourceMap()
	if m == nil {
		return 0, 0, false
	}
	_, _, ol, oc, ok := m.Source(line, col-1)
	if !ok {
		return 0, 0, false
	}
	oc++ // 0-based → 1-based
	if ol == 1 {
		oc -= len(wrapPrefix)
		if oc < 1 {
			oc = 1
		}
	}
	if c.lines > 0 && ol > c.lines {
		return 0, 0, false
	}
	return ol, oc, true
}

// cleanStack rewrites a goja stack string into TypeScript coordinates,
// dropping frames outside the model's program and goja's program counters.
func (c *compiled) cleanStack(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	out := make([]string, 0, len(lines))
	frames := 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "at ") {
			out = append(out, l)
			continue
		}
		sm := framePos.FindStringSubmatchIndex(t)
		if sm == nil {
			continue
		}
		line, _ := strconv.Atoi(t[sm[2]:sm[3]])
		col, _ := strconv.Atoi(t[sm[4]:sm[5]])
		ol, oc, ok := c.original(line, col)
		if !ok {
			continue
		}
		frames++
		if frames > maxFrames {
			continue
		}
		out = append(out, "    "+t[:sm[0]]+sourceName+":"+strconv.Itoa(ol)+":"+strconv.Itoa(oc)+t[sm[1]:])
	}
	if frames > maxFrames {
		out = append(out, "    ... "+strconv.Itoa(frames-maxFrames)+" more frames")
	}
	return strings.Join(out, "\n")
}

// rawFrame is a position as goja prints it in an Error's stack property,
// with its program counter: such positions are in generated coordinates.
var rawFrame = regexp.MustCompile(`agent\.ts:\d+:\d+\(\d+\)`)

// mapRawStack rewrites a string holding a goja stack (a script logging
// err.stack) into TypeScript coordinates; other strings are returned as is.
func (c *compiled) mapRawStack(s string) string {
	if !strings.Contains(s, sourceName+":") || !rawFrame.MatchString(s) {
		return s
	}
	return c.cleanStack(s)
}

// firstPosition returns the first agent.ts position in a cleaned stack.
func firstPosition(stack string) (int, int) {
	sm := framePos.FindStringSubmatch(stack)
	if sm == nil {
		return 0, 0
	}
	line, _ := strconv.Atoi(sm[1])
	col, _ := strconv.Atoi(sm[2])
	return line, col
}

// setPosition fills e's position and stack from goja stack frames.
func (c *compiled) setPosition(e *Error, frames []goja.StackFrame) {
	var b strings.Builder
	n := 0
	for _, f := range frames {
		p := f.Position()
		if p.Filename != sourceName {
			continue
		}
		line, col, ok := c.original(p.Line, p.Column)
		if !ok {
			continue
		}
		if e.Line == 0 {
			e.Line, e.Column = line, col
		}
		n++
		if n > maxFrames {
			continue
		}
		name := f.FuncName()
		if name == "" {
			b.WriteString("    at " + sourceName + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col) + "\n")
		} else {
			b.WriteString("    at " + name + " (" + sourceName + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col) + ")\n")
		}
	}
	if n > maxFrames {
		b.WriteString("    ... " + strconv.Itoa(n-maxFrames) + " more frames\n")
	}
	if e.Stack == "" {
		e.Stack = strings.TrimRight(b.String(), "\n")
	}
}
