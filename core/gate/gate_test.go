package gate

import (
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/policy"
)

// The table's target kinds (core.Spec.Target) are the words the policy reads.
func TestTargetKindsAgree(t *testing.T) {
	for _, k := range [][2]string{
		{core.TargetPath, policy.TargetPath}, {core.TargetCommand, policy.TargetCommand},
		{core.TargetHost, policy.TargetHost}, {core.TargetNone, policy.TargetNone},
	} {
		if k[0] != k[1] {
			t.Errorf("core says %q where policy says %q", k[0], k[1])
		}
	}
}

// A grant given by answering a prompt allows what was asked but names no host for
// fetch's private addresses (red team: "allow for this session" to a name that led to
// 127.0.0.1 was refused once, then honoured; and a name may lead elsewhere tomorrow);
// one given by naming the host (agentbox permit) does.
func TestPromptedGrantNamesNoHost(t *testing.T) {
	for _, prompted := range []bool{true, false} {
		r, err := policy.Grant{Permission: "net.fetch", Pattern: "vm:18084", Scope: "session", Prompted: prompted}.Rule()
		if err != nil {
			t.Fatal(err)
		}
		d := CoreDecision(policy.Decision{Action: policy.Allow, Rule: r})
		if got := d.Pattern != ""; got == prompted {
			t.Errorf("prompted %v: decision pattern %q", prompted, d.Pattern)
		}
	}
}
