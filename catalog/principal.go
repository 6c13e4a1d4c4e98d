package catalog

import (
	"context"
	"slices"
)

// Principal is the authenticated caller: the user (Subject), the client
// application acting for them (ClientID) and the scopes they granted.
type Principal struct {
	Subject  string
	ClientID string
	Scopes   []string
}

// HasScope reports whether p holds scope s.
func (p Principal) HasScope(s string) bool { return slices.Contains(p.Scopes, s) }

type principalKey struct{}

// WithPrincipal returns a copy of ctx that carries p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal carried by ctx, if any.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
