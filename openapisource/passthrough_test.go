package openapisource_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/mcpsource"
)

// The execute_code request's bearer token, which codemode puts in the
// call's context, never reaches the API: only what Authorize sets does.
func TestNoTokenPassthrough(t *testing.T) {
	rec := newRecorder(t)
	c, _ := notes(t, rec.srv.URL, nil)
	outer := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "execute_code"}, Extra: &mcp.RequestExtra{
		TokenInfo: &auth.TokenInfo{UserID: "alice"}, Header: http.Header{"Authorization": {"Bearer users-token"}, "Cookie": {"session=s"}},
	}}
	ctx := mcpsource.WithRequest(catalog.WithPrincipal(context.Background(), catalog.Principal{Subject: "alice"}), outer)
	if _, err := c.Call(ctx, "notes_get", json.RawMessage(`{"id":"1"}`)); err != nil {
		t.Fatal(err)
	}
	h := rec.last(t).Header
	if h.Get("Authorization") != "" || h.Get("Cookie") != "" {
		t.Fatalf("the API saw %v", h)
	}
}
