package authserver

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// pathLogin is the sign-in page of pages outside an OAuth flow, such as
// codemode's approval page: it signs the browser in and returns to next.
const pathLogin = "/authorize/login"

// SignedIn returns the subject of the user r's browser is signed in as.
// The session cookie is sent only to paths under /authorize, so pages
// that use it (the approval page) are mounted there.
func (s *Server) SignedIn(r *http.Request) (subject string, ok bool) {
	_, sess := s.sessionFrom(r)
	if sess == nil {
		return "", false
	}
	return sess.subject, true
}

// SignInRedirect sends a browser that is not signed in to the sign-in
// page, which returns it to r's path once signed in. Only paths under
// /authorize/ come back (where the session cookie is sent).
func (s *Server) SignInRedirect(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, s.localPath(pathLogin)+"?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
}

// localNext is next when it is a path of this server under /authorize/,
// else "": the page never redirects elsewhere.
func (s *Server) localNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.RawQuery != "" || u.Fragment != "" ||
		strings.Contains(next, "\\") || strings.Contains(next, "//") || strings.Contains(next, "..") ||
		!strings.HasPrefix(next, s.localPath(pathAuthorize)+"/") {
		return ""
	}
	return next
}

func (s *Server) renderLogin(w http.ResponseWriter, status int, next, username, msg string) {
	s.render(w, status, "login", &pageData{
		Title: "Sign in", Action: s.localPath(pathLogin), RequestID: next,
		Username: username, Error: msg, Hint: s.hint,
	})
}

func (s *Server) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	next := s.localNext(r.URL.Query().Get("next"))
	if next == "" {
		s.errorPage(w, http.StatusBadRequest, "Nothing to sign in to", "Open the link you were given again.")
		return
	}
	s.renderLogin(w, http.StatusOK, next, "", "")
}

// handleLogin signs a browser in with the same throttles as the OAuth
// sign-in. Cross-site posts are refused (Origin) and the session cookie
// is SameSite=Lax, like the OAuth sign-in's.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(w, r) {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "Invalid request", "The sign-in form could not be read.")
		return
	}
	next := s.localNext(r.PostForm.Get("next"))
	if next == "" {
		s.errorPage(w, http.StatusBadRequest, "Nothing to sign in to", "Open the link you were given again.")
		return
	}
	username := strings.TrimSpace(r.PostForm.Get("username"))
	password := r.PostForm.Get("password")
	if username == "" || password == "" {
		s.renderLogin(w, http.StatusBadRequest, next, username, "Enter your username and password.")
		return
	}
	source := s.sourceOf(r)
	if wait := s.signInBlocked(r.Context(), username, source); wait > 0 {
		s.errorPage(w, http.StatusTooManyRequests, "Too many attempts",
			fmt.Sprintf("Too many wrong passwords from your network. Try again in %d minutes.", int(wait.Minutes())+1))
		return
	}
	select {
	case s.checks <- struct{}{}:
	case <-r.Context().Done():
		return
	}
	subject, name, err := s.users.Authenticate(r.Context(), username, password)
	<-s.checks
	if err != nil || subject == "" {
		if err == nil || errors.Is(err, ErrBadCredentials) {
			s.signInFailed(r.Context(), username, source)
			s.renderLogin(w, http.StatusUnauthorized, next, username, "Wrong username or password.")
			return
		}
		s.log.Error("authserver: authenticate", "err", err)
		s.renderLogin(w, http.StatusInternalServerError, next, username, "Sign-in failed because of a server error. Try again.")
		return
	}
	s.signInSucceeded(r.Context(), username, source)
	if !s.startSession(w, r, subject, name, username) {
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}
