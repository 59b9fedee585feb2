package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core/proc"
)

// BenchmarkBashOverhead compares one `agentbox bash true` call (process start, JSON
// request, watchdog, policy, bash, envelope) with plain `bash -c true`, end to end.
// The difference of the two is the overhead per call (target: under 5 ms).
func BenchmarkBashOverhead(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "agentbox")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Skipf("cannot build agentbox: %v\n%s", err, out)
	}
	bash, err := proc.FindBash("/usr/bin:/bin")
	if err != nil {
		b.Skip(err)
	}
	state := b.TempDir()
	env := append(os.Environ(), "XDG_STATE_HOME="+state, "AGENTBOX_MODE=bypass", "AGENTBOX_HEADLESS=1")
	b.Run("bash", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(bash, "--noprofile", "--norc", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("agentbox", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(bin, "bash")
			cmd.Env = env
			cmd.Stdin = strings.NewReader(`{"command":"true"}`)
			if out, err := cmd.Output(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
		}
	})
}
