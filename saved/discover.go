package saved

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// Discover answers codemode.search and codemode.describe (fn, with
// args the JSON array of the script's arguments) for env's principal: describe
// declares the names in namespace saved and passes the others to
// catalogAnswer; search adds the saved functions whose name or
// description holds a word of the query to catalogAnswer's hits. With
// env.ReadOnly only READ-ONLY saved functions are shown. catalogAnswer may
// be cached for every principal; what it returns is never changed in
// place. The store is given StoreTimeout at most.
func (l *Library) Discover(ctx context.Context, env Env, fn string, args json.RawMessage, catalogAnswer func(json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, StoreTimeout)
	defer cancel()
	lib, owner, readOnly := l, env.Owner, env.ReadOnly
	if fn != "search" && fn != "describe" {
		return catalogAnswer(args)
	}
	var list []json.RawMessage
	if json.Unmarshal(args, &list) != nil || len(list) == 0 {
		return catalogAnswer(args)
	}
	switch fn {
	case "describe":
		var names []string
		if json.Unmarshal(list[0], &names) != nil {
			var one string
			if json.Unmarshal(list[0], &one) != nil {
				return catalogAnswer(args)
			}
			names = []string{one}
		}
		var mine, rest []string
		for _, n := range names {
			if short, ok := strings.CutPrefix(n, Namespace+"."); ok {
				mine = append(mine, short)
			} else {
				rest = append(rest, n)
			}
		}
		if len(mine) == 0 {
			return catalogAnswer(args)
		}
		infos, err := lib.Infos(ctx, owner)
		if err != nil {
			return nil, err
		}
		var chosen []catalog.FuncInfo
		for _, in := range infos {
			if slices.Contains(mine, in.Name) && (!readOnly || in.Tier == catalog.ReadOnly) {
				chosen = append(chosen, in)
			}
		}
		text := ""
		if len(chosen) > 0 {
			d, err := typegen.GenerateFuncs(Namespace, chosen, nil)
			if err != nil {
				return nil, err
			}
			text = d
		}
		if len(chosen) < len(mine) {
			text += "// Not found among your saved functions: some of " + strings.Join(mine, ", ") + "; codemode.saved() lists them.\n"
		}
		if len(rest) > 0 {
			b, _ := json.Marshal([]any{rest})
			out, err := catalogAnswer(b)
			if err != nil {
				return nil, err
			}
			var other string
			_ = json.Unmarshal(out, &other)
			text = other + "\n" + text
		}
		return json.Marshal(text)
	default: // search
		out, err := catalogAnswer(args)
		if err != nil {
			return out, err
		}
		var query string
		_ = json.Unmarshal(list[0], &query)
		var found []map[string]any
		if json.Unmarshal(out, &found) != nil {
			return out, nil
		}
		fns, err := lib.List(ctx, owner)
		if err != nil {
			return out, nil // the catalog's answer stands
		}
		words := strings.Fields(strings.ToLower(query))
		for _, f := range fns {
			if readOnly && f.Tier != catalog.ReadOnly {
				continue
			}
			text := strings.ToLower(f.Name + " " + f.Description)
			for _, w := range words {
				if strings.Contains(text, w) {
					found = append(found, map[string]any{"name": Namespace + "." + f.Name, "tier": f.Tier.String(), "summary": firstLine(f.Description) + " (saved function, version " + strconv.Itoa(f.Version) + ")"})
					break
				}
			}
		}
		return json.Marshal(found)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
