package applets

import (
	"github.com/agentbox/agentbox/core/gate"
	"os"
	"testing"

	"github.com/agentbox/agentbox/core/proc"
	"github.com/agentbox/agentbox/core/sandbox"
)

// TestMain lets the test binary act as the background job supervisor and the sandbox
// helper, as agentbox does when it re-executes itself.
func TestMain(m *testing.M) {
	proc.Hook()
	sandbox.Hook()
	// In-memory calls build an Env without the table; the policy learns the applets
	// from it here, as a real run does through the gate.
	gate.UseApplets(All)
	os.Exit(m.Run())
}
