package saved

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode/state"
)

// ChangeKind says what a [Change] did.
type ChangeKind int

// The kinds of change. The zero value is none of them.
const (
	// Saved: a new version was saved.
	Saved ChangeKind = iota + 1
	// Published: every principal may now call the function.
	Published
	// Unpublished: only its owner may call it again.
	Unpublished
	// Removed: every version of the function was removed.
	Removed
)

// String returns "saved", "published", "unpublished" or "removed".
func (k ChangeKind) String() string {
	switch k {
	case Saved:
		return "saved"
	case Published:
		return "published"
	case Unpublished:
		return "unpublished"
	case Removed:
		return "removed"
	}
	return "ChangeKind(?)"
}

// Change is one save, publication or removal that a Library made, from a
// script or from Go. It never holds the code, only its SHA-256.
type Change struct {
	Kind ChangeKind
	// Owner is the subject of the function's owner, who made the change
	// (a host's Publish acts for the owner it names).
	Owner string
	// Name is the function's name, without the namespace.
	Name string
	// Version is the version saved, or the latest version when it was
	// published, unpublished or removed.
	Version int
	// Tier is that version's tier.
	Tier catalog.Tier
	// CodeSHA256 is the hex SHA-256 of that version's code; CodeBytes its
	// size.
	CodeSHA256 string
	CodeBytes  int
	// Everyone: the change concerns every principal (the function is or
	// was published), not its owner only.
	Everyone bool
}

// Watch calls fn after each change l makes, on the goroutine that made
// it and with its context, until stop is called. fn must not block; it
// may be called concurrently. Package codemode watches to audit changes;
// it notifies connected clients from [Library.WatchAll], which also
// reports other replicas' changes.
func (l *Library) Watch(fn func(ctx context.Context, c Change)) (stop func()) {
	return l.watch.Add(fn)
}

// WatchAll calls fn after each change of the saved functions, until stop
// is called: owner's functions changed, or (everyone) the functions every
// principal may call. When the store implements [state.SavedChanges]
// (the in-memory store does, and so does pgstate's, across replicas),
// these are the store's reports: every Library's changes on any replica,
// this one's included, each reported once, and ("", true) after a
// replica's link to the others was lost and restored (changes may have
// been missed). Otherwise they are the changes this Library makes, as
// [Library.Watch] reports them. fn must not block; it may be called
// concurrently. Package codemode watches to notify connected clients.
func (l *Library) WatchAll(fn func(owner string, everyone bool)) (stop func()) {
	if sc, ok := l.store.(state.SavedChanges); ok {
		return sc.WatchSaved(fn)
	}
	return l.Watch(func(_ context.Context, c Change) { fn(c.Owner, c.Everyone) })
}

// changed tells the watchers that kind happened to rec.
func (l *Library) changed(ctx context.Context, kind ChangeKind, rec *state.SavedFunction) {
	sum := sha256.Sum256([]byte(rec.Code))
	c := Change{Kind: kind, Owner: rec.Owner, Name: rec.Name, Version: rec.Version, Tier: parseTier(rec.Tier),
		CodeSHA256: hex.EncodeToString(sum[:]), CodeBytes: len(rec.Code),
		Everyone: rec.Published || kind == Published || kind == Unpublished}
	for _, fn := range l.watch.All() {
		fn(ctx, c)
	}
}
