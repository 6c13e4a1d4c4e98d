// Command apicheck records the public API of each published module of the
// repository in its api/v0.txt, one line per exported declaration in the
// style of Go's own api/ files, and checks that the code still matches:
//
//	go run ./internal/cmd/apicheck      # check: exit 1 and show the difference
//	go run ./internal/cmd/apicheck -w   # regenerate after a deliberate change
//
// The modules are those go.work uses, except the examples and modules
// whose path is internal (nothing outside the repository can import
// them): today the root module (api/v0.txt), chartpng (chartpng/api/v0.txt),
// codemode/pgstate (codemode/pgstate/api/v0.txt), otelcodemode
// (otelcodemode/api/v0.txt), oauthmeta/jwtverify
// (oauthmeta/jwtverify/api/v0.txt) and openapisource
// (openapisource/api/v0.txt).
//
// A line that disappears (a removed or changed declaration) breaks
// consumers: the change must be deliberate and noted in CHANGELOG.md. A
// new line is a compatible addition, still recorded so that every change
// of the API is reviewed. Run it from the repository root. It reads the
// compiler's export data (go list -export), so it sees exactly what a
// consumer's compiler sees, with the standard library only.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// baseline is the recorded API, relative to a module's directory.
const baseline = "api/v0.txt"

func main() {
	write := flag.Bool("w", false, "write each module's "+baseline+" instead of checking it")
	flag.Parse()
	dirs, err := modules()
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicheck:", err)
		os.Exit(2)
	}
	failed := false
	for _, dir := range dirs {
		ok, err := check(dir, *write)
		if err != nil {
			fmt.Fprintln(os.Stderr, "apicheck:", dir+":", err)
			os.Exit(2)
		}
		failed = failed || !ok
	}
	if failed {
		os.Exit(1)
	}
}

// modules lists the directories of the published modules: those go.work
// uses, except examples/... and modules whose path is internal.
func modules() ([]string, error) {
	out, err := exec.Command("go", "work", "edit", "-json").Output()
	if err != nil {
		return nil, fmt.Errorf("go work edit -json: %w", err)
	}
	var work struct{ Use []struct{ DiskPath string } }
	if err := json.Unmarshal(out, &work); err != nil {
		return nil, err
	}
	var dirs []string
	for _, u := range work.Use {
		dir := filepath.ToSlash(filepath.Clean(u.DiskPath))
		if dir == "examples" || strings.HasPrefix(dir, "examples/") {
			continue
		}
		cmd := exec.Command("go", "mod", "edit", "-json")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go mod edit -json in %s: %w", dir, err)
		}
		var mod struct{ Module struct{ Path string } }
		if err := json.Unmarshal(out, &mod); err != nil {
			return nil, err
		}
		if !isInternal(mod.Module.Path) {
			dirs = append(dirs, dir)
		}
	}
	return dirs, nil
}

// check compares the API of the module in dir with its baseline, printing
// the difference, or writes the baseline.
func check(dir string, write bool) (ok bool, err error) {
	lines, err := publicAPI(dir)
	if err != nil {
		return false, err
	}
	file := filepath.Join(dir, baseline)
	got := strings.Join(lines, "\n") + "\n"
	if write {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return false, err
		}
		return true, os.WriteFile(file, []byte(got), 0o644)
	}
	old, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	removed, added := diff(strings.Split(strings.TrimSpace(string(old)), "\n"), lines)
	if len(removed) == 0 && len(added) == 0 {
		return true, nil
	}
	for _, l := range removed {
		fmt.Println("- " + l)
	}
	for _, l := range added {
		fmt.Println("+ " + l)
	}
	fmt.Printf("\nThe public API differs from %s:", file)
	if len(removed) > 0 {
		fmt.Printf(" %d lines removed or changed (incompatible: note it in CHANGELOG.md),", len(removed))
	}
	fmt.Printf(" %d added.\nIf the change is deliberate, run: go run ./internal/cmd/apicheck -w\n\n", len(added))
	return false, nil
}

// diff returns the lines of old missing from new, and of new missing from old.
func diff(old, new []string) (removed, added []string) {
	for _, l := range old {
		if !slices.Contains(new, l) {
			removed = append(removed, l)
		}
	}
	for _, l := range new {
		if !slices.Contains(old, l) {
			added = append(added, l)
		}
	}
	return removed, added
}

// listed is what go list reports of one package.
type listed struct {
	ImportPath, Name, Export string
	Standard                 bool
	DepOnly                  bool
	Module                   *struct {
		Path string
		Main bool
	}
}

// publicAPI lists every exported declaration of the non-internal library
// packages of the module in dir, sorted.
func publicAPI(dir string) ([]string, error) {
	cmd := exec.Command("go", "list", "-deps", "-export", "-json=ImportPath,Name,Export,Standard,DepOnly,Module", "./...")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	exports := map[string]string{}
	var public []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly && p.Module != nil && p.Module.Main && p.Name != "main" && !isInternal(p.ImportPath) {
			public = append(public, p.ImportPath)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var lines []string
	for _, path := range public {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, err
		}
		lines = append(lines, describe(pkg)...)
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

func isInternal(path string) bool {
	return strings.HasSuffix(path, "/internal") || strings.Contains(path, "/internal/")
}

// describe lists pkg's exported declarations as Go's api files do.
func describe(pkg *types.Package) []string {
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
	str := func(t types.Type) string { return types.TypeString(t, qual) }
	prefix := "pkg " + pkg.Path() + ", "
	var out []string
	emit := func(format string, args ...any) { out = append(out, prefix+fmt.Sprintf(format, args...)) }

	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.Const:
			if b, ok := o.Type().(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				emit("const %s = %s", name, o.Val().ExactString())
			} else {
				emit("const %s %s = %s", name, str(o.Type()), o.Val().ExactString())
			}
		case *types.Var:
			emit("var %s %s", name, str(o.Type()))
		case *types.Func:
			sig := o.Type().(*types.Signature)
			emit("func %s%s%s", name, typeParams(sig.TypeParams(), str), signature(sig, str))
		case *types.TypeName:
			out = append(out, describeType(prefix, o, str)...)
		}
	}
	return out
}

func describeType(prefix string, o *types.TypeName, str func(types.Type) string) []string {
	var out []string
	emit := func(format string, args ...any) { out = append(out, prefix+fmt.Sprintf(format, args...)) }
	name := o.Name()
	if o.IsAlias() {
		emit("type %s = %s", name, str(o.Type()))
		return out
	}
	named := o.Type().(*types.Named)
	head := name + typeParams(named.TypeParams(), str)
	switch u := named.Underlying().(type) {
	case *types.Struct:
		emit("type %s struct", head)
		for i := range u.NumFields() {
			f := u.Field(i)
			switch {
			case f.Embedded():
				emit("type %s struct, embedded %s", head, str(f.Type()))
			case f.Exported():
				emit("type %s struct, %s %s", head, f.Name(), str(f.Type()))
			}
		}
	case *types.Interface:
		emit("type %s interface", head)
		for i := range u.NumMethods() {
			m := u.Method(i)
			if m.Exported() {
				emit("type %s interface, %s%s", head, m.Name(), signature(m.Type().(*types.Signature), str))
			} else {
				emit("type %s interface, unexported methods", head)
			}
		}
	default:
		emit("type %s %s", head, str(u))
	}
	for i := range named.NumMethods() {
		m := named.Method(i)
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		recv := name
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
			recv = "*" + name
		}
		emit("method (%s) %s%s", recv, m.Name(), signature(sig, str))
	}
	return out
}

// signature writes a signature's parameter and result types without
// their names, which a caller cannot depend on: "(string, ...any) error".
func signature(sig *types.Signature, str func(types.Type) string) string {
	tuple := func(t *types.Tuple, variadic bool) string {
		var parts []string
		for i := range t.Len() {
			typ := t.At(i).Type()
			if variadic && i == t.Len()-1 {
				parts = append(parts, "..."+str(typ.(*types.Slice).Elem()))
				continue
			}
			parts = append(parts, str(typ))
		}
		return strings.Join(parts, ", ")
	}
	s := "(" + tuple(sig.Params(), sig.Variadic()) + ")"
	switch r := sig.Results(); r.Len() {
	case 0:
	case 1:
		s += " " + tuple(r, false)
	default:
		s += " (" + tuple(r, false) + ")"
	}
	return s
}

// typeParams writes a type parameter list, "[In, Out any]", or "".
func typeParams(tps *types.TypeParamList, str func(types.Type) string) string {
	if tps.Len() == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[")
	for i := range tps.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		tp := tps.At(i)
		fmt.Fprintf(&b, "%s %s", tp.Obj().Name(), str(tp.Constraint()))
	}
	b.WriteString("]")
	return b.String()
}
