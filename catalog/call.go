package catalog

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/brakinglab/codemode-go/internal/suggest"
)

// Call runs the function name with JSON arguments args (nil, empty or null
// mean {}) for the Principal in ctx, and returns its JSON result.
//
// Every error it returns implements json.Marshaler, giving the object a
// model sees: *ValidationError for bad arguments, *ScopeError for missing
// scopes, *Error for ErrUnauthenticated, ErrUnknownFunction and model-safe
// handler errors, and *InternalError for anything else.
//
// Call drops warnings (fields a READ-ONLY function ignored); a caller that
// shows results to a model should use CallWithWarnings.
func (c *Catalog) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	out, _, err := c.CallWithWarnings(ctx, name, args)
	return out, err
}

// Warning is a problem with a call's arguments that did not stop the call:
// a member a READ-ONLY function does not declare and therefore ignored.
// A model must see it, or it may report the unfiltered result of
// getSessions({track: "Monza"}) as Monza's.
type Warning struct {
	// Path is the member's JSON path, such as ["track"].
	Path []any `json:"path"`
	// Message names the function, the member and the nearest declared
	// member: getSessions ignored unknown field "track" (did you mean
	// "trackName"?).
	Message string `json:"message"`
}

// CallWithWarnings is Call that also returns the call's warnings. They
// come with the result or with a validation error alike.
func (c *Catalog) CallWithWarnings(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, []Warning, error) {
	name, err := c.localName(name)
	if err != nil {
		return nil, nil, err
	}
	e, ok := c.lookup(name)
	if !ok {
		return nil, nil, c.unknown(name)
	}
	p, ok := PrincipalFrom(ctx)
	if !ok && !c.opts.AllowAnonymous {
		return nil, nil, ErrUnauthenticated
	}
	if missing := missingScopes(p, e.info.Scopes); len(missing) > 0 {
		return nil, nil, &ScopeError{Function: c.ns + "." + name, Missing: missing}
	}

	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	obj, dry, warns, err := c.check(e, args)
	if err != nil {
		return nil, warns, err
	}
	out, err := c.run(ctx, e, args, obj, dry)
	if err != nil {
		return nil, warns, c.classify(ctx, name, err)
	}
	res, err := c.marshalResult(out)
	if err != nil {
		return nil, warns, c.internal(ctx, name, fmt.Errorf("encoding result: %w", err))
	}
	return res, warns, nil
}

// check decodes args generically and checks them against the plan. When
// that finds issues it also runs the validate tags on every member that
// passed (see tagIssues), so one error reports a wrong type, an unknown
// field and a bad enum value together. It returns whether a dry run was
// asked for, and the members a lenient decode ignored.
func (c *Catalog) check(e *entry, args []byte) (obj map[string]any, dry bool, warns []Warning, err error) {
	v, perr := parseArgs(args)
	if perr != nil {
		return nil, false, nil, perr
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false, nil, notObject(v)
	}
	ch := checker{strict: e.info.Tier.Strict()}
	if vo, present := obj[ValidateOnlyKey]; present {
		delete(obj, ValidateOnlyKey)
		switch b, isBool := vo.(bool); {
		case !e.info.Tier.Strict():
			ch.addAt(ValidateOnlyKey, "READ-ONLY functions do not take _validateOnly; call without it")
		case !isBool:
			ch.addAt(ValidateOnlyKey, "Expected boolean, got "+jsonTypeName(vo))
		default:
			dry = b
		}
	}
	ch.checkStruct(e.plan, obj)
	for _, ig := range ch.ignored {
		warns = append(warns, Warning{Path: ig.Path,
			Message: fmt.Sprintf("%s ignored unknown field %q%s", e.info.Name, pathText(ig.Path), ig.Message)})
	}
	if len(ch.issues) > 0 && !ch.truncated {
		ch.issues = append(ch.issues, c.tagIssues(e, obj, ch.issues)...)
		if len(ch.issues) > maxIssues {
			ch.issues, ch.truncated = ch.issues[:maxIssues], true
		}
	}
	if ch.truncated {
		ch.issues = append(ch.issues, moreIssues)
	}
	if len(ch.issues) > 0 {
		return nil, false, warns, &ValidationError{Issues: ch.issues}
	}
	return obj, dry, warns, nil
}

// tagIssues runs the validate tags on the arguments without the members
// the plan check found at fault, and returns the issues that do not
// concern those members.
func (c *Catalog) tagIssues(e *entry, obj map[string]any, found []Issue) (out []Issue) {
	defer func() {
		if recover() != nil {
			out = nil // the plan check's issues still stand
		}
	}()
	var pruned [][]any
	for _, is := range found {
		p, ok := prune(obj, is.Path)
		if !ok {
			return nil // the arguments as a whole are wrong
		}
		pruned = append(pruned, p)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	for _, is := range e.tags(c, b) {
		if !slices.ContainsFunc(pruned, func(p []any) bool { return hasPrefix(is.Path, p) }) {
			out = append(out, is)
		}
	}
	return out
}

// prune deletes the object member at path, or, when path ends inside an
// array, the member holding the array. It returns the path of what it
// deleted; ok is false for the root.
func prune(obj map[string]any, path []any) (deleted []any, ok bool) {
	var (
		parent map[string]any
		key    string
		at     int
		cur    any = obj
	)
walk:
	for i, step := range path {
		switch s := step.(type) {
		case string:
			m, isMap := cur.(map[string]any)
			if !isMap {
				break walk
			}
			parent, key, at = m, s, i
			cur = m[s]
		case int:
			a, isArr := cur.([]any)
			if !isArr || s < 0 || s >= len(a) {
				break walk
			}
			cur = a[s]
		default:
			break walk
		}
	}
	if parent == nil {
		return nil, false
	}
	delete(parent, key)
	return path[:at+1], true
}

// hasPrefix reports whether path starts with prefix.
func hasPrefix(path, prefix []any) bool {
	if len(prefix) > len(path) {
		return false
	}
	for i := range prefix {
		if fmt.Sprint(path[i]) != fmt.Sprint(prefix[i]) {
			return false
		}
	}
	return true
}

// pathText renders ["corners", 0, "verdict"] as corners[0].verdict.
func pathText(path []any) string {
	var b strings.Builder
	for i, p := range path {
		if n, isInt := p.(int); isInt {
			fmt.Fprintf(&b, "[%d]", n)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		fmt.Fprint(&b, p)
	}
	return b.String()
}

// run calls the entry, turning a panic into an error.
func (c *Catalog) run(ctx context.Context, e *entry, args []byte, obj map[string]any, dry bool) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: r, stack: debug.Stack()}
		}
	}()
	return e.run(c, ctx, args, obj, dry)
}

type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// classify keeps errors that are safe to show the model and hides the rest
// behind an InternalError.
func (c *Catalog) classify(ctx context.Context, name string, err error) error {
	var (
		ve *ValidationError
		me *Error
		se *ScopeError
	)
	switch {
	case errors.As(err, &ve):
		return ve
	case errors.As(err, &me):
		return me
	case errors.As(err, &se):
		return se
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeCancelled, Message: "the call was stopped before it finished: " + err.Error()}
	}
	return c.internal(ctx, name, err)
}

// internal logs err with a fresh reference and returns the error the
// model sees instead.
func (c *Catalog) internal(ctx context.Context, name string, err error) error {
	var b [4]byte
	_, _ = rand.Read(b[:])
	ref := hex.EncodeToString(b[:])
	attrs := []any{"ref", ref, "function", c.ns + "." + name, "error", err.Error()}
	if p, ok := PrincipalFrom(ctx); ok {
		attrs = append(attrs, "subject", p.Subject)
	}
	var pe *panicError
	if errors.As(err, &pe) {
		attrs = append(attrs, "stack", string(pe.stack))
	}
	c.logger(ctx).ErrorContext(ctx, "catalog: internal error", attrs...)
	return &InternalError{Ref: ref, cause: err}
}

// localName accepts a function's name with or without the catalog's own
// namespace ("getLaps" or "garage.getLaps"), as code names it that way. A
// name qualified by another namespace is refused with the namespace this
// catalog serves.
func (c *Catalog) localName(name string) (string, error) {
	ns, rest, ok := strings.Cut(name, ".")
	if !ok {
		return name, nil
	}
	if ns == c.ns {
		return rest, nil
	}
	return "", &Error{Code: CodeUnknownFunction, Message: fmt.Sprintf("unknown function %s: this catalog's functions are %s.<name>", name, c.ns)}
}

func (c *Catalog) unknown(name string) error {
	names := make([]string, 0)
	c.mu.RLock()
	for n := range c.funcs {
		names = append(names, n)
	}
	c.mu.RUnlock()
	msg := fmt.Sprintf("unknown function %s.%s", c.ns, name)
	if s := suggest.Closest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %s.%s?", c.ns, s)
	}
	return &Error{Code: CodeUnknownFunction, Message: msg}
}

func missingScopes(p Principal, need []string) []string {
	var missing []string
	for _, s := range need {
		if !slices.Contains(p.Scopes, s) {
			missing = append(missing, s)
		}
	}
	return missing
}
