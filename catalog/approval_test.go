package catalog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

func TestApprovalSetting(t *testing.T) {
	type in struct {
		ID int `json:"id"`
	}
	h := func(context.Context, in) (int, error) { return 1, nil }
	for _, tt := range []struct {
		tier     catalog.Tier
		approval catalog.Approval
		err      string
	}{
		{catalog.Mutating, catalog.ApprovalRequired, ""},
		{catalog.Creative, catalog.ApprovalRequired, ""},
		{catalog.Mutating, catalog.ApprovalNotRequired, ""},
		{catalog.ReadOnly, catalog.ApprovalNotRequired, ""},
		{catalog.ReadOnly, catalog.ApprovalRequired, "a READ-ONLY function cannot require approval"},
		{catalog.Mutating, catalog.Approval(9), "unknown approval setting 9"},
	} {
		cat, err := catalog.New("ns", nil)
		if err != nil {
			t.Fatal(err)
		}
		err = catalog.Add(cat, catalog.Func[in, int]{Name: "f", Tier: tt.tier, Approval: tt.approval, Handler: h})
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s %s: %v", tt.tier, tt.approval, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s %s: got %v, want %q", tt.tier, tt.approval, err, tt.err)
		case err == nil:
			if got := cat.Functions()[0].Approval; got != tt.approval {
				t.Errorf("FuncInfo.Approval = %s, want %s", got, tt.approval)
			}
		}
	}
}
