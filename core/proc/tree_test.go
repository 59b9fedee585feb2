package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sleepers returns the pids of live `sleep N` processes for the given N.
func sleepers(n string) []int {
	var out []int
	for _, p := range scanProcs() {
		if p.state == 'Z' {
			continue
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
		if err == nil && strings.Join(strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"), " ") == "sleep "+n {
			out = append(out, p.pid)
		}
	}
	return out
}

// TestTimeoutKillsEscapedProcesses: processes that left the process group with setsid
// (still marked, or orphaned with a cleared environment) die with the command.
func TestTimeoutKillsEscapedProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	names := []string{"3001", "3002", "3003", "3004"}
	for _, n := range names {
		for _, pid := range sleepers(n) {
			killPid(pid)
		}
	}
	cmd := strings.Join([]string{
		`setsid sleep 3001 & echo $!;`,                       // new session, still a child of bash
		`(setsid sleep 3002 & echo $!);`,                     // new session, orphaned at once
		`(env -i /usr/bin/env setsid sleep 3003 & echo $!);`, // orphaned, environment cleared
		`setsid bash -c 'sleep 3004 & wait' &`,               // a new session with a child of its own
		`sleep 0.3; echo ready; sleep 1000`,
	}, " ")
	r := run(t, Options{Command: cmd, Timeout: time.Second, Grace: 300 * time.Millisecond})
	out := strings.Fields(r.Stdout.Text)
	if !r.TimedOut || len(out) != 4 || out[3] != "ready" {
		t.Fatalf("got %+v", r)
	}
	for _, n := range names {
		if pids := sleepers(n); len(pids) > 0 {
			for _, pid := range pids {
				killPid(pid)
			}
			t.Errorf("sleep %s (pids %v) survived the timeout", n, pids)
		}
	}
	// The orphans this process adopted and killed were reaped, not left as zombies.
	for _, p := range out[:3] {
		if st, ok := readStat(p); ok && st.state == 'Z' {
			t.Errorf("zombie %s left behind", p)
		}
	}
}

// TestMarkNotInherited: the caller's own mark never reaches a command, so a command
// run from inside another cannot be mistaken for the outer one's.
func TestMarkNotInherited(t *testing.T) {
	env := CleanEnv([]string{"PATH=/usr/bin:/bin", RunVar + "=outer"}, nil)
	for _, kv := range env {
		if strings.HasPrefix(kv, RunVar+"=") {
			t.Fatalf("mark passed on: %v", env)
		}
	}
	r := run(t, Options{Command: `echo "$` + RunVar + `"`, BaseEnv: []string{"PATH=/usr/bin:/bin", RunVar + "=outer"}})
	if got := strings.TrimSpace(r.Stdout.Text); got == "" || got == "outer" {
		t.Fatalf("mark = %q, want a fresh id", got)
	}
}

// TestJobKillAndTimeoutReachEscapedProcesses: a background job's setsid'd processes
// die with it, whether it is killed or runs past its background timeout.
func TestJobKillAndTimeoutReachEscapedProcesses(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	cases := []struct {
		n    string
		opts StartOptions
		kill bool
	}{
		{"3011", StartOptions{Command: `setsid sleep 3011 & (setsid sleep 3011 &); echo up; sleep 1000`}, true},
		{"3012", StartOptions{Command: `setsid sleep 3012 & (setsid sleep 3012 &); echo up; sleep 1000`, Timeout: 700 * time.Millisecond, Grace: 200 * time.Millisecond}, false},
	}
	for _, c := range cases {
		c.opts.Dir = t.TempDir()
		job, err := j.Start(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			if ch, _ := j.Output(job.ID, false, 0, 0, 0); ch.Stdout != "" {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if c.kill {
			job, err = j.Kill(job.ID, 300*time.Millisecond)
		} else {
			job, err = j.Wait(job.ID, 5*time.Second)
		}
		if err != nil || job.State == "running" {
			t.Fatalf("job %+v %v", job, err)
		}
		// They were signalled before Kill or Wait returned; on a loaded machine the
		// kernel may take a moment to end them (CI under a red team's load did).
		pids := sleepers(c.n)
		for deadline := time.Now().Add(3 * time.Second); len(pids) > 0 && time.Now().Before(deadline); pids = sleepers(c.n) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(pids) > 0 {
			for _, pid := range pids {
				killPid(pid)
			}
			t.Errorf("sleep %s (pids %v) outlived job %s (%s)", c.n, pids, job.ID, job.State)
		}
	}
}

// bootTicks must be a lower bound of the starttime /proc gives a process started after
// it (the adoption test in members relies on it), and no later than now.
func TestBootTicksBoundsStartTime(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	for i := 0; i < 20; i++ {
		before := bootTicks()
		cmd := exec.Command("sleep", "1")
		if err := cmd.Start(); err != nil {
			t.Skip("no sleep:", err)
		}
		st, ok := readStat(strconv.Itoa(cmd.Process.Pid))
		cmd.Process.Kill()
		cmd.Wait()
		if !ok {
			t.Fatal("cannot read the child's stat")
		}
		if st.start < before {
			t.Fatalf("child started at tick %d, before bootTicks() = %d", st.start, before)
		}
		if after := bootTicks(); st.start > after {
			t.Fatalf("child started at tick %d, after the later bootTicks() = %d: the unit is wrong", st.start, after)
		}
	}
}
