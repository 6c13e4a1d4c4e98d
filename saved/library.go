package saved

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/watchers"
	"github.com/brakinglab/codemode-go/sandbox"
)

// Namespace is the namespace saved functions are called in: saved.name.
const Namespace = "saved"

// Limits bounds what may be saved. The zero value of each field is its
// documented default.
type Limits struct {
	// MaxCodeBytes bounds the code; default sandbox.DefaultMaxCodeBytes
	// (10 KiB).
	MaxCodeBytes int
	// MaxSchemaBytes bounds each of the input and output schemas; default
	// 16 KiB.
	MaxSchemaBytes int
	// MaxDescriptionBytes bounds the description; default 2 KiB.
	MaxDescriptionBytes int
	// MaxPerOwner bounds the names one principal may have; default 100.
	MaxPerOwner int
}

func (l Limits) withDefaults() Limits {
	if l.MaxCodeBytes <= 0 {
		l.MaxCodeBytes = sandbox.DefaultMaxCodeBytes
	}
	if l.MaxSchemaBytes <= 0 {
		l.MaxSchemaBytes = 16 << 10
	}
	if l.MaxDescriptionBytes <= 0 {
		l.MaxDescriptionBytes = 2 << 10
	}
	if l.MaxPerOwner <= 0 {
		l.MaxPerOwner = 100
	}
	return l
}

// Options configures a Library. The zero value is the documented default.
type Options struct {
	// Store keeps the functions; nil means a new [Memory] store.
	Store state.SavedFunctions
	// Limits bounds what may be saved.
	Limits Limits
	// Tools also offers each saved function as a plain MCP tool, named
	// saved_<name> (names that are not plain ASCII identifiers are not
	// offered), with its input schema, description and tier hints, to the
	// principals who may call it, on the codemode servers that serve this
	// Library. Calling such a tool runs the function exactly as a script's
	// return await saved.name(arguments) would, through the code tool: the
	// same checks, approvals and audit. The tool prefix saved_ is then
	// reserved. Off by default.
	Tools bool
}

// Library saves, lists and resolves saved functions. It is safe for
// concurrent use.
type Library struct {
	store state.SavedFunctions
	lim   Limits
	tools bool // Options.Tools

	mu   sync.Mutex
	cats map[string]*catalog.Catalog // by key: the argument checker of one version

	watch watchers.Set[func(context.Context, Change)] // Watch
}

// New returns a Library.
func New(opts *Options) *Library {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Store == nil {
		o.Store = NewMemory()
	}
	return &Library{store: o.Store, lim: o.Limits.withDefaults(), tools: o.Tools, cats: map[string]*catalog.Catalog{}}
}

// OffersTools reports whether Options.Tools was set.
func (l *Library) OffersTools() bool { return l.tools }

// Env is what a Library needs to know of the principal an operation runs
// for.
type Env struct {
	// Owner is the principal's subject; "" is anonymous, who may call
	// published functions only.
	Owner string
	// Namespaces are the namespaces of the functions the principal may
	// call; a reference into any other is not one.
	Namespaces []string
	// Tier returns the tier of the function name ("ns.fn") the principal
	// may call, or false when there is none.
	Tier func(name string) (catalog.Tier, bool)
	// ReadOnly: the principal may call READ-ONLY saved functions only
	// (codemode's execute_readonly_code); the others are not listed, and
	// calling one is refused.
	ReadOnly bool
}

// NewEnv returns the Env of owner, who may call the functions of tiers
// (qualified name → tier).
func NewEnv(owner string, tiers map[string]catalog.Tier, readOnly bool) Env {
	env := Env{Owner: owner, ReadOnly: readOnly, Tier: func(name string) (catalog.Tier, bool) {
		t, ok := tiers[name]
		return t, ok
	}}
	seen := map[string]bool{}
	for name := range tiers {
		if ns, _, ok := strings.Cut(name, "."); ok && !seen[ns] {
			seen[ns] = true
			env.Namespaces = append(env.Namespaces, ns)
		}
	}
	return env
}

// Draft is what is saved.
type Draft struct {
	// Name is how it is called: saved.Name. Required.
	Name string `json:"name"`
	// Description is shown in its declaration. Required.
	Description string `json:"description"`
	// Code is the body of an async function whose parameter is input.
	// Required.
	Code string `json:"code"`
	// Input is the JSON Schema of input, an object. Required.
	Input json.RawMessage `json:"input"`
	// Output optionally describes the result.
	Output json.RawMessage `json:"output,omitempty"`
}

// Function is one version of a saved function.
type Function struct {
	// Name is how it is called: saved.Name.
	Name string `json:"name"`
	// Version is 1 for the first save of the name, one more for each
	// save after it.
	Version int `json:"version"`
	// Description, Code, Input and Output are what was saved.
	Description string          `json:"description"`
	Code        string          `json:"code"`
	Input       json.RawMessage `json:"input"`
	Output      json.RawMessage `json:"output,omitempty"`
	// Tier is derived from Uses when it was saved.
	Tier catalog.Tier `json:"-"`
	// Uses are the functions its code references ("ns.fn").
	Uses []string `json:"uses"`
	// Published: every principal may call it.
	Published bool `json:"published"`
	// Mine is false for a published function of another owner.
	Mine bool `json:"mine"`
	// Created is when this version was saved.
	Created time.Time `json:"created"`

	owner string
}

// MarshalJSON adds the tier by name.
func (f Function) MarshalJSON() ([]byte, error) {
	type plain Function
	return json.Marshal(struct {
		plain
		Tier string `json:"tier"`
	}{plain(f), f.Tier.String()})
}

// Label is how errors and approval questions name this version:
// "saved.weeklyReview version 3".
func (f *Function) Label() string {
	return Namespace + "." + f.Name + " version " + strconv.Itoa(f.Version)
}

// key identifies the version without saying who owns it.
func (f *Function) key() string {
	h := sha256.Sum256([]byte(f.owner + "\x00" + f.Name + "\x00" + strconv.Itoa(f.Version) + "\x00" + strconv.FormatInt(f.Created.UnixMicro(), 10)))
	return f.Name + "@" + strconv.Itoa(f.Version) + "-" + hex.EncodeToString(h[:8])
}

func fromState(s *state.SavedFunction, caller string) *Function {
	f := &Function{Name: s.Name, Version: s.Version, Description: s.Description, Code: s.Code,
		Input: json.RawMessage(s.Input), Uses: s.Uses, Published: s.Published, Mine: s.Owner == caller,
		Created: s.Created, owner: s.Owner, Tier: parseTier(s.Tier)}
	if len(s.Output) > 0 {
		f.Output = json.RawMessage(s.Output)
	}
	return f
}

func parseTier(s string) catalog.Tier {
	for _, t := range []catalog.Tier{catalog.ReadOnly, catalog.Mutating, catalog.Creative} {
		if t.String() == s {
			return t
		}
	}
	return catalog.Mutating // unknown text: the strictest reading
}

// rank orders tiers by what they may do: READ-ONLY, CREATIVE, MUTATING.
func rank(t catalog.Tier) int {
	switch t {
	case catalog.ReadOnly:
		return 0
	case catalog.Creative:
		return 1
	}
	return 2
}

// notFound is the one answer for a name the caller has no function by.
func notFound(name string) error {
	return catalog.NotFound("saved.%s is not found: list your saved functions with codemode.saved()", name)
}

// find returns the caller's function name, else the published one, at
// version (0: the latest), or nil.
func (l *Library) find(ctx context.Context, owner, name string, version int) (*Function, error) {
	if owner != "" {
		s, err := l.store.Get(ctx, owner, name, version)
		if err != nil {
			return nil, fmt.Errorf("saved functions: %w", err)
		}
		if s != nil {
			return fromState(s, owner), nil
		}
	}
	s, err := l.store.Published(ctx, name, version)
	if err != nil {
		return nil, fmt.Errorf("saved functions: %w", err)
	}
	if s == nil {
		return nil, nil
	}
	return fromState(s, owner), nil
}

// Get returns version (0: the latest) of name as owner sees it: their
// own, else a published one.
func (l *Library) Get(ctx context.Context, owner, name string, version int) (*Function, error) {
	f, err := l.find(ctx, owner, name, version)
	if err == nil && f == nil {
		err = notFound(name)
	}
	return f, err
}

// List returns the latest version of each function owner may call.
func (l *Library) List(ctx context.Context, owner string) ([]*Function, error) {
	ss, err := l.store.List(ctx, owner)
	if err != nil {
		return nil, fmt.Errorf("saved functions: %w", err)
	}
	out := make([]*Function, 0, len(ss))
	seen := map[string]bool{}
	for i := range ss {
		f := fromState(&ss[i], owner)
		if seen[f.Name] && !f.Mine {
			continue
		}
		seen[f.Name] = true
		out = append(out, f)
	}
	return out, nil
}

// History returns every version of owner's own name, oldest first.
func (l *Library) History(ctx context.Context, owner, name string) ([]*Function, error) {
	ss, err := l.store.History(ctx, owner, name)
	if err != nil {
		return nil, fmt.Errorf("saved functions: %w", err)
	}
	if len(ss) == 0 || owner == "" {
		return nil, notFound(name)
	}
	out := make([]*Function, len(ss))
	for i := range ss {
		out[i] = fromState(&ss[i], owner)
	}
	return out, nil
}

// Remove deletes every version of owner's own name.
func (l *Library) Remove(ctx context.Context, owner, name string) error {
	if owner == "" {
		return notFound(name)
	}
	// The latest version, for the watchers: what was removed.
	last, err := l.store.Get(ctx, owner, name, 0)
	if err != nil {
		return fmt.Errorf("saved functions: %w", err)
	}
	ok, err := l.store.Remove(ctx, owner, name)
	if err != nil {
		return fmt.Errorf("saved functions: %w", err)
	}
	if !ok {
		return notFound(name)
	}
	if last == nil { // saved again between the two: the name stays owner's
		last = &state.SavedFunction{Owner: owner, Name: name}
	}
	l.changed(ctx, Removed, last)
	return nil
}

// Publish lets every principal call owner's name (published true), or
// only owner again. A name another owner has published is refused.
func (l *Library) Publish(ctx context.Context, owner, name string, published bool) error {
	if published {
		p, err := l.store.Published(ctx, name, 0)
		if err != nil {
			return fmt.Errorf("saved functions: %w", err)
		}
		if p != nil && p.Owner != owner {
			return catalog.Conflict("saved.%s: another published function has this name", name)
		}
	}
	ok, err := l.store.Publish(ctx, owner, name, published)
	if err != nil {
		return fmt.Errorf("saved functions: %w", err)
	}
	if !ok {
		return notFound(name)
	}
	kind := Unpublished
	if published {
		kind = Published
	}
	last, err := l.store.Get(ctx, owner, name, 0)
	if err != nil || last == nil { // published already: tell the watchers what is known
		last = &state.SavedFunction{Owner: owner, Name: name}
	}
	l.changed(ctx, kind, last)
	return nil
}

// argsKey is the context key of the slot the checker's handler fills.
type argsKey struct{}

// checker returns the catalog that checks the arguments of f: one
// schema function, named as f, whose handler hands back its arguments.
func (l *Library) checker(f *Function) (*catalog.Catalog, error) {
	k := f.key()
	l.mu.Lock()
	c := l.cats[k]
	l.mu.Unlock()
	if c != nil {
		return c, nil
	}
	c, err := newChecker(f)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if len(l.cats) >= 4096 {
		clear(l.cats)
	}
	l.cats[k] = c
	l.mu.Unlock()
	return c, nil
}

// newChecker makes the catalog checker returns.
func newChecker(f *Function) (*catalog.Catalog, error) {
	c, err := catalog.New(Namespace, &catalog.Options{AllowAnonymous: true})
	if err != nil {
		return nil, err
	}
	err = catalog.AddSchema(c, catalog.SchemaFunc{
		Name: f.Name, Description: f.Description, Tier: f.Tier,
		InputSchema: f.Input, OutputSchema: f.Output,
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			if slot, ok := ctx.Value(argsKey{}).(*json.RawMessage); ok {
				*slot = append(json.RawMessage(nil), args...)
			}
			return json.RawMessage("null"), nil
		},
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Subprogram resolves a call of saved.name by env's principal: it checks
// that what the code references has not gone or risen in tier, checks
// the arguments, and returns what the sandbox runs (or, for a dry run,
// its answer).
func (l *Library) Subprogram(ctx context.Context, env Env, name string, args json.RawMessage) (*sandbox.Subprogram, error) {
	f, err := l.Get(ctx, env.Owner, name, 0)
	if err != nil {
		return nil, err
	}
	if env.ReadOnly && f.Tier != catalog.ReadOnly {
		return nil, catalog.NotFound("saved.%s is %s: this tool runs READ-ONLY saved functions only; call it from execute_code", name, f.Tier)
	}
	if err := l.stillValid(ctx, env, f); err != nil {
		return nil, err
	}
	c, err := l.checker(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Label(), err)
	}
	var input json.RawMessage
	out, err := c.Call(context.WithValue(ctx, argsKey{}, &input), name, args)
	if err != nil {
		return nil, err
	}
	sp := &sandbox.Subprogram{Key: f.key(), Label: f.Label()}
	if input == nil {
		sp.Result = out // a dry run
		return sp, nil
	}
	sp.Code, sp.Input = f.Code, input
	return sp, nil
}

// stillValid refuses a call of f when a function it references has gone
// or risen above f's tier since it was saved.
func (l *Library) stillValid(ctx context.Context, env Env, f *Function) error {
	for _, u := range f.Uses {
		t, ok, err := l.tierOf(ctx, env, u)
		if err != nil {
			return err
		}
		if !ok {
			return catalog.Invalid("%s calls %s, which is no longer available to you; it did not run. Save it again without %s", f.Label(), u, u)
		}
		if rank(t) > rank(f.Tier) {
			return catalog.Invalid("%s calls %s, which is now %s, above the %s it was saved as; it did not run. Save it again so that its tier is derived anew", f.Label(), u, t, f.Tier)
		}
	}
	return nil
}

// tierOf returns the tier of the function u ("ns.fn") for env.
func (l *Library) tierOf(ctx context.Context, env Env, u string) (catalog.Tier, bool, error) {
	if name, ok := cutNamespace(u); ok {
		f, err := l.find(ctx, env.Owner, name, 0)
		if err != nil || f == nil {
			return 0, false, err
		}
		return f.Tier, true, nil
	}
	if env.Tier == nil {
		return 0, false, nil
	}
	t, ok := env.Tier(u)
	return t, ok, nil
}

func cutNamespace(u string) (string, bool) {
	if len(u) > len(Namespace)+1 && u[:len(Namespace)+1] == Namespace+"." {
		return u[len(Namespace)+1:], true
	}
	return "", false
}
