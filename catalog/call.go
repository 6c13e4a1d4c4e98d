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

	"github.com/brakinglab/codemode-go/internal/suggest"
)

// validateOnlyKey is the argument member that asks for a dry run.
const validateOnlyKey = "_validateOnly"

// Call runs the function name with JSON arguments args (nil, empty or null
// mean {}) for the Principal in ctx, and returns its JSON result.
//
// Every error it returns implements json.Marshaler, giving the object a
// model sees: *ValidationError for bad arguments, *ScopeError for missing
// scopes, *Error for ErrUnauthenticated, ErrUnknownFunction and model-safe
// handler errors, and *InternalError for anything else.
func (c *Catalog) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	e, ok := c.lookup(name)
	if !ok {
		return nil, c.unknown(name)
	}
	p, ok := PrincipalFrom(ctx)
	if !ok && !c.opts.AllowAnonymous {
		return nil, ErrUnauthenticated
	}
	if missing := missingScopes(p, e.info.Scopes); len(missing) > 0 {
		return nil, &ScopeError{Function: c.ns + "." + name, Missing: missing}
	}

	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	dry, err := c.check(e, args)
	if err != nil {
		return nil, err
	}
	out, err := c.run(ctx, e, args, dry)
	if err != nil {
		return nil, c.classify(ctx, name, err)
	}
	res, err := c.marshalResult(out)
	if err != nil {
		return nil, c.internal(ctx, name, fmt.Errorf("encoding result: %w", err))
	}
	return res, nil
}

// check decodes args generically and checks them against the plan,
// reporting every issue found. It returns whether a dry run was asked for.
func (c *Catalog) check(e *entry, args []byte) (dry bool, err error) {
	v, perr := parseArgs(args)
	if perr != nil {
		return false, perr
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false, &ValidationError{Issues: []Issue{{Path: []any{}, Message: "Expected object, got " + jsonTypeName(v)}}}
	}
	ch := checker{strict: e.info.Tier.Strict()}
	if vo, present := obj[validateOnlyKey]; present {
		delete(obj, validateOnlyKey)
		switch b, isBool := vo.(bool); {
		case !e.info.Tier.Strict():
			ch.addAt(validateOnlyKey, "READ-ONLY functions do not take _validateOnly; call without it")
		case !isBool:
			ch.addAt(validateOnlyKey, "Expected boolean, got "+jsonTypeName(vo))
		default:
			dry = b
		}
	}
	ch.checkStruct(e.plan, obj)
	if ch.truncated {
		ch.issues = append(ch.issues, moreIssues)
	}
	if len(ch.issues) > 0 {
		return false, &ValidationError{Issues: ch.issues}
	}
	return dry, nil
}

// run calls the entry, turning a panic into an error.
func (c *Catalog) run(ctx context.Context, e *entry, args []byte, dry bool) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: r, stack: debug.Stack()}
		}
	}()
	return e.run(c, ctx, args, dry)
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
	c.opts.Logger.ErrorContext(ctx, "catalog: internal error", attrs...)
	return &InternalError{Ref: ref, cause: err}
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
