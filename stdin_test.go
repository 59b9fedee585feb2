package main

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestSignalWhileStdinStaysOpen: a writer that holds agentbox's stdin open and sends
// nothing (a harness that never closes the pipe, `sleep 60 | agentbox grep x`) cannot
// keep agentbox from stopping on SIGTERM, in JSON mode (reading the request) and in
// grep's shell mode (reading the data to search).
func TestSignalWhileStdinStaysOpen(t *testing.T) {
	bin := agentboxBinary(t)
	for _, args := range [][]string{{"ls"}, {"grep", "hello"}} {
		dir := t.TempDir()
		os.WriteFile(dir+"/a.txt", []byte("hello\n"), 0o644)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Stdin = dir, r
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_STATE_HOME="+dir, "AGENTBOX_ROOT="+dir, "AGENTBOX_MODE=bypass")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		time.Sleep(300 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("%v: exit %d after SIGTERM, want 130", args, code)
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Errorf("%v: still running 5 s after SIGTERM with stdin held open", args)
		}
		w.Close()
	}
}
