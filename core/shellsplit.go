package core

import (
	"github.com/agentbox/agentbox/core/policy"
	"github.com/agentbox/agentbox/core/proc"
	"github.com/agentbox/agentbox/core/sandbox"
)

// ShellSplit is the policy's view of a bash line (kept for callers of core).
var ShellSplit = policy.ShellSplit

// runHelper runs a re-exec'd helper (background job supervisor, sandbox) when args
// name one; such a process never returns from here.
func runHelper(args []string) {
	if len(args) > 1 && (args[1] == proc.JobMarker || args[1] == sandbox.Marker) {
		proc.Hook()
		sandbox.Hook()
	}
}
