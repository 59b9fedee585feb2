package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnwritableStdoutIsAnError: an answer that cannot be written (a full disk) is
// not a success. Every call here exited 0 with a cut file and nothing on stderr; now
// the status is an error (grep's 2 at a shell, where 1 means no match) and stderr
// says the result is incomplete.
func TestUnwritableStdoutIsAnError(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full to write to: %v", err)
	}
	defer full.Close()
	bin := agentboxBinary(t)
	dir := t.TempDir()
	var body strings.Builder
	for i := 0; i < 20000; i++ {
		body.WriteString("needle in a line long enough to pass one buffer quickly\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
		want  int
	}{
		{"grep json, streamed", []string{"grep"}, `{"pattern":"needle","path":"` + dir + `","output_mode":"content","head_limit":100000}`, 1},
		{"grep json, small", []string{"grep"}, `{"pattern":"needle","path":"` + dir + `"}`, 1},
		{"read json", []string{"read"}, `{"file_path":"` + filepath.Join(dir, "a.txt") + `","limit":3}`, 1},
		{"error envelope", []string{"read"}, `{"file_path":"` + filepath.Join(dir, "missing.txt") + `"}`, 1},
		{"grep text", []string{"grep", "needle", dir}, "", 2},
		{"read text", []string{"read", filepath.Join(dir, "a.txt")}, "", 1},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "AGENTBOX_MODE=bypass", "AGENTBOX_HEADLESS=1", "AGENTBOX_INDEX=off",
			"XDG_STATE_HOME="+filepath.Join(dir, "state"), "AGENTBOX_ROOT="+dir)
		cmd.Stdin = strings.NewReader(c.stdin)
		cmd.Stdout = full
		var stderr strings.Builder
		cmd.Stderr = &stderr
		code := exitCode(t, cmd.Run())
		if code != c.want || !strings.Contains(stderr.String(), "could not be written to standard output") {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and a note that the result is incomplete", c.name, code, stderr.String(), c.want)
		}
	}
}

// TestClosedStdoutIsAnError: a call started with its standard output closed exited 0
// with the answer gone (the Go runtime puts /dev/null there). Now it is 1 with a line on
// stderr; stdout sent to /dev/null on purpose still exits 0.
func TestClosedStdoutIsAnError(t *testing.T) {
	sh := "/bin/sh" // by path: on this test binary's PATH, "bash" is agentbox's applet
	if _, err := os.Stat(sh); err != nil {
		t.Skip("no /bin/sh to close the descriptor for this test")
	}
	bin := agentboxBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		redirect string
		want     int
	}{{">&-", 1}, {">/dev/null", 0}} {
		cmd := exec.Command(sh, "-c", `"$0" read a.txt `+c.redirect, bin)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "AGENTBOX_MODE=bypass", "AGENTBOX_HEADLESS=1", "AGENTBOX_INDEX=off",
			"XDG_STATE_HOME="+filepath.Join(dir, "state"), "AGENTBOX_ROOT="+dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		code := exitCode(t, cmd.Run())
		if code != c.want {
			t.Errorf("read %s: exit %d, want %d; stderr: %s", c.redirect, code, c.want, stderr.String())
		}
		if c.want != 0 && !strings.Contains(stderr.String(), "standard output was closed") {
			t.Errorf("read %s: stderr does not say the answer was lost: %q", c.redirect, stderr.String())
		}
	}
}

// exitCode is the exit status of a command run with the error it returned.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestReaderGoneIsAnError: a JSON caller that closes its end of stdout before the
// envelope is written gets exit 1 and a line on stderr, not a silent death by SIGPIPE
// (141), which the README's "never 0 ... with a line on stderr" did not cover.
func TestReaderGoneIsAnError(t *testing.T) {
	bin := agentboxBinary(t)
	dir := t.TempDir()
	var body strings.Builder
	for i := 0; i < 300000; i++ {
		body.WriteString("a line of the file to read\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "read")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTBOX_MODE=bypass", "AGENTBOX_HEADLESS=1", "XDG_STATE_HOME="+filepath.Join(dir, "state"), "AGENTBOX_ROOT="+dir)
	cmd.Stdin = strings.NewReader(`{"file_path":"big.txt","limit":300000,"max_bytes":20000000}`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	if _, err := io.ReadFull(out, buf); err != nil {
		t.Fatal(err)
	}
	out.Close()
	if code := exitCode(t, cmd.Wait()); code != 1 || !strings.Contains(stderr.String(), "could not be written to standard output") {
		t.Errorf("exit %d, stderr %q; want 1 and a line saying the answer is cut", code, stderr.String())
	}
}
