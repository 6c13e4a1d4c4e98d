package sandbox

import (
	"strings"
	"testing"
)

// withholdHost binds lab.getSessions and withholds lab.deleteSession,
// which it has for another tool; it is an Explainer too, whose guesses a
// withheld name must not get.
type withholdHost struct {
	*explainHost
}

func (h *withholdHost) Withheld(name string) string {
	h.asked = append(h.asked, "withheld "+name)
	if name == "lab.deleteSession" {
		return "lab.deleteSession is not available in this tool because it writes; call it from the other tool."
	}
	return ""
}

// A name the host withholds is explained by the host alone, in both
// modes (in worker mode the question travels to the parent); a name it
// does not have gets the usual guesses; a host that is no Withholder is
// never asked.
func TestWithheldFunction(t *testing.T) {
	forEachMode(t, Limits{}, func(t *testing.T, sb *Sandbox) {
		h := &withholdHost{&explainHost{funcHost: echoHost("lab.getSessions", "lab.getWeakCorners")}}
		_, err := runErr(t, sb, `await lab.deleteSession({ id: "s1" })`, h)
		if err.Kind != KindRuntime || !strings.Contains(err.Message, "TypeError: lab.deleteSession is not available in this tool because it writes; call it from the other tool.") ||
			strings.Contains(err.Message, "is not a function") || strings.Contains(err.Message, "Closest by search") {
			t.Fatalf("withheld: %v", err)
		}
		_, err = runErr(t, sb, `await lab.frobnicate({})`, h)
		if !strings.Contains(err.Message, "lab.frobnicate is not a function. Closest by search") {
			t.Fatalf("unknown: %v", err)
		}
		if strings.Join(h.asked, ", ") != "withheld lab.deleteSession, withheld lab.frobnicate, suggest lab.frobnicate" {
			t.Fatalf("asked %q", h.asked)
		}

		plain := &explainHost{funcHost: echoHost("lab.getSessions")}
		_, err = runErr(t, sb, `await lab.deleteSession({})`, plain)
		if !strings.Contains(err.Message, "lab.deleteSession is not a function.") || strings.Join(plain.asked, ", ") != "suggest lab.deleteSession" {
			t.Fatalf("no Withholder: %v, asked %q", err, plain.asked)
		}
	})
}
