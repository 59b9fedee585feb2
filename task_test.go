package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// taskCommand runs `agentbox task` with the fake agent configured, in a fresh workspace.
func taskCommand(t *testing.T, request string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	bin := agentboxBinary(t)
	fake, err := filepath.Abs("testdata/task/fake-agent")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	cmd := exec.Command(bin, "task")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(request)
	// PATH without the tests' applet links: their bash is the test binary, not bash.
	cmd.Env = append(os.Environ(), "PATH="+pathWithoutApplets(), "HOME="+dir, "XDG_STATE_HOME="+dir+"/.state", "XDG_CONFIG_HOME="+dir+"/.config",
		"AGENTBOX_ROOT="+dir, "AGENTBOX_MODE=bypass", "AGENTBOX_HEADLESS=1", "AGENTBOX_TASK_COMMAND="+fake, "AGENTBOX_SESSION=t1")
	var out bytes.Buffer
	cmd.Stdout = &out
	return cmd, dir, &out
}

// taskPids waits for the fake agent's pid file (its own pid and its grandchild's).
func taskPids(t *testing.T, dir string) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(filepath.Join(dir, "task-pids"))
		if f := strings.Fields(string(b)); err == nil && len(f) == 2 {
			var pids []int
			for _, s := range f {
				n, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("task-pids holds %q", b)
				}
				pids = append(pids, n)
			}
			return pids
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the fake agent never wrote task-pids")
	return nil
}

// assertGone fails unless every pid has exited (a zombie counts as exited: it holds no
// resources and runs nothing).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for _, pid := range pids {
		for {
			if syscall.Kill(pid, 0) == syscall.ESRCH || isZombie(pid) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("process %d outlived its task", pid)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// TestTaskTimeoutLeavesNoProcess: a task past its timeout is stopped with everything it
// started, a grandchild in the background included, and the call says timeout.
func TestTaskTimeoutLeavesNoProcess(t *testing.T) {
	cmd, dir, out := taskCommand(t, `{"description":"sleeper","prompt":"sleep","timeout":1500}`)
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err == nil || !strings.Contains(out.String(), `"error_code":"timeout"`) {
		t.Fatalf("want a timeout error, got %v: %s", err, out)
	}
	if took > 10*time.Second {
		t.Errorf("the timed-out task took %v to return", took)
	}
	assertGone(t, taskPids(t, dir))
}

// TestTaskSignalLeavesNoProcess: SIGTERM to agentbox during a foreground task ends the
// subagent's whole tree too, and agentbox reports the interruption.
func TestTaskSignalLeavesNoProcess(t *testing.T) {
	cmd, dir, out := taskCommand(t, `{"description":"sleeper","prompt":"sleep"}`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := taskPids(t, dir)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if err == nil || !strings.Contains(out.String(), `"error_code":"interrupted"`) {
		t.Fatalf("want an interrupted error, got %v: %s", err, out)
	}
	assertGone(t, pids)
}

// An agent that exits while something it started still holds its output (a red team's
// finding: the call hung past its timeout, and the supervisor never recorded the end):
// the task ends with the agent, its answer is read, and what it left behind is stopped.
func TestTaskAgentLeavesAHolder(t *testing.T) {
	cmd, dir, out := taskCommand(t, `{"description":"holder","prompt":"x","timeout":30000}`)
	agent := filepath.Join(dir, "holder-agent")
	os.WriteFile(agent, []byte("#!/bin/sh\necho '{\"type\":\"result\",\"result\":\"done\"}'\nsetsid sh -c 'echo $$ > '"+dir+"/holder.pid'; exec sleep 60' &\nsleep 0.2\n"), 0o755)
	cmd.Env = append(cmd.Env, "AGENTBOX_TASK_COMMAND="+agent)
	start := time.Now()
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), `"answer":"done"`) {
		t.Fatalf("%v: %s", err, out)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the task took %v: it waited for what its agent left behind", took)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "holder.pid"))
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("holder.pid: %q", b)
	}
	assertGone(t, []int{pid})
}

// With the prompt in place of {prompt}, the agent's stdin is empty and closed: an agent
// that reads stdin when it is not a terminal (opencode run) does not wait forever.
func TestTaskPromptArgumentClosesStdin(t *testing.T) {
	cmd, dir, out := taskCommand(t, `{"description":"reader","prompt":"hello {agent}","timeout":20000}`)
	agent := filepath.Join(dir, "reader-agent")
	os.WriteFile(agent, []byte("#!/bin/sh\nread -r line\necho \"stdin=[$line] arg=[$1]\"\n"), 0o755)
	cmd.Env = append(cmd.Env, "AGENTBOX_TASK_COMMAND="+agent+" {prompt}")
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the task took %v", took)
	}
	// stdin is empty, and a {agent} inside the prompt stays as written.
	if !strings.Contains(out.String(), `stdin=[] arg=[hello {agent}]`) {
		t.Errorf("answer: %s", out)
	}
}

// A prompt no program can take (a NUL) is refused up front, and leaves no job behind
// that would count against max_running.
func TestTaskBadPromptLeavesNoJob(t *testing.T) {
	cmd, dir, out := taskCommand(t, `{"description":"d","prompt":"a\u0000b"}`)
	if err := cmd.Run(); err == nil || !strings.Contains(out.String(), "invalid_params") {
		t.Fatalf("%v: %s", err, out)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".state", "agentbox", "sessions", "t1", "tasks")); len(entries) > 0 {
		t.Errorf("a refused task left %d entries in the session's tasks folder", len(entries))
	}
}
