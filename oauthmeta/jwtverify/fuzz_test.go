package jwtverify_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// Whatever bytes arrive as a token, the verifier rejects them with an
// invalid-token error and never panics.
func FuzzVerify(f *testing.F) {
	iss := oauthmetatest.NewIssuer(f, nil)
	v, err := jwtverify.New(iss.URL, testResource, &jwtverify.Options{JWKSURL: iss.JWKSURL})
	if err != nil {
		f.Fatal(err)
	}
	valid := iss.Mint(testResource)
	f.Add(valid)
	f.Add(valid[:len(valid)-3])
	f.Add(iss.Mint(testResource, oauthmetatest.WithAlg(oauthmetatest.AlgNone)))
	f.Add("e30.e30.")
	f.Add("..")
	f.Fuzz(func(t *testing.T, token string) {
		tok, err := v.Verify(context.Background(), token)
		if err == nil {
			// Only the minted signing input can pass. (Base64 is lenient
			// about the unused bits of a segment's last character, so the
			// signature segment may differ textually.)
			if signingInput(token) != signingInput(valid) {
				t.Fatalf("accepted a token that is not the minted one: %q (%+v)", token, tok)
			}
			return
		}
		if !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("%q: %v does not wrap auth.ErrInvalidToken", token, err)
		}
	})
}

func signingInput(token string) string {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return token
	}
	return token[:i]
}
