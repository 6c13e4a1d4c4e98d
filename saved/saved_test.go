package saved_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/saved"
)

var tiers = map[string]catalog.Tier{
	"lab.listSessions":  catalog.ReadOnly,
	"lab.createNote":    catalog.Creative,
	"lab.deleteSession": catalog.Mutating,
}

func env(owner string) saved.Env {
	return saved.Env{Owner: owner, Namespaces: []string{"lab"}, Tier: func(n string) (catalog.Tier, bool) {
		t, ok := tiers[n]
		return t, ok
	}}
}

const objSchema = `{"type":"object","properties":{"trackName":{"type":"string"}},"required":["trackName"]}`

func draft(name, code string) saved.Draft {
	return saved.Draft{Name: name, Description: "does it", Code: code, Input: json.RawMessage(objSchema)}
}

func TestSaveReportsEveryProblemAtOnce(t *testing.T) {
	l := saved.New(nil)
	_, err := l.Save(context.Background(), env("ann"), saved.Draft{
		Name: "1bad", Code: "const x = ;", Input: json.RawMessage(`{"type":"string"}`),
		Output: json.RawMessage(strings.Repeat(" ", 20<<10)),
	})
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err %v, want a validation error", err)
	}
	paths := map[string]string{}
	for _, is := range ve.Issues {
		paths[is.Path[0].(string)] = is.Message
	}
	for _, p := range []string{"name", "description", "code", "output"} {
		if paths[p] == "" {
			t.Errorf("no issue at %s: %+v", p, ve.Issues)
		}
	}
	if !strings.Contains(paths["code"], "line 1") {
		t.Errorf("code issue %q does not give the line", paths["code"])
	}
	if list, _ := l.List(context.Background(), "ann"); len(list) != 0 {
		t.Fatalf("a refused save stored %v", list)
	}
	// A schema that does not describe an object, alone.
	_, err = l.Save(context.Background(), env("ann"), saved.Draft{Name: "ok", Description: "d", Code: "return 1", Input: json.RawMessage(`{"type":"string"}`)})
	if !errors.As(err, &ve) || ve.Issues[0].Path[0] != "input" {
		t.Fatalf("string schema: %v", err)
	}
}

func TestTierIsDerivedFromWhatTheCodeCalls(t *testing.T) {
	l := saved.New(nil)
	ctx := context.Background()
	cases := []struct {
		code string
		tier catalog.Tier
		uses string
	}{
		{"return 1", catalog.ReadOnly, ""},
		{"const a = { ...input, b: 1 };\nfor await (const x of [1]) a.b += x;\nreturn a?.b ?? 0", catalog.ReadOnly, ""},
		{"return await lab.listSessions({})", catalog.ReadOnly, "lab.listSessions"},
		{"await lab.listSessions({}); return lab['createNote']({ text: input.trackName })", catalog.Creative, "lab.createNote,lab.listSessions"},
		{"const s: any[] = await lab.listSessions({});\nfor (const x of s) await lab.deleteSession({ id: x.id });", catalog.Mutating, "lab.deleteSession,lab.listSessions"},
	}
	for i, c := range cases {
		f, err := l.Save(ctx, env("ann"), draft("f"+string(rune('a'+i)), c.code))
		if err != nil {
			t.Fatalf("%q: %v", c.code, err)
		}
		if f.Tier != c.tier || strings.Join(f.Uses, ",") != c.uses {
			t.Errorf("%q: tier %v uses %v, want %v %s", c.code, f.Tier, f.Uses, c.tier, c.uses)
		}
	}
	for _, bad := range []string{"return lab.nope({})", "const ns = lab; return ns.deleteSession({})", "return 1 }; globalThis.x = 1; async function y() {"} {
		if _, err := l.Save(ctx, env("ann"), draft("bad", bad)); err == nil {
			t.Errorf("%q saved", bad)
		}
	}
	// Calling another saved function takes its tier.
	f, err := l.Save(ctx, env("ann"), draft("outer", "return saved.fe({ trackName: 'x' })"))
	if err != nil || f.Tier != catalog.Mutating {
		t.Fatalf("outer: %v %v", f, err)
	}
}

func TestVersionsPrivacyAndPublishing(t *testing.T) {
	l := saved.New(nil)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := l.Save(ctx, env("ann"), draft("review", "return "+string(rune('1'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	h, err := l.History(ctx, "ann", "review")
	if err != nil || len(h) != 3 || h[0].Code != "return 1" || h[2].Version != 3 {
		t.Fatalf("history %v %v", h, err)
	}
	// Bob sees nothing of Ann's: the same not found as a missing name.
	_, errBob := l.Subprogram(ctx, env("bob"), "review", json.RawMessage(`{"trackName":"Spa"}`))
	_, errMissing := l.Subprogram(ctx, env("bob"), "nothing", json.RawMessage(`{}`))
	if catalog.CodeOf(errBob) != catalog.CodeNotFound || strings.ReplaceAll(errBob.Error(), "review", "X") != strings.ReplaceAll(errMissing.Error(), "nothing", "X") {
		t.Fatalf("bob: %v / %v", errBob, errMissing)
	}
	if _, err := l.History(ctx, "bob", "review"); catalog.CodeOf(err) != catalog.CodeNotFound {
		t.Fatalf("bob's history: %v", err)
	}
	if err := l.Remove(ctx, "bob", "review"); catalog.CodeOf(err) != catalog.CodeNotFound {
		t.Fatalf("bob removed ann's: %v", err)
	}
	if err := l.Publish(ctx, "ann", "review", true); err != nil {
		t.Fatal(err)
	}
	sp, err := l.Subprogram(ctx, env("bob"), "review", json.RawMessage(`{"trackName":"Spa"}`))
	if err != nil || sp.Code != "return 3" || sp.Label != "saved.review version 3" {
		t.Fatalf("published: %+v %v", sp, err)
	}
	d, err := l.Declarations(ctx, "bob", nil)
	if err != nil || !strings.Contains(d, "Written by someone else") || !strings.Contains(d, "review(") {
		t.Fatalf("declarations:\n%s\n%v", d, err)
	}
	// Bob cannot take the published name.
	if _, err := l.Save(ctx, env("bob"), draft("review", "return 0")); err == nil {
		t.Fatal("bob shadowed a published function")
	}
	// Bad arguments are a validation error naming the member.
	_, err = l.Subprogram(ctx, env("bob"), "review", json.RawMessage(`{"trackName":3}`))
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || ve.Issues[0].Path[0] != "trackName" {
		t.Fatalf("bad args: %v", err)
	}
}

func TestACallRefusesWhatChangedSinceTheSave(t *testing.T) {
	l := saved.New(nil)
	ctx := context.Background()
	if _, err := l.Save(ctx, env("ann"), draft("reader", "return lab.listSessions({})")); err != nil {
		t.Fatal(err)
	}
	e := env("ann")
	e.Tier = func(n string) (catalog.Tier, bool) {
		if n == "lab.listSessions" {
			return catalog.Mutating, true
		}
		return 0, false
	}
	_, err := l.Subprogram(ctx, e, "reader", json.RawMessage(`{"trackName":"Spa"}`))
	if err == nil || !strings.Contains(err.Error(), "lab.listSessions, which is now MUTATING") {
		t.Fatalf("tier rose: %v", err)
	}
	e.Tier = func(string) (catalog.Tier, bool) { return 0, false }
	_, err = l.Subprogram(ctx, e, "reader", json.RawMessage(`{"trackName":"Spa"}`))
	if err == nil || !strings.Contains(err.Error(), "lab.listSessions, which is no longer available") {
		t.Fatalf("removed: %v", err)
	}
}

func TestPerOwnerLimit(t *testing.T) {
	l := saved.New(&saved.Options{Limits: saved.Limits{MaxPerOwner: 1}})
	ctx := context.Background()
	if _, err := l.Save(ctx, env("ann"), draft("one", "return 1")); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Save(ctx, env("ann"), draft("one", "return 2")); err != nil {
		t.Fatalf("a new version counts against nothing: %v", err)
	}
	if _, err := l.Save(ctx, env("ann"), draft("two", "return 1")); err == nil || !strings.Contains(err.Error(), "Validation") {
		t.Fatalf("second name: %v", err)
	}
}
