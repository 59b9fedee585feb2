package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core/sandbox"
)

func TestMain(m *testing.M) {
	Hook()
	sandbox.Hook()
	// Mode used by TestJobSurvivesStarter: start a job, print its id, exit.
	if dir := os.Getenv("PROC_TEST_START_JOB"); dir != "" {
		j := &Jobs{Dir: dir}
		job, err := j.Start(StartOptions{Command: "sleep 2; echo survived", Dir: os.TempDir()})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Print(job.ID)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func run(t *testing.T, o Options) *Result {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunBasics(t *testing.T) {
	r := run(t, Options{Command: `echo out; echo err >&2; exit 3`})
	if r.ExitCode != 3 || r.Stdout.Text != "out\n" || r.Stderr.Text != "err\n" || r.TimedOut {
		t.Fatalf("got %+v", r)
	}
	if r := run(t, Options{Command: `read x; echo "[$x]"`}); r.Stdout.Text != "[]\n" {
		t.Errorf("stdin is not /dev/null: %q", r.Stdout.Text)
	}
	if r := run(t, Options{Command: `cat`, Stdin: strings.NewReader("fed\n")}); r.Stdout.Text != "fed\n" {
		t.Errorf("stdin not passed: %q", r.Stdout.Text)
	}
	if r := run(t, Options{Command: `kill -KILL $$`}); r.ExitCode != 137 || r.Signal != "SIGKILL" {
		t.Errorf("signal exit: %d %q", r.ExitCode, r.Signal)
	}
	if r := run(t, Options{Command: `if then`}); r.ExitCode != 2 || !strings.Contains(r.Stderr.Text, "syntax error") {
		t.Errorf("syntax error: %+v", r)
	}
	// bash quotes the failing line: the command's own, without the prelude before it.
	if r := run(t, Options{Command: `if then fi`}); !strings.Contains(r.Stderr.Text, "line 1: `if then fi'") || strings.Contains(r.Stderr.Text, "exec") {
		t.Errorf("syntax error shows the wrapper: %q", r.Stderr.Text)
	}
}

func TestRunFinalDir(t *testing.T) {
	base := t.TempDir()
	os.Mkdir(filepath.Join(base, "sub"), 0o755)
	r := run(t, Options{Command: `cd sub && echo hi`, Dir: base})
	if want, _ := filepath.EvalSymlinks(filepath.Join(base, "sub")); r.Dir != want && r.Dir != filepath.Join(base, "sub") {
		t.Errorf("final dir %q, want %q", r.Dir, want)
	}
	// The command may use fd 3 for itself without breaking the report.
	r = run(t, Options{Command: `exec 3>/dev/null; cd /; echo x >&3`, Dir: base})
	if r.Dir != "/" || r.ExitCode != 0 || r.Stderr.Text != "" {
		t.Errorf("fd 3 use: %+v", r)
	}
	// exit inside the command still reports.
	if r := run(t, Options{Command: `cd /tmp; exit 4`, Dir: base}); r.Dir != "/tmp" || r.ExitCode != 4 {
		t.Errorf("exit: dir %q code %d", r.Dir, r.ExitCode)
	}
}

// alivePid reports whether pid is running (zombies count as dead).
func alivePid(pid int) bool { return alive(pid) }

func TestTimeoutKillsGrandchildren(t *testing.T) {
	start := time.Now()
	r := run(t, Options{Command: `sleep 1000 & echo $!; bash -c 'sleep 1001 & echo $!; wait'`, Timeout: time.Second, Grace: 500 * time.Millisecond})
	if !r.TimedOut {
		t.Fatalf("not timed out: %+v", r)
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("took %v", el)
	}
	pids := strings.Fields(r.Stdout.Text)
	if len(pids) != 2 {
		t.Fatalf("stdout %q", r.Stdout.Text)
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		if alivePid(pid) {
			killPid(pid)
			t.Errorf("grandchild %d survived the timeout", pid)
		}
	}
}

func killPid(pid int) { p, _ := os.FindProcess(pid); p.Kill() }

// Nothing on the line after the command the timeout stopped runs: the red team's
// `sleep 4; echo after; touch f` under a 2 s timeout created f 5 times in 50, when the
// sleep died of its SIGTERM before bash had its own and bash went on to touch.
func TestTimeoutRunsNothingAfter(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	results := make([]*Result, 16)
	for i := range results {
		wg.Go(func() {
			r, err := Run(context.Background(), Options{Command: fmt.Sprintf("sleep 5; echo after; touch made%d", i), Dir: dir, Timeout: 300 * time.Millisecond})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = r
		})
	}
	wg.Wait()
	for i, r := range results {
		if r == nil {
			continue
		}
		if !r.TimedOut || r.ExitCode == 0 || strings.Contains(r.Stdout.Text, "after") {
			t.Errorf("run %d: timed out %v, exit %d, stdout %q", i, r.TimedOut, r.ExitCode, r.Stdout.Text)
		}
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("made%d", i))); err == nil {
			t.Errorf("run %d: the command after the timed-out one ran", i)
		}
	}
}

func TestTimeoutIgnoringTerm(t *testing.T) {
	r := run(t, Options{Command: `trap '' TERM; echo $$; while :; do sleep 0.05; done`, Timeout: time.Second, Grace: 300 * time.Millisecond})
	if !r.TimedOut || r.Signal != "SIGKILL" {
		t.Fatalf("want SIGKILL after grace: %+v", r)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	r, err := Run(ctx, Options{Command: `sleep 30`, Dir: t.TempDir()})
	if err != nil || !r.Canceled || r.Duration > 5*time.Second {
		t.Fatalf("cancel: %+v %v", r, err)
	}
}

func TestBackgroundChildDoesNotHang(t *testing.T) {
	start := time.Now()
	r := run(t, Options{Command: `sleep 3 & echo started`})
	if time.Since(start) > 2*time.Second || r.Stdout.Text != "started\n" || !r.Lingering || len(r.LingeringPIDs) != 1 {
		t.Fatalf("took %v: %+v", time.Since(start), r)
	}
	syscall.Kill(r.LingeringPIDs[0], syscall.SIGKILL)
}

// TestLingeringIsSeenOutsideTheGroup: a process that left the command's group and
// session (setsid -f, a daemon's double fork) with its output elsewhere is reported too
// (a third red team found it was not); and a cancel that comes while leftovers are
// looked for stops them and makes the run cancelled (the signal was lost).
func TestLingeringIsSeenOutsideTheGroup(t *testing.T) {
	r := run(t, Options{Command: `setsid -f sleep 4.75 >/dev/null 2>&1 </dev/null; echo ok`})
	if !r.Lingering || len(r.LingeringPIDs) != 1 {
		t.Fatalf("a detached process left running is not reported: %+v", r)
	}
	syscall.Kill(r.LingeringPIDs[0], syscall.SIGKILL)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	r, err := Run(ctx, Options{Command: `sleep 4.5 & echo hi`})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Canceled {
		t.Errorf("a cancel during the leftovers' check was lost: %+v", r)
	}
	for _, p := range r.LingeringPIDs {
		if alive(p) {
			syscall.Kill(p, syscall.SIGKILL)
			t.Errorf("process %d outlived a cancelled run", p)
		}
	}
}

// TestLingeringIsSeenWithoutTheOutput: a process left behind with its output sent
// elsewhere is reported too (a red team found only the ones holding the pipes were);
// a background child that ends with the command is not.
func TestLingeringIsSeenWithoutTheOutput(t *testing.T) {
	r := run(t, Options{Command: `sleep 4.25 >/dev/null 2>&1 & echo started`})
	if !r.Lingering || len(r.LingeringPIDs) != 1 {
		t.Fatalf("a process left running is not reported: %+v", r)
	}
	syscall.Kill(r.LingeringPIDs[0], syscall.SIGKILL)
	r = run(t, Options{Command: `(sleep 0.05; echo late) & echo early`})
	if r.Lingering || r.Stdout.Text != "early\nlate\n" {
		t.Fatalf("a child that ended within the drain: %+v", r)
	}
}

func TestCapAndSpill(t *testing.T) {
	spill := t.TempDir()
	r := run(t, Options{Command: `seq 1 100000; seq 1 10 >&2`, StdoutCap: 1000, SpillDir: spill})
	o := r.Stdout
	if !o.Truncated || o.SpillPath == "" || o.Bytes != 588895 {
		t.Fatalf("stdout %+v", o)
	}
	if !strings.HasPrefix(o.Text, "1\n2\n") || !strings.HasSuffix(o.Text, "99999\n100000\n") || !strings.Contains(o.Text, "left out") || len(o.Text) > 1300 {
		t.Errorf("text %q", o.Text)
	}
	whole, _ := os.ReadFile(o.SpillPath)
	want, _ := exec.Command("seq", "1", "100000").Output()
	if string(whole) != string(want) {
		t.Errorf("spill file has %d bytes, want %d", len(whole), len(want))
	}
	if st, _ := os.Stat(o.SpillPath); st.Mode().Perm() != 0o600 {
		t.Errorf("spill mode %v", st.Mode())
	}
	if r.Stderr.Truncated || r.Stderr.Text != "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n" {
		t.Errorf("stderr %+v", r.Stderr)
	}
}

// A cut output keeps whole characters: the head and the tail of a stream of é (two
// bytes each), cut at odd offsets, hold no half of one (red team: the cut added a
// U+FFFD that was not in the output).
func TestCutKeepsWholeCharacters(t *testing.T) {
	for _, limit := range []int{999, 1000, 1001, 1003} {
		r := run(t, Options{Command: `printf x; for i in $(seq 3000); do printf 'é'; done`, StdoutCap: limit})
		o := r.Stdout
		if !o.Truncated {
			t.Fatalf("limit %d: not cut: %+v", limit, o)
		}
		if !utf8.ValidString(o.Text) {
			t.Errorf("limit %d: the cut text is not UTF-8 (a character cut in two): %q", limit, o.Text)
		}
	}
}

// TestSpillFileIsBounded: a foreground command's spill file stops at 64 MiB (a red team
// wrote 700 MB in half a second), and the result says the file holds only the start.
func TestSpillFileIsBounded(t *testing.T) {
	spill := t.TempDir()
	r := run(t, Options{Command: `head -c 70000000 /dev/zero | tr '\0' x`, SpillDir: spill, Timeout: 60 * time.Second})
	o := r.Stdout
	st, err := os.Stat(o.SpillPath)
	if err != nil || st.Size() != DefaultSpillMax || o.Bytes != 70000000 {
		t.Fatalf("stdout %+v, spill file %v %v; want %d bytes of %d in it", o, st, err, DefaultSpillMax, o.Bytes)
	}
	if !strings.Contains(o.Text, fmt.Sprintf("the first %d bytes of the output are in %s", DefaultSpillMax, o.SpillPath)) {
		t.Errorf("the result does not say the file holds only the start: %q", o.Text[len(o.Text)/2-200:len(o.Text)/2+200])
	}
}

func TestHugeOutputBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2 GB through a pipe")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// No spill directory: nothing goes to disk; 2 GB stream through the captures.
	r := run(t, Options{Command: `yes | head -c 2G`, Timeout: 120 * time.Second})
	runtime.ReadMemStats(&after)
	if r.Stdout.Bytes != 2<<30 || !r.Stdout.Truncated {
		t.Fatalf("stdout %d bytes truncated=%v", r.Stdout.Bytes, r.Stdout.Truncated)
	}
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 16<<20 {
		t.Errorf("heap grew by %d bytes", grown)
	}
	if after.TotalAlloc-before.TotalAlloc > 64<<20 {
		t.Errorf("allocated %d bytes for a 2 GB stream", after.TotalAlloc-before.TotalAlloc)
	}
}

func TestEnvHygiene(t *testing.T) {
	base := []string{"PATH=" + os.Getenv("PATH"), "BASH_ENV=/tmp/evil", "ENV=/tmp/evil", "BASH_FUNC_ls%%=() { echo pwned; }",
		"LD_PRELOAD=/tmp/x.so", "LD_LIBRARY_PATH=/tmp", "LD_AUDIT=x", "DYLD_INSERT_LIBRARIES=x", "SHELLOPTS=xtrace", "KEEP=1"}
	r := run(t, Options{Command: `env | sort`, BaseEnv: base, Env: map[string]string{"ADDED": "2", "LD_PRELOAD": "y"}})
	for _, bad := range []string{"BASH_ENV", "ENV=", "BASH_FUNC", "LD_", "DYLD", "SHELLOPTS", "pwned"} {
		if strings.Contains(r.Stdout.Text, bad) {
			t.Errorf("%s reached bash:\n%s", bad, r.Stdout.Text)
		}
	}
	if !strings.Contains(r.Stdout.Text, "KEEP=1") || !strings.Contains(r.Stdout.Text, "ADDED=2") {
		t.Errorf("env lost variables:\n%s", r.Stdout.Text)
	}
}

func TestFindBashSkipsSelf(t *testing.T) {
	self, _ := os.Executable()
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "bash")); err != nil {
		t.Fatal(err)
	}
	got, err := FindBash(dir + ":/usr/bin:/bin")
	if err != nil {
		t.Skipf("no bash: %v", err)
	}
	if got == self || filepath.Dir(got) == dir {
		t.Fatalf("FindBash returned agentbox itself: %s", got)
	}
	out, err := exec.Command(got, "--version").Output()
	if err != nil || !strings.Contains(string(out), "GNU bash") {
		t.Fatalf("%s is not bash: %v %s", got, err, out)
	}
}

// A hard link is no symlink to resolve: only the file's identity tells it is agentbox.
func TestFindBashSkipsSelfHardLink(t *testing.T) {
	self, _ := os.Executable()
	dir := t.TempDir()
	if err := os.Link(self, filepath.Join(dir, "bash")); err != nil {
		t.Skipf("cannot hard-link the test binary here (%v)", err)
	}
	got, err := FindBash(dir + ":/usr/bin:/bin")
	if err != nil {
		t.Skipf("no bash: %v", err)
	}
	if filepath.Dir(got) == dir {
		t.Fatalf("FindBash returned a hard link to agentbox itself: %s", got)
	}
}

func TestClampTimeout(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{0: DefaultTimeout, 10 * time.Millisecond: time.Second,
		time.Hour: MaxTimeout, 5 * time.Second: 5 * time.Second} {
		if got := ClampTimeout(in); got != want {
			t.Errorf("ClampTimeout(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestSandboxedRun(t *testing.T) {
	if sandbox.Probe().LandlockABI == 0 {
		t.Skip("this kernel has no Landlock; sandboxed runs cannot confine here")
	}
	// The temp directory is writable in the sandbox, so "outside" must be elsewhere.
	ws, tmp := t.TempDir(), t.TempDir()
	outside, err := os.MkdirTemp(".", "outside-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	outside, _ = filepath.Abs(outside)
	r := run(t, Options{Command: "echo in > a && echo out > " + outside + "/b", Dir: ws,
		Sandbox: sandbox.Config{Mode: sandbox.WorkspaceWrite, Roots: []string{ws}, TempDir: tmp}})
	if r.ExitCode == 0 || !r.Sandbox.FilesConfined {
		t.Fatalf("sandboxed write outside succeeded: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(ws, "a")); err != nil {
		t.Errorf("write inside failed: %s", r.Stderr.Text)
	}
}

func BenchmarkRunTrue(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		if _, err := Run(context.Background(), Options{Command: "true", Dir: dir}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBashTrue(b *testing.B) {
	bash, err := FindBash(os.Getenv("PATH"))
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if err := exec.Command(bash, "--noprofile", "--norc", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// The start gate: bash is started before BeforeStart returns, but the command runs only
// after it; a call cancelled meanwhile never runs the command at all.
func TestStartGate(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	var sawBash bool
	r := run(t, Options{Dir: dir, Command: "echo ran > " + marker + "; echo out; exit 7", BeforeStart: func() {
		time.Sleep(300 * time.Millisecond) // ample time for bash to run ahead if the gate leaked
		_, err := os.Stat(marker)
		sawBash = err == nil
	}})
	if sawBash {
		t.Fatal("the command ran before BeforeStart returned")
	}
	if r.ExitCode != 7 || r.Stdout.Text != "out\n" {
		t.Fatalf("after the gate opened: exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout.Text, r.Stderr.Text)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the command did not run after the gate opened")
	}

	// Cancelled while waiting at the gate (a signal during agentbox's start-up).
	ctx, cancel := context.WithCancel(context.Background())
	marker2 := filepath.Join(dir, "ran2")
	r2, err := Run(ctx, Options{Dir: dir, Command: "echo ran > " + marker2, BeforeStart: cancel})
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Canceled {
		t.Errorf("a call cancelled at the gate is not reported as cancelled: %+v", r2)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(marker2); err == nil {
		t.Fatal("the command ran although the call was cancelled before the gate opened")
	}

	// A syntax error on the first line ends bash before the gate, as without one.
	r3 := run(t, Options{Dir: dir, Command: "echo a; if", BeforeStart: func() { time.Sleep(50 * time.Millisecond) }})
	if r3.ExitCode != 2 || !strings.Contains(r3.Stderr.Text, "syntax error") {
		t.Fatalf("first-line syntax error: exit %d, stderr %q", r3.ExitCode, r3.Stderr.Text)
	}
	// The gate leaves nothing behind for the command: no REPLY, no fd 4.
	r4 := run(t, Options{Dir: dir, Command: `echo "[${REPLY-unset}]"; [ -e /proc/self/fd/4 ] && echo fd4 || echo nofd4`})
	if r4.Stdout.Text != "[unset]\nnofd4\n" {
		t.Fatalf("the gate leaked into the command: %q", r4.Stdout.Text)
	}
}
