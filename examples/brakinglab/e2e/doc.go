// Package e2e holds BrakingLab's end-to-end tests. They build the real
// server binary once, run it on a loopback port with a temporary database,
// and drive it with clients nobody here wrote: the go-sdk OAuth client,
// Debian's chromium through chromedp, the official TypeScript MCP SDK and
// the MCP conformance suite. The replica tests run two of them on one
// PostgreSQL database (internal/pgtest) behind Debian's nginx.
package e2e
