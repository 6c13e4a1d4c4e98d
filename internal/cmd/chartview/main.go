// Command chartview regenerates internal/chartview/view.html, the MCP Apps
// view of charts, from view.js and the ext-apps package in .ci/js. Run it
// from the repository root after `bash .ci/setup`.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/brakinglab/codemode-go/internal/chartview"
)

func main() {
	dir, err := filepath.Abs("internal/chartview")
	if err == nil {
		var html []byte
		if html, err = chartview.Build(dir, filepath.Join(filepath.Dir(filepath.Dir(dir)), ".ci/js/node_modules")); err == nil {
			err = os.WriteFile(filepath.Join(dir, "view.html"), html, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
