package mcpsource

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/brakinglab/codemode-go/catalog"
)

// TierOf returns the tier and approval rule a tool's annotations give,
// reading a hint the tool leaves out as the MCP specification defines it
// (readOnlyHint false, destructiveHint true):
//   - readOnlyHint true → READ-ONLY;
//   - destructiveHint false → CREATIVE: the tool only adds, so it decodes
//     strictly and accepts dry runs, and asks the user only where the
//     server's per-tier default says so;
//   - anything else, destructiveHint true or absent and a tool without
//     annotations included → MUTATING, each call approved by the user
//     (catalog.ApprovalRequired, whatever the server's per-tier default).
//
// idempotentHint and openWorldHint do not change the tier. A tool that
// says nothing is therefore asked about, never run silently: see
// [Options.UnannotatedTier] and [ToolConfig] for trusting it.
func TierOf(a *mcp.ToolAnnotations) (catalog.Tier, catalog.Approval) {
	switch {
	case a != nil && a.ReadOnlyHint:
		return catalog.ReadOnly, catalog.ApprovalDefault
	case a != nil && a.DestructiveHint != nil && !*a.DestructiveHint:
		return catalog.Creative, catalog.ApprovalDefault
	}
	return catalog.Mutating, catalog.ApprovalRequired
}

// describesItself reports whether a says whether the tool is destructive:
// readOnlyHint true, or destructiveHint present. A tool for which it is
// false gets the specification's default, destructive, unless the host
// trusts the server ([Options.UnannotatedTier]).
func describesItself(a *mcp.ToolAnnotations) bool {
	return a != nil && (a.ReadOnlyHint || a.DestructiveHint != nil)
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
	// (destructiveHint true or absent), else the server's per-tier
	// default. A Tier set here drops the derived rule: the tool then asks
	// only where the server's per-tier default says so, unless Approval
	// says otherwise.
	Approval catalog.Approval
	// Scopes lists OAuth scopes the caller must all hold.
	Scopes []string
	// Skip leaves the tool out of the catalogue (upstreams only).
	Skip bool
}

// unannotated is what an upstream's tools that do not describe
// themselves become (Options.UnannotatedTier, UnannotatedApproval).
// The zero value is the specification's default.
type unannotated struct {
	tier     catalog.Tier
	approval catalog.Approval
}

// check refuses a setting that no tool could be registered with, so that
// Connect fails instead of leaving every unannotated tool out.
func (un unannotated) check() error {
	switch un.tier {
	case 0, catalog.ReadOnly, catalog.Mutating, catalog.Creative:
	default:
		return fmt.Errorf("Options.UnannotatedTier: unknown tier %d", int(un.tier))
	}
	switch un.approval {
	case catalog.ApprovalDefault, catalog.ApprovalRequired, catalog.ApprovalNotRequired:
	default:
		return fmt.Errorf("Options.UnannotatedApproval: unknown approval setting %d", int(un.approval))
	}
	if un.tier == catalog.ReadOnly && un.approval == catalog.ApprovalRequired {
		return fmt.Errorf("Options.UnannotatedApproval: a READ-ONLY function cannot require approval: approval shows the user a dry run, and reads have none")
	}
	return nil
}

// resolve applies cfg, and for a tool that does not describe itself un,
// to the derived name, tier and approval of t.
func (cfg ToolConfig) resolve(t *mcp.Tool, un unannotated) (name string, tier catalog.Tier, ap catalog.Approval) {
	name = cfg.Name
	if name == "" {
		name = FuncName(t.Name)
	}
	tier, ap = TierOf(t.Annotations)
	if !describesItself(t.Annotations) {
		if un.tier != 0 {
			tier, ap = un.tier, catalog.ApprovalDefault
		}
		if un.approval != catalog.ApprovalDefault {
			ap = un.approval
		}
	}
	if cfg.Tier != 0 {
		tier, ap = cfg.Tier, catalog.ApprovalDefault
	}
	if cfg.Approval != catalog.ApprovalDefault {
		ap = cfg.Approval
	}
	return name, tier, ap
}
