package applets

import (
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
	os.Exit(m.Run())
}
