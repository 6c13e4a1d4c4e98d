package e2e

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/testtool"
)

// artifactDir is the git-ignored directory for screenshots.
func artifactDir(t *testing.T) string {
	dir := filepath.Join(repoRoot, "testdata", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

const (
	allowXPath chromedp.Search = `//button[normalize-space()="Allow"] | //input[@type="submit" and @value="Allow"]`
	denyXPath  chromedp.Search = `//button[normalize-space()="Deny"] | //input[@type="submit" and @value="Deny"]`
)

// browserSignIn opens an authorization URL and signs in if the page asks
// for a password (a second authorization in the same browser may not).
func browserSignIn(t *testing.T, ctx context.Context, authURL, user, password string) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.Navigate(authURL), chromedp.WaitReady(chromedp.CSS("body")))
	if err != nil {
		t.Fatalf("opening the authorization URL: %v", err)
	}
	hasPassword, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector('input[type=password]')`))
	if err != nil {
		t.Fatalf("inspecting the authorization page: %v", err)
	}
	if !hasPassword {
		return
	}
	userField := chromedp.CSS(`form input:not([type=hidden]):not([type=password]):not([type=submit]):not([type=checkbox])`)
	err = chromedp.Do(ctx,
		chromedp.SendKeys(userField, user),
		chromedp.SendKeys(chromedp.CSS(`input[type=password]`), password),
		chromedp.Submit(chromedp.CSS(`input[type=password]`)),
	)
	if err != nil {
		t.Fatalf("signing in: %v", err)
	}
}

// TestBrowserConsent drives the sign-in and consent pages with chromium:
// Allow lands on the redirect URI with a code that redeems for a token the
// MCP endpoint accepts; Deny lands there with access_denied.
func TestBrowserConsent(t *testing.T) {
	testtool.Need(t, testtool.ChromiumPath, "chromium")
	s := startServer(t)
	d := discover(t, s)
	cb := newCallbackServer(t)
	redirect := cb.URL + "/callback"
	redirectHost := strings.TrimPrefix(cb.URL, "http://")
	const clientName = "Pit Wall Browser Test"
	clientID := register(t, d, clientName, redirect)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	browser := testtool.Chromium(t, ctx, 1000, 900)

	t.Run("allow", func(t *testing.T) {
		ar := newAuthRequest(d, clientID, redirect)
		browserSignIn(t, browser, ar.URL, "demo", s.Users["demo"])
		if err := chromedp.Do(browser, chromedp.WaitVisible(allowXPath)); err != nil {
			t.Fatalf("waiting for the consent page: %v", err)
		}
		text, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS("body")))
		if err != nil {
			t.Fatal(err)
		}
		shot, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(artifactDir(t), "consent.png")
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("consent page screenshot: %s", path)
		for _, want := range []string{clientName, redirectHost} {
			if !strings.Contains(text, want) {
				t.Errorf("consent page does not show %q; its text:\n%s", want, text)
			}
		}
		if err := chromedp.Do(browser, chromedp.Click(allowXPath)); err != nil {
			t.Fatalf("clicking Allow: %v", err)
		}
		q := cb.wait(t, ctx)
		if q.Get("error") != "" || q.Get("code") == "" {
			t.Fatalf("redirect after Allow = %v, want a code", q)
		}
		if q.Get("state") != ar.State || q.Get("iss") != d.Issuer {
			t.Errorf("redirect state=%q iss=%q, want %q and %q", q.Get("state"), q.Get("iss"), ar.State, d.Issuer)
		}
		access := exchange(t, d, clientID, redirect, q.Get("code"), ar.Verifier)
		if code := postWithToken(t, s.MCPURL, access); code != http.StatusOK {
			t.Errorf("MCP initialize with the browser-issued token: status %d, want 200", code)
		}
	})

	t.Run("deny", func(t *testing.T) {
		ar := newAuthRequest(d, clientID, redirect)
		browserSignIn(t, browser, ar.URL, "demo", s.Users["demo"])
		err := chromedp.Do(browser, chromedp.WaitVisible(denyXPath), chromedp.Click(denyXPath))
		if err != nil {
			t.Fatalf("clicking Deny: %v", err)
		}
		q := cb.wait(t, ctx)
		if q.Get("error") != "access_denied" || q.Get("code") != "" {
			t.Fatalf("redirect after Deny = %v, want error=access_denied and no code", q)
		}
		if q.Get("state") != ar.State || q.Get("iss") != d.Issuer {
			t.Errorf("redirect state=%q iss=%q, want %q and %q", q.Get("state"), q.Get("iss"), ar.State, d.Issuer)
		}
	})
}

// TestHTTPDenyAndBadRedirect covers the same pages without a browser, so the
// behaviour is checked even where chromium is not installed.
func TestHTTPDenyAndBadRedirect(t *testing.T) {
	s := startServer(t)
	d := discover(t, s)
	const redirect = "http://127.0.0.1:53682/callback"
	clientID := register(t, d, "Pit Wall HTTP Test", redirect)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	ar := newAuthRequest(d, clientID, redirect)
	res, err := signInAndDecide(ctx, browserClient(), s.Base, ar.URL, "demo", s.Users["demo"], "Deny")
	if err != nil {
		t.Fatal(err)
	}
	q := res.Redirect.Query()
	if q.Get("error") != "access_denied" || q.Get("state") != ar.State || q.Get("iss") != d.Issuer {
		t.Errorf("Deny redirected to %s, want error=access_denied with state and iss", res.Redirect)
	}
	if !strings.Contains(res.ConsentPage, "Pit Wall HTTP Test") || !strings.Contains(res.ConsentPage, "127.0.0.1:53682") {
		t.Errorf("consent page does not name the client and redirect host:\n%s", firstLine([]byte(res.ConsentPage)))
	}

	// An unregistered redirect URI gets an error page, never a redirect.
	bad := newAuthRequest(d, clientID, "https://attacker.example/cb")
	resp, err := browserClient().Get(bad.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		loc, _ := url.Parse(resp.Header.Get("Location"))
		t.Errorf("unregistered redirect_uri redirected to %s", loc)
	}
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("unregistered redirect_uri: status %d, want 400", resp.StatusCode)
	}
}
