package openapisource

// Tiers from the method, the document's extensions and the host's
// overrides.

import (
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/brakinglab/codemode-go/catalog"
)

// The extensions an operation may carry to set its tier and approval.
const (
	// ExtTier is "x-codemode-tier": "read-only", "creative" or
	// "mutating".
	ExtTier = "x-codemode-tier"
	// ExtApproval is "x-codemode-approval": "required" or "not-required".
	ExtApproval = "x-codemode-approval"
)

// TierOf returns the tier a method gives an operation, and its approval
// rule: GET and HEAD are READ-ONLY; POST is CREATIVE (strict decoding,
// dry runs, approval as the server's per-tier default says); PUT, PATCH,
// DELETE and any other method are MUTATING with every call approved.
func TierOf(method string) (catalog.Tier, catalog.Approval) {
	switch method {
	case http.MethodGet, http.MethodHead:
		return catalog.ReadOnly, catalog.ApprovalDefault
	case http.MethodPost:
		return catalog.Creative, catalog.ApprovalDefault
	}
	return catalog.Mutating, catalog.ApprovalRequired
}

// tierOf applies the operation's extensions, then cfg, to TierOf.
func tierOf(method string, op *openapi3.Operation, cfg OperationConfig) (catalog.Tier, catalog.Approval, error) {
	tier, approval := TierOf(method)
	if v, ok := op.Extensions[ExtTier]; ok {
		t, err := parseTier(v)
		if err != nil {
			return 0, 0, err
		}
		if t != tier {
			// A tier named by the document takes its default approval,
			// unless the document says otherwise too.
			tier, approval = t, catalog.ApprovalDefault
		}
	}
	if v, ok := op.Extensions[ExtApproval]; ok {
		switch v {
		case "required":
			approval = catalog.ApprovalRequired
		case "not-required":
			approval = catalog.ApprovalNotRequired
		default:
			return 0, 0, fmt.Errorf("%s is %v; want \"required\" or \"not-required\"", ExtApproval, v)
		}
	}
	if cfg.Tier != 0 {
		if cfg.Tier != tier && cfg.Approval == 0 {
			approval = catalog.ApprovalDefault
		}
		tier = cfg.Tier
	}
	if cfg.Approval != 0 {
		approval = cfg.Approval
	}
	if tier < catalog.ReadOnly || tier > catalog.Creative {
		return 0, 0, fmt.Errorf("unknown tier %d", int(tier))
	}
	if approval == catalog.ApprovalRequired && tier == catalog.ReadOnly {
		return 0, 0, fmt.Errorf("a READ-ONLY operation cannot require approval")
	}
	return tier, approval, nil
}

func parseTier(v any) (catalog.Tier, error) {
	switch v {
	case "read-only", "READ-ONLY":
		return catalog.ReadOnly, nil
	case "creative", "CREATIVE":
		return catalog.Creative, nil
	case "mutating", "MUTATING":
		return catalog.Mutating, nil
	}
	return 0, fmt.Errorf("%s is %v; want \"read-only\", \"creative\" or \"mutating\"", ExtTier, v)
}
