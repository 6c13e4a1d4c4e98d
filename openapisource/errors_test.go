package openapisource_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/openapisource"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// Each way a call can fail reaches the model in the catalogue's
// vocabulary; a write is sent once and never told to retry.
func TestCallErrors(t *testing.T) {
	long := strings.Repeat("é", 2000)
	for _, tc := range []struct {
		name, fn, args string
		reply          func(w http.ResponseWriter, r *http.Request)
		code, has      string
	}{
		{"404 read", "notes_get", `{"id":"x"}`, status(404, `{"message":"Not Found","documentation_url":"https://docs"}`), catalog.CodeNotFound, "notes_get: HTTP 404: Not Found"},
		{"409 write", "notes_replace", `{"id":"x","body":{"title":"t"}}`, status(409, `{"error":"stale version"}`), catalog.CodeConflict, "HTTP 409: stale version"},
		{"422 cut", "notes_create", `{"body":{"title":"t"}}`, status(422, `{"message":"`+long+`"}`), catalog.CodeInvalid, "…"},
		{"403 text", "notes_get", `{"id":"x"}`, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(403)
			io.WriteString(w, "rate limited")
		}, catalog.CodeToolError, "HTTP 403: rate limited"},
		{"503 read", "notes_get", `{"id":"x"}`, status(503, `{"message":"maintenance"}`), catalog.CodeUpstream, "HTTP 503: maintenance; retry later"},
		{"429 read", "notes_get", `{"id":"x"}`, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "30")
			status(429, `{"message":"API rate limit exceeded"}`)(w, r)
		}, catalog.CodeToolError, "HTTP 429: API rate limit exceeded; rate limited: retry after 30 seconds"},
		{"501 read", "notes_get", `{"id":"x"}`, status(501, `{"message":"no"}`), catalog.CodeUpstream, "retrying will not help"},
		{"500 write", "notes_delete", `{"id":"x"}`, status(500, `oops`), catalog.CodeOutcomeUnknown, "may have taken effect"},
		{"timeout read", "notes_get", `{"id":"x"}`, hang, catalog.CodeUpstream, "did not answer within 200ms; retry later"},
		{"timeout write", "notes_create", `{"body":{"title":"t"}}`, hang, catalog.CodeOutcomeUnknown, "did not answer within 200ms"},
		{"cut write", "notes_create", `{"body":{"title":"t"}}`, drop, catalog.CodeOutcomeUnknown, "check its effect"},
		{"cut read", "notes_get", `{"id":"x"}`, drop, catalog.CodeUpstream, "retry"},
		{"too large read", "notes_list", `{}`, big, catalog.CodeUpstream, "larger than 4096 bytes"},
		{"too large 404", "notes_get", `{"id":"x"}`, status(404, `{"message":"gone `+strings.Repeat("x", 10000)+`"}`), catalog.CodeNotFound, "HTTP 404: {"},
		{"too large write", "notes_create", `{"body":{"title":"t"}}`, big, catalog.CodeOutcomeUnknown, "accepted the call (HTTP 200)"},
		{"bad json write", "notes_create", `{"body":{"title":"t"}}`, status(201, `{"id":`), catalog.CodeOutcomeUnknown, "not the JSON"},
		{"offsite redirect read", "notes_get", `{"id":"x"}`, redirect("http://evil.example.com/x"), catalog.CodeUpstream, "not followed"},
		{"offsite redirect write", "notes_delete", `{"id":"x"}`, redirect("http://evil.example.com/x"), catalog.CodeOutcomeUnknown, "not followed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(t)
			rec.reply = tc.reply
			c, _ := notes(t, rec.srv.URL, &openapisource.Options{Timeout: 200 * time.Millisecond, MaxResponseBytes: 4096, MaxErrorBytes: 300, Logger: quiet})
			_, err := c.Call(t.Context(), tc.fn, json.RawMessage(tc.args))
			if catalog.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.has) {
				t.Fatalf("got %s: %v; want %s containing %q", catalog.CodeOf(err), err, tc.code, tc.has)
			}
			if len(err.Error()) > 600 {
				t.Errorf("message of %d bytes", len(err.Error()))
			}
			if n := rec.count(); n != 1 {
				t.Errorf("the server received %d requests, want 1", n)
			}
		})
	}
}

func status(code int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// hang answers only once the client gives up.
func hang(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }

// drop promises a body and closes the connection half way.
func drop(w http.ResponseWriter, r *http.Request) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\":")
	buf.Flush()
	conn.Close()
}

func big(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `["`+strings.Repeat("x", 10000)+`"]`)
}

func redirect(to string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) }
}

// A redirect within the base URL is followed.
func TestRedirectWithinBase(t *testing.T) {
	rec := newRecorder(t)
	rec.reply = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/notes/old" {
			http.Redirect(w, r, "/api/notes/new", http.StatusMovedPermanently)
			return
		}
		status(200, `{"id":"new","title":"t"}`)(w, r)
	}
	c, _ := notes(t, rec.srv.URL+"/api", &openapisource.Options{Logger: quiet})
	out, err := c.Call(t.Context(), "notes_get", json.RawMessage(`{"id":"old"}`))
	if err != nil || !strings.Contains(string(out), `"new"`) {
		t.Fatalf("%s %v", out, err)
	}
	rec.reply = redirect("/elsewhere")
	if _, err := c.Call(t.Context(), "notes_get", json.RawMessage(`{"id":"x"}`)); catalog.CodeOf(err) != catalog.CodeUpstream {
		t.Errorf("redirect out of the base path: %v", err)
	}
}

// A server that cannot be reached got nothing: even a write may retry.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, _ := notes(t, "http://"+addr, &openapisource.Options{Logger: quiet})
	_, err = c.Call(t.Context(), "notes_create", json.RawMessage(`{"body":{"title":"t"}}`))
	if catalog.CodeOf(err) != catalog.CodeUpstream || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("%v", err)
	}
}

// An execution that ends while a write is in flight leaves its outcome
// unknown; a read just ends.
func TestCancelledInFlight(t *testing.T) {
	rec := newRecorder(t)
	arrived := make(chan struct{}, 1)
	rec.reply = func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}
	c, _ := notes(t, rec.srv.URL, &openapisource.Options{Logger: quiet})
	for fn, want := range map[string]string{"notes_create": catalog.CodeOutcomeUnknown, "notes_list": catalog.CodeCancelled} {
		ctx, cancel := context.WithCancel(t.Context())
		go func() { <-arrived; cancel() }()
		args := `{}`
		if fn == "notes_create" {
			args = `{"body":{"title":"t"}}`
		}
		_, err := c.Call(ctx, fn, json.RawMessage(args))
		if catalog.CodeOf(err) != want {
			t.Errorf("%s: %v, want %s", fn, err, want)
		}
	}
}
