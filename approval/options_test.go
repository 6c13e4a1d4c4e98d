package approval_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/approval"
	"github.com/brakinglab/codemode-go/catalog"
)

// New refuses options it cannot honour, naming the field.
func TestOptionsRefused(t *testing.T) {
	page := func(p approval.Page) *approval.Page { return &p }
	auth := func(*http.Request) (catalog.Principal, bool) { return catalog.Principal{}, false }
	for name, c := range map[string]struct {
		o    approval.Options
		want string
	}{
		"read-only tier": {approval.Options{Tiers: []catalog.Tier{catalog.ReadOnly}}, "approval.Options.Tiers"},
		"short key":      {approval.Options{Key: []byte("short")}, "approval.Options.Key"},
		"negative TTL":   {approval.Options{TTL: -1}, "approval.Options.TTL"},
		"fallback":       {approval.Options{Fallback: 7}, "approval.Options.Fallback"},
		"page relative":  {approval.Options{Page: page(approval.Page{URL: "/approve/", Authenticate: auth})}, "approval.Options.Page.URL"},
		"page no slash":  {approval.Options{Page: page(approval.Page{URL: "https://lab.example/approve", Authenticate: auth})}, "approval.Options.Page.URL"},
		"page query":     {approval.Options{Page: page(approval.Page{URL: "https://lab.example/approve/?x=1", Authenticate: auth})}, "approval.Options.Page.URL"},
		"page no auth":   {approval.Options{Page: page(approval.Page{URL: "https://lab.example/approve/"})}, "approval.Options.Page.Authenticate"},
		"page poll":      {approval.Options{Page: page(approval.Page{URL: "https://lab.example/approve/", Authenticate: auth, Poll: -1})}, "approval.Options.Page.Poll"},
		"page caps":      {approval.Options{Page: page(approval.Page{URL: "https://lab.example/approve/", Authenticate: auth, MaxPending: -1})}, "approval.Options.Page.MaxPendingPerSubject, MaxPending"},
		"waiting cap":    {approval.Options{MaxWaitingPerSubject: -1}, "approval.Options.MaxWaitingPerSubject"},
		"page and allow": {approval.Options{Fallback: approval.Allow, Page: page(approval.Page{URL: "https://lab.example/approve/", Authenticate: auth})}, "Fallback"},
	} {
		s, err := approval.New(c.o, approval.Config{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: New returned %v, %v; want an error naming %s", name, s, err, c.want)
		}
	}
	if _, err := approval.New(approval.Options{}, approval.Config{}); err != nil {
		t.Fatalf("zero options: %v", err)
	}
}
