package mcpsource

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// TierOf returns the tier and approval rule a tool's annotations give:
// readOnlyHint → READ-ONLY; destructiveHint → MUTATING, each call approved
// by the user (catalog.ApprovalRequired); anything else, a tool without
// annotations included → CREATIVE, which decodes strictly and accepts dry
// runs. idempotentHint and openWorldHint do not change the tier.
func TierOf(a *mcp.ToolAnnotations) (catalog.Tier, catalog.Approval) {
	switch {
	case a == nil:
		return catalog.Creative, catalog.ApprovalDefault
	case a.ReadOnlyHint:
		return catalog.ReadOnly, catalog.ApprovalDefault
	case a.DestructiveHint != nil && *a.DestructiveHint:
		return catalog.Mutating, catalog.ApprovalRequired
	}
	return catalog.Creative, catalog.ApprovalDefault
}

// ToolConfig overrides what is derived from an MCP tool's declaration.
// The zero value overrides nothing.
type ToolConfig struct {
	// Name is the catalogue name. Empty means FuncName(tool.Name).
	Name string
	// Tier overrides the tier TierOf derives. Zero means derived.
	Tier catalog.Tier
	// Approval overrides the approval rule. Zero (catalog.ApprovalDefault)
	// means derived: required for a tool whose tier is derived as MUTATING
	// from destructiveHint, else the server's per-tier default.
	Approval catalog.Approval
	// Scopes lists OAuth scopes the caller must all hold.
	Scopes []string
	// Skip leaves the tool out of the catalogue (upstreams only).
	Skip bool
}

// resolve applies cfg to the derived name, tier and approval of t.
func (cfg ToolConfig) resolve(t *mcp.Tool) (name string, tier catalog.Tier, ap catalog.Approval) {
	name = cfg.Name
	if name == "" {
		name = FuncName(t.Name)
	}
	tier, ap = TierOf(t.Annotations)
	if cfg.Tier != 0 {
		tier, ap = cfg.Tier, catalog.ApprovalDefault
	}
	if cfg.Approval != catalog.ApprovalDefault {
		ap = cfg.Approval
	}
	return name, tier, ap
}
