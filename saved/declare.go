package saved

import (
	"context"
	"strconv"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/typegen"
)

// Infos returns the functions of owner as catalog functions of namespace
// saved, for declarations, search and describe: each one's description
// gains its version, and, for a published function of another owner,
// that someone else wrote it and that it runs as the caller.
func (l *Library) Infos(ctx context.Context, owner string) ([]catalog.FuncInfo, error) {
	fns, err := l.List(ctx, owner)
	if err != nil {
		return nil, err
	}
	out := make([]catalog.FuncInfo, 0, len(fns))
	for _, f := range fns {
		info, err := l.info(f)
		if err != nil {
			continue // it checked when saved; a stored record that no longer does is skipped
		}
		out = append(out, info)
	}
	return out, nil
}

// info is f as a catalog function.
func (l *Library) info(f *Function) (catalog.FuncInfo, error) {
	c, err := l.checker(f)
	if err != nil {
		return catalog.FuncInfo{}, err
	}
	info := c.Functions()[0]
	info.Description = Describe(f)
	return info, nil
}

// Describe is the description a declaration shows for f.
func Describe(f *Function) string {
	d := f.Description + "\n\nSaved function, version " + strconv.Itoa(f.Version) + "; tier " + f.Tier.String() + " (derived from the functions it calls)."
	if !f.Mine {
		d += " Written by someone else and published: it runs as you, with your access."
	}
	return d
}

// Declarations returns the TypeScript declarations of the functions
// owner may call, as namespace saved, or "" when there are none.
func (l *Library) Declarations(ctx context.Context, owner string, opts *typegen.Options) (string, error) {
	infos, err := l.Infos(ctx, owner)
	if err != nil || len(infos) == 0 {
		return "", err
	}
	return typegen.GenerateFuncs(Namespace, infos, opts)
}
