package functions_test

import (
	"os"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/codemode"
	"github.com/brakinglab/codemode-go/sandbox"
)

func TestZZDump(t *testing.T) {
	for _, m := range []codemode.Discovery{codemode.DiscoveryFull, codemode.DiscoveryAuto} {
		cm, err := codemode.New(cat, &codemode.Options{SandboxMode: sandbox.ModeInProcess, Discovery: m, Principal: &catalog.Principal{Subject: "tester"}})
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile("/tmp/desc_"+m.String()+".txt", []byte(cm.ToolDescription()), 0o644)
		cm.Close()
	}
}
