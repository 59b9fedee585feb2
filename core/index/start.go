package index

import (
	"context"
	"os"
	"os/exec"
	"syscall"

	"github.com/agentbox/agentbox/core/ignore"
	"github.com/agentbox/agentbox/core/walk"
)

// DefaultWalk is what an index covers: grep's default walk (hidden entries left out,
// the skip list and the ignore files respected), for the environment getenv reads.
func DefaultWalk(getenv func(string) string) walk.Options {
	return walk.Options{
		SkipDirs: walk.ParseSkipDirs(getenv("AGENTBOX_SKIP_DIRS")),
		Ignore:   ignore.Options{Home: getenv("HOME"), ConfigHome: getenv("XDG_CONFIG_HOME")},
	}
}

// Start begins a build of root's index in a detached, low-priority process of the
// binary self and returns at once; a build already running makes the new one exit.
func Start(self, cacheHome, root string, env []string) error {
	cmd := exec.Command(self, Marker, root, cacheHome)
	cmd.Args[0] = "agentbox" // a binary that dispatches on argv[0] (tests) must see agentbox
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reaped for a long-running server (mcp); nobody needs the result
	return nil
}

// Hook makes the binary an index builder when it was started by Start, and never
// returns then; otherwise it returns at once. Call it first thing in main (and in
// TestMain of tests that build in the background).
func Hook() {
	if len(os.Args) < 4 || os.Args[1] != Marker {
		return
	}
	closeInherited()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10) // a background job yields to the agent's calls
	if _, err := Build(context.Background(), os.Args[3], os.Args[2], BuildOptions{Walk: DefaultWalk(os.Getenv)}); err != nil && err != ErrBusy {
		os.Exit(1)
	}
	os.Exit(0)
}
