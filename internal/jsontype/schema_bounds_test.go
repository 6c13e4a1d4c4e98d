package jsontype

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile says what FromSchema does with each schema in
// internal/testdata/hostileschemas (the seed corpus of FuzzFromSchema and
// of typegen's FuzzSchemaWalkers): "" accepts it, anything else is the
// start of the error, which names where in the schema the problem is.
var hostile = map[string]string{
	"rootref.json":       "",
	"listdef.json":       "",
	"recordself.json":    "",
	"arrayunion.json":    "",
	"tree.json":          "",
	"propertyalias.json": "",
	"aliaschain.json":    "",
	"nullableself.json":  "#/$defs/P: the schema refers back to itself without moving into a member or item of the value (#/$defs/P → #/$defs/P/anyOf/0 → #/$defs/P)",
	"allofself.json":     "#/$defs/M: the schema refers back to itself",
	"unionself.json":     "#/$defs/M: the schema refers back to itself",
	"mutual.json":        "#/$defs/A: the schema refers back to itself",
	"selfmember.json":    "#/properties/a: the schema refers back to itself",
	"dynamicref.json":    "#: the schema refers back to itself",
	"nestedid.json":      "#/$defs/B: the schema refers back to itself",
	"deep1100.json":      "#/properties/a/properties/…(",
	"deep70.json":        "#/properties/a/properties/…(",
	"docblowup.json":     "#: the schema takes too many bytes of names and documentation when written out",
	"fanout25.json":      "#: the schema describes too many types when written out (the limit is 10000)",
}

func readHostile(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob("../testdata/hostileschemas/*.json")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no hostile schemas: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// TestFromSchemaHostile checks each hostile schema: refused with an
// error naming its path, or accepted as a bounded model in which every
// cycle passes through a named object.
func TestFromSchemaHostile(t *testing.T) {
	for name, schema := range readHostile(t) {
		want, known := hostile[name]
		if !known {
			t.Errorf("%s: no expectation in the hostile table", name)
			continue
		}
		n, _, err := FromSchema(schema)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused: %v", name, err)
		case want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)):
			t.Errorf("%s: error %v, want %q…", name, err, want)
		case err == nil:
			if msg := bounded(n); msg != "" {
				t.Errorf("%s: %s", name, msg)
			}
		}
	}
}

// TestFromSchemaRecursiveNames checks what the recursion of the issue's
// schemas becomes: a named object, or unknown with a note.
func TestFromSchemaRecursiveNames(t *testing.T) {
	schemas := readHostile(t)
	n, _, _ := FromSchema(schemas["rootref.json"])
	if n.Name != "Root" || n.Fields[0].Node != n {
		t.Errorf("rootref: name %q, child is the root: %v", n.Name, n.Fields[0].Node == n)
	}
	n, complete, _ := FromSchema(schemas["listdef.json"])
	l := n.Fields[0].Node
	if l.Shape != Slice || l.Elem.Shape != Any || !strings.Contains(l.Elem.Note, "#/$defs/L") || complete {
		t.Errorf("listdef: %v of %v (note %q), complete %v", l.Shape, l.Elem.Shape, l.Elem.Note, complete)
	}
	n, _, _ = FromSchema(schemas["propertyalias.json"])
	if b := n.Fields[0].Node.Fields[0].Node; b.Name != "a" || b.Fields[0].Node != b {
		t.Errorf("propertyalias: a.b is %q", b.Name)
	}
}

// bounded checks the promises FromSchema makes about a node: at most
// MaxSchemaNodes types written out, and no cycle through unnamed nodes
// only (each cycle passes through a named Struct). It returns what is
// wrong, or "".
func bounded(root *Node) string {
	state := map[*Node]int{}
	var decls []*Node // named objects, each a walk of its own
	count := 0
	var visit func(n *Node) string
	visit = func(n *Node) string {
		if n == nil {
			return ""
		}
		if n.Shape == Struct && n.Name != "" {
			if state[n] == 0 {
				state[n] = 2
				decls = append(decls, n)
			}
			return ""
		}
		switch state[n] {
		case 1:
			return "a cycle through no named object"
		case 2:
			return ""
		}
		if count++; count > 10*MaxSchemaNodes {
			return "too many nodes"
		}
		state[n] = 1
		msg := members(n, visit)
		state[n] = 2
		return msg
	}
	if root.Shape == Struct && root.Name != "" {
		state[root] = 2
		decls = append(decls, root)
	} else if msg := visit(root); msg != "" {
		return msg
	}
	for len(decls) > 0 {
		n := decls[0]
		decls = decls[1:]
		if msg := members(n, visit); msg != "" {
			return msg
		}
	}
	return ""
}

func members(n *Node, visit func(*Node) string) string {
	next := []*Node{n.Elem}
	for _, f := range n.Fields {
		next = append(next, f.Node)
	}
	next = append(append(next, n.Items...), n.Variants...)
	for _, e := range next {
		if msg := visit(e); msg != "" {
			return msg
		}
	}
	return ""
}

// FuzzFromSchema feeds arbitrary schemas, starting from the hostile
// corpus: FromSchema must never panic, loop or overflow its stack, and a
// node it returns must keep its promises (see bounded).
func FuzzFromSchema(f *testing.F) {
	for _, b := range readHostile(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"$ref":"#"}],"items":{"$ref":"#/properties/a"}}}}`))
	f.Add([]byte(`{"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}},"$ref":"#/$defs/A"}`))
	f.Fuzz(func(t *testing.T, schema []byte) {
		n, _, err := FromSchema(schema)
		if err != nil {
			return
		}
		if msg := bounded(n); msg != "" {
			t.Fatalf("%s: %s", schema, msg)
		}
	})
}
