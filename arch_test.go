package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The package picture of docs/architecture.md holds (issue 21): core is the contract
// and links no front end, sandbox, shell parser, walker or MCP SDK; the packages that
// describe applets (prompt, man, completions) link no sandbox, shell parser or walker.
func TestPackageDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; this test reads `go list -deps`")
	}
	forbidden := map[string][]string{
		"./core":        {"github.com/alecthomas/kong", "github.com/landlock-lsm/", "mvdan.cc/sh/", "github.com/modelcontextprotocol/", "agentbox/core/policy", "agentbox/core/shell", "agentbox/core/sandbox", "agentbox/core/walk", "agentbox/cli"},
		"./prompt":      {"github.com/landlock-lsm/", "mvdan.cc/sh/", "agentbox/core/sandbox", "agentbox/core/shell", "agentbox/core/walk"},
		"./man":         {"github.com/landlock-lsm/", "mvdan.cc/sh/", "agentbox/core/sandbox", "agentbox/core/shell", "agentbox/core/walk"},
		"./completions": {"github.com/landlock-lsm/", "mvdan.cc/sh/", "agentbox/core/sandbox", "agentbox/core/shell", "agentbox/core/walk"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range bad {
				if strings.Contains(dep, b) {
					t.Errorf("%s links %s; see docs/architecture.md for what may depend on what", pkg, dep)
				}
			}
		}
	}
}
