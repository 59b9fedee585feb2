package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The end-to-end tests' shared helpers: one build of the real binary, static as
// README.md builds it, removed when the tests end (TestMain), and the PATH a
// separately started agentbox needs.

var (
	buildOnce sync.Once
	builtDir  string
	builtBin  string
	buildErr  error
)

// agentboxBinary builds the real binary once, for tests and benchmarks that need a
// separate process (kill -9, signals, memory, start-up time).
func agentboxBinary(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds the binary; skipped in -short mode")
	}
	buildOnce.Do(func() {
		if builtDir, buildErr = os.MkdirTemp("", "agentbox-bin"); buildErr != nil {
			return
		}
		builtBin = filepath.Join(builtDir, "agentbox")
		build := exec.Command("go", "build", "-o", builtBin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as README.md builds it
		if out, err := build.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return builtBin
}

// removeBuiltBinary deletes the build of agentboxBinary (TestMain calls it).
func removeBuiltBinary() {
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
}

// cleaningM runs the tests, then removes the built binary: testscript.Main exits the
// process itself, so the cleanup rides on Run.
type cleaningM struct{ m *testing.M }

func (c cleaningM) Run() int {
	defer removeBuiltBinary()
	return c.m.Run()
}

// pathWithoutApplets is $PATH without the folders testscript fills with links named
// after the applets (bash among them, standing for this test binary), so a separately
// started agentbox finds the real bash.
func pathWithoutApplets() string {
	self, _ := os.Executable()
	selfInfo, _ := os.Stat(self)
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "agentbox")); err == nil {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, "bash")); err == nil && selfInfo != nil && os.SameFile(st, selfInfo) {
			continue
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
