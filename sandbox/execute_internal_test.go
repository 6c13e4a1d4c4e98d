package sandbox

import (
	"bytes"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
)

// An unexpected runtime failure reaches the model as a short message with a
// reference; the Go error text only goes to the log under that reference.
// Scripts cannot reach these paths (the runtime only interrupts with an
// *Error and returns goja's own error types), so the test drives
// scriptError directly.
func TestInternalErrorHidesDetail(t *testing.T) {
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })

	const secret = "open /srv/secret/keys.db: permission denied"
	e, err := newExecution()
	if err != nil {
		t.Fatal(err)
	}
	e.vm.Interrupt(errors.New(secret)) // a value that is not an *Error
	_, runErr := e.vm.RunString(`1`)
	if runErr == nil {
		t.Fatal("interrupted runtime ran")
	}
	refRE := regexp.MustCompile(`\(ref ([a-z2-7]{10})\)`)
	for name, got := range map[string]*Error{
		"interrupt": e.scriptError(runErr),
		"other":     e.scriptError(errors.New(secret)),
	} {
		if got.Kind != KindInternal || strings.Contains(got.Message, "secret") || strings.Contains(got.Message, "permission") {
			t.Errorf("%s: %+v, want INTERNAL without the detail", name, got)
			continue
		}
		m := refRE.FindStringSubmatch(got.Message)
		if m == nil {
			t.Errorf("%s: message %q has no reference", name, got.Message)
			continue
		}
		if !regexp.MustCompile(`ref=` + m[1] + ` detail=".*` + regexp.QuoteMeta(secret)).MatchString(logs.String()) {
			t.Errorf("%s: log lacks the detail under ref %s:\n%s", name, m[1], logs.String())
		}
	}
}
