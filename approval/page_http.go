package approval

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"math"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/brakinglab/codemode-go/codemode/state"
)

// Handler serves the approval page ([Page]) at Options.Page.URL: GET
// shows an approval, POST answers it. current returns the policy of the
// functions served now, for the tiers the page shows; it may return nil.
// Without Options.Page it answers 404 to every request.
func (s *Service) Handler(current func() *Policy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.servePage(w, r, current) })
}

// maxPageForm bounds the body of an answer: two short fields.
const maxPageForm = 4 << 10

// idLen is the length of an approval id: 16 bytes, base64url.
const idLen = 22

// refusedAnswer is what an answer that did not come from the page reads.
const refusedAnswer = "This answer did not come from the approval page itself, so it was refused. Open the approval link and answer there."

func (s *Service) servePage(w http.ResponseWriter, r *http.Request, current func() *Policy) {
	h := w.Header()
	// The page must never be framed (clickjacking the Accept button),
	// cached, or leak its id in a Referer.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: under no-referrer browsers send
	// "Origin: null" on the form post, which crossSite refuses; the link
	// still never leaks to another site.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	who, ok := s.admit(w, r)
	if !ok {
		return
	}
	id, p, st, ok := s.lookup(w, r, who)
	if !ok {
		return
	}
	token := s.page.token(id, who)
	now := s.now()
	if r.Method == http.MethodPost {
		if p, ok = s.answerPage(w, r, id, p, st, token, now, current); !ok {
			return
		}
	}
	status := http.StatusOK
	if p.Answer == "" && !now.Before(p.Expires) {
		status = http.StatusGone
	}
	s.renderPage(w, status, p, st, token, now, false, current)
}

// admit answers a request the page does not serve (no page, another
// method, over the rate limit, a cross-site answer, not signed in) and
// returns false; else it returns the subject the browser is signed in as.
func (s *Service) admit(w http.ResponseWriter, r *http.Request) (subject string, ok bool) {
	pk := s.page
	if pk == nil {
		pageNotFound(w)
		return "", false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, HEAD, POST")
		pageMessage(w, http.StatusMethodNotAllowed, "Method not allowed", "Open the approval link in your browser.")
		return "", false
	}
	wait, err := pk.limiter.Take(r.Context(), "approval-page:"+pk.sourceOf(r), 1)
	switch {
	case err != nil:
		s.logger.Error("codemode: approval page rate limit failed", "err", err)
		pageMessage(w, http.StatusServiceUnavailable, "Try again", "The server cannot serve this page right now. Try again in a moment.")
		return "", false
	case wait > 0:
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		pageMessage(w, http.StatusTooManyRequests, "Too many requests", "Too many requests from your address. Try again in a minute.")
		return "", false
	case r.Method == http.MethodPost && crossSite(r, pk.origin):
		pageMessage(w, http.StatusForbidden, "Refused", refusedAnswer)
		return "", false
	}
	who, ok := pk.auth(r)
	if !ok || who.Subject == "" {
		if pk.signIn != nil {
			pk.signIn(w, r)
			return "", false
		}
		pageMessage(w, http.StatusUnauthorized, "Sign in", "Sign in, then open the approval link again.")
		return "", false
	}
	return who.Subject, true
}

// lookup returns the approval the request names, if it is subject's;
// else it answers the request and returns false. Another principal's
// approval, a missing one and a malformed id get the same 404.
func (s *Service) lookup(w http.ResponseWriter, r *http.Request, subject string) (string, *state.PendingApproval, *approvalState, bool) {
	id := path.Base(r.URL.Path)
	if len(id) != idLen {
		pageNotFound(w)
		return "", nil, nil, false
	}
	p, err := s.page.store.Get(r.Context(), id)
	if err != nil {
		s.logger.Error("codemode: reading a pending approval failed", "err", err)
		pageMessage(w, http.StatusServiceUnavailable, "Try again", "The server cannot read this approval right now. Try again in a moment.")
		return "", nil, nil, false
	}
	if p == nil || !hmac.Equal([]byte(p.Subject), []byte(subject)) {
		pageNotFound(w)
		return "", nil, nil, false
	}
	var st approvalState
	if err := json.Unmarshal(p.State, &st); err != nil {
		pageNotFound(w)
		return "", nil, nil, false
	}
	return id, p, &st, true
}

// answerPage stores the answer a POST carries, once, and wakes the call
// waiting on it. It returns false when it has answered the request; else
// the approval as it now stands (answered before, or expired), to show.
func (s *Service) answerPage(w http.ResponseWriter, r *http.Request, id string, p *state.PendingApproval, st *approvalState, token string, now time.Time, current func() *Policy) (*state.PendingApproval, bool) {
	pk := s.page
	r.Body = http.MaxBytesReader(w, r.Body, maxPageForm)
	action := r.PostFormValue("action")
	if !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(token)) || (action != "accept" && action != "decline") {
		pageMessage(w, http.StatusForbidden, "Refused", refusedAnswer)
		return nil, false
	}
	done, err := pk.store.Answer(r.Context(), id, action, now)
	if err != nil {
		s.logger.Error("codemode: storing an approval's answer failed", "err", err)
		pageMessage(w, http.StatusServiceUnavailable, "Try again", "The server could not store your answer. Try again in a moment.")
		return nil, false
	}
	if done {
		pk.waiters.wake(id)
		p.Answer = action
		s.renderPage(w, http.StatusOK, p, st, "", now, true, current)
		return nil, false
	}
	if p, err = pk.store.Get(r.Context(), id); err != nil || p == nil {
		pageNotFound(w)
		return nil, false
	}
	return p, true
}

// crossSite reports whether a POST came from a page of another origin.
func crossSite(r *http.Request, origin string) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return true
	}
	o := r.Header.Get("Origin")
	return o != "" && o != origin
}

// token is the answer token of approval id for subject.
func (k *pageKeys) token(id, subject string) string {
	mac := hmac.New(sha256.New, k.csrf)
	mac.Write([]byte(id + "\x00" + subject))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// pageView is what the page template shows.
type pageView struct {
	Client     string
	Namespaces string
	Calls      []pageCall
	Writes     []string
	Expires    string
	Left       string
	State      string // "pending", "accept", "decline", "expired"
	Just       bool   // answered by this request
	Token      string
	PerCall    bool
	Many       bool
}

type pageCall struct {
	Fn, Tier string
	Args     []string
}

func (s *Service) renderPage(w http.ResponseWriter, status int, p *state.PendingApproval, st *approvalState, token string, now time.Time, just bool, current func() *Policy) {
	v := pageView{Client: st.ClientName, Expires: p.Expires.UTC().Format("15:04:05 MST, 2 Jan 2006"), Token: token, Just: just, PerCall: s.perCall, Many: len(st.Calls) > 1}
	if v.Client == "" {
		v.Client = "The AI client"
	}
	switch {
	case p.Answer != "":
		v.State = p.Answer
	case !now.Before(p.Expires):
		v.State = "expired"
	default:
		v.State = "pending"
		v.Left = p.Expires.Sub(now).Round(time.Second).String()
	}
	tiers := map[string]string{}
	if pol := current(); pol != nil {
		for fn, t := range pol.required {
			tiers[fn] = t.String()
		}
	}
	pend := make([]pendingCall, len(st.Calls))
	for i, c := range st.Calls {
		pend[i] = pendingCall{approvedCall: c}
		v.Calls = append(v.Calls, pageCall{Fn: c.Fn, Tier: tiers[c.Fn], Args: readableArgs(c.Args)})
	}
	v.Namespaces = pendingNamespaces(pend)
	for _, wr := range writesOf(st.Record) {
		line := wr.Function + "(" + string(wr.Args) + ")"
		if wr.ID != nil {
			line += " → id " + string(wr.ID)
		}
		v.Writes = append(v.Writes, line)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pageTemplate.Execute(w, v); err != nil {
		s.logger.Warn("codemode: rendering the approval page failed", "err", err)
	}
}

// pageNotFound is the one answer for an id that does not exist, is
// malformed, or belongs to another principal.
func pageNotFound(w http.ResponseWriter) {
	pageMessage(w, http.StatusNotFound, "Approval not found", "This approval link does not exist or is not yours. Check that you are signed in as the user the AI client acts for.")
}

func pageMessage(w http.ResponseWriter, status int, title, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = messageTemplate.Execute(w, struct{ Title, Message string }{title, msg})
}

const pageStyle = `<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}.call{border:1px solid #d0d7de;border-radius:6px;padding:.6rem .9rem;margin:.6rem 0}
.fn{font-family:ui-monospace,monospace;font-weight:600}.tier{font-size:.8rem;color:#9a3412;margin-left:.4rem}
code,li.w{font-family:ui-monospace,monospace;font-size:.9rem}.muted{color:#57606a}
button{font-size:1rem;padding:.5rem 1.4rem;border-radius:6px;border:1px solid #d0d7de;margin-right:.6rem;cursor:pointer}
button.accept{background:#1f883d;color:#fff;border-color:#1f883d}.state{padding:.6rem .9rem;border-radius:6px;background:#f6f8fa}
</style>`

var messageTemplate = template.Must(template.New("msg").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>{{.Title}}</title>` + pageStyle + `</head>
<body><h1>{{.Title}}</h1><p>{{.Message}}</p></body></html>
`))

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Approve changes</title>` + pageStyle + `</head>
<body>
<h1>{{.Client}} asks to make {{if .Many}}{{len .Calls}} changes{{else}}1 change{{end}} in {{.Namespaces}}</h1>
<div id="calls">{{range $i, $c := .Calls}}
<div class="call"><span class="fn">{{$c.Fn}}</span>{{if $c.Tier}}<span class="tier">{{$c.Tier}}</span>{{end}}
{{if $c.Args}}<ul>{{range $c.Args}}<li><code>{{.}}</code></li>{{end}}</ul>{{else}}<p class="muted">(no arguments)</p>{{end}}</div>{{end}}
</div>
<h2>Already changed by this code</h2>
{{if .Writes}}<ul id="writes">{{range .Writes}}<li class="w">{{.}}</li>{{end}}</ul>{{else}}<p id="writes" class="muted">Nothing has been changed yet.</p>{{end}}
{{if eq .State "pending"}}
<p>{{if .PerCall}}Accept to make exactly {{if .Many}}these changes{{else}}this change{{end}}{{else}}Accept to make {{if .Many}}these changes{{else}}this change{{end}}, and further calls of the same functions this code makes in this run{{end}}; decline to make none of them. This request expires at {{.Expires}} (in {{.Left}}).</p>
<form method="post"><input type="hidden" name="csrf" value="{{.Token}}">
<button class="accept" name="action" value="accept" type="submit">Accept</button><button name="action" value="decline" type="submit">Decline</button></form>
{{else if eq .State "accept"}}<p class="state" id="state">{{if .Just}}Accepted.{{else}}You accepted this request.{{end}} Go back to {{.Client}} and tell it to continue: it makes these changes once.</p>
{{else if eq .State "decline"}}<p class="state" id="state">{{if .Just}}Declined.{{else}}You declined this request.{{end}} Nothing of it will be made. You can tell {{.Client}} so.</p>
{{else}}<p class="state" id="state">This request expired at {{.Expires}} without an answer; nothing of it will be made. Ask {{.Client}} for a new link if you still want these changes.</p>{{end}}
</body></html>
`))
