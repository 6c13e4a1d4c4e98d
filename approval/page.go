package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode/state"
	"github.com/brakinglab/codemode-go/internal/httpmw"
)

// Page is a web page on which the user approves or declines the
// calls of an execution whose client cannot ask the user: one that
// declares no elicitation, or only URL-mode elicitation, or whose request
// before protocol revision 2026-07-28 came outside a session (see
// Options.HTTP.Stateless).
//
// When such an execution reaches a call that needs approval, it stops as
// it does for any approval (the calls before it have run), and the
// pending approval is stored (Store): the exact calls with their
// validated arguments, the writes the execution already made, the
// client's name, the principal and the expiry. Then:
//
//   - A client that declares no elicitation gets an APPROVAL_PENDING
//     error whose text gives the model a link to pass on to the user
//     (also in structuredContent.approvalUrl), and tells it to run the
//     same code again once the user has answered.
//   - A client that declares URL-mode elicitation (MCP 2025-11-25) is
//     sent the link in elicitation/create with mode "url", and the same
//     tools/call waits for the user's answer on the page.
//
// The re-run is matched to its approval by the principal (subject and
// OAuth client id), the tool and the SHA-256 of the code: the newest
// approval stored for that match answers it. On accept the re-run
// resumes the execution as after an elicitation: the earlier calls are
// answered from the execution's record (no write runs twice), then the
// approved calls run, once; an approval is spent by the first re-run
// (Options.Spent). A re-run before the user answered gets
// APPROVAL_PENDING again and runs nothing; after a decline,
// APPROVAL_DECLINED; after the link expired unanswered, APPROVAL_EXPIRED
// with a new link. An approval that was accepted stays usable for one TTL
// after its link expires.
//
// Only the principal the execution ran as can see or answer the page: a
// request signed in as anyone else gets the same 404 as an id that does
// not exist. Ids are 128 random bits, answered once, and expire after
// Options.TTL. Answers must carry a token bound to the id and
// the principal, and cross-site requests (Origin, Sec-Fetch-Site) are
// refused; every response forbids framing and caching. Requests are
// rate-limited per source.
type Page struct {
	// URL is the absolute URL where the host serves the page
	// (codemode's Server.ApprovalHandler, [Service.Handler]), ending in "/": a link is URL followed by
	// the approval's id. Required.
	URL string
	// Authenticate returns the principal a browser request is signed in
	// as (typically from the host's session cookie, which should be
	// SameSite), and false when it is not signed in. Only the Subject is
	// compared with the execution's principal. Required.
	Authenticate func(r *http.Request) (catalog.Principal, bool)
	// SignIn answers a request that is not signed in, typically with a
	// redirect to the host's sign-in page that comes back to r.URL. Nil
	// answers 401 with a short page.
	SignIn http.HandlerFunc
	// Store keeps the pending approvals. Nil means in-process, right for
	// one replica; replicas must share one
	// ([github.com/brakinglab/codemode-go/codemode/pgstate]), along
	// with Options.Key and Options.Spent.
	Store state.PendingApprovals
	// MaxPendingPerSubject caps the approvals one principal may have
	// waiting for an answer (unanswered, not expired) in the in-process
	// store; MaxPending caps them for all principals. A call that would
	// exceed a cap is not run and not stored: the model is told to have
	// the user answer the links already given, or to wait. Zero means
	// state.DefaultMaxPendingPerSubject (20) and state.DefaultMaxPending
	// (1,000); negative is an error. A Store enforces its own caps
	// (pgstate.Options).
	MaxPendingPerSubject, MaxPending int
	// Limiter limits the page's requests per source (SourceOf). Nil means
	// an in-process limit of DefaultPageRatePerSec, bursts of
	// DefaultPageBurst.
	Limiter state.RateLimiter
	// SourceOf names the source of a request for Limiter, for example the
	// client address a trusted reverse proxy reports. Nil means the client
	// address as the other limits see it (Options.HTTP.ClientAddress, or else
	// the peer address; an IPv6 address counts by its /64).
	SourceOf func(r *http.Request) string
	// Poll is how often a call waiting on the page (URL-mode
	// elicitation) reads Store, for an answer given on another replica;
	// an answer given on this replica's page wakes the call at once.
	// Zero means DefaultPagePoll.
	Poll time.Duration
}

// The default limit of approval page requests per source.
const (
	DefaultPageRatePerSec = 1.0
	DefaultPageBurst      = 20
)

// pageKeys is what the page needs at run time.
type pageKeys struct {
	url      string
	origin   string // scheme://host of url
	auth     func(*http.Request) (catalog.Principal, bool)
	signIn   http.HandlerFunc
	store    state.PendingApprovals
	limiter  state.RateLimiter
	sourceOf func(*http.Request) string
	csrf     []byte // HMAC key of the answer tokens
	waiters  pageWaiters
	poll     time.Duration
}

// newPageKeys checks p.
func newPageKeys(p *Page, fallback Fallback) (*pageKeys, error) {
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !strings.HasSuffix(u.Path, "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("approval.Options.Page.URL: %q is not an absolute http(s) URL ending in \"/\" without query", p.URL)
	}
	if p.Authenticate == nil {
		return nil, errors.New("approval.Options.Page.Authenticate: required: the page must know who the browser is signed in as")
	}
	if fallback == Allow {
		return nil, errors.New("approval.Options: Page and Fallback Allow contradict each other: with a page every client can ask the user")
	}
	k := &pageKeys{url: p.URL, origin: u.Scheme + "://" + u.Host, auth: p.Authenticate, signIn: p.SignIn, store: p.Store, limiter: p.Limiter, sourceOf: p.SourceOf}
	if k.poll = p.Poll; k.poll == 0 {
		k.poll = DefaultPagePoll
	}
	if p.Poll < 0 {
		return nil, errors.New("approval.Options.Page.Poll: negative")
	}
	if p.MaxPendingPerSubject < 0 || p.MaxPending < 0 {
		return nil, errors.New("approval.Options.Page.MaxPendingPerSubject, MaxPending: negative")
	}
	if k.store == nil {
		k.store = newPendingCache(p.MaxPendingPerSubject, p.MaxPending)
	}
	if k.limiter == nil {
		k.limiter = httpmw.NewRateLimiter(DefaultPageRatePerSec, DefaultPageBurst)
	}
	if k.sourceOf == nil {
		k.sourceOf = func(r *http.Request) string {
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				return r.RemoteAddr
			}
			return host
		}
	}
	return k, nil
}

// pageMatch is the Match of an approval of principal sub (client cid)
// running code (hex SHA-256) through tool.
func pageMatch(st *approvalState) string {
	sum := sha256.Sum256([]byte(st.Subject + "\x00" + st.Client + "\x00" + st.Tool + "\x00" + st.Code))
	return hex.EncodeToString(sum[:])
}

// pageSpendKey is the state.SpentApprovals id of a page approval: kept apart
// from the ids of sealed states.
func pageSpendKey(id string) string { return "page:" + id }
