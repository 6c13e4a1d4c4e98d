package oauthmetatest_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

func TestCodeFlow(t *testing.T) {
	iss := oauthmetatest.NewIssuer(t, nil)
	verifier := "a-code-verifier-that-is-long-enough-0123456789"
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {"c1"},
		"redirect_uri":          {"http://127.0.0.1:9/cb"},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"resource":              {"https://coach.example.com/mcp"},
		"scope":                 {"sessions:read"},
		"state":                 {"st"},
	}

	for _, drop := range []string{"code_challenge", "resource", "client_id"} {
		bad := url.Values{}
		for k, v := range q {
			if k != drop {
				bad[k] = v
			}
		}
		if _, err := iss.Approve(iss.URL + "/authorize?" + bad.Encode()); err == nil {
			t.Errorf("approved a request without %s", drop)
		}
	}

	exchange := func(code, verifier string) (int, map[string]any) {
		resp, err := http.PostForm(iss.URL+"/token", url.Values{
			"grant_type":    {"authorization_code"},
			"code":          {code},
			"code_verifier": {verifier},
			"redirect_uri":  {"http://127.0.0.1:9/cb"},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}

	ap, err := iss.Approve(iss.URL + "/authorize?" + q.Encode())
	if err != nil || ap.State != "st" {
		t.Fatalf("%+v %v", ap, err)
	}
	if status, body := exchange(ap.Code, "wrong-verifier"); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Errorf("wrong verifier: %d %v", status, body)
	}
	ap, _ = iss.Approve(iss.URL + "/authorize?" + q.Encode())
	status, body := exchange(ap.Code, verifier)
	if status != http.StatusOK || body["scope"] != "sessions:read" {
		t.Fatalf("exchange: %d %v", status, body)
	}
	parts := strings.Split(body["access_token"].(string), ".")
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c map[string]any
	_ = json.Unmarshal(claims, &c)
	if c["aud"] != "https://coach.example.com/mcp" || c["client_id"] != "c1" || c["iss"] != iss.URL {
		t.Errorf("claims %v", c)
	}
	if status, _ := exchange(ap.Code, verifier); status != http.StatusBadRequest {
		t.Errorf("code reused: %d", status)
	}
}

// Verifier admits the tokens the issuer signed with its own keys, and
// refuses forged ones (alg none, HS256 keyed with the public key, another
// key id), revoked ones, and tokens for another resource.
func TestVerifier(t *testing.T) {
	const resource = "https://coach.example.com/mcp"
	iss := oauthmetatest.NewIssuer(t, nil)
	v := iss.Verifier(resource)
	ctx := t.Context()
	for _, alg := range []string{oauthmetatest.AlgRS256, oauthmetatest.AlgES256, oauthmetatest.AlgEdDSA} {
		tok, err := v.Verify(ctx, iss.Mint(resource, oauthmetatest.WithAlg(alg), oauthmetatest.WithScope("a b")))
		if err != nil || tok.Principal.Subject != oauthmetatest.DefaultSubject || strings.Join(tok.Principal.Scopes, " ") != "a b" {
			t.Errorf("%s: %+v, %v", alg, tok, err)
		}
	}
	revoked := iss.Mint(resource)
	iss.Revoke(revoked)
	for name, token := range map[string]string{
		"none":         iss.Mint(resource, oauthmetatest.WithAlg(oauthmetatest.AlgNone)),
		"HS256":        iss.Mint(resource, oauthmetatest.WithAlg(oauthmetatest.AlgHS256)),
		"other kid":    iss.Mint(resource, oauthmetatest.WithKid("forged")),
		"revoked":      revoked,
		"other aud":    iss.Mint("https://other.example.com/mcp"),
		"never issued": "e30.e30.sig",
	} {
		if _, err := v.Verify(ctx, token); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: %v, want an invalid-token error", name, err)
		}
	}
}

// The JWKS holds the three public keys, in RFC 7517 form.
func TestJWKS(t *testing.T) {
	iss := oauthmetatest.NewIssuer(t, nil)
	resp, err := iss.Client().Get(iss.JWKSURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 3 {
		t.Fatalf("%d keys, want 3", len(set.Keys))
	}
	n, _ := base64.RawURLEncoding.DecodeString(set.Keys[0]["n"])
	x, _ := base64.RawURLEncoding.DecodeString(set.Keys[1]["x"])
	ed, _ := base64.RawURLEncoding.DecodeString(set.Keys[2]["x"])
	if set.Keys[0]["kid"] != oauthmetatest.KidRSA || len(n) != 256 || set.Keys[0]["e"] != "AQAB" ||
		set.Keys[1]["kid"] != oauthmetatest.KidEC || set.Keys[1]["crv"] != "P-256" || len(x) != 32 ||
		set.Keys[2]["kid"] != oauthmetatest.KidEd25519 || set.Keys[2]["kty"] != "OKP" || len(ed) != 32 ||
		new(big.Int).SetBytes(n).Cmp(iss.RSAPublicKey().N) != 0 {
		t.Errorf("keys %v", set.Keys)
	}
}

// A package that takes a bearer.Verifier tests with the issuer's own:
// genuine tokens pass, forged ones do not.
func ExampleIssuer_Verifier() {
	iss, err := oauthmetatest.Start(nil)
	if err != nil {
		panic(err)
	}
	defer iss.Close()
	const resource = "https://coach.example.com/mcp"
	v := iss.Verifier(resource)
	tok, err := v.Verify(context.Background(), iss.Mint(resource, oauthmetatest.WithScope("sessions:read")))
	fmt.Println(tok.Principal.Subject, tok.Principal.Scopes, err)
	_, err = v.Verify(context.Background(), iss.Mint(resource, oauthmetatest.WithAlg(oauthmetatest.AlgNone)))
	fmt.Println(err)
	// Output:
	// user-1 [sessions:read] <nil>
	// invalid token: token is not active (revoked, expired or unknown)
}
