package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/cli"
)

// BenchmarkReadCall times one JSON-mode read of a small file through cli.Main, in
// process: the part of a call's cost that is agentbox's own, without the process
// start-up that scripts/bench's start-up rows measure.
func BenchmarkReadCall(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "small.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	for b.Loop() {
		var out bytes.Buffer
		h := cli.OSEnv()
		h.Signals, h.StdinIsData = false, true
		h.Getwd = func() (string, error) { return dir, nil }
		h.Stdin = bytes.NewReader([]byte(`{"file_path":"small.txt"}`))
		h.Stdout = &out
		if code := cli.Main([]string{"agentbox", "read"}, applets.All, h); code != 0 {
			b.Fatal(code, out.String())
		}
	}
}
