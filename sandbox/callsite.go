package sandbox

// Where in the script a host call was made: the stack at the call, its
// TypeScript position, and the async function that started it.

import (
	"strconv"
	"strings"
)

// sitePosition is the TypeScript position of a call site from callSite.
func (e *execution) sitePosition(site string) (line, col int) {
	if site == "" {
		return 0, 0
	}
	return firstPosition(e.prog.cleanStack(site))
}

// callSite is the script's stack at a host call, as goja formats it.
func (e *execution) callSite() string {
	site, _ := e.callSiteOrigin()
	return site
}

// callSiteOrigin is callSite, and the position ("agent.ts:L:C") of the
// outermost frame when the call was made inside functions the script
// called directly (no built-in such as forEach in between): where an
// async function was called, which is what a model must await if the
// call is left unawaited. origin is "" for a call made by the main body.
func (e *execution) callSiteOrigin() (site, origin string) {
	var b strings.Builder
	frames := e.vm.CaptureCallStack(maxFrames+1, nil)
	inner := 0
	for inner < len(frames) && frames[inner].SrcName() != sourceName {
		inner++ // the host function itself
	}
	chain := frames[inner:]
	if e.inProgram && len(chain) > 0 {
		chain = chain[:len(chain)-1] // the program's own frame, which starts the main function
	}
	direct := 0
	for direct < len(chain) && chain[direct].SrcName() == sourceName {
		direct++
	}
	if direct > 1 && direct == len(chain) {
		p := chain[direct-1].Position()
		origin = sourceName + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
	}
	for _, f := range frames {
		if f.SrcName() != sourceName {
			continue
		}
		p := f.Position()
		b.WriteString("    at ")
		if n := f.FuncName(); n != "" {
			b.WriteString(n + " (" + sourceName + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column) + ")\n")
		} else {
			b.WriteString(sourceName + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n"), origin
}
