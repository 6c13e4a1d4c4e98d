package oauthmetatest_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/oauthmeta/oauthmetatest"
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
