package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/brakinglab/codemode-go/sandbox"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The texts of approvals: the question the user reads and the names of
// calls the model reads.

// elicitParams is the form the user answers: a message naming who asks
// and every call with its validated arguments, and no fields to fill in.
func (e *execution) elicitParams(pending []pendingCall, made []Write) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Mode:            "form",
		Message:         approvalMessage(clientName(e.c), pendingNamespaces(pending), pending, made, !e.s.perCall),
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}
}

// clientName is who asks: the client's title or name from its
// implementation info, and the OAuth client id when there is one.
func clientName(c *Call) string {
	name := ""
	if ss := c.Request.Session; ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			name = ip.ClientInfo.Title
			if name == "" {
				name = ip.ClientInfo.Name
			}
		}
	}
	var id string
	if c.Principal != nil {
		id = c.Principal.ClientID
	}
	switch {
	case name == "" && id == "":
		return "The AI client"
	case name == "":
		return "The AI client " + quoteShort(id)
	case id == "" || id == name:
		return quoteShort(name)
	}
	return quoteShort(name) + " (client " + quoteShort(id) + ")"
}

// quoteShort keeps a client-chosen name to one short line.
func quoteShort(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return s
}

// approvalMessage is the exact text the user reads, for example:
//
//	Claude asks to make 2 changes in brakinglab:
//
//	1. brakinglab.deleteRace (MUTATING)
//	   raceId: 12
//	2. brakinglab.deleteRace (MUTATING)
//	   raceId: 14
//
//	Already changed by this code:
//	- brakinglab.createRace({"name":"Spa"}) → id 15
//
//	Accept to make these changes, and further brakinglab.deleteRace calls
//	this code makes in this execution; decline to make none of them.
//
// Without writes made, "Nothing has been changed yet." takes the place of
// the list; with perFunction false, accepting covers exactly the calls
// listed.
func approvalMessage(who, ns string, pending []pendingCall, made []Write, perFunction bool) string {
	var b strings.Builder
	if len(pending) == 1 {
		fmt.Fprintf(&b, "%s asks to make 1 change in %s:\n\n", who, ns)
	} else {
		fmt.Fprintf(&b, "%s asks to make %d changes in %s:\n\n", who, len(pending), ns)
	}
	var fns []string
	for i, p := range pending {
		fmt.Fprintf(&b, "%d. %s (%s)", i+1, p.Fn, p.Tier)
		if p.From != "" {
			fmt.Fprintf(&b, ", called by %s", p.From)
		}
		b.WriteString("\n")
		lines := readableArgs(p.Args)
		if len(lines) == 0 {
			b.WriteString("   (no arguments)\n")
		}
		for _, l := range lines {
			b.WriteString("   " + l + "\n")
		}
		if f := p.Fn; !slices.Contains(fns, f) {
			fns = append(fns, f)
		}
	}
	if len(made) == 0 {
		b.WriteString("\nNothing has been changed yet. ")
	} else {
		b.WriteString("\nAlready changed by this code:\n")
		b.WriteString(writesText(made, "- "))
		b.WriteString("\n")
	}
	switch {
	case perFunction:
		these := "this change"
		if len(pending) > 1 {
			these = "these changes"
		}
		fmt.Fprintf(&b, "Accept to make %s, and further %s calls this code makes in this execution; decline to make none of them.", these, orList(fns))
	case len(pending) == 1:
		b.WriteString("Accept to make exactly this change; decline to make none.")
	default:
		b.WriteString("Accept to make exactly these changes; decline to make none.")
	}
	return b.String()
}

// pendingNamespaces names the namespaces the calls change, in order of
// first appearance: "brakinglab", or "github and memory".
func pendingNamespaces(pending []pendingCall) string {
	var nss []string
	for _, p := range pending {
		ns, _, _ := strings.Cut(p.Fn, ".")
		if !slices.Contains(nss, ns) {
			nss = append(nss, ns)
		}
	}
	if len(nss) <= 1 {
		return strings.Join(nss, "")
	}
	return strings.Join(nss[:len(nss)-1], ", ") + " and " + nss[len(nss)-1]
}

// orList joins names: a, b or c.
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// readableArgs renders canonical arguments one member a line: key: value,
// with values as compact JSON.
func readableArgs(args json.RawMessage) []string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return []string{string(args)}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+": "+string(obj[k]))
	}
	return out
}

// modelList names the calls for the model: ns.fn({"canonical":"args"}).
func modelList(pending []pendingCall) string {
	parts := make([]string, len(pending))
	for i, p := range pending {
		parts[i] = p.Fn + "(" + string(p.Args) + ")"
	}
	switch len(parts) {
	case 1:
		return parts[0]
	case 2:
		return parts[0] + " and " + parts[1]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func needVerb(pending []pendingCall) string {
	if len(pending) == 1 {
		return "needs"
	}
	return "need"
}

func itThem(pending []pendingCall) string {
	if len(pending) == 1 {
		return "this call"
	}
	return "these calls"
}

// approvalNotRun starts the error of a call that an approval outcome
// stopped (withoutApprovalStops).
const approvalNotRun = "not run: "

// withoutApprovalStops returns res with the calls that the approval
// stopped described by the execution's outcome, kind. Their own errors
// say the execution resumes once the user answers, and the warnings about
// them say to fix the error and run again: advice the model cannot follow
// once the outcome is final (a client that cannot ask never answers).
func withoutApprovalStops(res *sandbox.Result, kind sandbox.Kind) *sandbox.Result {
	if res == nil {
		return nil
	}
	stopped := func(msg string) bool {
		return strings.Contains(msg, errApprovalPendingText) || strings.Contains(msg, errApprovalStopped{}.Error())
	}
	note := approvalNotRun + "the execution ended with " + string(kind)
	if kind == KindPending {
		note = approvalNotRun + "it waits for the user's answer on the approval page"
	}
	out := *res
	out.Calls = slices.Clone(res.Calls)
	for i, c := range out.Calls {
		if stopped(c.Error) {
			out.Calls[i].Error = note
		}
	}
	out.Warnings = slices.DeleteFunc(slices.Clone(res.Warnings), func(w sandbox.Warning) bool {
		return w.Kind == sandbox.WarningUnawaited && stopped(w.Message)
	})
	return &out
}

// elicitFailure says briefly why asking failed, for the model.
func elicitFailure(err error) string {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return "the answer was an error: " + clip(je.Message, 300)
	}
	return clip(err.Error(), 300)
}

// clip keeps a message to one line of at most n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// StoppedCall reports whether a call of fn failed with the error message
// err only because its execution stopped for an approval: the result
// says so once, in the approval outcome, rather than for each such call.
func StoppedCall(fn, err string) bool {
	return err == (errApprovalPending{name: fn}).Error() || err == (errApprovalStopped{}).Error() || strings.HasPrefix(err, approvalNotRun)
}
