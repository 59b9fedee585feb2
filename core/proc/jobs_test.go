package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestJobSurvivesStarter(t *testing.T) {
	dir := t.TempDir()
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "PROC_TEST_START_JOB="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("starter: %v %s", err, out)
	}
	starterGone := time.Now()
	id := string(out)
	j := &Jobs{Dir: dir}
	job, err := j.Wait(id, 10*time.Second)
	if err != nil || job.State != "exited" || *job.ExitCode != 0 || job.PID == 0 {
		t.Fatalf("after wait: %+v %v", job, err)
	}
	if !job.Ended.After(starterGone) {
		t.Skipf("the machine is too slow: the job ended (%v) before its starter did (%v)", job.Ended, starterGone)
	}
	c, _ := j.Output(id, true, 0, 0, 0)
	if c.Stdout != "survived\n" {
		t.Fatalf("output %q", c.Stdout)
	}
}

func TestJobIncrementalOutput(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	job, err := j.Start(StartOptions{Command: `echo one; read a; echo two >&2; echo three; read x; echo "got $x"`, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	waitFor := func(cond func(c *Chunk) bool) *Chunk {
		var c *Chunk
		for i := 0; i < 200; i++ {
			c, err = j.Output(job.ID, false, 0, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if cond(c) {
				return c
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("condition never met; last %+v", c)
		return nil
	}
	waitFor(func(c *Chunk) bool { return c.Stdout == "one\n" })
	c, _ := j.Output(job.ID, true, 0, 0, 0)
	if c.Stdout != "one\n" || c.StdoutOffset != 4 {
		t.Fatalf("first since-read %+v", c)
	}
	if err := j.Input(job.ID, "go\n", false); err != nil {
		t.Fatal(err)
	}
	waitFor(func(c *Chunk) bool { return strings.Contains(c.Stdout, "three") })
	c, _ = j.Output(job.ID, true, 0, 0, 0)
	if c.Stdout != "three\n" || c.Stderr != "two\n" {
		t.Fatalf("second since-read returned %+v", c)
	}
	c, _ = j.Output(job.ID, true, 0, 0, 0)
	if c.Stdout != "" || c.Stderr != "" {
		t.Fatalf("third since-read not empty: %+v", c)
	}
	// Explicit offsets do not move the cursor.
	c, _ = j.Output(job.ID, false, 4, 0, 3)
	if c.Stdout != "thr" || !c.More || c.StdoutOffset != 7 {
		t.Fatalf("offset read %+v", c)
	}
	if err := j.Input(job.ID, "hello\n", true); err != nil {
		t.Fatal(err)
	}
	done, err := j.Wait(job.ID, 5*time.Second)
	if err != nil || done.State != "exited" {
		t.Fatalf("%+v %v", done, err)
	}
	c, _ = j.Output(job.ID, true, 0, 0, 0)
	if c.Stdout != "got hello\n" {
		t.Fatalf("after input: %q", c.Stdout)
	}
	if err := j.Input(job.ID, "more", false); err == nil {
		t.Error("input to a finished job accepted")
	}
}

func TestJobInputEOF(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	job, err := j.Start(StartOptions{Command: `wc -l`, Dir: t.TempDir(), Stdin: "a\nb\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Input(job.ID, "c\n", true); err != nil {
		t.Fatal(err)
	}
	job, _ = j.Wait(job.ID, 5*time.Second)
	c, _ := j.Output(job.ID, false, 0, 0, 0)
	if job.State != "exited" || strings.TrimSpace(c.Stdout) != "3" {
		t.Fatalf("%+v %q", job, c.Stdout)
	}
}

func TestJobKillAndTimeout(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	job, err := j.Start(StartOptions{Command: `sleep 1000 & echo $!; sleep 1000`, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var c *Chunk
	for i := 0; i < 100; i++ {
		if c, _ = j.Output(job.ID, false, 0, 0, 0); c.Stdout != "" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	killed, err := j.Kill(job.ID, time.Second)
	if err != nil || killed.State != "killed" {
		t.Fatalf("kill: %+v %v", killed, err)
	}
	var pid int
	if _, err := fmtSscan(c.Stdout, &pid); err == nil && alive(pid) {
		t.Errorf("the job's child %d survived kill", pid)
	}

	job, err = j.Start(StartOptions{Command: `sleep 1000`, Dir: t.TempDir(), Timeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	job, _ = j.Wait(job.ID, 5*time.Second)
	if job.State != "timed_out" {
		t.Fatalf("background timeout: %+v", job)
	}
	list, _ := j.List()
	if len(list) != 2 || list[0].ID != "1" || list[1].ID != "2" {
		t.Fatalf("list %+v", list)
	}
	if gone := j.Cleanup(0); len(gone) != 2 {
		t.Fatalf("cleanup removed %v", gone)
	}
	if _, err := j.Get("1"); err == nil {
		t.Fatal("job 1 still there after cleanup")
	}
}

func TestJobUnknownID(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	for _, id := range []string{"", "7", "../x", "."} {
		if _, err := j.Get(id); err == nil || !strings.Contains(err.Error(), "list the jobs") {
			t.Errorf("Get(%q) = %v", id, err)
		}
	}
}

func fmtSscan(s string, pid *int) (int, error) { return fmt.Sscan(strings.TrimSpace(s), pid) }

// TestOldJobsCleanedOnStart: starting a job removes the files of jobs that finished
// more than DefaultJobMaxAge ago, and keeps recent and running ones.
func TestOldJobsCleanedOnStart(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	var ids []string
	for _, cmd := range []string{"true", "exit 3", "sleep 30"} {
		job, err := j.Start(StartOptions{Command: cmd, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, job.ID)
	}
	defer j.Kill(ids[2], 100*time.Millisecond)
	for _, id := range ids[:2] {
		if job, err := j.Wait(id, 5*time.Second); err != nil || job.State != "exited" {
			t.Fatalf("job %s: %+v %v", id, job, err)
		}
	}
	// Job 1 finished long ago.
	var ef exitFile
	if err := readJSON(j.path(ids[0], "exit.json"), &ef); err != nil {
		t.Fatal(err)
	}
	ef.Ended = time.Now().Add(-DefaultJobMaxAge - time.Hour)
	if err := writeJSON(j.path(ids[0], "exit.json"), ef); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Start(StartOptions{Command: "true", Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j.path(ids[0], "stdout")); !os.IsNotExist(err) {
		t.Errorf("the old job's files are still there: %v", err)
	}
	for _, id := range ids[1:] {
		if job, err := j.Get(id); err != nil {
			t.Errorf("job %s (recent or running) was removed: %v", id, err)
		} else if id == ids[1] && (job.ExitCode == nil || *job.ExitCode != 3) {
			t.Errorf("finished job %s reported without its exit status: %+v", id, job)
		}
	}
}

// A background job's output files are capped (issue 17.4): `yes` cannot fill the
// disk; the file says where it was cut and how much was dropped, and the job is not
// blocked by the cap (it runs to its end).
func TestJobOutputCapped(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	job, err := j.Start(StartOptions{Command: `yes | head -c 5000000; echo done >&2`, Dir: t.TempDir(), MaxOutput: 100000})
	if err != nil {
		t.Fatal(err)
	}
	job, err = j.Wait(job.ID, 30*time.Second)
	if err != nil || job.State != "exited" || *job.ExitCode != 0 {
		t.Fatalf("job: %+v %v", job, err)
	}
	b, err := os.ReadFile(job.StdoutPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 100000+10000+300 {
		t.Errorf("stdout file of %d bytes past a cap of 100000 and a tail of 10000", len(b))
	}
	if !strings.Contains(string(b), "reached its cap of 100000 bytes") || !strings.Contains(string(b), "4890000 bytes were dropped") {
		t.Errorf("no note at the cut: %q", b[max(0, len(b)-10300):max(0, len(b)-10000)])
	}
	// The end of the flood is kept: the last line yes printed is there.
	if !strings.HasSuffix(string(b), "y\n") || strings.Count(string(b[len(b)-10000:]), "y\n") != 5000 {
		t.Errorf("the last 10000 bytes are not the tail of the output")
	}
	if e, _ := os.ReadFile(job.StderrPath); string(e) != "done\n" {
		t.Errorf("stderr %q", e)
	}
	// Under the cap nothing is added.
	job, _ = j.Start(StartOptions{Command: `printf 'y\n%.0s' $(seq 10)`, Dir: t.TempDir(), MaxOutput: 20})
	job, err = j.Wait(job.ID, 30*time.Second)
	if b, _ := os.ReadFile(job.StdoutPath); err != nil || string(b) != strings.Repeat("y\n", 10) {
		t.Errorf("exactly at the cap: %q %v", b, err)
	}
}

// A job that cannot start leaves nothing behind: no "starting" entry that would count
// as running forever (a red team's finding, through task's max_running).
func TestJobFailedStartLeavesNothing(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	if _, err := j.Start(StartOptions{Command: "true", Bash: "/nonexistent/bash", Dir: t.TempDir()}); err == nil {
		t.Fatal("a job with a missing bash started")
	}
	if jobs, err := j.List(); err != nil || len(jobs) != 0 {
		t.Errorf("after a failed start: %d jobs (%v)", len(jobs), err)
	}
}

// The host's environment is the supervisor's own, never written into the job's folder,
// which the session can read.
func TestJobSpecHoldsNoEnvironment(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	job, err := j.Start(StartOptions{Command: `echo "$SECRET_FOR_TEST"`, Dir: t.TempDir(), BaseEnv: append(os.Environ(), "SECRET_FOR_TEST=hunter2")})
	if err != nil {
		t.Fatal(err)
	}
	job, _ = j.Wait(job.ID, 30*time.Second)
	if b, _ := os.ReadFile(job.StdoutPath); string(b) != "hunter2\n" {
		t.Errorf("the job did not get its environment: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(j.Dir, job.ID, "spec.json")); strings.Contains(string(b), "hunter2") {
		t.Errorf("spec.json holds the environment: %s", b)
	}
}

// A job whose supervisor has not yet said it started is waited for like a running one,
// not reported at once as if it had ended.
func TestWaitWaitsForAStartingJob(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(j.Dir, "1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(j.Dir, "1", "spec.json"), []byte(`{"command":"sleep 1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	job, err := j.Wait("1", 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if job.State != "starting" || time.Since(start) < 250*time.Millisecond {
		t.Errorf("Wait returned %q after %v, want starting after the whole timeout", job.State, time.Since(start))
	}
}

// TestKillOfALostJob: a job whose supervisor died (kill -9, the OOM killer) is "lost",
// and kill still stops what it left running and records it as killed (a red team's
// subagent ran on with no timeout left, and kill left it running).
func TestKillOfALostJob(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	job, err := j.Start(StartOptions{Command: `echo up; sleep 1000`, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if job, _ = j.Get(job.ID); job.StdoutBytes > 0 && job.PID > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(job.supervisor, syscall.SIGKILL)
	for i := 0; i < 200 && alive(job.supervisor); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if job, _ = j.Get(job.ID); job.State != "lost" {
		t.Fatalf("after its supervisor died: %+v", job)
	}
	killed, err := j.Kill(job.ID, 500*time.Millisecond)
	if err != nil || killed.State != "killed" {
		t.Fatalf("kill of a lost job: %+v %v", killed, err)
	}
	if groupAlive(job.PID) {
		syscall.Kill(-job.PID, syscall.SIGKILL)
		t.Fatal("the lost job's process group is still running")
	}
}

// An input to a job that does not read gives up, saying how much went in, after
// InputStall, or at once when its context ends; an output of the job meanwhile does not
// wait for it (red team: both hung for as long as the job ran, deaf to signals).
func TestJobInputToAJobThatDoesNotRead(t *testing.T) {
	defer func(d time.Duration) { InputStall = d }(InputStall)
	InputStall = 300 * time.Millisecond
	j := &Jobs{Dir: t.TempDir()}
	job, err := j.Start(StartOptions{Command: `sleep 30`, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Kill(job.ID, time.Second)
	big := strings.Repeat("y", 1<<20)
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- j.Input(job.ID, big, false) }()
	time.Sleep(100 * time.Millisecond)
	if _, err := j.Output(job.ID, false, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("output waited %v for the input", d)
	}
	err = <-done
	var stalled *InputStalled
	if !errors.As(err, &stalled) || stalled.Written == 0 || stalled.Written >= len(big) || stalled.Total != len(big) || stalled.Cause != nil {
		t.Fatalf("input to a job that does not read: %v (%+v)", err, stalled)
	}
	if stalled.Written%4000 != 0 {
		t.Errorf("%d bytes went in: not whole frames", stalled.Written)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start = time.Now()
	err = j.InputContext(ctx, job.ID, big, false)
	if !errors.As(err, &stalled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled input: %v", err)
	}
	if d := time.Since(start); d > InputStall {
		t.Errorf("a cancelled input took %v", d)
	}
}

// A job that prints past its output cap is marked so in its state, with the bytes
// dropped, not only by the note inside the file (red team: a reader was told nothing).
func TestJobCappedOutputIsReported(t *testing.T) {
	j := &Jobs{Dir: t.TempDir()}
	job, err := j.Start(StartOptions{Command: `head -c 200000 /dev/zero | tr '\0' y; echo end`, Dir: t.TempDir(), MaxOutput: 20000})
	if err != nil {
		t.Fatal(err)
	}
	job, err = j.Wait(job.ID, 10*time.Second)
	if err != nil || job.State != "exited" {
		t.Fatalf("%+v %v", job, err)
	}
	if !slices.Equal(job.Capped, []string{"stdout"}) || job.DroppedBytes < 170000 || job.DroppedBytes > 200004-20000 {
		t.Fatalf("capped %v, dropped %d", job.Capped, job.DroppedBytes)
	}
	small, _ := j.Start(StartOptions{Command: `echo small`, Dir: t.TempDir(), MaxOutput: 20000})
	if small, _ = j.Wait(small.ID, 10*time.Second); len(small.Capped) != 0 || small.DroppedBytes != 0 {
		t.Fatalf("an uncapped job: %+v", small)
	}
}
