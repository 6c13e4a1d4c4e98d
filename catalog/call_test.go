package catalog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

const goodReport = `"sessionId":"ses_1","summary":"Brake later","corners":[{"corner":1,"verdict":"good"}]`

func TestCall(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fn      string
		args    string
		want    string // result JSON, when the call succeeds
		wantErr string // the error's JSON, when it fails
	}{
		// Results and null stripping.
		{name: "read with filter", fn: "getSessions", args: `{"track":"Spa"}`,
			want: `[{"id":"ses_1","track":"Spa","startedAt":"2026-03-01T14:30:00Z","bestLapMs":83456,"tags":["wet"],"notes":{}}]`},
		{name: "nil pointer stripped, nil slice and map empty", fn: "getSessions", args: `{"track":"Monza"}`,
			want: `[{"id":"ses_2","track":"Monza","startedAt":"2026-03-02T09:00:00Z","tags":[],"notes":{}}]`},
		{name: "empty result is an empty array", fn: "getSessions", args: `{"track":"Imola"}`, want: `[]`},
		{name: "absent args mean {}", fn: "status", args: ``,
			want: `{"list":[],"nested":{"b":[null,1]},"ok":true}`},
		{name: "null args mean {}", fn: "getSessions", args: `null`, want: `[{"id":"ses_1","track":"Spa","startedAt":"2026-03-01T14:30:00Z","bestLapMs":83456,"tags":["wet"],"notes":{}},{"id":"ses_2","track":"Monza","startedAt":"2026-03-02T09:00:00Z","tags":[],"notes":{}}]`},
		{name: "mutation", fn: "saveReport", args: `{` + goodReport + `}`,
			want: `{"id":"rep_1","corners":[{"corner":1,"verdict":"good"}]}`},

		// No coercion.
		{name: "string for number", fn: "getSessions", args: `{"limit":"5"}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["limit"],"message":"Expected number, got string"}]}`},
		{name: "fraction for int", fn: "getSessions", args: `{"limit":1.5}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["limit"],"message":"Expected integer, got 1.5"}]}`},
		{name: "exponent for int", fn: "getSessions", args: `{"limit":1e1}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["limit"],"message":"Expected integer, got 1e1"}]}`},
		{name: "string for bool", fn: "saveReport", args: `{` + goodReport + `,"flag":"true"}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["flag"],"message":"Expected boolean, got string"}]}`},
		{name: "number for string", fn: "getSessions", args: `{"track":5}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["track"],"message":"Expected string, got number"}]}`},
		{name: "int8 overflow", fn: "saveReport", args: `{` + goodReport + `,"small":300}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["small"],"message":"Must be between -128 and 127"}]}`},
		{name: "negative unsigned", fn: "saveReport", args: `{` + goodReport + `,"count":-1}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["count"],"message":"Must be at least 0"}]}`},
		{name: "bad date", fn: "saveReport", args: `{` + goodReport + `,"when":"yesterday"}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["when"],"message":"Expected an ISO 8601 date-time such as 2026-03-01T14:30:00Z"}]}`},
		{name: "fixed array length", fn: "saveReport", args: `{` + goodReport + `,"laps":[1]}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["laps"],"message":"Expected exactly 2 items, got 1"}]}`},
		{name: "integer map keys", fn: "saveReport", args: `{` + goodReport + `,"labels":{"x":"a"}}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["labels","x"],"message":"Expected an integer key"}]}`},
		{name: "args not an object", fn: "getSessions", args: `[1]`,
			wantErr: `{"error":"Validation failed","issues":[{"path":[],"message":"Expected object, got array"}]}`},
		{name: "invalid JSON", fn: "getSessions", args: `{"track":`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["track"],"message":"Invalid JSON: unexpected EOF"}]}`},
		{name: "duplicate member", fn: "saveReport", args: `{` + goodReport + `,"summary":"again"}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["summary"],"message":"Duplicate field"}]}`},

		// Strictness by tier.
		{name: "read ignores unknown fields", fn: "getSessions", args: `{"track":"Monza","colour":"red","Limit":"x"}`,
			want: `[{"id":"ses_2","track":"Monza","startedAt":"2026-03-02T09:00:00Z","tags":[],"notes":{}}]`},
		{name: "mutation rejects unknown fields at every level", fn: "saveReport",
			args:    `{"sessionId":"ses_1","summary":"Brake later","corners":[{"corner":1,"verdict":"good","note":"x"}],"Summary":"y"}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["corners",0,"note"],"message":"Unknown field"},{"path":["Summary"],"message":"Unknown field (did you mean \"summary\"?)"}]}`},
		{name: "names match exactly", fn: "saveReport", args: `{"SessionID":"ses_1","summary":"Brake later","corners":[{"corner":1,"verdict":"good"}]}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["sessionId"],"message":"Required field"},{"path":["SessionID"],"message":"Unknown field (did you mean \"sessionId\"?)"}]}`},
		{name: "embedded fields are flattened", fn: "saveReport", args: `{` + goodReport + `,"source":"ai"}`,
			want: `{"id":"rep_1","corners":[{"corner":1,"verdict":"good"}]}`},

		// Every issue at once, with paths.
		{name: "many issues", fn: "saveReport", args: `{"summary":7,"corners":[{"corner":1},{"corner":"2","verdict":"good"},null]}`,
			wantErr: `{"error":"Validation failed","issues":[` +
				`{"path":["sessionId"],"message":"Required field"},` +
				`{"path":["summary"],"message":"Expected string, got number"},` +
				`{"path":["corners",0,"verdict"],"message":"Required field"},` +
				`{"path":["corners",1,"corner"],"message":"Expected number, got string"},` +
				`{"path":["corners",2],"message":"Expected object, got null"}]}`},
		{name: "null for a required field", fn: "saveReport", args: `{"sessionId":null,"summary":"Brake later","corners":[{"corner":1,"verdict":"good"}]}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["sessionId"],"message":"Expected string, got null"}]}`},
		{name: "null for an optional field is absent", fn: "saveReport", args: `{` + goodReport + `,"contact":null,"when":null}`,
			want: `{"id":"rep_1","corners":[{"corner":1,"verdict":"good"}]}`},

		// validate tags.
		{name: "tag rules", fn: "saveReport",
			args: `{"sessionId":"","summary":"ab","corners":[{"corner":0,"verdict":"meh","advice":"this advice is far too long to keep","tags":["apex","line"]}],"contact":"nope","weights":{"t1":-1},"source":"human"}`,
			wantErr: `{"error":"Validation failed","issues":[` +
				`{"path":["source"],"message":"Must be one of: manual, ai"},` +
				`{"path":["sessionId"],"message":"Must not be empty"},` +
				`{"path":["summary"],"message":"Must be at least 3 characters"},` +
				`{"path":["corners",0,"corner"],"message":"Must be at least 1"},` +
				`{"path":["corners",0,"verdict"],"message":"Must be one of: good, needs_work, critical"},` +
				`{"path":["corners",0,"advice"],"message":"Must be at most 20 characters"},` +
				`{"path":["corners",0,"tags",1],"message":"Must be one of: braking, apex, exit"},` +
				`{"path":["weights","t1"],"message":"Must be at least 0"},` +
				`{"path":["contact"],"message":"Must be a valid email address"}]}`},
		{name: "too few items", fn: "saveReport", args: `{"sessionId":"ses_1","summary":"Brake later","corners":[]}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["corners"],"message":"Must have at least 1 item"}]}`},
		{name: "too many items", fn: "saveReport", args: `{"sessionId":"ses_1","summary":"Brake later","corners":[{"corner":1,"verdict":"good","tags":["apex","exit","braking"]}]}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["corners",0,"tags"],"message":"Must have at most 2 items"}]}`},
		{name: "read limit bounds", fn: "getSessions", args: `{"limit":51}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["limit"],"message":"Must be at most 50"}]}`},

		// Dry runs.
		{name: "dry run", fn: "saveReport", args: `{` + goodReport + `,"_validateOnly":true}`, want: `{"valid":true}`},
		{name: "dry run still validates", fn: "saveReport", args: `{"sessionId":"ses_1","summary":"x","corners":[{"corner":1,"verdict":"good"}],"_validateOnly":true}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["summary"],"message":"Must be at least 3 characters"}]}`},
		{name: "dry run runs the Validate hook", fn: "saveReport", args: `{"sessionId":"ses_other","summary":"Brake later","corners":[{"corner":1,"verdict":"good"}],"_validateOnly":true}`,
			wantErr: `{"error":"no session ses_other","code":"not_found"}`},
		{name: "hook validation issues", fn: "saveReport", args: `{"sessionId":"ses_hook_issue","summary":"Brake later","corners":[{"corner":1,"verdict":"good"}]}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["sessionId"],"message":"Session is archived"}]}`},
		{name: "_validateOnly false is a normal call", fn: "saveReport", args: `{` + goodReport + `,"_validateOnly":false}`,
			want: `{"id":"rep_1","corners":[{"corner":1,"verdict":"good"}]}`},
		{name: "_validateOnly must be boolean", fn: "saveReport", args: `{` + goodReport + `,"_validateOnly":"yes"}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["_validateOnly"],"message":"Expected boolean, got string"}]}`},
		{name: "READ-ONLY rejects _validateOnly", fn: "getSessions", args: `{"_validateOnly":true}`,
			wantErr: `{"error":"Validation failed","issues":[{"path":["_validateOnly"],"message":"READ-ONLY functions do not take _validateOnly; call without it"}]}`},

		// Handler errors.
		{name: "conflict", fn: "saveReport", args: `{"sessionId":"ses_locked","summary":"Brake later","corners":[{"corner":1,"verdict":"good"}]}`,
			wantErr: `{"error":"session ses_locked is locked by another coach","code":"conflict"}`},
		{name: "wrapped model-safe error", fn: "saveReport", args: `{"sessionId":"ses_wrapped","summary":"Brake later","corners":[{"corner":1,"verdict":"good"}]}`,
			wantErr: `{"error":"session has no laps yet","code":"invalid"}`},
		{name: "unknown function", fn: "getSesions", args: `{}`,
			wantErr: `{"error":"unknown function brakinglab.getSesions; did you mean brakinglab.getSessions?","code":"unknown_function"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, st := newFixture(nil)
			got, err := c.Call(driver(), tc.fn, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("Call succeeded with %s, want error %s", got, tc.wantErr)
				}
				b, merr := json.Marshal(err)
				if merr != nil {
					t.Fatalf("error %T does not marshal: %v", err, merr)
				}
				if string(b) != tc.wantErr {
					t.Errorf("error JSON\n got %s\nwant %s", b, tc.wantErr)
				}
				if got != nil {
					t.Errorf("result %s returned with an error", got)
				}
				if len(st.saved) != 0 {
					t.Errorf("handler wrote %d reports despite the error", len(st.saved))
				}
				return
			}
			if err != nil {
				b, _ := json.Marshal(err)
				t.Fatalf("Call: %v %s", err, b)
			}
			if string(got) != tc.want {
				t.Errorf("result\n got %s\nwant %s", got, tc.want)
			}
			if strings.Contains(tc.args, `"_validateOnly":true`) && len(st.saved) != 0 {
				t.Errorf("dry run wrote %d reports", len(st.saved))
			}
		})
	}
}

func TestCallUnknownFunctionIs(t *testing.T) {
	c, _ := newFixture(nil)
	_, err := c.Call(driver(), "nope", nil)
	if !errors.Is(err, catalog.ErrUnknownFunction) || errors.Is(err, catalog.ErrUnauthenticated) {
		t.Errorf("errors.Is mismatch for %v", err)
	}
}

func TestCallKeepNulls(t *testing.T) {
	c, _ := newFixture(&catalog.Options{KeepNulls: true})
	got, err := c.Call(driver(), "status", nil)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"list":[],"maintenance":null,"nested":{"a":null,"b":[null,1]},"ok":true}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestCallAuthorization(t *testing.T) {
	args := json.RawMessage(`{"track":"Spa"}`)
	for _, tc := range []struct {
		name    string
		opts    *catalog.Options
		ctx     context.Context
		fn      string
		wantErr string
		is      error
	}{
		{name: "no principal", ctx: context.Background(), fn: "getSessions",
			wantErr: `{"error":"authentication required: sign in and retry","code":"unauthenticated"}`, is: catalog.ErrUnauthenticated},
		{name: "anonymous allowed, no scopes needed", opts: &catalog.Options{AllowAnonymous: true}, ctx: context.Background(), fn: "status"},
		{name: "anonymous allowed, scopes still needed", opts: &catalog.Options{AllowAnonymous: true}, ctx: context.Background(), fn: "getSessions",
			wantErr: `{"error":"brakinglab.getSessions requires scope sessions:read, which this session was not granted; ask the user to reconnect and grant it","code":"insufficient_scope","function":"brakinglab.getSessions","missingScopes":["sessions:read"]}`},
		{name: "missing scope", fn: "saveReport",
			ctx:     catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "u", Scopes: []string{"sessions:read"}}),
			wantErr: `{"error":"brakinglab.saveReport requires scope reports:write, which this session was not granted; ask the user to reconnect and grant it","code":"insufficient_scope","function":"brakinglab.saveReport","missingScopes":["reports:write"]}`},
		{name: "scopes held", fn: "getSessions", ctx: driver()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newFixture(tc.opts)
			_, err := c.Call(tc.ctx, tc.fn, args)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Call: %v", err)
				}
				return
			}
			b, _ := json.Marshal(err)
			if string(b) != tc.wantErr {
				t.Errorf("error JSON\n got %s\nwant %s", b, tc.wantErr)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
			}
		})
	}
}

func TestCallInternalErrors(t *testing.T) {
	for _, tc := range []struct {
		session string
		logged  string // what the log line must contain besides the ref
	}{
		{"ses_fire", "database is on fire"},
		{"ses_panic", "index out of range"},
	} {
		t.Run(tc.session, func(t *testing.T) {
			var logs bytes.Buffer
			c, st := newFixture(&catalog.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
			args := `{"sessionId":"` + tc.session + `","summary":"Brake later","corners":[{"corner":1,"verdict":"good"}]}`
			_, err := c.Call(driver(), "saveReport", json.RawMessage(args))
			var ie *catalog.InternalError
			if !errors.As(err, &ie) {
				t.Fatalf("got %T %v, want *InternalError", err, err)
			}
			b, _ := json.Marshal(err)
			if !regexp.MustCompile(`^\{"error":"internal error \(ref [0-9a-f]{8}\)","code":"internal"\}$`).Match(b) {
				t.Errorf("error JSON %s", b)
			}
			if strings.Contains(string(b), tc.logged) {
				t.Errorf("the cause leaked to the model: %s", b)
			}
			if !strings.Contains(logs.String(), `"ref":"`+ie.Ref+`"`) || !strings.Contains(logs.String(), tc.logged) {
				t.Errorf("log does not carry the ref and cause:\n%s", logs.String())
			}
			if !strings.Contains(logs.String(), `"subject":"user_1"`) {
				t.Errorf("log does not name the subject:\n%s", logs.String())
			}
			if len(st.saved) != 0 {
				t.Error("handler wrote despite failing")
			}
		})
	}
}

func TestCallCanceled(t *testing.T) {
	c, _ := newFixture(nil)
	ctx, cancel := context.WithCancel(driver())
	cancel()
	_, err := c.Call(ctx, "saveReport", json.RawMessage(`{"sessionId":"ses_slow","summary":"Brake later","corners":[{"corner":1,"verdict":"good"}]}`))
	var e *catalog.Error
	if !errors.As(err, &e) || e.Code != catalog.CodeCanceled {
		t.Fatalf("got %T %v, want *Error with code %q", err, err, catalog.CodeCanceled)
	}
}

func TestCallConcurrent(t *testing.T) {
	c, _ := newFixture(nil)
	done := make(chan error)
	for i := 0; i < 8; i++ {
		go func() {
			_, err := c.Call(driver(), "getSessions", json.RawMessage(`{"track":"Spa"}`))
			done <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestCallManyIssuesAreCapped(t *testing.T) {
	c, _ := newFixture(nil)
	var corners []string
	for i := 0; i < 30; i++ {
		corners = append(corners, `{"corner":"x","verdict":"good"}`)
	}
	_, err := c.Call(driver(), "saveReport", json.RawMessage(`{"sessionId":"s","summary":"abc","corners":[`+strings.Join(corners, ",")+`]}`))
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	if len(ve.Issues) != 21 || ve.Issues[20].Message != "More issues were found; fix these and call again" {
		t.Errorf("got %d issues, last %+v", len(ve.Issues), ve.Issues[len(ve.Issues)-1])
	}
}
