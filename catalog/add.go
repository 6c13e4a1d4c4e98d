package catalog

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/validate"
)

// Func describes one function to register. In must be a struct type (use
// struct{} for no arguments); Out may be any type that crosses JSON.
type Func[In, Out any] struct {
	// Name is how code calls the function: namespace.Name. It must be a
	// valid JavaScript identifier.
	Name string
	// Description is shown to the model as the function's documentation.
	Description string
	// Tier says whether the function reads, changes or creates data.
	// Required: ReadOnly, Mutating or Creative (the zero value is refused).
	Tier Tier
	// Scopes lists OAuth scopes the caller must all hold.
	Scopes []string
	// Handler does the work. Errors made with NotFound, Conflict, Invalid,
	// or of type *Error or *ValidationError are shown to the model as
	// written; any other error (and any panic) becomes an *InternalError.
	Handler func(ctx context.Context, in In) (Out, error)
	// Validate optionally checks what needs the host (ownership of
	// referenced IDs, existence). It runs only once the arguments decode
	// and pass their validate tags, before the handler, and in dry runs.
	// Its errors are treated like the handler's.
	Validate func(ctx context.Context, in In) error
	// Approval says whether the user must approve each call before it
	// runs; the zero value leaves it to the server's per-tier default.
	Approval Approval
}

// entry is a registered function with its decoding plan.
type entry struct {
	info FuncInfo
	plan *node
	// run decodes args (already checked against plan; obj is their parse,
	// without _validateOnly), validates, runs the Validate hook and, unless
	// dry, the handler.
	run func(c *Catalog, ctx context.Context, args []byte, obj map[string]any, dry bool) (any, error)
	// tags decodes args and returns what the validate tags find, for
	// arguments that already failed the plan check with the faulty
	// members removed; nil if they do not decode.
	tags func(c *Catalog, args []byte) []Issue
	// checks runs the validate tags of a typed function's arguments;
	// nil for a function known by JSON Schema.
	checks *validate.Plan
}

// Add registers f in c. Every problem that can be found without calling
// the function is reported here: an invalid or duplicate name, a missing
// handler, a missing or unknown tier, a malformed scope, Go types that cannot cross
// JSON (chan, func, complex, structs without exported fields, non-empty
// interfaces) and validate tags outside the documented rules, or that
// cannot apply to their field's type.
func Add[In, Out any](c *Catalog, f Func[In, Out]) error {
	in, out := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	info := FuncInfo{Name: f.Name, Description: f.Description, Tier: f.Tier, Scopes: append([]string(nil), f.Scopes...), Approval: f.Approval, In: in, Out: out}
	e, err := newEntry(c, info, f.Handler == nil)
	if err != nil {
		return err
	}
	e.run = func(c *Catalog, ctx context.Context, args []byte, _ map[string]any, dry bool) (any, error) {
		var v In
		if err := unmarshalArgs(args, &v); err != nil {
			return nil, err
		}
		if err := validateArgs(e.checks, &v); err != nil {
			if err = presentOnly(err, args); err != nil {
				return nil, err
			}
		}
		if f.Validate != nil {
			if err := f.Validate(ctx, v); err != nil {
				return nil, err
			}
		}
		if dry {
			return validResult{Valid: true}, nil
		}
		return f.Handler(ctx, v)
	}
	e.tags = func(c *Catalog, args []byte) []Issue {
		var v In
		if unmarshalArgs(args, &v) != nil {
			return nil
		}
		var ve *ValidationError
		if errors.As(presentOnly(validateArgs(e.checks, &v), args), &ve) {
			return ve.Issues
		}
		return nil
	}
	checks, err := validate.Compile(e.plan)
	if err != nil {
		return fmt.Errorf("catalog: %s: %w", f.Name, err)
	}
	e.checks = checks
	return c.insert(e)
}

// MustAdd is like Add but panics on a registration error. It suits
// registration at start-up, where such an error is a programming mistake.
func MustAdd[In, Out any](c *Catalog, f Func[In, Out]) {
	if err := Add(c, f); err != nil {
		panic(err)
	}
}

type validResult struct {
	Valid bool `json:"valid"`
}

// checkInfo checks what every kind of function must get right: its
// name, handler, tier, approval setting and scopes.
func checkInfo(info FuncInfo, noHandler bool) error {
	if err := checkIdent(info.Name); err != nil {
		return fmt.Errorf("catalog: function name %w", err)
	}
	wrap := func(err error) error { return fmt.Errorf("catalog: %s: %w", info.Name, err) }
	if noHandler {
		return wrap(errors.New("the Handler field is nil"))
	}
	if info.Tier == 0 {
		return wrap(errors.New("the Tier field is required: set catalog.ReadOnly, catalog.Mutating or catalog.Creative"))
	}
	if !info.Tier.valid() {
		return wrap(fmt.Errorf("unknown tier %d", int(info.Tier)))
	}
	if err := checkApproval(info.Approval, info.Tier); err != nil {
		return wrap(err)
	}
	for _, s := range info.Scopes {
		if s == "" || strings.ContainsAny(s, " \t\n\"\\") {
			return wrap(fmt.Errorf("invalid scope %q", s))
		}
	}
	return nil
}

func newEntry(c *Catalog, info FuncInfo, noHandler bool) (*entry, error) {
	if err := checkInfo(info, noHandler); err != nil {
		return nil, err
	}
	wrap := func(err error) error { return fmt.Errorf("catalog: %s: %w", info.Name, err) }
	if info.In.Kind() != reflect.Struct {
		return nil, wrap(fmt.Errorf("argument type %s must be a struct (use struct{} for none)", info.In))
	}
	plan, err := jsontype.FromGo(info.In, true)
	if err != nil {
		return nil, wrap(fmt.Errorf("argument type: %w", err))
	}
	if _, clash := plan.ByName[ValidateOnlyKey]; clash {
		return nil, wrap(fmt.Errorf("argument type %s: the member name %s is reserved for dry runs", info.In, ValidateOnlyKey))
	}
	out, err := jsontype.FromGo(info.Out, false)
	if err != nil {
		return nil, wrap(fmt.Errorf("result type: %w", err))
	}
	info.args, info.result = plan, out
	return &entry{info: info, plan: plan}, nil
}

// presentOnly removes from a validation error the issues inside members
// the arguments do not have. The validate tags check an absent optional
// struct member as its zero value, so {} would fail on the required
// fields of an optional "output" object that was never given; the
// declarations call such a member optional, and JSON Schema agrees.
// It returns nil when no issue remains, and other errors unchanged.
func presentOnly(err error, args []byte) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	v, perr := parseArgs(args)
	if perr != nil {
		return err
	}
	var kept []Issue
	for _, is := range ve.Issues {
		if insidePresent(v, is.Path) {
			kept = append(kept, is)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return &ValidationError{Issues: kept}
}

// insidePresent reports whether every member on path, except the last,
// is present in v: an issue about the last member itself (a required
// member missing) always stands.
func insidePresent(v any, path []any) bool {
	for i, step := range path {
		if i == len(path)-1 {
			return true
		}
		switch s := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return true
			}
			next, present := m[s]
			if !present || next == nil {
				return false
			}
			v = next
		case int:
			a, ok := v.([]any)
			if !ok || s < 0 || s >= len(a) {
				return true
			}
			v = a[s]
		default:
			return true
		}
	}
	return true
}
