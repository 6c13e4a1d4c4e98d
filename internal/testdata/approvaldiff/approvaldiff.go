// Package approvaldiff is the differential test of approvals
// (TestApprovalDifferential in codemode, TestApprovalDifferentialReplicas
// in codemode/pgstate): it proves the approval invariant on generated
// scripts (gen.go). Each script runs with approvals off, with approvals
// required and every question accepted, and declined at each question k
// the accepted execution asked, and the oracle (oracle.go) checks every
// execution against the store's log of writes (store.go), its own trace,
// the questions and the answers.
//
// Only tests import it: it lives under testdata so that ./... does not
// build it as library code, and its import path is internal to the
// repository's modules. A test calls [Run] with its configurations; a
// [Config] says how the executions reach the servers (sandbox mode,
// protocol revision, stdio) and, through its Replicas hook, which spent
// approvals each replica uses.
//
// A case is named by its test, configuration and seed, for example
//
//	go test -race -run 'TestApprovalDifferential/worker-2026-07-28/seed=300017$' ./codemode/
//
// -approval-diff.n sets how many scripts each configuration generates,
// and -approval-diff.keep writes each failing generated case to the
// test's regression directory, whose files always run.
package approvaldiff

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/sandbox"
)

var (
	diffKeep = flag.Bool("approval-diff.keep", false, "approvaldiff: write failing generated cases to the test's regression directory (at most 2 per configuration and kind of failure)")
	diffN    = flag.Int("approval-diff.n", 0, "approvaldiff: generated scripts per configuration (default Options.N, or Options.Short with -short)")
)

// Config is one way to run the executions.
type Config struct {
	// Name names the configuration's subtest and its regression files.
	Name string
	// Mode is the sandbox mode of every server.
	Mode sandbox.Mode
	// Version is the protocol revision the clients speak: on 2026-07-28
	// a question is an input-required result and its answer a retry over
	// stateless HTTP; before, it is elicitation/create, over a stateful
	// HTTP session or over stdio.
	Version string
	// Stdio sends the approvals-required executions over stdio (ServeIO)
	// instead of HTTP; only before 2026-07-28.
	Stdio bool
	// Seeds places the generated scripts: their seeds are Seeds+1 to
	// Seeds+n.
	Seeds uint64
	// Replicas, when set, returns the spent approvals of each replica:
	// the configuration runs that many servers with approvals, sharing
	// a sealing key, and sends each 2026-07-28 retry to the next one.
	// Unset, one server runs with approvals, with the in-process spent
	// approvals codemode.New gives it.
	Replicas func(t *testing.T) []state.SpentApprovals
}

// Options are what a test using [Run] chooses besides its configurations.
type Options struct {
	// N and Short are how many scripts each configuration generates, in
	// the full run and with -short; -approval-diff.n overrides both.
	N, Short int
	// Regressions is the directory of the failing cases kept (relative
	// to the test's package): one file per configuration and seed, a
	// header of "key: value" lines, a blank line, and the script exactly
	// as it ran. Every file must name one of the configurations. Empty:
	// no case is run from files or kept.
	Regressions string
}

// Run runs every configuration as a subtest of t, side by side, each on
// its regression cases and its generated scripts, and logs a summary.
func Run(t *testing.T, configs []Config, opts Options) {
	n := opts.N
	if testing.Short() {
		n = opts.Short
	}
	if *diffN > 0 {
		n = *diffN
	}
	regs := loadDiffRegressions(t, opts.Regressions, configs)
	sum := &diffSummary{configs: configs}
	start := time.Now()
	var wg sync.WaitGroup
	for _, cfg := range configs {
		wg.Go(func() {
			t.Run(cfg.Name, func(t *testing.T) {
				var cases []diffCase
				for _, r := range regs {
					if r.config == cfg.Name {
						cases = append(cases, r)
					}
				}
				for i := range n {
					seed := cfg.Seeds + uint64(i+1)
					cases = append(cases, diffCase{name: fmt.Sprintf("seed=%d", seed), seed: seed, config: cfg.Name, script: genDiffScript(seed)})
				}
				runDiffConfig(t, cfg, cases, sum, opts.Regressions)
			})
		})
	}
	wg.Wait()
	t.Logf("%s in %v", sum.report(), time.Since(start).Round(time.Millisecond))
}

// diffCase is a script to run in a configuration.
type diffCase struct {
	name   string // the subtest: seed=N, or regression=file
	seed   uint64
	config string
	script diffScript
}

// diffDeployment is a configuration's servers: one with approvals off,
// and one (or the replicas) with approvals required, each over a store.
type diffDeployment struct {
	cfg             Config
	offStore, store *diffStore
	off             *server
	on              []*server
}

// diffParallel is how many cases of one configuration run at once; the
// configurations run side by side.
const diffParallel = 2

func runDiffConfig(t *testing.T, cfg Config, cases []diffCase, sum *diffSummary, dir string) {
	d := startDiffDeployment(t, cfg)
	next := make(chan diffCase)
	var wg sync.WaitGroup
	for range diffParallel {
		wg.Go(func() {
			for c := range next {
				t.Run(c.name, func(t *testing.T) { d.runCase(t, c, sum, dir) })
			}
		})
	}
	for _, c := range cases {
		next <- c
	}
	close(next)
	wg.Wait()
}

func startDiffDeployment(t *testing.T, cfg Config) *diffDeployment {
	d := &diffDeployment{cfg: cfg, offStore: newDiffStore(), store: newDiffStore()}
	limits := func(o *codemode.Options) {
		o.Sandbox.Mode = cfg.Mode
		// Outcomes, not limits, are under test: a starved worker on a
		// loaded machine must not turn one into TIMEOUT.
		o.Limits.Timeout = time.Minute
		o.Limits.MaxCalls = 100
	}
	d.off = startServer(t, newDiffCatalog(t, d.offStore, false), limits)
	spent := []state.SpentApprovals{nil}
	var key []byte
	if cfg.Replicas != nil {
		spent, key = cfg.Replicas(t), []byte(strings.Repeat("r", 32))
		if len(spent) == 0 {
			t.Fatalf("configuration %s: Replicas returned no replica", cfg.Name)
		}
	}
	for _, sp := range spent {
		d.on = append(d.on, startServer(t, newDiffCatalog(t, d.store, true), func(o *codemode.Options) {
			limits(o)
			o.Approvals.Tiers = []catalog.Tier{catalog.Mutating}
			o.Approvals.Key = key
			o.Approvals.Spent = sp
			o.HTTP.Stateful = cfg.Version < "2026-07-28" && !cfg.Stdio
		}))
	}
	return d
}

// diffAsker answers the questions of one case's executions: accept, but
// decline question declineAt. It records each question with the store's
// writes at the time it was asked.
type diffAsker struct {
	store     *diffStore
	sub       string
	mu        sync.Mutex
	declineAt int
	questions []diffQuestion
}

func (a *diffAsker) reset(declineAt int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.declineAt, a.questions = declineAt, nil
}

// ask records msg and returns the answer. After 12 questions it cancels:
// an execution that asks that often is broken, and the oracle says so.
func (a *diffAsker) ask(msg string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := parseQuestion(msg)
	q.store = a.store.snapshot(a.sub)
	n := len(a.questions) + 1
	q.accepted = n != a.declineAt && n <= 12
	a.questions = append(a.questions, q)
	switch {
	case q.accepted:
		a.store.accepted(a.sub)
		return "accept"
	case n > 12:
		return "cancel"
	}
	return "decline"
}

func (a *diffAsker) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	action := a.ask(req.Params.Message)
	res := &mcp.ElicitResult{Action: action}
	if action == "accept" {
		res.Content = map[string]any{}
	}
	return res, nil
}

func (a *diffAsker) asked() []diffQuestion {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.questions)
}

// runCase runs c with approvals off, accepted, and declined at each
// question, and checks every execution.
func (d *diffDeployment) runCase(t *testing.T, c diffCase, sum *diffSummary, dir string) {
	sub := fmt.Sprintf("case-%d", c.seed)
	if strings.HasPrefix(c.name, "regression=") {
		sub = "r" + sub // a regression case may share a seed with a generated one
	}
	ask := &diffAsker{store: d.store, sub: sub}
	off := d.off.connectHTTP(t, sub, "2026-07-28", nil)
	var on []*mcp.ClientSession
	for _, ts := range d.on {
		switch {
		case d.cfg.Version >= "2026-07-28":
			on = append(on, ts.connectHTTP(t, sub, d.cfg.Version, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return nil, fmt.Errorf("asked over elicitation/create on revision %s", d.cfg.Version)
				},
				MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
			}))
		case d.cfg.Stdio:
			on = append(on, ts.connectStdio(t, sub, d.cfg.Version, &mcp.ClientOptions{ElicitationHandler: ask.handle}))
		default:
			on = append(on, ts.connectHTTP(t, sub, d.cfg.Version, &mcp.ClientOptions{ElicitationHandler: ask.handle}))
		}
	}

	k := &diffCheck{flags: c.script.Flags}
	execs := []*diffExec{d.execute(off, nil, ask, c.script.Code, -1)}
	execs[0].writes = d.offStore.take(sub)
	tr, offOK := k.off(execs[0])
	acc := d.execute(nil, on, ask, c.script.Code, 0)
	k.on(acc, tr, offOK)
	execs = append(execs, acc)
	for q := 1; q <= len(acc.questions) && q <= 10; q++ {
		ex := d.execute(nil, on, ask, c.script.Code, q)
		k.on(ex, tr, offOK)
		execs = append(execs, ex)
	}
	sum.add(d.cfg.Name, c, k, len(acc.questions))
	if len(k.fails) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, configuration %s, flags %s: %d failures\n", c.seed, d.cfg.Name, c.script.Flags, len(k.fails))
	for i, f := range k.fails {
		if i == 8 {
			fmt.Fprintf(&b, "... and %d more\n", len(k.fails)-i)
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", f.kind, f.detail)
	}
	b.WriteString("executions:\n")
	for _, ex := range execs {
		fmt.Fprintf(&b, "  %s: %d questions, store %v\n", ex.label, len(ex.questions), multisetOf(writeKeys(ex.writes)))
		if ex.res != nil {
			fmt.Fprintf(&b, "    answer: %s\n", clipDiff(strings.ReplaceAll(text(ex.res), "\n", "\n    "), 1200))
		}
	}
	fmt.Fprintf(&b, "script:\n%s", c.script.Code)
	t.Error(b.String())
	if *diffKeep && dir != "" && strings.HasPrefix(c.name, "seed=") && sum.keep(d.cfg.Name, k.fails[0].kind) {
		writeDiffRegression(t, dir, c, k.fails[0])
	}
}

// execute runs code once to its end: over the approvals-off session
// (declineAt -1), or with approvals, answering each question as ask says
// (declineAt 0: accept all) and sending each 2026-07-28 retry to the next
// replica.
func (d *diffDeployment) execute(off *mcp.ClientSession, on []*mcp.ClientSession, ask *diffAsker, code string, declineAt int) *diffExec {
	ex := &diffExec{declineAt: declineAt}
	switch {
	case declineAt < 0:
		ex.label = "approvals off"
	case declineAt == 0:
		ex.label = "accepted"
	default:
		ex.label = fmt.Sprintf("declined at question %d", declineAt)
	}
	ask.reset(max(declineAt, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := off
	if cs == nil {
		cs = on[0]
	}
	ex.res, ex.err = callCode(ctx, cs, code, "", "")
	for i := 0; off == nil && ex.err == nil && ex.res.NeedsInput(); {
		p, ok := ex.res.InputRequests["approval"].(*mcp.ElicitParams)
		if !ok {
			ex.err = fmt.Errorf("input-required result without an approval request: %+v", ex.res.InputRequests)
			break
		}
		action := ask.ask(p.Message)
		i = (i + 1) % len(on)
		ex.res, ex.err = callCode(ctx, on[i], code, ex.res.RequestState, action)
	}
	ex.questions = ask.asked()
	if off == nil {
		ex.writes = d.store.take(ask.sub)
	}
	if ex.err == nil {
		ex.st = structuredOf(ex.res)
	}
	return ex
}

// callCode calls execute_code, with state and the answer action when
// retrying after an input-required result.
func callCode(ctx context.Context, cs *mcp.ClientSession, code, state, action string) (*mcp.CallToolResult, error) {
	p := &mcp.CallToolParams{Name: codemode.ToolName, Arguments: map[string]any{"code": code}, RequestState: state}
	if state != "" {
		answer := &mcp.ElicitResult{Action: action}
		if action == "accept" {
			answer.Content = map[string]any{}
		}
		p.InputResponses = mcp.InputResponseMap{"approval": answer}
	}
	return cs.CallTool(ctx, p)
}

// diffSummary counts outcomes across configurations for the final log.
type diffSummary struct {
	configs   []Config // the order of the report
	mu        sync.Mutex
	cases     map[string]int
	failed    map[string]int
	kinds     map[string][]string // kind → "config seed" examples
	kindCount map[string]int
	kept      map[string]int // "config kind" → regression files written
	flags     map[string]int
	questions int
	refusals  int
}

func (s *diffSummary) add(config string, c diffCase, k *diffCheck, questions int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cases == nil {
		s.cases, s.failed, s.kinds, s.kindCount, s.kept, s.flags = map[string]int{}, map[string]int{}, map[string][]string{}, map[string]int{}, map[string]int{}, map[string]int{}
	}
	key := config
	if !strings.HasPrefix(c.name, "seed=") {
		key += " (regressions)"
	}
	s.cases[key]++
	s.questions += questions
	s.refusals += k.refusals
	for _, f := range strings.Fields(c.script.Flags.String()) {
		s.flags[f]++
	}
	if len(k.fails) > 0 {
		s.failed[key]++
	}
	seen := map[string]bool{}
	for _, f := range k.fails {
		if seen[f.kind] {
			continue
		}
		seen[f.kind] = true
		s.kindCount[f.kind]++
		if len(s.kinds[f.kind]) < 4 {
			s.kinds[f.kind] = append(s.kinds[f.kind], config+" "+c.name)
		}
	}
}

// keep reports whether another regression file may be written for
// config and kind, and counts it.
func (s *diffSummary) keep(config, kind string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept[config+" "+kind]++
	return s.kept[config+" "+kind] <= 2
}

func (s *diffSummary) report() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	total, failed := 0, 0
	for _, cfg := range s.configs {
		for _, name := range []string{cfg.Name, cfg.Name + " (regressions)"} {
			if s.cases[name] > 0 {
				fmt.Fprintf(&b, "\n  %s: %d cases, %d failed", name, s.cases[name], s.failed[name])
			}
			total += s.cases[name]
			failed += s.failed[name]
		}
	}
	fmt.Fprintf(&b, "\n  flags: %v; %d questions in accepted executions; %d entropy refusals", s.flags, s.questions, s.refusals)
	kinds := make([]string, 0, len(s.kinds))
	for k := range s.kinds {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int { return s.kindCount[b] - s.kindCount[a] })
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n  failure %q in %d cases, e.g. %s", k, s.kindCount[k], strings.Join(s.kinds[k], ", "))
	}
	return fmt.Sprintf("%d cases, %d failed:", total, failed) + b.String()
}

// writeDiffRegression keeps c, which failed with f, in dir (see
// Options.Regressions).
func writeDiffRegression(t *testing.T, dir string, c diffCase, f diffFailure) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	why := strings.SplitN(f.detail, "\n", 2)[0]
	body := fmt.Sprintf("# A %s case that failed once; it runs on every test run and must pass.\nseed: %d\nconfig: %s\nflags: %s\nfailed: %s: %s\n\n%s", strings.SplitN(t.Name(), "/", 2)[0], c.seed, c.config, c.script.Flags, f.kind, clipDiff(why, 300), c.script.Code)
	name := filepath.Join(dir, fmt.Sprintf("%s-seed%d.txt", c.config, c.seed))
	if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("kept as %s", name)
}

// loadDiffRegressions reads the cases kept in dir, each for one of
// configs.
func loadDiffRegressions(t *testing.T, dir string, configs []Config) []diffCase {
	if dir == "" {
		return nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []diffCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head, code, ok := strings.Cut(string(b), "\n\n")
		c := diffCase{name: "regression=" + strings.TrimSuffix(filepath.Base(f), ".txt"), script: diffScript{Code: code}}
		for l := range strings.SplitSeq(head, "\n") {
			k, v, _ := strings.Cut(l, ": ")
			switch k {
			case "seed":
				c.seed, err = strconv.ParseUint(v, 10, 64)
			case "config":
				c.config = v
			case "flags":
				c.script.Flags, err = parseDiffFlags(v)
			}
			if err != nil {
				t.Fatalf("%s: %s: %v", f, l, err)
			}
		}
		if !ok || c.config == "" || !slices.ContainsFunc(configs, func(d Config) bool { return d.Name == c.config }) {
			t.Fatalf("%s: want a header naming one of this test's configurations, a blank line and the script", f)
		}
		out = append(out, c)
	}
	return out
}
