package authserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Limits for fetching client ID metadata documents.
const (
	cimdTimeout    = 5 * time.Second
	cimdMaxBytes   = 16 << 10
	cimdTTL        = 10 * time.Minute
	cimdFailTTL    = 30 * time.Second
	cimdMaxEntries = 1000
)

// cimdResolver fetches and caches client ID metadata documents.
type cimdResolver struct {
	client *http.Client
	now    func() time.Time
	log    *slog.Logger

	mu    sync.Mutex
	cache map[string]cimdEntry
}

type cimdEntry struct {
	client  *client
	err     error
	expires time.Time
}

func newCIMDResolver(hc *http.Client, now func() time.Time, log *slog.Logger) *cimdResolver {
	var c http.Client
	if hc != nil {
		c = *hc
	} else {
		c = http.Client{Transport: guardedTransport()}
	}
	// A redirect could lead anywhere, including past the address guard's intent.
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.Timeout = cimdTimeout
	return &cimdResolver{client: &c, now: now, log: log, cache: map[string]cimdEntry{}}
}

// guardedTransport dials only public unicast addresses. The check runs in
// the dialer's Control hook on the address actually being connected to,
// after DNS resolution, so a name that re-resolves to 127.0.0.1 (DNS
// rebinding) is refused too. Proxies are ignored for the same reason.
func guardedTransport() *http.Transport {
	d := &net.Dialer{Timeout: cimdTimeout, Control: guardDial}
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    cimdTimeout,
		ResponseHeaderTimeout:  cimdTimeout,
		MaxResponseHeaderBytes: 16 << 10,
		MaxIdleConns:           10,
		IdleConnTimeout:        30 * time.Second,
	}
}

func guardDial(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !PublicAddr(ip) {
		return fmt.Errorf("%w: %s is not a public address", ErrForbiddenAddress, host)
	}
	return nil
}

// specialPrefixes are ranges that are not public unicast beyond what
// netip.Addr's predicates catch (IANA special-purpose registries).
var specialPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated; embeds IPv4, e.g. ::127.0.0.1)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 (embeds IPv4, may be private)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments (Teredo, ORCHID, …)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4 (embeds IPv4)
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

// PublicAddr reports whether ip is a public unicast address a metadata
// fetch may connect to: not loopback, private (RFC 1918, fc00::/7),
// link-local (169.254.0.0/16 including cloud metadata, fe80::/10),
// multicast, unspecified, or another special-purpose range.
func PublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range specialPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// cimdDocument is a client ID metadata document: client metadata plus its own URL.
type cimdDocument struct {
	ClientID string `json:"client_id"`
	oauthex.ClientRegistrationMetadata
}

// checkCIMDURL applies the document URL rules: https, a path, no fragment,
// no user info, no dot segments.
func checkCIMDURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%w: client_id URL %q must be an https URL", ErrUnknownClient, raw)
	}
	if u.User != nil || u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("%w: client_id URL %q must not contain user info or a fragment", ErrUnknownClient, raw)
	}
	if u.Path == "" || u.Path == "/" {
		return fmt.Errorf("%w: client_id URL %q must have a path", ErrUnknownClient, raw)
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("%w: client_id URL %q must not contain dot segments", ErrUnknownClient, raw)
		}
	}
	return nil
}

// resolve returns the client described by the document at rawURL, from
// the cache when fresh. Failures are cached briefly so a bad client_id
// cannot make this server hammer a host.
func (c *cimdResolver) resolve(ctx context.Context, rawURL string) (*client, error) {
	if err := checkCIMDURL(rawURL); err != nil {
		return nil, err
	}
	now := c.now()
	c.mu.Lock()
	if e, ok := c.cache[rawURL]; ok && now.Before(e.expires) {
		c.mu.Unlock()
		return e.client, e.err
	}
	c.mu.Unlock()

	cl, err := c.fetch(ctx, rawURL)
	entry := cimdEntry{client: cl, err: err, expires: now.Add(cimdTTL)}
	if err != nil {
		entry.expires = now.Add(cimdFailTTL)
	}
	c.mu.Lock()
	if len(c.cache) >= cimdMaxEntries {
		for k, e := range c.cache {
			if !now.Before(e.expires) {
				delete(c.cache, k)
			}
		}
		if len(c.cache) >= cimdMaxEntries {
			clear(c.cache)
		}
	}
	c.cache[rawURL] = entry
	c.mu.Unlock()
	return cl, err
}

func (c *cimdResolver) fetch(ctx context.Context, rawURL string) (*client, error) {
	ctx, cancel := context.WithTimeout(ctx, cimdTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnknownClient, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		if errors.Is(err, ErrForbiddenAddress) {
			return nil, fmt.Errorf("%w: client_id URL %q resolves to an address this server will not contact: %w", ErrUnknownClient, rawURL, ErrForbiddenAddress)
		}
		return nil, c.fetchFailed(rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.fetchFailed(rawURL, fmt.Errorf("answered HTTP %d (redirects are not followed)", resp.StatusCode))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, cimdMaxBytes+1))
	if err != nil {
		return nil, c.fetchFailed(rawURL, fmt.Errorf("reading the body: %w", err))
	}
	if len(body) > cimdMaxBytes {
		return nil, fmt.Errorf("%w: client metadata document %q is larger than %d bytes", ErrUnknownClient, rawURL, cimdMaxBytes)
	}
	var doc cimdDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("%w: client metadata document %q is not valid JSON: %v", ErrUnknownClient, rawURL, err)
	}
	if doc.ClientID != rawURL {
		return nil, fmt.Errorf("%w: client metadata document %q names client_id %q; it must equal the document URL", ErrUnknownClient, rawURL, doc.ClientID)
	}
	if e, ok := checkClientMetadata(&doc.ClientRegistrationMetadata); !ok {
		return nil, fmt.Errorf("%w: client metadata document %q: %s", ErrUnknownClient, rawURL, e.ErrorDescription)
	}
	return &client{ID: rawURL, Name: doc.ClientName, RedirectURIs: slices.Clone(doc.RedirectURIs)}, nil
}

// fetchFailed logs why a document could not be fetched and returns an
// error that does not say: the error reaches the browser, and network
// detail ("connection refused", a TLS failure, a status) would let anyone
// probe the port state of public hosts through this server.
func (c *cimdResolver) fetchFailed(rawURL string, detail error) error {
	c.log.Info("authserver: fetching client metadata document failed", "url", rawURL, "err", detail)
	return fmt.Errorf("%w: could not fetch the client's metadata document %q", ErrUnknownClient, rawURL)
}
