package saved

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/jsident"
	"github.com/brakinglab/codemode-go/sandbox"
)

// maxNameBytes bounds a name.
const maxNameBytes = 64

// objectMembers are names every object answers, or that the sandbox's
// namespace objects treat specially: a function by such a name would
// shadow them.
var objectMembers = map[string]bool{
	"constructor": true, "then": true, "toJSON": true, "inspect": true, "length": true,
	"toString": true, "valueOf": true, "hasOwnProperty": true, "isPrototypeOf": true,
	"propertyIsEnumerable": true, "toLocaleString": true, "__proto__": true,
	"__defineGetter__": true, "__defineSetter__": true, "__lookupGetter__": true, "__lookupSetter__": true,
}

// compileTimeout bounds compiling the code at save time.
const compileTimeout = 5 * time.Second

// Save checks d and stores it as a new version of env.Owner's d.Name. It
// reports every problem at once in a *catalog.ValidationError whose
// issues have the member's path and the fix.
func (l *Library) Save(ctx context.Context, env Env, d Draft) (*Function, error) {
	if env.Owner == "" {
		return nil, catalog.Invalid("saving a function needs a signed-in user: anonymous callers may only call published ones")
	}
	var issues []catalog.Issue
	add := func(path, format string, args ...any) {
		issues = append(issues, catalog.Issue{Path: []any{path}, Message: fmt.Sprintf(format, args...)})
	}
	l.checkName(ctx, env, d.Name, add)
	switch {
	case strings.TrimSpace(d.Description) == "":
		add("description", "Required: say what the function does and returns, for whoever calls it next")
	case len(d.Description) > l.lim.MaxDescriptionBytes:
		add("description", "Too long: %d bytes, at most %d; shorten it", len(d.Description), l.lim.MaxDescriptionBytes)
	}
	for _, s := range []struct {
		path string
		raw  json.RawMessage
	}{{"input", d.Input}, {"output", d.Output}} {
		if len(s.raw) > l.lim.MaxSchemaBytes {
			add(s.path, "Too large: the schema is %d bytes, at most %d; describe fewer members or drop examples", len(s.raw), l.lim.MaxSchemaBytes)
		}
	}
	if len(d.Input) == 0 || string(d.Input) == "null" {
		add("input", `Required: the JSON Schema of the one argument, such as {"type":"object","properties":{"trackName":{"type":"string"}},"required":["trackName"]}`)
	}
	tier := catalog.ReadOnly
	var uses []string
	switch {
	case strings.TrimSpace(d.Code) == "":
		add("code", "Required: the body of an async function that reads input and returns the result")
	case len(d.Code) > l.lim.MaxCodeBytes:
		add("code", "Too long: %d bytes, at most %d; move repeated logic into a loop or a helper function", len(d.Code), l.lim.MaxCodeBytes)
	default:
		if err := compileCode(ctx, d.Code, l.lim.MaxCodeBytes); err != nil {
			add("code", "%s", err)
			break
		}
		tier, uses = l.derive(ctx, env, d.Name, d.Code, add)
	}
	if len(d.Input) > 0 && len(d.Input) <= l.lim.MaxSchemaBytes && len(d.Output) <= l.lim.MaxSchemaBytes {
		// The schemas, through the same checker a call uses.
		f := &Function{Name: "f", Description: d.Description, Tier: tier, Input: d.Input, Output: d.Output}
		if _, err := newChecker(f); err != nil {
			msg := strings.TrimPrefix(err.Error(), "catalog: f: ")
			path := "input"
			if rest, ok := strings.CutPrefix(msg, "output schema: "); ok {
				path, msg = "output", rest
			} else {
				msg = strings.TrimPrefix(msg, "input schema: ")
			}
			add(path, "%s", msg)
		}
	}
	if len(issues) > 0 {
		return nil, &catalog.ValidationError{Issues: issues}
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	rec := state.SavedFunction{Owner: env.Owner, Name: d.Name, Description: d.Description, Code: d.Code,
		Input: d.Input, Output: d.Output, Tier: tier.String(), Uses: uses, Created: now}
	v, err := l.store.Save(ctx, rec, l.lim.MaxPerOwner)
	if errors.Is(err, state.ErrSavedLimit) {
		add("name", "You have %d saved functions, the most allowed: remove one you no longer need (codemode.removeSaved) or save this as a new version of an existing name", l.lim.MaxPerOwner)
		return nil, &catalog.ValidationError{Issues: issues}
	}
	if err != nil {
		return nil, fmt.Errorf("saved functions: %w", err)
	}
	rec.Version = v
	if cur, err := l.store.Get(ctx, env.Owner, d.Name, v); err == nil && cur != nil {
		rec.Published = cur.Published // a new version keeps the name's mark
	}
	l.changed(ctx, Saved, &rec)
	f := fromState(&rec, env.Owner)
	// Compiling again under the version's key warms the cache for its
	// first call; it compiled above, so an error here changes nothing.
	_ = sandbox.CompileSubprogram(Namespace, f.key(), f.Code, l.lim.MaxCodeBytes)
	return f, nil
}

// checkName adds the problems of name.
func (l *Library) checkName(ctx context.Context, env Env, name string, add func(path, format string, args ...any)) {
	switch {
	case name == "":
		add("name", "Required: a JavaScript identifier such as weeklyReview")
		return
	case len(name) > maxNameBytes:
		add("name", "Too long: %d bytes, at most %d", len(name), maxNameBytes)
		return
	case objectMembers[name]:
		add("name", "%s is a member every object has; choose another name", name)
		return
	}
	if err := jsident.Check(name); err != nil {
		add("name", "%v: choose one such as weeklyReview", err)
		return
	}
	p, err := l.store.Published(ctx, name, 0)
	if err == nil && p != nil && p.Owner != env.Owner {
		add("name", "saved.%s is a published function written by someone else; choose another name", name)
	}
}

// compileCode compiles code with the sandbox's compiler, abandoning it
// after compileTimeout.
func compileCode(ctx context.Context, code string, max int) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("the code could not be compiled")
			}
		}()
		done <- sandbox.CompileSubprogram(Namespace, "check", code, max)
	}()
	t := time.NewTimer(compileTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		var se *sandbox.Error
		if errors.As(err, &se) && se.Line > 0 {
			return fmt.Errorf("does not compile at line %d, column %d: %s", se.Line, se.Column, se.Message)
		}
		if err != nil {
			return fmt.Errorf("does not compile: %v", err)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("compiling it took longer than %s: write flatter code", compileTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// derive returns the tier of code and the functions it references,
// adding a problem for each reference the caller cannot call.
func (l *Library) derive(ctx context.Context, env Env, self, code string, add func(path, format string, args ...any)) (catalog.Tier, []string) {
	nss := map[string]bool{Namespace: true}
	for _, ns := range env.Namespaces {
		nss[ns] = true
	}
	refs, bare, err := references(code, nss)
	if err != nil {
		add("code", "does not parse: %v", err)
		return catalog.ReadOnly, nil
	}
	for _, b := range bare {
		add("code", "uses the namespace %s other than to call one of its functions by name, so the functions it calls cannot be known; call them as %s.name(…)", b, b)
	}
	tier := catalog.ReadOnly
	for _, r := range refs {
		if r == Namespace+"."+self {
			continue // recursion: its own tier
		}
		t, ok, err := l.tierOf(ctx, env, r)
		if err != nil {
			add("code", "%v", err)
			continue
		}
		if !ok {
			add("code", "calls %s, which is not a function you can call; check the name with codemode.search", r)
			continue
		}
		if rank(t) > rank(tier) {
			tier = t
		}
	}
	return tier, refs
}
