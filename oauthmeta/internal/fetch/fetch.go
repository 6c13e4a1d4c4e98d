// Package fetch holds what oauthmeta and oauthmeta/bearer both need to
// reach an authorization server safely: URL checks (https, or http on
// loopback only) and a bounded JSON GET.
package fetch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// MaxDocumentBytes bounds metadata and JWKS responses.
const MaxDocumentBytes = 1 << 20

// DefaultHTTPClient is used when no client is configured: unlike
// http.DefaultClient it cannot hang a request forever.
var DefaultHTTPClient = &http.Client{Timeout: 10 * time.Second}

// GetJSON GETs u into v. On a non-200 answer it returns the status code
// with an error.
func GetJSON(ctx context.Context, client *http.Client, u string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxDocumentBytes))
		return resp.StatusCode, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocumentBytes+1))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("GET %s: %w", u, err)
	}
	if len(body) > MaxDocumentBytes {
		return resp.StatusCode, fmt.Errorf("GET %s: document larger than %d bytes", u, MaxDocumentBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, fmt.Errorf("GET %s: %w", u, err)
	}
	return resp.StatusCode, nil
}

// CheckIssuer parses an issuer identifier: https (or http on loopback),
// no query or fragment (RFC 8414 §2).
func CheckIssuer(issuer string) (*url.URL, error) {
	if err := CheckHTTPSOrLoopback(issuer); err != nil {
		return nil, fmt.Errorf("issuer: %w", err)
	}
	u, _ := url.Parse(issuer)
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("issuer %q must not have a query or fragment", issuer)
	}
	return u, nil
}

// CheckHTTPSOrLoopback accepts an absolute https URL, or http for a
// loopback host (development and tests).
func CheckHTTPSOrLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("%q must use https (http is allowed only on loopback)", raw)
	}
	return fmt.Errorf("%q must use https", raw)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckResource validates a canonical resource URI (RFC 8707 §2): absolute,
// https or loopback http, no fragment.
func CheckResource(resource string) error {
	if err := CheckHTTPSOrLoopback(resource); err != nil {
		return fmt.Errorf("resource: %w", err)
	}
	u, _ := url.Parse(resource)
	if u.Fragment != "" {
		return fmt.Errorf("resource %q must not have a fragment", resource)
	}
	return nil
}

// CheckIssuerAndResource checks the pair every verifier is built for: an
// issuer identifier and the canonical URI of the resource its tokens must
// name.
func CheckIssuerAndResource(issuer, resource string) error {
	if _, err := CheckIssuer(issuer); err != nil {
		return err
	}
	return CheckResource(resource)
}
