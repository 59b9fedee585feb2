package core

import (
	"github.com/agentbox/agentbox/core/policy"
	"github.com/agentbox/agentbox/core/proc"
	"github.com/agentbox/agentbox/core/sandbox"
	"github.com/agentbox/agentbox/core/shell"
)

// ShellSplit is the policy's view of a bash line: core/shell's Analyze, adapted.
func ShellSplit(line string) (*policy.Analysis, error) {
	a, err := shell.Analyze(line)
	if err != nil {
		return nil, err
	}
	out := &policy.Analysis{Uncertain: a.Uncertain, Commands: make([]policy.SimpleCommand, 0, len(a.Commands))}
	for _, c := range a.Commands {
		sc := policy.SimpleCommand{Argv: c.Argv, Context: c.Context}
		for _, r := range c.Redirects {
			sc.Redirects = append(sc.Redirects, policy.Redirect{Op: r.Op, Target: r.Target})
		}
		out.Commands = append(out.Commands, sc)
	}
	return out, nil
}

// runHelper runs a re-exec'd helper (background job supervisor, sandbox) when args
// name one; such a process never returns from here.
func runHelper(args []string) {
	if len(args) > 1 && (args[1] == proc.JobMarker || args[1] == sandbox.Marker) {
		proc.Hook()
		sandbox.Hook()
	}
}
