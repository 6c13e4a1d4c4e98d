package jwtverify_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
	. "github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

func BenchmarkVerify(b *testing.B) {
	iss := NewIssuer(b, nil)
	v, err := jwtverify.New(iss.URL, testResource, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, alg := range []string{AlgRS256, AlgES256, AlgEdDSA} {
		b.Run(alg, func(b *testing.B) {
			tok := iss.Mint(testResource, WithAlg(alg), WithScope(testScope))
			ctx := context.Background()
			if _, err := v.Verify(ctx, tok); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(ctx, tok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// Forged tokens with unknown key ids: after the first, each costs a
	// parse and a cache lookup, not a JWKS request.
	b.Run("unknown-kid", func(b *testing.B) {
		toks := make([]string, 64)
		for i := range toks {
			toks[i] = iss.Mint(testResource, WithAlg(AlgEdDSA), WithKid(fmt.Sprint("forged-", i)))
		}
		ctx := context.Background()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := v.Verify(ctx, toks[i%len(toks)]); err == nil {
				b.Fatal("forged token accepted")
			}
			i++
		}
		b.ReportMetric(float64(iss.JWKSFetches()), "jwks-fetches")
	})
}

// BenchmarkRequireBearer measures the middleware around a no-op handler,
// including go-sdk's RequireBearerToken, for an admitted ES256 token.
func BenchmarkRequireBearer(b *testing.B) {
	iss := NewIssuer(b, nil)
	v, err := jwtverify.New(iss.URL, testResource, nil)
	if err != nil {
		b.Fatal(err)
	}
	h := bearer.RequireBearer(v, &bearer.BearerOptions{ResourceMetadataURL: testPRM, Scopes: []string{testScope}})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+iss.Mint(testResource, WithAlg(AlgES256), WithScope(testScope)))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}
