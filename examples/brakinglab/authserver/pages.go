package authserver

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.ParseFS(templateFS, "templates/*.html"))

type scopeView struct{ Name, Description string }

type pageData struct {
	Title        string
	Message      string
	Error        string
	Hint         string
	Action       string
	RequestID    string
	Username     string
	ClientName   string
	UserName     string
	RedirectHost string
	// ClientHost is the host publishing a client ID metadata document;
	// empty for a registered client, whose name nobody vouches for.
	ClientHost string
	CSRFToken  string
	Scopes     []scopeView
}

// render writes an HTML page with headers that keep it out of caches and frames.
func (s *Server) render(w http.ResponseWriter, status int, name string, d *pageData) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, d); err != nil {
		s.log.Error("authserver: render page", "page", name, "err", err)
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// Not no-referrer: under it browsers send "Origin: null" on form posts,
	// which sameOrigin refuses. same-origin still keeps the page URL (with
	// its request id) from leaking to other sites.
	h.Set("Referrer-Policy", "same-origin")
	// No form-action: browsers apply it to the redirect that follows a form post.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// errorPage shows an error to the user without redirecting anywhere, for
// requests whose client or redirect URI cannot be trusted.
func (s *Server) errorPage(w http.ResponseWriter, status int, title, msg string) {
	s.render(w, status, "error", &pageData{Title: title, Message: msg})
}
