// Package chartview is the MCP Apps view that draws the charts of an
// execute_code result: one self-contained HTML file (view.html) holding
// view.js bundled with the ext-apps App from npm. It loads nothing and
// reaches no network; its CSP allows no origin. It also serves the view
// on an MCP server ([Serve]), says whether a client declared the MCP Apps
// extension ([Client]), and points a client that did at the view from
// the code tools' _meta ([ToolMeta]).
//
// view.html is generated and committed: after changing view.js or
// view.tmpl.html, run `go run ./internal/cmd/chartview` (it needs the
// JavaScript tools of .ci/js, see .ci/setup). TestUpToDate fails when the
// committed file differs from what the sources give.
package chartview

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// HTML is the view, as served at codemode's ui:// resource.
//
//go:embed view.html
var HTML string

//go:embed view.tmpl.html
var page string

// Build bundles view.js (in dir) with its imports from nodeModules and
// returns the page with the bundle inlined.
func Build(dir, nodeModules string) ([]byte, error) {
	res := api.Build(api.BuildOptions{
		EntryPoints:       []string{dir + "/view.js"},
		Bundle:            true,
		Write:             false,
		Format:            api.FormatESModule,
		Target:            api.ES2022,
		MinifyWhitespace:  true,
		MinifySyntax:      true,
		MinifyIdentifiers: true,
		LegalComments:     api.LegalCommentsNone,
		NodePaths:         []string{nodeModules},
		AbsWorkingDir:     dir,
		LogLevel:          api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		var msgs []string
		for _, m := range res.Errors {
			msgs = append(msgs, m.Text)
		}
		return nil, fmt.Errorf("chartview: bundling view.js: %s", strings.Join(msgs, "; "))
	}
	if len(res.OutputFiles) != 1 {
		return nil, errors.New("chartview: bundling view.js gave no single output")
	}
	js := strings.ReplaceAll(string(res.OutputFiles[0].Contents), "</script", `<\/script`)
	if !strings.Contains(page, "/*SCRIPT*/") {
		return nil, errors.New("chartview: view.tmpl.html has no /*SCRIPT*/ placeholder")
	}
	return []byte(strings.Replace(page, "/*SCRIPT*/", strings.TrimSpace(js), 1)), nil
}
