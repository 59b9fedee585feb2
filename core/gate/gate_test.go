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
