package jwtverify_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/internal/bearertest"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
	. "github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// TestCancelledRequestsCannotBypassTheKeyRefetchLimit: a request carrying
// a token with an unknown kid makes the verifier fetch the issuer's keys at
// most once per refresh interval. A fetch abandoned because the request's
// client went away did not count, so a client that sends such tokens and
// disconnects at once could make the server fetch the key set again and
// again. The fetch must finish (bounded by its own timeout) and count.
func TestCancelledRequestsCannotBypassTheKeyRefetchLimit(t *testing.T) {
	iss := NewIssuer(t, nil)
	var hits atomic.Int32
	arrived, release := make(chan struct{}, 8), make(chan struct{})
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		arrived <- struct{}{}
		<-release
		resp, err := iss.Client().Get(iss.JWKSURL)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(jwks.Close)
	clk := new(bearertest.Clock)
	v := mustVerifier(t, iss, testResource, &jwtverify.Options{JWKSURL: jwks.URL, Now: clk.Now})

	// The first request fetches the keys and is abandoned mid-fetch.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := v.Verify(ctx, iss.Mint(testResource, WithKid("unknown-1")))
		done <- err
	}()
	<-arrived
	cancel()
	close(release)
	<-done

	// Another unknown kid within the interval must not fetch again.
	_, err := v.Verify(context.Background(), iss.Mint(testResource, WithKid("unknown-2")))
	var te *bearer.TokenError
	if !errors.As(err, &te) {
		t.Fatalf("unknown kid: %v", err)
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("%d key set fetches within one refresh interval, want 1", n)
	}
}
