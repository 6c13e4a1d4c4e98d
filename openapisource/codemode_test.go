package openapisource_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/codemode/codemodetest"
	"github.com/brakinglab/codemode-go/openapisource"
	"github.com/brakinglab/codemode-go/sandbox"
)

// notesService is a small real REST service (testdata/notes.yaml's
// notes resource) on loopback: it stores notes in memory, wants a
// bearer token, and counts the requests of each method.
type notesService struct {
	srv   *httptest.Server
	mu    sync.Mutex
	notes map[string]map[string]any
	calls map[string]int
	auth  []string
}

func newNotesService(t *testing.T) *notesService {
	t.Helper()
	s := &notesService{notes: map[string]map[string]any{}, calls: map[string]int{}}
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /notes", func(w http.ResponseWriter, r *http.Request) {
		var n map[string]any
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
			reply(w, 400, map[string]string{"message": err.Error()})
			return
		}
		s.mu.Lock()
		n["id"] = fmt.Sprintf("n%d", len(s.notes)+1)
		s.notes[n["id"].(string)] = n
		s.mu.Unlock()
		reply(w, 201, n)
	})
	mux.HandleFunc("GET /notes/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		n, ok := s.notes[r.PathValue("id")]
		s.mu.Unlock()
		if !ok {
			reply(w, 404, map[string]string{"message": "no note " + r.PathValue("id")})
			return
		}
		reply(w, 200, n)
	})
	mux.HandleFunc("PUT /notes/{id}", func(w http.ResponseWriter, r *http.Request) {
		var n map[string]any
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
			reply(w, 400, map[string]string{"message": err.Error()})
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.notes[r.PathValue("id")]; !ok {
			reply(w, 404, map[string]string{"message": "no note " + r.PathValue("id")})
			return
		}
		n["id"] = r.PathValue("id")
		s.notes[r.PathValue("id")] = n
		reply(w, 200, n)
	})
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.calls[r.Method]++
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer notes-token-alice" {
			reply(w, 401, map[string]string{"message": "bad credentials"})
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *notesService) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// Through code mode, a PUT asks the user first: declined, it never
// reaches the service; accepted, it runs exactly once, and the POST
// before it is not repeated when the script resumes. Each request
// carries the token Authorize gives the calling user.
func TestCodeModeApproval(t *testing.T) {
	for _, action := range []string{"decline", "accept"} {
		t.Run(action, func(t *testing.T) {
			svc := newNotesService(t)
			src, err := openapisource.New(readSpec(t, "notes.yaml"), &openapisource.Options{BaseURL: svc.srv.URL, Logger: quiet,
				Authorize: func(req *http.Request, p *catalog.Principal) error {
					if p == nil {
						return &catalog.Error{Code: catalog.CodeUnauthenticated, Message: "sign in first"}
					}
					req.Header.Set("Authorization", "Bearer notes-token-"+p.Subject)
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			c, err := catalog.New("notes", nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := src.Register(c); err != nil {
				t.Fatal(err)
			}
			// The official MCP Go client, through codemodetest, answers
			// every approval question with action.
			h := codemodetest.New(t, c, &codemodetest.Options{Principal: &catalog.Principal{Subject: "alice"}, Approve: func(string) bool { return action == "accept" },
				Server: &codemode.Options{Logger: quiet, Sandbox: codemode.SandboxOptions{Mode: sandbox.ModeInProcess}, Audit: codemode.AuditOptions{Sink: codemode.NoAudit}}})
			res := h.Run(t, `const n = await notes.notes_create({ body: { title: "draft" } });
await notes.notes_replace({ id: n.id, body: { title: "final", state: "published" } });
return await notes.notes_get({ id: n.id });`)
			text, isErr := res.Text, res.Err != nil
			if q := res.Approvals; len(q) != 1 || !strings.Contains(q[0].Message, "notes_replace") {
				t.Fatalf("questions %+v", q)
			}
			if svc.count("POST") != 1 {
				t.Errorf("POST ran %d times, want once", svc.count("POST"))
			}
			switch action {
			case "accept":
				if isErr || !strings.Contains(text, `"final"`) || svc.count("PUT") != 1 {
					t.Errorf("result %s (error %v); PUT ran %d times, want once", text, isErr, svc.count("PUT"))
				}
			case "decline":
				if !isErr || !strings.Contains(text, "APPROVAL_DECLINED") || svc.count("PUT") != 0 {
					t.Errorf("result %s (error %v); PUT ran %d times, want never", text, isErr, svc.count("PUT"))
				}
			}
			for _, a := range svc.auth {
				if a != "Bearer notes-token-alice" {
					t.Errorf("a request carried Authorization %q", a)
				}
			}
		})
	}
}
