package e2e

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
)

// htmlForm is one <form> of a page: where it posts and its fields.
type htmlForm struct {
	Method, Action string
	Fields         url.Values  // hidden and pre-filled inputs
	Inputs         []htmlInput // every <input>
	Buttons        []htmlInput // submit buttons (<button> and <input type=submit>)
}

type htmlInput struct {
	Type, Name, Value, Label string
}

var (
	formRE   = regexp.MustCompile(`(?is)<form\b([^>]*)>(.*?)</form>`)
	inputRE  = regexp.MustCompile(`(?is)<input\b([^>]*)>`)
	buttonRE = regexp.MustCompile(`(?is)<button\b([^>]*)>(.*?)</button>`)
	attrRE   = regexp.MustCompile(`(?s)([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>` + "`" + `]+))?`)
	tagRE    = regexp.MustCompile(`(?s)<[^>]*>`)
)

// parseAttrs reads the attributes of a start tag (the part after its name).
func parseAttrs(s string) map[string]string {
	attrs := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(s, -1) {
		v := strings.Trim(m[2], `"'`)
		attrs[strings.ToLower(m[1])] = html.UnescapeString(v)
	}
	return attrs
}

// parseForms extracts the forms of an HTML page. It covers the plain,
// server-rendered forms of the authorization server, not HTML in general.
func parseForms(page string) []htmlForm {
	var forms []htmlForm
	for _, fm := range formRE.FindAllStringSubmatch(page, -1) {
		a := parseAttrs(fm[1])
		f := htmlForm{Method: strings.ToUpper(a["method"]), Action: a["action"], Fields: url.Values{}}
		if f.Method == "" {
			f.Method = http.MethodGet
		}
		for _, im := range inputRE.FindAllStringSubmatch(fm[2], -1) {
			ia := parseAttrs(im[1])
			in := htmlInput{Type: strings.ToLower(ia["type"]), Name: ia["name"], Value: ia["value"], Label: ia["value"]}
			if in.Type == "" {
				in.Type = "text"
			}
			if in.Type == "submit" {
				f.Buttons = append(f.Buttons, in)
				continue
			}
			f.Inputs = append(f.Inputs, in)
			if in.Name != "" && in.Type != "checkbox" && in.Type != "radio" {
				f.Fields.Set(in.Name, in.Value)
			}
		}
		for _, bm := range buttonRE.FindAllStringSubmatch(fm[2], -1) {
			ba := parseAttrs(bm[1])
			if t := strings.ToLower(ba["type"]); t != "" && t != "submit" {
				continue
			}
			label := strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(bm[2], "")))
			f.Buttons = append(f.Buttons, htmlInput{Type: "submit", Name: ba["name"], Value: ba["value"], Label: label})
		}
		forms = append(forms, f)
	}
	return forms
}

// hasPassword reports whether the form asks for a password (a sign-in form).
func (f htmlForm) hasPassword() bool {
	for _, in := range f.Inputs {
		if in.Type == "password" {
			return true
		}
	}
	return false
}

// button finds a submit button whose label or value is word (case-insensitive).
func (f htmlForm) button(word string) (htmlInput, bool) {
	for _, b := range f.Buttons {
		if strings.EqualFold(strings.TrimSpace(b.Label), word) || strings.EqualFold(b.Value, word) {
			return b, true
		}
	}
	return htmlInput{}, false
}

// browserClient is an HTTP client with a cookie jar that does not follow
// redirects, so each hop of the authorization flow can be inspected.
func browserClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// consentResult is where the authorization server finally sent the browser,
// and the consent page that was shown on the way.
type consentResult struct {
	Redirect    *url.URL
	ConsentPage string
}

// signInAndDecide walks an authorization URL the way a person at a browser
// would: it follows redirects on the authorization server, signs in as user
// on a password form, and presses decision ("Allow" or "Deny") on the
// consent form. It stops at the first redirect that leaves base (the
// client's redirect URI) and returns it.
func signInAndDecide(ctx context.Context, hc *http.Client, base, authURL, user, password, decision string) (*consentResult, error) {
	res := &consentResult{}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	signedIn := false
	for step := 0; step < 10; step++ {
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			loc, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
			if err != nil {
				return nil, fmt.Errorf("bad Location %q: %v", resp.Header.Get("Location"), err)
			}
			if !strings.HasPrefix(loc.String(), base+"/") {
				res.Redirect = loc
				return res, nil
			}
			req, _ = http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
			continue
		case resp.StatusCode != http.StatusOK:
			return nil, fmt.Errorf("%s %s: status %d: %s", req.Method, req.URL, resp.StatusCode, firstLine(body))
		}
		forms := parseForms(string(body))
		var form htmlForm
		var fields url.Values
		for _, f := range forms {
			if f.hasPassword() {
				if signedIn {
					return nil, fmt.Errorf("sign-in page shown again after signing in as %q: %s", user, firstLine(body))
				}
				form, fields = f, f.Fields
				for _, in := range f.Inputs {
					switch in.Type {
					case "password":
						fields.Set(in.Name, password)
					case "text", "email", "":
						fields.Set(in.Name, user)
					}
				}
				signedIn = true
				break
			}
			if b, ok := f.button(decision); ok {
				res.ConsentPage = string(body)
				form, fields = f, f.Fields
				if b.Name != "" {
					fields.Set(b.Name, b.Value)
				}
				break
			}
		}
		if fields == nil {
			return nil, fmt.Errorf("page at %s has neither a sign-in form nor a %q button", req.URL, decision)
		}
		action, err := req.URL.Parse(form.Action)
		if err != nil {
			return nil, err
		}
		if form.Method == http.MethodPost {
			req, _ = http.NewRequestWithContext(ctx, http.MethodPost, action.String(), strings.NewReader(fields.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			action.RawQuery = fields.Encode()
			req, _ = http.NewRequestWithContext(ctx, http.MethodGet, action.String(), nil)
		}
		req.Header.Set("Origin", base)
	}
	return nil, errors.New("authorization flow did not finish within 10 steps")
}

// firstLine shortens a response body for an error message.
func firstLine(b []byte) string {
	s := strings.TrimSpace(tagRE.ReplaceAllString(string(b), " "))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
