package validate

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"github.com/brakinglab/codemode-go/internal/jsontype"
)

// Issue is one failed rule: the JSON path of the value that broke it and
// the words of the rule table.
type Issue struct {
	Path    []any
	Message string
}

// Plan checks values of one Go struct type against the validate tags of
// its members and of the structs inside them. It is built once, at
// registration, and is safe for concurrent use.
type Plan struct {
	root    *structPlan
	structs map[reflect.Type]*structPlan
}

// structPlan is the members of one struct node to check, in
// encoding/json order.
type structPlan struct {
	node    *jsontype.Node
	members []memberPlan
}

// memberPlan is one member with a validate tag, or an embedded struct
// with one of its own (name "").
type memberPlan struct {
	name  string // JSON name; "" for an embedded struct's own tag
	key   any    // name, boxed once for issue paths
	index []int  // from the struct
	via   []string
	chain chain
	skip  bool // validate:"-"
}

// Compile builds the plan of Go struct node n. It fails, naming the Go
// field and its tag, on a rule outside the documented table, a rule that
// cannot apply to the field's type (oneof on a float, dive on a string,
// keys outside a map), a malformed parameter (min=abc), and a
// cross-member rule naming a member the struct does not have.
func Compile(n *jsontype.Node) (*Plan, error) {
	p := &Plan{structs: map[reflect.Type]*structPlan{}}
	root, err := p.compile(n)
	if err != nil {
		return nil, err
	}
	p.root = root
	return p, nil
}

func (p *Plan) compile(n *jsontype.Node) (*structPlan, error) {
	if sp, ok := p.structs[n.GoType]; ok {
		return sp, nil
	}
	sp := &structPlan{node: n}
	p.structs[n.GoType] = sp
	t := n.GoType
	embedded := map[string]bool{} // index prefixes already planned
	for _, f := range n.Fields {
		if f.Go == nil {
			continue
		}
		// The embedded structs f is promoted through, outermost first:
		// their own tags run before their members.
		for d := 1; d < len(f.Go.Index); d++ {
			prefix := f.Go.Index[:d]
			key := fmt.Sprint(prefix)
			if embedded[key] {
				continue
			}
			embedded[key] = true
			sf := t.FieldByIndex(prefix)
			if tag := sf.Tag.Get("validate"); tag != "" {
				m, err := memberOf(sf, tag, t, prefix[:d-1])
				if err != nil {
					return nil, err
				}
				m.index, m.via = slices.Clone(prefix), f.Go.Via[:d-1]
				sp.members = append(sp.members, m)
			}
		}
		if f.Go.Validate == "" && isStruct(f.Node) {
			// No tag: validator/v10 still checks the members of a struct
			// (behind pointers, not inside slices or maps).
			sp.members = append(sp.members, memberPlan{name: f.Name, index: f.Go.Index, via: f.Go.Via})
		} else if f.Go.Validate != "" {
			sf := t.FieldByIndex(f.Go.Index)
			m, err := memberOf(sf, f.Go.Validate, t, f.Go.Index[:len(f.Go.Index)-1])
			if err != nil {
				return nil, err
			}
			m.name, m.index, m.via = f.Name, f.Go.Index, f.Go.Via
			sp.members = append(sp.members, m)
		}
		// Parse the tags of every struct reachable from f, so a misspelled
		// rule is found at registration even where no dive reaches it.
		for e := f.Node; e != nil; e = e.Elem {
			if e.Shape == jsontype.Struct && e.GoType != nil {
				if _, err := p.compile(e); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	for i := range sp.members {
		sp.members[i].key = sp.members[i].name
	}
	slices.SortStableFunc(sp.members, func(a, b memberPlan) int { return slices.Compare(a.index, b.index) })
	return sp, nil
}

// isStruct reports whether n, behind any pointers, is a Go struct.
func isStruct(n *jsontype.Node) bool {
	for n != nil && n.Shape == jsontype.Ptr {
		n = n.Elem
	}
	return n != nil && n.Shape == jsontype.Struct && n.GoType != nil
}

// memberOf parses the tag of struct field sf and checks it against the
// field's type; parent is the struct holding sf (t, entered through the
// embedded fields at index).
func memberOf(sf reflect.StructField, tag string, t reflect.Type, index []int) (memberPlan, error) {
	fail := func(err error) (memberPlan, error) {
		return memberPlan{}, fmt.Errorf("field %s: validate tag %q: %w", sf.Name, tag, err)
	}
	c, err := parseTag(tag)
	if errors.Is(err, errSkip) {
		return memberPlan{skip: true}, nil
	}
	if err != nil {
		return fail(err)
	}
	parent := t
	for _, i := range index {
		parent = parent.Field(i).Type
		if parent.Kind() == reflect.Pointer {
			parent = parent.Elem()
		}
	}
	if err := checkChain(c, sf.Type, parent); err != nil {
		return fail(err)
	}
	return memberPlan{chain: c}, nil
}

// checkChain refuses, before any call, what validator/v10 would panic on
// at call time: a rule on a type it cannot read, a malformed parameter,
// dive or keys on the wrong type. Each rule is tried on a zero value of
// t inside a zero parent.
func checkChain(c chain, t reflect.Type, parent reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	dynamic := t.Kind() == reflect.Interface
	zero := value{v: reflect.Zero(t), parent: reflect.New(parent).Elem()}
	try := func(s step) error {
		if dynamic && !runsOnNil[s.tag] {
			return nil // a value of type any: known only at call time
		}
		if s.tag == "unique" && !dynamic && t.Kind() != reflect.String {
			if err := uniqueElems(t); err != nil {
				return err
			}
		}
		if _, err := s.fn(zero, s.param); err != nil {
			if errors.Is(err, errInapplicable) {
				return fmt.Errorf("rule %s does not apply to %s", s.tag, t)
			}
			return fmt.Errorf("rule %s: %w", s.tag, err)
		}
		return nil
	}
	for i, s := range c {
		switch s.op {
		case opRule:
			if err := try(s); err != nil {
				return err
			}
		case opOr:
			for _, a := range s.alts {
				if err := try(a); err != nil {
					return err
				}
			}
		case opDive:
			switch t.Kind() {
			case reflect.Slice, reflect.Array, reflect.Map:
			default:
				return fmt.Errorf("dive needs a slice, array or map, not %s", t)
			}
			if s.hasKeys {
				if t.Kind() != reflect.Map {
					return fmt.Errorf("keys needs a map, not %s", t)
				}
				if err := checkChain(s.keys, t.Key(), parent); err != nil {
					return fmt.Errorf("keys: %w", err)
				}
			}
			return checkChain(c[i+1:], t.Elem(), parent)
		}
	}
	return nil
}

// uniqueElems refuses unique on elements Go cannot compare.
func uniqueElems(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		e := t.Elem()
		if e.Kind() == reflect.Pointer {
			e = e.Elem()
		}
		if e.Kind() != reflect.Interface && !e.Comparable() {
			return fmt.Errorf("rule unique: elements of type %s cannot be compared", t.Elem())
		}
	}
	return nil
}

// Check runs the plan on struct value v and returns what failed, in the
// order of the members, at most limit+1 issues (so a caller can tell
// there were more than limit).
func (p *Plan) Check(v reflect.Value, limit int) []Issue {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || v.Type() != p.root.node.GoType {
		return nil
	}
	w := walker{plan: p, path: []any{}, limit: limit}
	w.members(p.root, v)
	return w.issues
}

type walker struct {
	plan   *Plan
	path   []any
	issues []Issue
	limit  int
}

func (w *walker) full() bool { return len(w.issues) > w.limit }

// members checks the members of struct value sv, whose plan is sp.
func (w *walker) members(sp *structPlan, sv reflect.Value) {
	var stopped [][]int // embedded structs whose own tag stopped the walk
	for _, m := range sp.members {
		if w.full() {
			return
		}
		if slices.ContainsFunc(stopped, func(pre []int) bool {
			return len(m.index) > len(pre) && slices.Equal(m.index[:len(pre)], pre)
		}) {
			continue
		}
		if m.skip {
			stopped = append(stopped, m.index)
			continue
		}
		f, err := sv.FieldByIndexErr(m.index)
		if err != nil {
			continue // behind a nil embedded pointer: nothing to check
		}
		parent := sv
		if len(m.index) > 1 {
			parent, _ = deref(sv.FieldByIndex(m.index[:len(m.index)-1]))
		}
		sc := scope{node: sp.node, via: m.via, parent: parent}
		if m.name == "" {
			if !w.run(f, m.chain, sc, false) {
				stopped = append(stopped, m.index)
			}
			continue
		}
		w.path = append(w.path, m.key)
		w.run(f, m.chain, sc, true)
		w.path = w.path[:len(w.path)-1]
	}
}

// scope is the struct a member belongs to: its node and the embedded
// structs the member is promoted through (for the JSON names of
// cross-member rules), and its value (for reading siblings).
type scope struct {
	node   *jsontype.Node
	via    []string
	parent reflect.Value
}

func (w *walker) fail(s step, param string, k reflect.Kind, sc scope) {
	tag := s.name()
	w.issues = append(w.issues, Issue{
		Path:    slices.Clone(w.path),
		Message: jsontype.RuleMessage(tag, k, sc.node.MemberNames(tag, param, sc.via...)),
	})
}

// run applies chain c to f (a member, an element or a key) as
// validator/v10 does and, when the chain completes on a struct and
// descend is set, checks that struct's members. It reports whether the
// chain completed.
func (w *walker) run(f reflect.Value, c chain, sc scope, descend bool) bool {
	cur, viaPtr := deref(f)
	k := cur.Kind()
	if k == reflect.Pointer || k == reflect.Interface || k == reflect.Invalid {
		if len(c) == 0 {
			return false
		}
		switch first := c[0]; {
		case first.op == opOmitEmpty || first.op == opOmitZero || first.op == opOmitNil:
			return false
		case first.op == opOr && !runsOnNil[first.alts[0].tag]:
			// validator/v10 names the second alternative here, with the
			// first one's parameter.
			w.fail(first.alts[1], first.alts[0].param, k, sc)
			return false
		case first.op == opOr:
		case first.op != opRule || !runsOnNil[first.tag]:
			w.fail(first, first.param, k, sc)
			return false
		}
	}
	val := value{v: cur, viaPtr: viaPtr, parent: sc.parent}
	for i, s := range c {
		switch s.op {
		case opOmitEmpty:
			if !hasValue(val) {
				return false
			}
		case opOmitZero:
			if !hasNotZero(val) {
				return false
			}
		case opOmitNil:
			switch k {
			case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface:
				if cur.IsNil() {
					return false
				}
			}
		case opDive:
			w.dive(cur, s, c[i+1:], sc)
			return true
		case opOr:
			if !w.either(s, val, sc) {
				return false
			}
		case opRule:
			if ok, err := s.fn(val, s.param); !ok || err != nil {
				w.fail(s, s.param, k, sc)
				return false
			}
		}
	}
	if descend && k == reflect.Struct {
		if sp, ok := w.plan.structs[cur.Type()]; ok {
			w.members(sp, cur)
		}
	}
	return true
}

// either runs alternatives in order until one passes; a failure names
// them all, with the last one's parameter. An alternative that cannot
// read the value (validator/v10 panics) fails the rule.
func (w *walker) either(s step, val value, sc scope) bool {
	for _, a := range s.alts {
		ok, err := a.fn(val, a.param)
		if err != nil {
			break
		}
		if ok {
			return true
		}
	}
	w.fail(s, s.alts[len(s.alts)-1].param, val.v.Kind(), sc)
	return false
}

// dive applies rest to each element of container v (keys for a map's
// keys), in index order, or key order for maps.
func (w *walker) dive(v reflect.Value, s step, rest chain, sc scope) {
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if w.full() {
				return
			}
			if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
				// []byte is a string in JSON: its "elements" keep the
				// string index validator/v10's namespaces gave them.
				w.path = append(w.path, strconv.Itoa(i))
			} else {
				w.path = append(w.path, i)
			}
			w.run(v.Index(i), rest, sc, true)
			w.path = w.path[:len(w.path)-1]
		}
	case reflect.Map:
		type entry struct {
			name string // the key as validator/v10 printed it
			key  reflect.Value
		}
		var entries []entry
		for _, key := range v.MapKeys() {
			entries = append(entries, entry{fmt.Sprint(key), key})
		}
		slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.name, b.name) })
		for _, e := range entries {
			key := e.key
			if w.full() {
				return
			}
			w.path = append(w.path, e.name)
			if s.hasKeys {
				w.run(key, s.keys, sc, false)
			}
			w.run(v.MapIndex(key), rest, sc, true)
			w.path = w.path[:len(w.path)-1]
		}
	default:
		// A value of type any holding no container: validator/v10
		// panics; the rule fails instead.
		w.fail(s, "", v.Kind(), sc)
	}
}
