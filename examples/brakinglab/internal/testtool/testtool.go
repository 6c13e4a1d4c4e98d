// Package testtool holds what BrakingLab's tests need from the machine:
// tools CI installs (a failure in CI when one is missing, a skip
// elsewhere) and a headless Debian Chromium.
package testtool

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is where Debian's chromium package installs the browser.
const ChromiumPath = "/usr/bin/chromium"

// Need reports a missing tool at path: a failure in CI, a skip elsewhere.
func Need(tb testing.TB, path, what string) {
	tb.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	msg := fmt.Sprintf("%s not found at %s; run `bash .ci/setup` to install it", what, path)
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}

// Chromium starts Chromium headless with a fresh profile and a window of
// width × height, opens its first tab (so that failures are reported here
// and a listener added next misses nothing) and returns the tab's
// context. The browser is closed when the test ends.
func Chromium(tb testing.TB, parent context.Context, width, height int) context.Context {
	tb.Helper()
	Need(tb, ChromiumPath, "chromium")
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent,
		chromedp.ExecPath(ChromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(width, height),
	)
	ctx, cancel := chromedp.NewContext(allocCtx)
	tb.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("starting chromium: %v", err)
	}
	return ctx
}
