package policy

import (
	"os"
	"testing"
)

// TestMain installs the applets the tests' rules name, as agentbox installs its table
// (gate.UseApplets): the policy has no list of its own.
func TestMain(m *testing.M) {
	UseApplets(map[string]string{
		"read": TargetPath, "ls": TargetPath, "glob": TargetPath, "grep": TargetPath,
		"write": TargetPath, "edit": TargetPath, "patch": TargetPath,
		"bash":  TargetCommand,
		"fetch": TargetHost, "search": TargetHost,
		"plan": TargetNone, "todo": TargetNone, "ask": TargetNone, "permit": TargetNone,
		"skill": TargetNone, "prompt": TargetNone, "mcp": TargetNone, "task": TargetNone,
	})
	os.Exit(m.Run())
}
