package saved

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
)

// ScriptFunctions are the functions of the discovery namespace (codemode)
// that scripts use to manage their saved functions; they are free calls.
var ScriptFunctions = []string{"save", "saved", "savedHistory", "removeSaved"}

// ScriptDeclarations declares ScriptFunctions, to go inside the
// discovery namespace's declare block.
const ScriptDeclarations = `  /** Saves code that worked as saved.<name>(input), a typed function later scripts and conversations can call. code is the body of an async function that reads input; input is the JSON Schema of its one argument object. Saving an existing name makes a new version. The tier is derived from the functions the code calls. */
  function save(fn: { name: string; description: string; code: string; input: object; output?: object }): Promise<{ name: string; version: number; tier: string; uses: string[] }>;
  /** Lists the saved functions you can call (yours and published ones), latest versions, with their declarations. */
  function saved(): Promise<{ functions: { name: string; version: number; tier: string; description: string; mine: boolean; published: boolean }[]; declarations: string }>;
  /** Every version of one of your saved functions, oldest first, with its code. */
  function savedHistory(name: string): Promise<{ name: string; version: number; tier: string; code: string; created: string }[]>;
  /** Removes every version of one of your saved functions. */
  function removeSaved(name: string): Promise<{ removed: string }>;`

// DescriptionNote tells the model, in the tool's description, where saved
// functions are.
const DescriptionNote = "\n// Saved functions: code that worked, saved with codemode.save, is called in later executions as `await saved.<name>(input)`, typed and checked like any function. codemode.saved() lists yours and the published ones with their declarations; codemode.search and codemode.describe find them too."

// ScriptCall runs fn, one of ScriptFunctions, for env's principal with
// args, the JSON array of the script's arguments. changed reports that
// the functions env.Owner can call changed (a save or a removal).
func (l *Library) ScriptCall(ctx context.Context, env Env, fn string, args json.RawMessage) (out json.RawMessage, changed bool, err error) {
	var list []json.RawMessage
	if err := json.Unmarshal(args, &list); err != nil {
		return nil, false, catalog.Invalid("codemode.%s: the arguments must be plain data", fn)
	}
	arg := func() json.RawMessage {
		if len(list) == 0 {
			return nil
		}
		return list[0]
	}
	name := func() (string, error) {
		var s string
		if json.Unmarshal(arg(), &s) != nil || s == "" {
			return "", catalog.Invalid("codemode.%s takes the function's name, a string: codemode.%s(\"weeklyReview\")", fn, fn)
		}
		return strings.TrimPrefix(s, Namespace+"."), nil
	}
	if env.ReadOnly && (fn == "save" || fn == "removeSaved") {
		return nil, false, catalog.Invalid("codemode.%s changes your saved functions, which this read-only tool does not do; call it from execute_code", fn)
	}
	switch fn {
	case "save":
		var d Draft
		dec := json.NewDecoder(strings.NewReader(string(arg())))
		dec.DisallowUnknownFields()
		if len(list) != 1 || dec.Decode(&d) != nil {
			return nil, false, catalog.Invalid(`codemode.save takes one object: { name, description, code, input, output? }, with input and output JSON Schemas`)
		}
		f, err := l.Save(ctx, env, d)
		if err != nil {
			return nil, false, err
		}
		out, err := json.Marshal(map[string]any{"name": Namespace + "." + f.Name, "version": f.Version, "tier": f.Tier.String(), "uses": nonNil(f.Uses),
			"call": fmt.Sprintf("await %s.%s(input)", Namespace, f.Name)})
		return out, true, err
	case "saved":
		fns, err := l.List(ctx, env.Owner)
		if err != nil {
			return nil, false, err
		}
		type item struct {
			Name        string `json:"name"`
			Version     int    `json:"version"`
			Tier        string `json:"tier"`
			Description string `json:"description"`
			Mine        bool   `json:"mine"`
			Published   bool   `json:"published"`
		}
		items := make([]item, len(fns))
		for i, f := range fns {
			items[i] = item{Namespace + "." + f.Name, f.Version, f.Tier.String(), f.Description, f.Mine, f.Published}
		}
		decl, err := l.Declarations(ctx, env.Owner, nil)
		if err != nil {
			return nil, false, err
		}
		out, err := json.Marshal(map[string]any{"functions": items, "declarations": decl})
		return out, false, err
	case "savedHistory":
		n, err := name()
		if err != nil {
			return nil, false, err
		}
		fns, err := l.History(ctx, env.Owner, n)
		if err != nil {
			return nil, false, err
		}
		out, err := json.Marshal(fns)
		return out, false, err
	case "removeSaved":
		n, err := name()
		if err != nil {
			return nil, false, err
		}
		if err := l.Remove(ctx, env.Owner, n); err != nil {
			return nil, false, err
		}
		out, err := json.Marshal(map[string]string{"removed": Namespace + "." + n})
		return out, true, err
	}
	return nil, false, catalog.Invalid("codemode.%s is not a function", fn)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Names returns the names of the functions env's principal can call,
// for binding.
func (l *Library) Names(ctx context.Context, env Env) ([]string, error) {
	readOnly := env.ReadOnly
	fns, err := l.List(ctx, env.Owner)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(fns))
	for _, f := range fns {
		if !readOnly || f.Tier == catalog.ReadOnly {
			out = append(out, f.Name)
		}
	}
	return out, nil
}

// StoreTimeout bounds a store's answer where no request's context
// reaches: binding an execution's names, discovery.
const StoreTimeout = 5 * time.Second

// Binding is the names one execution binds in namespace saved, listed
// once. Its zero value is ready.
type Binding struct {
	once  sync.Once
	names []string
}

// Names returns the names env's principal can call, listing them from l
// the first time (within StoreTimeout). A store that fails leaves the
// namespace empty, and is logged on logger.
func (b *Binding) Names(l *Library, env Env, logger *slog.Logger) []string {
	b.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), StoreTimeout)
		defer cancel()
		var err error
		if b.names, err = l.Names(ctx, env); err != nil {
			logger.Error("codemode: listing saved functions failed", "err", err)
		}
	})
	return b.names
}
