package codemode_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

// TestRepliesSayTheFix checks, through the go-sdk client in both sandbox
// modes, the parts of issue 26's replies that codemode writes: an unknown
// function answered with codemode.search's ranking, a positional call
// with the argument object, describe of an unknown name, and the calls
// that failed listed in the text when the script caught their errors or
// a limit ended it. The text the model reads is compared with a golden
// file and must be the same in both modes.
func TestRepliesSayTheFix(t *testing.T) {
	cases := []struct{ name, code, want string }{
		{"unknown-function", "const z = await brakinglab.getBrakePoints({ sessionId: \"s1\" });\nreturn z;",
			"brakinglab.getBrakePoints is not a function. The 3 of brakinglab's 5 functions closest to \"getBrakePoints\", as codemode.search(\"getBrakePoints\") ranks them: brakinglab.getBrakingZones"},
		{"positional", "return await brakinglab.getWeakCorners(\"Spa\", 3);",
			"Call it as brakinglab.getWeakCorners({ trackName: string; limit?: number })."},
		{"describe-unknown", "return await codemode.describe([\"getBrakePoints\"]);",
			"codemode.describe: brakinglab has no function \"getBrakePoints\". The 3 of brakinglab's 5 functions closest"},
		{"caught-errors", "const out: any[] = [];\nfor (const id of [\"missing\", \"s1\"]) {\n  try { out.push(await brakinglab.getBrakingZones({ sessionId: id })); } catch { out.push(null); }\n}\nreturn out.length;",
			"Calls that failed (the script caught their errors and went on):\n- brakinglab.getBrakingZones at line 3, column 35: session \"missing\" not found: list sessions with getSessions"},
		{"retry-until-limit", "let z;\nwhile (!z) {\n  try { z = await brakinglab.getBrakingZones({ sessionId: \"missing\" }); } catch (e) { console.log(String(e)); }\n}\nreturn z;",
			"Calls that failed:\n- brakinglab.getBrakingZones at line 3, column 30 (20 calls): session \"missing\" not found"},
	}
	texts := map[string]string{}
	for _, mode := range []sandbox.Mode{sandbox.ModeInProcess, sandbox.ModeWorker} {
		t.Run(mode.String(), func(t *testing.T) {
			ts := startServer(t, func(o *codemode.Options) {
				o.Sandbox.Mode = mode
				o.Discovery = codemode.DiscoveryIndex
				withPool(t, o, 1)
			})
			cs := ts.connect(t, ts.token("alice", allScopes...), nil)
			for _, tc := range cases {
				txt := text(run(t, cs, tc.code))
				if !strings.Contains(txt, tc.want) {
					t.Errorf("%s: the reply lacks %q:\n%s", tc.name, tc.want, txt)
				}
				if mode == sandbox.ModeInProcess {
					texts[tc.name] = txt
					golden(t, filepath.Join("contract", tc.name+".golden"), txt+"\n")
				} else if txt != texts[tc.name] {
					t.Errorf("%s: worker mode replies\n%s\nin process:\n%s", tc.name, txt, texts[tc.name])
				}
			}
		})
	}
}
