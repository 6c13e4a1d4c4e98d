package httpmw

import (
	"context"
	"testing"
)

func TestCounting(t *testing.T) {
	if Counting(nil, func(context.Context) { t.Fatal("counted without a limiter") }) != nil {
		t.Fatal("a nil limiter must stay nil (no limit)")
	}
	refused := 0
	l := Counting(NewRateLimiter(0.001, 2), func(context.Context) { refused++ })
	for range 5 {
		if _, err := l.Take(t.Context(), "k", 1); err != nil {
			t.Fatal(err)
		}
	}
	if refused != 3 { // a burst of two, then every request waits
		t.Fatalf("counted %d refusals, want 3", refused)
	}
}
