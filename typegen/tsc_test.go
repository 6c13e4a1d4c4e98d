package typegen_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/internal/tsclienttest"
	"github.com/brakinglab/codemode-go/typegen"
)

// tscCommand returns the command prefix that runs the TypeScript compiler
// .ci/setup installs, with the Node binary it installs. It fails the test
// under CI when either is missing and skips it otherwise
// (tsclienttest.Need).
func tscCommand(t *testing.T) []string {
	t.Helper()
	tsclienttest.Need(t, "typescript")
	return []string{tsclienttest.Node(), filepath.Join(tsclienttest.Modules(), "typescript", "bin", "tsc")}
}

// compileAll type-checks each program, as its own module, against the
// generated declarations in one compiler run (starting tsc dominates the
// cost), and returns each program's diagnostics ("" when it compiles) plus
// diagnostics in the declarations themselves.
func compileAll(t *testing.T, tsc []string, decls string, programs []string) (perProgram []string, inDecls string) {
	t.Helper()
	dir := t.TempDir()
	files := []string{"api.d.ts"}
	if err := os.WriteFile(filepath.Join(dir, "api.d.ts"), []byte(decls), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, p := range programs {
		name := fmt.Sprintf("p%d.ts", i)
		files = append(files, name)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append(tsc[1:], "--strict", "--noEmit", "--target", "es2022", "--lib", "es2022", "--pretty", "false")
	cmd := exec.Command(tsc[0], append(args, files...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running tsc: %v", err)
	}
	perProgram = make([]string, len(programs))
	target := -1 // the program the current diagnostic belongs to; -1 for the declarations
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") { // continuation lines are indented
			target = -1
			file, _, _ := strings.Cut(line, "(")
			if i, ok := strings.CutPrefix(file, "p"); ok {
				if n, err := strconv.Atoi(strings.TrimSuffix(i, ".ts")); err == nil && n < len(programs) {
					target = n
				}
			}
		}
		if target >= 0 {
			perProgram[target] += line
		} else {
			inDecls += line
		}
	}
	if err != nil && strings.TrimSpace(strings.Join(perProgram, "")+inDecls) == "" {
		t.Fatalf("tsc failed without diagnostics: %v\n%s", err, out)
	}
	return perProgram, inDecls
}

// wrap puts a program body in an async function, as the sandbox does.
func wrap(body string) string {
	return "export {};\ndeclare const console: { log(...data: unknown[]): void };\n" +
		"async function main(): Promise<unknown> {\n" + body + "\n}\nvoid main;\n"
}

func TestDeclarationsCompile(t *testing.T) {
	tsc := tscCommand(t)
	decls, err := typegen.Generate(fixture(), nil)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := typegen.Generate(fixture(), &typegen.Options{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	const report = `{ sessionId: "ses_01", summary: "Braking too early everywhere", corners: [{ corner: 1, verdict: "needs_work", tags: ["braking"] }] }`
	correct := wrap(`
  const page = await brakinglab.getSessions({ limit: 5, track: "Spa" });
  const all = await brakinglab.getSessions();
  const best: number | undefined = page.items[0]?.bestLapMs;
  const when: string = all.items[0].startedAt;
  const lap = await brakinglab.getLap({ sessionId: page.items[0].id, lap: 3 });
  if (lap !== null) { const s: number = lap.sectors[2] + lap.samples[0][1]; console.log(s, lap.flags["pit"]); }
  const tracks: string[] = await brakinglab.listTracks();
  const dry = await brakinglab.saveReport({ ...` + report + `, _validateOnly: true });
  const valid: true = dry.valid;
  const saved = await brakinglab.saveReport(` + report + `);
  const verdict: "good" | "needs_work" | "critical" = saved.corners[0].verdict;
  const plan = await brakinglab.createPlan({ reportId: saved.id, steps: [{ title: "Brake later", laps: 3, drill: { title: "T1 only", laps: 1 } }] });
  return { best, when, tracks, valid, verdict, plan: plan.planId, by: saved.createdBy };`)
	cases := []struct {
		name    string
		decls   string
		program string
		ok      bool
		mention []string // substrings the diagnostics must contain
	}{
		{name: "declarations alone", decls: decls, program: "export {};\n", ok: true},
		{name: "compact declarations alone", decls: compact, program: "export {};\n", ok: true},
		{name: "correct program", decls: decls, ok: true, program: correct},
		{name: "correct program, compact declarations", decls: compact, ok: true, program: correct},
		{name: "misspelled argument field", decls: decls, program: wrap(`
  return brakinglab.saveReport({ sessionId: "ses_01", summry: "Braking too early", corners: [] });`),
			mention: []string{"summry"}},
		{name: "wrong enum value", decls: decls, program: wrap(`
  return brakinglab.saveReport({ sessionId: "ses_01", summary: "Braking too early", corners: [{ corner: 1, verdict: "bad" }] });`),
			mention: []string{`"bad"`, `"needs_work"`}},
		{name: "misspelled result field", decls: decls, program: wrap(`
  const page = await brakinglab.getSessions();
  return page.items[0].trak;`),
			mention: []string{"trak"}},
		{name: "missing required argument", decls: decls, program: wrap(`
  return brakinglab.getLap({ lap: 1 });`),
			mention: []string{"sessionId"}},
		{name: "string for a number", decls: decls, program: wrap(`
  return brakinglab.getLap({ sessionId: "ses_01", lap: "1" });`),
			mention: []string{"'string' is not assignable to type 'number'"}},
		{name: "dry run on a read", decls: decls, program: wrap(`
  return brakinglab.getSessions({ _validateOnly: true });`),
			mention: []string{"_validateOnly"}},
	}
	for _, decls := range []string{decls, compact} {
		var programs []string
		var idx []int
		for i, tc := range cases {
			if tc.decls == decls {
				programs = append(programs, tc.program)
				idx = append(idx, i)
			}
		}
		diags, inDecls := compileAll(t, tsc, decls, programs)
		if inDecls != "" {
			t.Fatalf("diagnostics in the declarations:\n%s\n%s", inDecls, decls)
		}
		for j, i := range idx {
			tc, out := cases[i], diags[j]
			t.Run(tc.name, func(t *testing.T) {
				if ok := out == ""; ok != tc.ok {
					t.Fatalf("compiles = %v, want %v; diagnostics:\n%s", ok, tc.ok, out)
				}
				for _, m := range tc.mention {
					if !strings.Contains(out, m) {
						t.Errorf("diagnostics do not mention %s:\n%s", m, out)
					}
				}
			})
		}
	}
}

func TestGeneratedNamesAreUnique(t *testing.T) {
	decls, err := typegen.Generate(fixture(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(decls, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "interface" || f[0] == "type") {
			if seen[f[1]] {
				t.Errorf("%s declared twice", f[1])
			}
			seen[f[1]] = true
		}
	}
}
