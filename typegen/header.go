package typegen

import (
	"fmt"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
)

// What the namespace opens with, said once for every function: the
// tiers' rules, the approval rule, the scopes each tier needs and the
// Write call signatures of strict functions.

// scopeWord is "scope" or "scopes" for a comma-separated list.
func scopeWord(list string) string {
	if strings.Contains(list, ", ") {
		return "scopes"
	}
	return "scope"
}

// readRule is what READ-ONLY functions share.
const readRule = "only read; an unknown argument field is ignored and reported as a warning."

// tierOrder orders the groups of functions: reads first.
func tierOrder(t catalog.Tier) int {
	switch t {
	case catalog.ReadOnly:
		return 0
	case catalog.Mutating:
		return 1
	}
	return 2
}

// ApprovalTag marks a function whose calls wait for the user's approval,
// in its JSDoc and in a host's index of functions.
const ApprovalTag = "@approval"

// writeType and writeOptType are the call signatures of a strict
// function, declared once in the header: the dry-run overload and the real
// call, with required or optional arguments.
const (
	writeType    = "Write"
	writeOptType = "WriteOpt"
)

// header states once what every function shares: the tiers' rules, the
// dry-run marker when a strict function is present, and each tier's
// scopes when all its functions need the same ones. When grouped, the
// functions follow in tier groups whose headers say the scopes and the
// READ-ONLY rule. It returns those
// scopes by tier ("" for none or when the functions differ: they then
// state their own).
func header(b *strings.Builder, funcs []catalog.FuncInfo, opts *Options, grouped bool) map[catalog.Tier]string {
	scopes := map[catalog.Tier]string{}
	seen := map[catalog.Tier]bool{}
	differ := map[catalog.Tier]bool{}
	var strict, read, approval bool
	for _, f := range funcs {
		approval = approval || opts.needsApproval(f)
		s := strings.Join(f.Scopes, ", ")
		if seen[f.Tier] && scopes[f.Tier] != s {
			differ[f.Tier] = true
		}
		seen[f.Tier] = true
		scopes[f.Tier] = s
		strict = strict || f.Tier.Strict()
		read = read || !f.Tier.Strict()
	}
	for t := range differ {
		scopes[t] = ""
	}
	var lines []string
	if read && !grouped {
		lines = append(lines, "READ-ONLY functions "+readRule)
	}
	if strict {
		lines = append(lines, "MUTATING and CREATIVE functions change or create data; unknown argument fields are rejected. With `"+catalog.ValidateOnlyKey+": true` a call only checks its arguments and resolves to `{ valid: true }`.")
	}
	if approval {
		lines = append(lines, ApprovalTag+": the call asks the user first; once approved, the run resumes without repeating earlier calls. Declined: APPROVAL_DECLINED.")
	}
	// One sentence per distinct scope list, naming the tiers that need it.
	var order []string
	byScope := map[string][]string{}
	for _, t := range []catalog.Tier{catalog.ReadOnly, catalog.Mutating, catalog.Creative} {
		s := scopes[t]
		if !seen[t] || s == "" {
			continue
		}
		if byScope[s] == nil {
			order = append(order, s)
		}
		byScope[s] = append(byScope[s], t.String())
	}
	for _, s := range order {
		if !grouped {
			lines = append(lines, strings.Join(byScope[s], " and ")+" functions require "+scopeWord(s)+" "+s+".")
		}
	}
	for _, l := range lines {
		b.WriteString("// " + l + "\n") // line comments: about the namespace, not the next function
	}
	var req, opt bool
	for _, f := range funcs {
		if f.Tier.Strict() {
			if in, _, err := nodesOf(f); err == nil && in.EmptyArgsAccepted() {
				opt = true
			} else {
				req = true
			}
		}
	}
	if req {
		fmt.Fprintf(b, "interface %[1]s<A, R> { (args: A & { %[2]s: true }): Promise<{ valid: true }>; (args: A & { %[2]s?: false }): Promise<R>; }\n", writeType, catalog.ValidateOnlyKey)
	}
	if opt {
		fmt.Fprintf(b, "interface %[1]s<A, R> { (args: A & { %[2]s: true }): Promise<{ valid: true }>; (args?: A & { %[2]s?: false }): Promise<R>; }\n", writeOptType, catalog.ValidateOnlyKey)
	}
	return scopes
}
