// Package authserver is BrakingLab's development OAuth 2.1 authorization
// server. It makes the MCP endpoint connectable by real clients (Claude,
// ChatGPT, the MCP Inspector, the go-sdk and TypeScript SDK clients) with no
// manual configuration. For production, point the resource server at a real
// identity provider instead.
//
// # Endpoints
//
// Paths are relative to the issuer URL's path:
//
//	/.well-known/oauth-authorization-server  RFC 8414 metadata (via oauthmeta)
//	/register                                RFC 7591 dynamic client registration
//	/authorize                               authorization request → sign-in → consent
//	/authorize/signin, /authorize/consent    the HTML forms
//	/authorize/login?next=/authorize/…       sign-in outside an OAuth flow, back to next
//	                                         (pages under /authorize that read SignedIn,
//	                                         such as codemode's approval page)
//	/token                                   authorization_code and refresh_token grants
//	/jwks                                    the public signing keys
//
// # Decisions
//
//   - Public clients only (token_endpoint_auth_method "none"; a registration
//     asking for client_secret_basic or _post is answered with "none" and no
//     secret); PKCE S256 is mandatory, plain and a missing challenge are
//     refused.
//   - Clients are registered (DCR) or named by an https client ID metadata
//     document URL. Documents are fetched with a 5 s timeout, a 16 KiB
//     limit, no redirects, cached 10 minutes (failures 30 s), and over a
//     dialer that refuses private, loopback, link-local and other special
//     addresses at connect time, after DNS resolution (see PublicAddr).
//   - Redirect URIs are https, or http on 127.0.0.1, [::1] or localhost;
//     no fragments, no user info. Matching is exact, except that a
//     loopback http redirect URI may use another port (RFC 8252 §7.3):
//     native apps pick a free port each run.
//   - An unknown client or redirect URI shows an error page and never
//     redirects. Other errors go back to the redirect URI with state and
//     iss (RFC 9207).
//   - resource (RFC 8707) is required and must be Options.Resource (a
//     trailing slash is tolerated); tokens always carry exactly that
//     audience. A missing scope means every supported scope; unknown
//     scopes next to known ones are dropped, only unknown ones is
//     invalid_scope.
//   - Codes live 60 s, are single use and bound to client,
//     redirect URI, challenge, resource, scopes and user. A failed exchange
//     (wrong verifier, client or redirect URI) burns the code too; presenting
//     a used code revokes the refresh tokens it produced.
//   - Refresh tokens rotate on every use and are stored hashed. Each grant
//     is a family; reusing a rotated token (or racing two uses of one)
//     revokes the family. Access tokens are ES256 JWTs (typ at+jwt, kid,
//     RFC 9068 claims) and are not revocable: keep them short.
//   - Everything a later request depends on is stored in the host's
//     database, SQLite or PostgreSQL (tables authserver_*, one migration
//     set per engine, tracked in authserver_migrations): clients, pending
//     sign-ins, browser sessions, codes, refresh-token families, the
//     signing key and the consent CSRF key. Session IDs, request IDs and
//     codes are stored hashed. A restart keeps them, and Servers on one
//     PostgreSQL database (replicas behind a load balancer) act as one: a
//     browser's next page, the code exchange or a refresh may reach any
//     of them; the bounds on pending sign-ins count the shared table. Per
//     process: the registration rate limit, and the password-guess
//     throttle below unless Options.GuessLimiter keeps it in shared state
//     too (BrakingLab passes codemode/pgstate on PostgreSQL). The client table is capped (Options.MaxClients);
//     never-used clients are pruned first, as Claude registers on every
//     connection.
//   - The sign-in session is a random HttpOnly, SameSite=Lax cookie (Secure
//     for an https issuer) scoped to /authorize. The consent form carries a
//     CSRF token: an HMAC of the session and the request. Five wrong
//     passwords end an authorization request.
//   - Password guessing is throttled as Auth0's brute-force protection
//     does it: ten wrong passwords for one account from one source
//     (an IPv4 address or IPv6 /64) within 15 minutes block that source
//     for that account, and a hundred for any accounts block the source,
//     while the account's owner signing in from elsewhere is never locked
//     out. The source is the peer address, so behind a reverse proxy or
//     a tunnel every client shares the proxy's, unless
//     Options.ClientAddress returns the address the proxy forwards. With
//     Options.GuessLimiter the same numbers are also token buckets in
//     shared state (ten, then one more guess per 90 s; a hundred, then
//     one per 9 s), so replicas do not multiply the guesses; a source is
//     refused while either count says so.
//   - One source keeps at most 64 pending sign-ins (its oldest goes), and
//     a full table drops the oldest of the source holding the most, so an
//     anonymous flood of /authorize evicts only its own requests.
//   - A pending sign-in belongs to the browser that opened it: /authorize
//     sets a random HttpOnly browser cookie and sign-in and consent refuse
//     (403) a browser that does not present it, so a leaked request ID is
//     of no use elsewhere.
//   - When a client ID metadata document cannot be fetched, the page says
//     only that; the network detail is logged, so the server cannot be
//     used to probe which ports of a public host are open.
package authserver
