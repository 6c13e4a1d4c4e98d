package openapisource_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/openapisource"
	"github.com/brakinglab/codemode-go/typegen"
)

// seen is a request as the server received it.
type seen struct {
	Method, RawURI, Body string
	Header               http.Header
}

// recorder is a real HTTP server on loopback that records each request
// and answers with reply (200 and the request's echo when nil).
type recorder struct {
	srv   *httptest.Server
	mu    sync.Mutex
	reqs  []seen
	reply func(w http.ResponseWriter, r *http.Request)
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	rec := &recorder{}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, seen{r.Method, r.RequestURI, string(b), r.Header.Clone()})
		reply := rec.reply
		rec.mu.Unlock()
		if reply != nil {
			reply(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"id": "n1", "title": "echo"})
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (rec *recorder) last(t *testing.T) seen {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) == 0 {
		t.Fatal("the server received no request")
	}
	return rec.reqs[len(rec.reqs)-1]
}

func (rec *recorder) count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

func readSpec(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// notes loads testdata/notes.yaml against base into a catalogue.
func notes(t *testing.T, base string, opts *openapisource.Options) (*catalog.Catalog, *openapisource.Source) {
	t.Helper()
	if opts == nil {
		opts = &openapisource.Options{}
	}
	opts.BaseURL = base
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	src, err := openapisource.New(readSpec(t, "notes.yaml"), opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.New("notes", &catalog.Options{AllowAnonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Register(c); err != nil {
		t.Fatal(err)
	}
	return c, src
}

func TestFunctionsTiersAndSkipped(t *testing.T) {
	_, src := notes(t, "http://127.0.0.1:1/api", nil)
	got := map[string]string{}
	for _, f := range src.Funcs() {
		got[f.Name] = f.Tier.String() + "/" + f.Approval.String()
	}
	want := map[string]string{
		"notes_list": "READ-ONLY/default", "notes_get": "READ-ONLY/default", "labels_get": "READ-ONLY/default",
		"notes_create": "CREATIVE/default", "notes_replace": "MUTATING/required", "notes_delete": "MUTATING/required",
		"notes_archive": "MUTATING/required",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("functions: %v", got)
	}
	var reasons []string
	for _, s := range src.Skipped() {
		reasons = append(reasons, s.Operation+": "+s.Reason)
	}
	slices.Sort(reasons)
	wantSkipped := []string{
		"session/get: required cookie parameter sid (cookies are not supported)",
		"upload: request body only as multipart/form-data (only JSON bodies are supported)",
	}
	if !slices.Equal(reasons, wantSkipped) {
		t.Errorf("skipped:\n%s", strings.Join(reasons, "\n"))
	}
}

func TestDeclarations(t *testing.T) {
	c, _ := notes(t, "http://127.0.0.1:1", nil)
	d, err := typegen.Generate(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"X-Trace"?: string`,            // a header parameter
		`state?: "draft" | "published"`, // an enum
		`body?: string | null`,          // nullable
		`const notes_create: Write<{ body: NewNote }, Note>`, `Promise<Note[]>`,
	} {
		if !strings.Contains(d, want) {
			t.Errorf("declarations lack %s:\n%s", want, d)
		}
	}
	if strings.Contains(d, "Accept") || strings.Contains(d, "session") {
		t.Errorf("ignored parameters are declared:\n%s", d)
	}
}

// Each style and explode of OpenAPI 3 serialises as the specification's
// examples show, with values escaped.
func TestParameterEncoding(t *testing.T) {
	rec := newRecorder(t)
	c, _ := notes(t, rec.srv.URL+"/api/", nil)
	ctx := t.Context()
	for _, tc := range []struct{ fn, args, uri string }{
		{"notes_list", `{"tag":["a b","c&d"],"ids":[1,2],"words":["x","y"],"pipes":["p","q"],"filter":{"state":"open","owner":"me"},"page":{"size":10,"after":"z"}}`,
			"/api/notes?tag=a%20b&tag=c%26d&ids=1,2&words=x%20y&pipes=p%7Cq&filter%5Bowner%5D=me&filter%5Bstate%5D=open&after=z&size=10"},
		{"notes_get", `{"id":"a/b?c#d"}`, "/api/notes/a%2Fb%3Fc%23d"},
		{"notes_get", `{"id":"../../admin"}`, "/api/notes/..%2F..%2Fadmin"},
		{"notes_get", `{"id":"//evil.example.com"}`, "/api/notes/%2F%2Fevil.example.com"},
		{"notes_get", `{"id":"x\r\nHost: evil"}`, "/api/notes/x%0D%0AHost%3A%20evil"},
		{"labels_get", `{"names":["a","b"],"point":{"x":1,"y":2},"coords":[3,4]}`, "/api/labels/.a.b/;point=x,1,y,2/;coords=3;coords=4"},
	} {
		if _, err := c.Call(ctx, tc.fn, json.RawMessage(tc.args)); err != nil {
			t.Fatalf("%s %s: %v", tc.fn, tc.args, err)
		}
		if got := rec.last(t).RawURI; got != tc.uri {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.fn, tc.args, got, tc.uri)
		}
	}
	if _, err := c.Call(ctx, "notes_list", json.RawMessage(`{"X-Trace":"t1"}`)); err != nil {
		t.Fatal(err)
	}
	if got := rec.last(t).Header.Get("X-Trace"); got != "t1" {
		t.Errorf("header X-Trace = %q", got)
	}
}

// Values that would leave the path or add a header are refused before
// anything is sent.
func TestHostileValuesRefused(t *testing.T) {
	rec := newRecorder(t)
	c, _ := notes(t, rec.srv.URL, nil)
	for _, tc := range []struct{ fn, args string }{
		{"notes_get", `{"id":".."}`},
		{"notes_get", `{"id":"."}`},
		{"notes_get", `{"id":""}`},
		{"notes_list", `{"X-Trace":"a\r\nX-Admin: 1"}`},
		{"notes_list", `{"X-Trace":"a\nb"}`},
	} {
		_, err := c.Call(t.Context(), tc.fn, json.RawMessage(tc.args))
		var ve *catalog.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s %s: got %v, want a validation error", tc.fn, tc.args, err)
			continue
		}
		b, _ := json.Marshal(ve)
		t.Logf("%s: %s", tc.args, b)
	}
	if n := rec.count(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

func TestBodyAndValidation(t *testing.T) {
	rec := newRecorder(t)
	c, _ := notes(t, rec.srv.URL, nil)
	ctx := t.Context()
	out, err := c.Call(ctx, "notes_create", json.RawMessage(`{"body":{"title":"t","body":null,"state":"draft","attachment":{"url":"u"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"id":"n1"`) {
		t.Errorf("result %s", out)
	}
	r := rec.last(t)
	if r.Method != "POST" || r.Header.Get("Content-Type") != "application/json" || r.Body != `{"attachment":{"url":"u"},"state":"draft","title":"t"}` {
		t.Errorf("request %+v", r)
	}
	n := rec.count()
	for _, bad := range []string{
		`{"body":{"title":"t","state":"gone"}}`, // enum
		`{"body":{}}`,                           // required
		`{"body":{"title":"t","attachment":{"src":"s","width":0}}}`, // oneOf branch with a bound
		`{}`, // required body
	} {
		if _, err := c.Call(ctx, "notes_create", json.RawMessage(bad)); catalog.CodeOf(err) != catalog.CodeValidation {
			t.Errorf("%s: got %v, want a validation error", bad, err)
		}
	}
	if rec.count() != n {
		t.Error("an invalid call reached the server")
	}
}

// Authorize sets the caller's credentials; nothing else reaches the API.
func TestAuthorize(t *testing.T) {
	rec := newRecorder(t)
	c, _ := notes(t, rec.srv.URL, &openapisource.Options{Authorize: func(req *http.Request, p *catalog.Principal) error {
		if p == nil {
			return &catalog.Error{Code: catalog.CodeUnauthenticated, Message: "connect your notes account first"}
		}
		req.Header.Set("Authorization", "Bearer token-of-"+p.Subject)
		return nil
	}})
	ctx := catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "alice"})
	if _, err := c.Call(ctx, "notes_get", json.RawMessage(`{"id":"1"}`)); err != nil {
		t.Fatal(err)
	}
	if got := rec.last(t).Header.Get("Authorization"); got != "Bearer token-of-alice" {
		t.Errorf("Authorization = %q", got)
	}
	_, err := c.Call(context.Background(), "notes_get", json.RawMessage(`{"id":"1"}`))
	if err == nil || err.Error() != "connect your notes account first" || rec.count() != 1 {
		t.Errorf("anonymous: %v, %d requests", err, rec.count())
	}
}

func TestLoadErrors(t *testing.T) {
	spec := readSpec(t, "notes.yaml")
	for _, tc := range []struct {
		name string
		spec []byte
		opts openapisource.Options
		want error
	}{
		{"no base", spec, openapisource.Options{}, openapisource.ErrBaseURL},
		{"relative base", spec, openapisource.Options{BaseURL: "/api"}, openapisource.ErrBaseURL},
		{"ftp base", spec, openapisource.Options{BaseURL: "ftp://h/"}, openapisource.ErrBaseURL},
		{"not openapi", []byte(`{"hello":1}`), openapisource.Options{BaseURL: "http://h"}, openapisource.ErrDocument},
		{"garbage", []byte("\x00\x01"), openapisource.Options{BaseURL: "http://h"}, openapisource.ErrDocument},
		{"unknown override", spec, openapisource.Options{BaseURL: "http://h", Operations: map[string]openapisource.OperationConfig{"nope": {Skip: true}}}, openapisource.ErrUnknownOperation},
		{"bad name", spec, openapisource.Options{BaseURL: "http://h", Operations: map[string]openapisource.OperationConfig{"notes/get": {Name: "a-b"}}}, openapisource.ErrConfig},
		{"collision", spec, openapisource.Options{BaseURL: "http://h", Operations: map[string]openapisource.OperationConfig{"notes/get": {Name: "notes_list"}}}, openapisource.ErrNameCollision},
		{"read-only approval", spec, openapisource.Options{BaseURL: "http://h", Operations: map[string]openapisource.OperationConfig{"notes/get": {Approval: catalog.ApprovalRequired}}}, openapisource.ErrConfig},
	} {
		_, err := openapisource.New(tc.spec, &tc.opts)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

// Overrides rename, re-tier and skip.
func TestOverrides(t *testing.T) {
	_, src := notes(t, "http://h", &openapisource.Options{Operations: map[string]openapisource.OperationConfig{
		"notes/get":    {Name: "getNote"},
		"notes/delete": {Skip: true},
		"notes/create": {Tier: catalog.Mutating, Approval: catalog.ApprovalRequired, Scopes: []string{"notes:write"}},
	}})
	byName := map[string]catalog.SchemaFunc{}
	for _, f := range src.Funcs() {
		byName[f.Name] = f
	}
	if _, ok := byName["getNote"]; !ok {
		t.Error("getNote missing")
	}
	if _, ok := byName["notes_delete"]; ok {
		t.Error("notes_delete not skipped")
	}
	if f := byName["notes_create"]; f.Tier != catalog.Mutating || f.Approval != catalog.ApprovalRequired || !slices.Equal(f.Scopes, []string{"notes:write"}) {
		t.Errorf("notes_create: %v %v %v", f.Tier, f.Approval, f.Scopes)
	}
}
