package approvaldiff

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The oracle of the differential test: what must hold of one execution
// of a generated script, from its trace (what the script says it did),
// the store's log (what the handlers did: the ground truth), the
// questions the user read and the answers the model read.
//
// Approvals off: the store holds exactly the trace's successful writes.
//
// Approvals required, questions accepted up to one that may be declined:
//   - every question lists, under "Already changed by this code:",
//     exactly the writes the store held when it was asked;
//   - every write of a function that needs approval ran after the user
//     accepted a question that showed exactly that call, or that said
//     accepting covers further calls of its function;
//   - at most 10 questions.
//
// Ending with a value (every question accepted):
//   - the store holds exactly the final run's successful writes (nothing
//     twice, nothing the trace does not list), and
//     structuredContent.writes lists them;
//   - every call an accepted question showed was made by the final run,
//     with exactly the arguments shown (the user approved that call; a
//     question that shows a call the code then does not make, while it
//     makes another under "further calls", misleads the user);
//   - a deterministic script (diffFlags) returns the approvals-off run's
//     value and makes its writes.
//
// Ending declined at question k: the store holds exactly what it held
// when question k was asked (nothing written after), the answer's
// structuredContent.writes lists it, and a deterministic script wrote
// nothing its approvals-off run did not.
//
// The only other outcome allowed is the refusal of a script that read
// the clock or Math.random past sandbox.MaxEntropyValues before asking:
// APPROVAL_DIVERGED saying so, with the writes so far listed.

// diffFlags are what makes a script's runs differ from each other: the
// test compares a script's value and writes with its approvals-off run
// only when it has none of them (Discovery is deterministic and only
// counted).
type diffFlags struct {
	Random, Clock, Race, Burn, Volatile, Discovery bool
}

func (f diffFlags) deterministic() bool {
	return !f.Random && !f.Clock && !f.Race && !f.Burn && !f.Volatile
}

var diffFlagNames = []string{"random", "clock", "race", "burn", "volatile", "discovery"}

func (f *diffFlags) field(name string) *bool {
	switch name {
	case "random":
		return &f.Random
	case "clock":
		return &f.Clock
	case "race":
		return &f.Race
	case "burn":
		return &f.Burn
	case "volatile":
		return &f.Volatile
	case "discovery":
		return &f.Discovery
	}
	return nil
}

// String lists the flags set, space-separated, or "-".
func (f diffFlags) String() string {
	var out []string
	for _, n := range diffFlagNames {
		if *f.field(n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, " ")
}

func parseDiffFlags(s string) (diffFlags, error) {
	var f diffFlags
	for _, n := range strings.Fields(s) {
		if n == "-" {
			continue
		}
		p := f.field(n)
		if p == nil {
			return f, fmt.Errorf("unknown flag %q", n)
		}
		*p = true
	}
	return f, nil
}

// diffExec is one execution: its questions, its outcome and the writes
// the handlers made.
type diffExec struct {
	label     string // "approvals off", "accepted", "declined at question 2"
	declineAt int    // the question declined; 0: every one accepted
	questions []diffQuestion
	res       *mcp.CallToolResult
	st        structuredResult
	err       error // the call itself failed
	writes    []diffWrite
}

// diffQuestion is one question, as the user read it, with the store's
// writes when it was asked.
type diffQuestion struct {
	msg      string
	accepted bool
	store    []string // keys of the writes made when it was asked
	shown    []string // keys of the calls it asks about
	listed   []string // keys of the writes it says were made
	further  []string // functions whose further calls accepting covers
	parseErr error
}

var (
	reShown   = regexp.MustCompile(`^\d+\. ([\w.]+) \((?:READ-ONLY|MUTATING|CREATIVE)\)$`)
	reListed  = regexp.MustCompile(`^- ([\w.]+)\((.*)\)(?: → id .+)?$`)
	reFurther = regexp.MustCompile(`further (.+?) calls this code makes`)
)

// parseQuestion reads the calls, the writes already made and the further
// calls covered from an approval question (approvalMessage's format).
func parseQuestion(msg string) diffQuestion {
	q := diffQuestion{msg: msg}
	var fn string
	var args map[string]json.RawMessage
	flush := func() {
		if fn != "" {
			b, _ := json.Marshal(args)
			q.shown = append(q.shown, diffKey(fn, b))
		}
		fn = ""
	}
	listing := false
	for l := range strings.SplitSeq(msg, "\n") {
		if m := reShown.FindStringSubmatch(l); m != nil {
			flush()
			fn, args = m[1], map[string]json.RawMessage{}
			continue
		}
		if arg, ok := strings.CutPrefix(l, "   "); ok && fn != "" {
			if arg == "(no arguments)" {
				continue
			}
			k, v, ok := strings.Cut(arg, ": ")
			if !ok || !json.Valid([]byte(v)) {
				q.parseErr = fmt.Errorf("argument line %q", l)
				continue
			}
			args[k] = json.RawMessage(v)
			continue
		}
		flush()
		if l == "Already changed by this code:" {
			listing = true
			continue
		}
		if m := reListed.FindStringSubmatch(l); listing && m != nil {
			q.listed = append(q.listed, diffKey(m[1], []byte(m[2])))
			continue
		}
		listing = false
	}
	flush()
	if m := reFurther.FindStringSubmatch(msg); m != nil {
		q.further = strings.Split(strings.ReplaceAll(m[1], " or ", ", "), ", ")
	}
	if len(q.shown) == 0 && q.parseErr == nil {
		q.parseErr = fmt.Errorf("no call found")
	}
	return q
}

// diffTrace is what a script returned: the writes it attempted and those
// that succeeded, as keys, and its value as canonical JSON.
type diffTrace struct {
	attempts, ok []string
	value        string
}

func parseDiffTrace(result json.RawMessage) (diffTrace, error) {
	var tr diffTrace
	var v struct {
		W []string `json:"w"`
	}
	if err := json.Unmarshal(result, &v); err != nil {
		return tr, fmt.Errorf("result %s: %v", result, err)
	}
	for _, w := range v.W {
		var e []json.RawMessage
		var fn string
		var ok bool
		if json.Unmarshal([]byte(w), &e) != nil || len(e) < 3 || json.Unmarshal(e[0], &fn) != nil || json.Unmarshal(e[2], &ok) != nil {
			return tr, fmt.Errorf("trace entry %s", w)
		}
		k := diffKey("diff."+fn, e[1])
		tr.attempts = append(tr.attempts, k)
		if ok {
			tr.ok = append(tr.ok, k)
		}
	}
	var err error
	tr.value, err = canonJSON(result)
	return tr, err
}

// multiset counts keys.
type multiset map[string]int

func multisetOf(keys []string) multiset {
	m := multiset{}
	for _, k := range keys {
		m[k]++
	}
	return m
}

func writeKeys(ws []diffWrite) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Key
	}
	return out
}

// listedKeys are the writes an answer lists in structuredContent.writes.
func listedKeys(st structuredResult) []string {
	var out []string
	for _, w := range st.Writes {
		out = append(out, diffKey(w.Function, w.Args))
	}
	return out
}

// minus is what m holds beyond o.
func (m multiset) minus(o multiset) multiset {
	out := multiset{}
	for k, n := range m {
		if d := n - o[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

func (m multiset) equal(o multiset) bool { return len(m.minus(o)) == 0 && len(o.minus(m)) == 0 }

func (m multiset) String() string {
	var out []string
	for k, n := range m {
		if n == 1 {
			out = append(out, k)
		} else {
			out = append(out, fmt.Sprintf("%s ×%d", k, n))
		}
	}
	slices.Sort(out)
	return "[" + strings.Join(out, "; ") + "]"
}

// difference describes how got differs from want.
func difference(got, want multiset) string {
	return fmt.Sprintf("extra %v, missing %v", got.minus(want), want.minus(got))
}

// diffCheck collects the failures of one case.
type diffCheck struct {
	flags    diffFlags
	fails    []diffFailure
	refusals int // executions refused for entropy past the bound
}

// diffFailure is one broken property: kind names it for the summary.
type diffFailure struct {
	kind, detail string
}

func (k *diffCheck) fail(ex *diffExec, kind, format string, args ...any) {
	k.fails = append(k.fails, diffFailure{kind: kind, detail: ex.label + ": " + fmt.Sprintf(format, args...)})
}

// off checks the approvals-off execution: the store holds exactly the
// trace's successful writes. It returns the trace, and whether it holds.
func (k *diffCheck) off(ex *diffExec) (diffTrace, bool) {
	switch {
	case ex.err != nil:
		k.fail(ex, "call failed", "%v", ex.err)
	case ex.res.IsError || ex.res.NeedsInput():
		k.fail(ex, "approvals off: no value", "%s", text(ex.res))
	default:
		tr, err := parseDiffTrace(ex.st.Result)
		if err != nil {
			k.fail(ex, "no trace", "%v", err)
			return tr, false
		}
		if got, want := multisetOf(writeKeys(ex.writes)), multisetOf(tr.ok); !got.equal(want) {
			k.fail(ex, "store differs from trace", "%s", difference(got, want))
			return tr, false
		}
		return tr, true
	}
	return diffTrace{}, false
}

// on checks an execution with approvals required, every question
// accepted up to ex.declineAt, which is declined. off is the
// approvals-off execution's trace, compared when offOK and the script is
// deterministic.
func (k *diffCheck) on(ex *diffExec, off diffTrace, offOK bool) {
	qs := ex.questions
	if len(qs) > 10 {
		k.fail(ex, "too many questions", "%d questions", len(qs))
	}
	for j, q := range qs {
		if q.parseErr != nil {
			k.fail(ex, "question unreadable", "question %d: %v:\n%s", j+1, q.parseErr, q.msg)
		}
		if got, want := multisetOf(q.listed), multisetOf(q.store); !got.equal(want) {
			k.fail(ex, "question lists other writes", "question %d: %s", j+1, difference(got, want))
		}
	}
	k.covered(ex)
	store := multisetOf(writeKeys(ex.writes))
	det := k.flags.deterministic() && offOK
	declined := ex.declineAt > 0 && len(qs) >= ex.declineAt
	var kind, msg string
	if ex.err == nil && ex.st.Error != nil {
		kind, msg = ex.st.Error.Kind, ex.st.Error.Message
	}
	switch {
	case ex.err != nil:
		k.fail(ex, "call failed", "%v", ex.err)
	case !ex.res.IsError && !ex.res.NeedsInput():
		if declined {
			k.fail(ex, "a value after a decline", "%s", text(ex.res))
		}
		tr, err := parseDiffTrace(ex.st.Result)
		if err != nil {
			k.fail(ex, "no trace", "%v", err)
			return
		}
		if want := multisetOf(tr.ok); !store.equal(want) {
			k.fail(ex, "store differs from trace", "store vs trace: %s", difference(store, want))
		}
		// Each accepted question's calls were made, with exactly the
		// arguments shown. A call shown again in a later question (it
		// arrived while that one waited) is made once.
		made := multisetOf(tr.attempts)
		for j, q := range qs {
			for c, n := range multisetOf(q.shown) {
				if made[c] < n {
					k.notMade(ex, det, off, j, c, n, made)
				}
			}
		}
		if len(qs) > 0 {
			if got := multisetOf(listedKeys(ex.st)); !got.equal(store) {
				k.fail(ex, "answer lists other writes", "structuredContent.writes vs store: %s", difference(got, store))
			}
		}
		if det && tr.value != off.value {
			k.fail(ex, "value differs from approvals off", "got %s\napprovals off %s", tr.value, off.value)
		}
		if det && !store.equal(multisetOf(off.ok)) {
			k.fail(ex, "writes differ from approvals off", "%s", difference(store, multisetOf(off.ok)))
		}
	case kind == "APPROVAL_DECLINED" && ex.declineAt > 0 && len(qs) == ex.declineAt:
		if got := multisetOf(listedKeys(ex.st)); !got.equal(store) {
			k.fail(ex, "answer lists other writes", "structuredContent.writes vs store: %s", difference(got, store))
		}
		if at := multisetOf(qs[len(qs)-1].store); !store.equal(at) {
			k.fail(ex, "written after the decline", "store at the end vs when asked: %s", difference(store, at))
		}
		// The calls of the questions accepted before need not all have
		// run ("exactly as shown, or not at all"): a question may show a
		// call the script made past the one it stopped on, which a run
		// that ends declined never reaches. What ran was approved
		// (covered), and nothing ran after the decline.
		if det {
			if extra := store.minus(multisetOf(off.ok)); len(extra) > 0 {
				k.fail(ex, "writes differ from approvals off", "written but not by the approvals-off run: %v", extra)
			}
		}
	case kind == "APPROVAL_DIVERGED" && k.flags.Burn && mentionsEntropy(msg):
		// The documented refusal of a script that read more clock or
		// random values than an approval records: before asking, with
		// the writes so far listed and nothing written after.
		k.refusals++
		if got := multisetOf(listedKeys(ex.st)); !got.equal(store) {
			k.fail(ex, "answer lists other writes", "structuredContent.writes vs store: %s", difference(got, store))
		}
	default:
		if kind == "" {
			kind = "no error kind"
		}
		k.fail(ex, "unexpected "+kind, "%s", clipDiff(text(ex.res), 600))
	}
}

// notMade reports that call c, shown n times in question j and accepted,
// was made fewer times by the final run. When the script is
// deterministic and its approvals-off run made c fewer than n times too,
// the question showed a call the script made only because an earlier
// call was refused while it waited for approval (the script caught the
// refusal and went on): the user was asked about a call the code does
// not make.
func (k *diffCheck) notMade(ex *diffExec, det bool, off diffTrace, j int, c string, n int, made multiset) {
	if det && multisetOf(off.attempts)[c] < n {
		k.fail(ex, "question showed a call made only after a refusal", "question %d showed %s, which the code (run with approvals off too) does not make (as often); the final run attempted %v", j+1, c, made)
		return
	}
	k.fail(ex, "approved call not made as shown", "question %d showed %s; the final run attempted %v", j+1, c, made)
}

// covered checks that every write of a function that needs approval ran
// after the user accepted a question that showed exactly that call, or
// that covered further calls of its function.
func (k *diffCheck) covered(ex *diffExec) {
	qs := ex.questions
	shown := make([]multiset, len(qs))
	for j, q := range qs {
		shown[j] = multisetOf(q.shown)
	}
	for _, w := range ex.writes {
		fn, _, _ := strings.Cut(w.Key, " ")
		if !diffApprovalFns[fn] {
			continue
		}
		ok := false
		for j := 0; j < w.Epoch && j < len(qs) && !ok; j++ {
			if shown[j][w.Key] > 0 {
				shown[j][w.Key]--
				ok = true
			}
		}
		for j := 0; j < w.Epoch && j < len(qs) && !ok; j++ {
			ok = slices.Contains(qs[j].further, fn)
		}
		if !ok {
			k.fail(ex, "write not approved", "%s ran after %d accepted questions, none of which showed it or covered further %s calls", w.Key, w.Epoch, fn)
		}
	}
}

// mentionsEntropy reports whether an APPROVAL_DIVERGED message gives the
// clock or Math.random as the reason.
func mentionsEntropy(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "random") || strings.Contains(m, "clock") || strings.Contains(m, "date.now")
}

func clipDiff(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
