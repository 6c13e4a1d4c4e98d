package jwtverify_test

import (
	"testing"

	"github.com/brakinglab/codemode-go/oauthmeta/jwtverify"
	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
)

// mustVerifier is jwtverify.New for iss, failing t on error.
func mustVerifier(t *testing.T, iss *oauthmetatest.Issuer, resource string, o *jwtverify.Options) *jwtverify.Verifier {
	t.Helper()
	v, err := jwtverify.New(iss.URL, resource, o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
