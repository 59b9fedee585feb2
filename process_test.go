package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core/proc"
)

// TestKillDuringWriteNeverTears kills agentbox with SIGKILL at random moments while it
// overwrites a file, 100 times: the file must always hold the old or the new content,
// never a mix or a truncation.
func TestKillDuringWriteNeverTears(t *testing.T) {
	bin := agentboxBinary(t)
	root := t.TempDir()
	target := filepath.Join(root, "data.txt")
	contents := []string{strings.Repeat("A", 4<<20), strings.Repeat("B", 3<<20)}
	if err := os.WriteFile(target, []byte(contents[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	reqs := make([]string, 2)
	for i, c := range contents {
		reqs[i] = fmt.Sprintf(`{"file_path":%q,"content":%q}`, target, c)
	}
	env := append(os.Environ(), "AGENTBOX_ROOT="+root, "XDG_STATE_HOME="+filepath.Join(root, ".state"), "AGENTBOX_SESSION=crash", "AGENTBOX_MODE=accept-edits", "AGENTBOX_HEADLESS=1")
	write := func(req string) *exec.Cmd {
		cmd := exec.Command(bin, "write")
		cmd.Stdin = strings.NewReader(req)
		cmd.Env = env
		return cmd
	}
	// Time one uninterrupted write, so the kills below land all over its life: before,
	// during and after the rename. (It must succeed, or the rounds would prove nothing.)
	var took []time.Duration
	for i := 0; i < 3; i++ {
		start := time.Now()
		if out, err := write(reqs[(i+1)%2]).CombinedOutput(); err != nil {
			t.Fatalf("an uninterrupted write failed: %v %.300s", err, out)
		}
		took = append(took, time.Since(start))
		if got, _ := os.ReadFile(target); string(got) != contents[(i+1)%2] {
			t.Fatal("an uninterrupted write did not land")
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	full := took[1] // the median
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	landed, cut := 0, 0
	for round := 0; round < 100; round++ {
		before, _ := os.ReadFile(target)
		cmd := write(reqs[round%2])
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int63n(int64(full) * 2)))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		got, err := os.ReadFile(target)
		if err != nil {
			t.Fatalf("round %d: the file is gone: %v", round, err)
		}
		if string(got) != contents[0] && string(got) != contents[1] {
			t.Fatalf("round %d: torn file: %d bytes, starts %q", round, len(got), got[:min(len(got), 8)])
		}
		if string(got) != string(before) {
			landed++
		} else if string(before) != contents[round%2] {
			cut++
		}
	}
	if landed == 0 || cut == 0 {
		t.Fatalf("the kills did not spread over the write (%d landed, %d cut short): the test proved nothing", landed, cut)
	}
	t.Logf("100 rounds of kill -9 (a write takes %v): %d writes landed, %d were cut short, none tore the file", full, landed, cut)
}

// TestReadFarWindowBoundedMemory reads a window near the end of a large file: the
// process must not load the file (peak RSS stays under 64 MB).
func TestReadFarWindowBoundedMemory(t *testing.T) {
	bin := agentboxBinary(t)
	root := t.TempDir()
	big := filepath.Join(root, "big.log")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte("2026-11-22T21:00:00Z INFO request handled in 12ms path=/api/v1/items status=200\n")
	chunk := bytes.Repeat(line, (1<<20)/len(line))
	const chunks = 512 // ~512 MB
	for i := 0; i < chunks; i++ {
		if _, err := f.Write(chunk); err != nil {
			t.Skipf("cannot make a large file here: %v", err)
		}
	}
	f.Close()
	total := chunks * len(chunk) / len(line)
	// The child's own rusage is useless here: Linux folds the parent's high-water mark
	// into a vforked child's ru_maxrss. GNU time forks from a small process instead.
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		t.Skip("GNU time (/usr/bin/time, Debian package time) is not installed; cannot measure peak RSS")
	}
	rssFile := filepath.Join(root, "rss")
	cmd := exec.Command(timeBin, "-f", "%M", "-o", rssFile, bin, "read")
	cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"file_path":%q,"offset":%d,"limit":5}`, big, total-3))
	cmd.Env = append(os.Environ(), "AGENTBOX_ROOT="+root, "XDG_STATE_HOME="+filepath.Join(root, ".state"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("read: %v %s", err, out)
	}
	if !strings.Contains(string(out), fmt.Sprintf(`"total_lines":%d`, total)) || !strings.Contains(string(out), `"eof":true`) {
		t.Fatalf("unexpected result: %.300s", out)
	}
	rssText, _ := os.ReadFile(rssFile)
	var rss int
	if _, err := fmt.Sscan(strings.TrimSpace(string(rssText)), &rss); err != nil {
		t.Fatalf("cannot parse GNU time's output %q: %v", rssText, err)
	}
	t.Logf("read of lines %d.. of a %d MB file: peak RSS %d KiB", total-2, chunks, rss)
	if rss > 64<<10 {
		t.Fatalf("peak RSS %d KiB is over 64 MiB: read loaded too much of the file", rss)
	}
}

// TestPlanConcurrentStepUpdates: 8 processes update different steps of one plan at the
// same time, 5 rounds; no update may be lost.
func TestPlanConcurrentStepUpdates(t *testing.T) {
	bin := agentboxBinary(t)
	root := t.TempDir()
	env := append(os.Environ(), "AGENTBOX_ROOT="+root, "XDG_STATE_HOME="+filepath.Join(root, ".state"), "AGENTBOX_HEADLESS=1")
	run := func(req string) *exec.Cmd {
		cmd := exec.Command(bin, "plan")
		cmd.Stdin = strings.NewReader(req)
		cmd.Env = env
		return cmd
	}
	steps := make([]string, 8)
	for i := range steps {
		steps[i] = fmt.Sprintf(`{"description":"step %d"}`, i+1)
	}
	if out, err := run(`{"action":"create","title":"race","steps":[` + strings.Join(steps, ",") + `]}`).CombinedOutput(); err != nil {
		t.Fatalf("create: %v %s", err, out)
	}
	for round, status := range []string{"in_progress", "completed", "skipped", "pending", "completed"} {
		var cmds []*exec.Cmd
		for i := 1; i <= 8; i++ {
			cmd := run(fmt.Sprintf(`{"action":"update_step","plan_id":"plan-001","step":%d,"status":%q}`, i, status))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		for _, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("round %d: an update failed: %v", round, err)
			}
		}
		out, _ := os.ReadFile(filepath.Join(root, ".agentbox", "plans", "plan-001.md"))
		marker := map[string]string{"in_progress": "~", "completed": "x", "skipped": "-", "pending": " "}[status]
		if got := strings.Count(string(out), "["+marker+"]"); got != 8 {
			t.Fatalf("round %d: %d of 8 steps are %s; updates were lost:\n%s", round, got, status, out)
		}
	}
}

// sleepPIDs returns the pids of live `sleep ARG` processes.
func sleepPIDs(arg string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || string(cmdline) != "sleep\x00"+arg+"\x00" {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}

// waitFor polls cond every 10 ms until it holds or d has passed.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

func bashProcess(t *testing.T, bin, command string) *exec.Cmd {
	state := t.TempDir()
	cmd := exec.Command(bin, "bash")
	cmd.Env = append(os.Environ(), "PATH="+pathWithoutApplets(), "XDG_STATE_HOME="+state, "AGENTBOX_MODE=bypass", "AGENTBOX_HEADLESS=1", "AGENTBOX_ROOT="+state)
	cmd.Dir = state
	cmd.Stdin = strings.NewReader(`{"command":` + strconv.Quote(command) + `}`)
	return cmd
}

// TestSignalStopsTheCommandTree: SIGTERM, SIGINT, SIGHUP or SIGQUIT (Go's own answer to
// which was a stack dump, leaving the command running) to agentbox while a command
// runs stops the command's whole tree (a background grandchild too) and ends the call
// with an error envelope and exit status 130; the envelope keeps what the command had
// written (a red team found it dropped).
func TestSignalStopsTheCommandTree(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	bin := agentboxBinary(t)
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		bg, fg := fmt.Sprintf("%d.5", 9700+i), fmt.Sprintf("%d.25", 9700+i)
		cmd := bashProcess(t, bin, "echo written-before-the-signal; sleep "+bg+" & sleep "+fg)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !waitFor(10*time.Second, func() bool { return len(sleepPIDs(bg)) == 1 && len(sleepPIDs(fg)) == 1 }) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: the command's sleeps never started: %s", sig, out.String())
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("%v: agentbox ended with %v, want exit status 130", sig, err)
		}
		if !strings.Contains(out.String(), `"type":"error"`) || !strings.Contains(out.String(), `"error_code":"interrupted"`) || !strings.Contains(out.String(), "interrupted") {
			t.Errorf("%v: no interrupted error envelope: %s", sig, out.String())
		}
		if !strings.Contains(out.String(), "stdout so far:\\nwritten-before-the-signal") || !strings.Contains(out.String(), `"stdout":"written-before-the-signal\n"`) {
			t.Errorf("%v: the output written before the signal is not in the envelope: %s", sig, out.String())
		}
		if !waitFor(5*time.Second, func() bool { return len(sleepPIDs(bg))+len(sleepPIDs(fg)) == 0 }) {
			t.Errorf("%v: left running: sleep %s %v, sleep %s %v", sig, bg, sleepPIDs(bg), fg, sleepPIDs(fg))
			for _, p := range append(sleepPIDs(bg), sleepPIDs(fg)...) {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	}
}

// TestSigkillEndsTheLine: agentbox killed with SIGKILL (a harness's own timeout, the
// OOM killer) cannot stop the command's tree, but the command's bash dies with it, so
// nothing more of the line runs, and the next call stops what the line had started
// (red team: the wrapper bash outlived agentbox and went on with the line, past its
// 30 s timeout, and its sleeps ran on).
func TestSigkillEndsTheLine(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	bin := agentboxBinary(t)
	marker := filepath.Join(t.TempDir(), "after")
	cmd := bashProcess(t, bin, "sleep 9711.5; touch "+marker)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { return len(sleepPIDs("9711.5")) == 1 }) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the command's sleep never started")
	}
	cmd.Process.Kill()
	cmd.Wait()
	time.Sleep(200 * time.Millisecond) // the bash gets its SIGKILL from the kernel
	// The next command finds the run its agentbox left and stops what it started.
	next := bashProcess(t, bin, "true")
	next.Env = cmd.Env // the same state folder
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("the next call: %v %s", err, out)
	}
	if !waitFor(2*time.Second, func() bool { return len(sleepPIDs("9711.5")) == 0 }) {
		for _, p := range sleepPIDs("9711.5") {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Error("what the killed agentbox's command started was still running after the next call")
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the line went on after agentbox was killed")
	}
}

// TestClosedStdoutDoesNothing: with its standard output closed no answer can reach the
// caller, so agentbox does nothing and says so on stderr (red team: a bash call and a
// write changed files the caller never heard of).
func TestClosedStdoutDoesNothing(t *testing.T) {
	bin := agentboxBinary(t)
	dir := t.TempDir()
	for applet, req := range map[string]string{
		"bash":  `{"command":"echo hi > made-by-bash"}`,
		"write": `{"file_path":"made-by-write","content":"x"}`,
	} {
		cmd := exec.Command("sh", "-c", strconv.Quote(bin)+" "+applet+" >&-")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "AGENTBOX_MODE=bypass", "AGENTBOX_HEADLESS=1", "AGENTBOX_ROOT="+dir)
		cmd.Stdin = strings.NewReader(req)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "nothing was done") {
			t.Errorf("%s with stdout closed: %v, stderr %q", applet, err, stderr.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "made-by-"+applet)); err == nil {
			t.Errorf("%s ran with nowhere to answer", applet)
		}
	}
}

// TestEarlySignalLeavesNothing sends SIGTERM at random moments of agentbox's first
// milliseconds, while it subscribes to signals beside its start-up: whether agentbox
// dies of the signal or reports the interruption, no process of the command survives.
func TestEarlySignalLeavesNothing(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	bin := agentboxBinary(t)
	const bg, fg = "9799.5", "9799.25"
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	outcomes := map[string]int{}
	for i := 0; i < 40; i++ {
		cmd := bashProcess(t, bin, "echo written-before-the-signal; sleep "+bg+" & sleep "+fg)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Intn(8000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee) && ee.ExitCode() == 130:
			outcomes["reported"]++
		case errors.As(err, &ee) && ee.ExitCode() == -1:
			outcomes["killed by the signal"]++
		default:
			outcomes[fmt.Sprint(err)]++
		}
		if !waitFor(5*time.Second, func() bool { return len(sleepPIDs(bg))+len(sleepPIDs(fg)) == 0 }) {
			left := append(sleepPIDs(bg), sleepPIDs(fg)...)
			for _, p := range left {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("round %d (%v): the command's processes %v outlived agentbox", i, err, left)
		}
	}
	t.Logf("outcomes: %v", outcomes)
}

// taskProcess is a foreground task call whose agent is a shell script of the given
// body, with its own state folder (returned).
func taskProcess(t *testing.T, body string) (*exec.Cmd, string) {
	bin := agentboxBinary(t)
	state := t.TempDir()
	agent := filepath.Join(state, "agent.sh")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "task")
	cmd.Env = append(os.Environ(), "PATH="+pathWithoutApplets(), "XDG_STATE_HOME="+state, "AGENTBOX_MODE=bypass",
		"AGENTBOX_HEADLESS=1", "AGENTBOX_ROOT="+state, "AGENTBOX_TASK_COMMAND="+agent)
	cmd.Dir = state
	cmd.Stdin = strings.NewReader(`{"description":"d","prompt":"p"}`)
	return cmd, state
}

// TestSigkillEndsAForegroundTask: a foreground task's subagent ends with the agentbox
// that waits for it, even one killed with SIGKILL (red team: it ran on until its
// timeout, 10 minutes by default).
func TestSigkillEndsAForegroundTask(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	cmd, _ := taskProcess(t, "sleep 9733.5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { return len(sleepPIDs("9733.5")) == 1 }) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the subagent never started")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !waitFor(10*time.Second, func() bool { return len(sleepPIDs("9733.5")) == 0 }) {
		for _, p := range sleepPIDs("9733.5") {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatal("the subagent of a killed foreground task was still running")
	}
}

// TestKilledSupervisorEndsAForegroundTask: a foreground task whose job supervisor is
// killed from outside ends with an error that says so, and what is left of the
// subagent's tree is stopped (a red team found a normal-looking "lost" result and the
// agent's processes running on).
func TestKilledSupervisorEndsAForegroundTask(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	cmd, state := taskProcess(t, "trap '' TERM\nsleep 9744.5")
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, p := range sleepPIDs("9744.5") {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}()
	if !waitFor(10*time.Second, func() bool { return len(sleepPIDs("9744.5")) == 1 }) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the subagent never started")
	}
	supervisor := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), proc.JobMarker) && strings.Contains(string(b), state) {
			supervisor, _ = strconv.Atoi(e.Name())
		}
	}
	if supervisor == 0 {
		t.Fatal("no supervisor found")
	}
	syscall.Kill(supervisor, syscall.SIGKILL)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the task call did not end after its supervisor was killed")
	}
	if !strings.Contains(out.String(), `"type":"error"`) || !strings.Contains(out.String(), "supervisor died") {
		t.Errorf("result: %s", out.String())
	}
	if !waitFor(10*time.Second, func() bool { return len(sleepPIDs("9744.5")) == 0 }) {
		t.Error("the subagent was still running after its supervisor was killed")
	}
}
