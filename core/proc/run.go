// Package proc runs shell command lines for agentbox: the real bash, in its own
// process group, with bounded output, a timeout that kills every process the
// command started, a clean environment, and background jobs that outlive the
// agentbox process that started them.
//
// Run starts `bash --noprofile --norc -c` (bash is found by absolute path, never
// agentbox itself even when agentbox is installed as "bash" first on PATH) with a
// one-line prelude that moves a side pipe to a high fd and traps EXIT to print the
// final working directory there, so the caller learns where a `cd` left the
// command without parsing its output. The prelude also waits at a start gate (a
// pipe on fd 4) until the caller is ready to stop the command, so bash's own
// start-up runs beside the caller's last preparations (see Options.BeforeStart),
// and bash (started with syscall.ForkExec, see spawn.go) never runs the command
// for a caller that died or was cancelled first. When the environment pins a nested
// agentbox to the caller's policy, bash also gets the pins in a sealed memory file
// (pins.go), which the prelude moves to shell.PinsFD. stdout and stderr are read as
// they come into bounded captures (see Output): past a cap the whole stream goes
// to a spill file and the result keeps the head and the tail.
//
// On timeout or cancellation the process group gets SIGTERM, then SIGKILL after a
// grace period, and Run waits until the group is gone. A command that exits while
// background children still hold its output pipes is not waited for beyond a short
// drain period; those children are left running (they were started on purpose).
//
// Jobs (jobs.go) run a command in the background under a small supervisor: the
// agentbox binary re-executed with a hidden marker (Hook), in a new session, which
// records the exit status, enforces a background timeout and feeds a stdin FIFO.
package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentbox/agentbox/core/sandbox"
	"github.com/agentbox/agentbox/core/shell"
)

// Defaults from the reference tools.
const (
	DefaultTimeout   = 120 * time.Second
	MaxTimeout       = 600 * time.Second
	MinTimeout       = time.Second
	DefaultGrace     = 2 * time.Second
	DefaultStdoutCap = 100 << 10 // 100 KB
	DefaultStderrCap = 50 << 10  // 50 KB
	DefaultSpillMax  = 64 << 20  // the spill file keeps a stream's first 64 MiB (as a background job's file): a foreground yes cannot fill the disk
	drainAfterExit   = 300 * time.Millisecond
	pwdFD            = 250 // the high fd the prelude moves the pwd pipe to
)

// Options describe one command run.
type Options struct {
	Command   string
	Dir       string            // working directory (absolute); "" = the current one
	Env       map[string]string // added to the environment for this run (filtered like the base)
	BaseEnv   []string          // environment to start from; nil = os.Environ()
	Stdin     io.Reader         // nil = /dev/null
	Timeout   time.Duration     // 0 = DefaultTimeout; clamped to [MinTimeout, MaxTimeout]
	Grace     time.Duration     // SIGTERM -> SIGKILL; 0 = DefaultGrace
	StdoutCap int               // bytes kept in memory; 0 = DefaultStdoutCap
	StderrCap int               // 0 = DefaultStderrCap
	SpillDir  string            // where whole outputs go past a cap; "" = nowhere
	// RunsDir holds a record of each running command, so that the next run stops what
	// a command left when its agentbox was killed outright (orphans.go); "" = none.
	RunsDir  string
	SpillMax int64          // 0 = DefaultSpillMax
	Bash     string         // bash to run; "" = FindBash(PATH of the environment)
	Sandbox  sandbox.Config // confinement; zero = off
	Self     string         // agentbox binary for the sandbox helper; "" = os.Executable()
	// OnStdout/OnStderr, if set, also receive the streams as they arrive (live display).
	OnStdout, OnStderr io.Writer
	// BeforeStart, if set, must return before the command runs: the caller's wait for
	// its signal handling. bash is started first and waits at its start gate until
	// then, so its own start-up overlaps the wait; if this process dies before it
	// returns, the gate closes and bash exits without running the command.
	BeforeStart func()
}

// Result is what happened.
type Result struct {
	ExitCode int            `json:"exit_code"`        // 128+n when killed by signal n (as bash reports it)
	Signal   string         `json:"signal,omitempty"` // the signal that ended bash, if one did
	Duration time.Duration  `json:"duration"`
	TimedOut bool           `json:"timed_out,omitempty"`
	Canceled bool           `json:"canceled,omitempty"`
	Dir      string         `json:"dir"` // working directory when the command ended (Options.Dir if unknown)
	Stdout   Output         `json:"stdout"`
	Stderr   Output         `json:"stderr"`
	Sandbox  sandbox.Report `json:"sandbox"`
	// Lingering is set when the command left processes running after it exited
	// (holding its output, or only in its process group): what they print later is
	// not captured. LingeringPIDs are theirs.
	Lingering     bool  `json:"lingering,omitempty"`
	LingeringPIDs []int `json:"lingering_pids,omitempty"`
}

// ClampTimeout applies the reference limits: 0 means the default, below a second
// is one second, above the maximum is the maximum.
func ClampTimeout(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultTimeout
	case d < MinTimeout:
		return MinTimeout
	case d > MaxTimeout:
		return MaxTimeout
	}
	return d
}

// prelude runs before the command, on the same line so error line numbers match.
// fd 3 (the pwd pipe) moves to a high fd the command is unlikely to touch; the
// EXIT trap prints the final directory there. fd 4 is the start gate: bash waits
// for a line on it before the command runs, and exits if it closes without one (see
// Options.BeforeStart).
var prelude = fmt.Sprintf(`exec %d>&3 3>&-; builtin read -r -u 4 || builtin exit 125; exec 4<&-; unset REPLY; trap 'builtin printf "%%s" "$PWD" >&%d' EXIT; `, pwdFD, pwdFD)

// pinsPrelude comes first when bash gets the calling agentbox's pins (sealPins) on fd
// 5: it moves them to shell.PinsFD, the descriptor the gate keeps the line from closing.
var pinsPrelude = fmt.Sprintf(`exec %d<&5 5<&-; `, shell.PinsFD)

// Run runs opts.Command and reports what happened. The error is for failures to
// start (no bash, bad directory); a command that fails is a Result with its exit code.
func Run(ctx context.Context, opts Options) (*Result, error) {
	reapOrphans(opts.RunsDir)
	cmd, t, res, err := command(opts)
	if err != nil {
		return nil, err
	}
	pinned := cmd.ExtraFiles // the pins, when command sealed some (bash has its own copy once started)
	defer func() {
		for _, f := range pinned {
			f.Close()
		}
	}()
	closeStdin, err := feedStdin(cmd, opts.Stdin)
	if err != nil {
		return nil, err
	}
	defer closeStdin()
	pp, err := openPipes()
	if err != nil {
		return nil, err
	}
	defer pp.gateW.Close()
	cmd.Stdout, cmd.Stderr = pp.outW, pp.errW
	cmd.ExtraFiles = append([]*os.File{pp.pwdW, pp.gateR}, pinned...)

	capOut := newCapture(orDefault(opts.StdoutCap, DefaultStdoutCap), opts.SpillDir, "stdout", orDefault64(opts.SpillMax, DefaultSpillMax))
	capErr := newCapture(orDefault(opts.StderrCap, DefaultStderrCap), opts.SpillDir, "stderr", orDefault64(opts.SpillMax, DefaultSpillMax))

	start := time.Now()
	c, err := startChild(cmd)
	pp.closeChildEnds()
	if err != nil {
		pp.outR.Close()
		pp.errR.Close()
		pp.pwdR.Close()
		return nil, fmt.Errorf("cannot start %s: %v", cmd.Path, err)
	}
	pgid := c.pid
	t.begin(pgid)
	defer t.end()
	defer recordRun(opts.RunsDir, t, pgid)()
	if opts.BeforeStart != nil {
		opts.BeforeStart()
	}
	// Open the gate, unless the call was cancelled meanwhile: closing it makes bash
	// exit without running the command. A bash already gone (a syntax error on the
	// first line ends it before the gate) makes the write fail, which is harmless.
	gateOpened := ctx.Err() == nil
	if gateOpened {
		pp.gateW.Write([]byte{'\n'})
	}
	pp.gateW.Close()

	// Each pump reports on pumped when its stream is at EOF (or closed under it).
	pumped := make(chan struct{}, 2)
	pump := func(r *os.File, c *capture, live io.Writer) {
		defer func() { pumped <- struct{}{} }()
		var w io.Writer = c
		if live != nil {
			w = io.MultiWriter(c, live)
		}
		buf := make([]byte, 32<<10)
		io.CopyBuffer(w, r, buf)
	}
	go pump(pp.outR, capOut, opts.OnStdout)
	go pump(pp.errR, capErr, opts.OnStderr)

	werr := await(ctx, c, t, pgid, opts, res)
	res.Duration = time.Since(start)
	res.Canceled = res.Canceled || !gateOpened

	// Drain: children left behind may keep the pipes open.
	drain := time.NewTimer(drainAfterExit)
	for n := 0; n < 2; n++ {
		select {
		case <-pumped:
		case <-drain.C:
			res.Lingering = true
			pp.outR.Close()
			pp.errR.Close()
			<-pumped
		}
	}
	drain.Stop()
	// A process left behind with its output elsewhere (`sleep 60 >/dev/null &`) still
	// shows in the group; one signal on the happy path finds the group empty.
	// One that left the group too (setsid, a daemon's double fork) was handed to this
	// process, the subreaper, when its parent exited: it is a child this process did not
	// start. Either way the /proc scan runs only when something was left.
	if res.Lingering || syscall.Kill(-pgid, 0) == nil || adoptedChildren(t.since) {
		if res.LingeringPIDs = t.noteLingering(); len(res.LingeringPIDs) > 0 {
			res.Lingering = true
		}
	}
	if ctx.Err() != nil && res.Lingering {
		// A signal came while the command's leftovers were looked for: they are stopped
		// as the command would have been, and the call is interrupted.
		syscall.Kill(-pgid, syscall.SIGTERM)
		t.killRest(time.Now(), orDefaultDur(opts.Grace, DefaultGrace))
		res.Canceled = true
	}
	// The EXIT trap wrote the directory before bash exited: it is in the pipe now,
	// whoever else still holds the pipe open.
	pwd := readAvailable(pp.pwdR, 1<<16)
	pp.pwdR.Close()
	pp.outR.Close()
	pp.errR.Close()

	res.Stdout, res.Stderr = capOut.result(), capErr.result()
	if script := cmd.Args[len(cmd.Args)-1]; strings.HasSuffix(script, prelude+opts.Command) {
		// bash quotes the line of a syntax error whole: the model should see its own
		// line there, not this package's prelude.
		res.Stderr.Text = strings.ReplaceAll(res.Stderr.Text, strings.TrimSuffix(script, opts.Command), "")
	}
	if pwd != "" && filepath.IsAbs(pwd) {
		res.Dir = pwd
	}
	res.ExitCode, res.Signal = exitStatus(werr)
	return res, nil
}

// command builds bash's command for opts: the cleaned environment, the working
// directory, its own process group and tree id, and the sandbox when one is asked for.
func command(opts Options) (*exec.Cmd, *tree, *Result, error) {
	env := CleanEnv(opts.BaseEnv, opts.Env)
	bash := opts.Bash
	if bash == "" {
		var err error
		if bash, err = findBash(lookupEnv(env, "PATH"), opts.Self); err != nil {
			return nil, nil, nil, err
		}
	}
	dir := opts.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil, nil, fmt.Errorf("working directory %s does not exist or is not a directory; pass an existing absolute directory", dir)
	}
	pins, err := sealPins(env)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot hand the command this agentbox's policy pins: %v", err)
	}
	script := prelude + opts.Command
	if pins != nil {
		script = pinsPrelude + script
	}
	cmd := exec.Command(bash, "--noprofile", "--norc", "-c", script)
	if pins != nil {
		cmd.ExtraFiles = []*os.File{pins} // Run puts its two pipes before it: fd 5 in bash
	}
	cmd.Dir = dir
	t := newTree()
	cmd.Env = append(env, RunVar+"="+t.id)
	becomeSubreaper()
	reapLingering()
	// Pdeathsig: bash dies with this process, even of SIGKILL (a harness's timeout, the
	// OOM killer), rather than run the rest of the line with no timeout over it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	res := &Result{Dir: dir}
	if opts.Sandbox.Mode == "" || opts.Sandbox.Mode == sandbox.Off {
		res.Sandbox.Mode = sandbox.Off
		res.Sandbox.Network = "allowed"
		return cmd, t, res, nil
	}
	self := opts.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, nil, nil, fmt.Errorf("cannot find the agentbox binary for the sandbox helper: %v", err)
		}
	}
	rep, err := sandbox.Wrap(cmd, opts.Sandbox, self)
	if err != nil {
		if pins != nil {
			pins.Close()
		}
		return nil, nil, nil, err
	}
	cmd.SysProcAttr.Setpgid = true
	res.Sandbox = rep
	return cmd, t, res, nil
}

// feedStdin gives the command its stdin: a file as it is, any other reader through our
// own pipe, so waiting for bash never waits on the copy (children may keep the read
// end open). The returned function closes our end once bash is done.
func feedStdin(cmd *exec.Cmd, stdin io.Reader) (func(), error) {
	if f, ok := stdin.(*os.File); ok {
		cmd.Stdin = f
		return func() {}, nil
	}
	if stdin == nil {
		return func() {}, nil
	}
	inW, inR, err := childPipe(true)
	if err != nil {
		return nil, err
	}
	cmd.Stdin = inR
	go func() {
		io.Copy(inW, stdin)
		inW.Close()
	}()
	return func() { inR.Close() }, nil
}

// pipes are the pipes between agentbox and bash: stdout, stderr, the working
// directory the EXIT trap reports (fd 3) and the start gate (fd 4).
type pipes struct {
	outR, outW, errR, errW, pwdR, pwdW *os.File
	gateW, gateR                       *os.File
}

func openPipes() (*pipes, error) {
	var pp pipes
	var opened []*os.File
	for _, p := range []struct {
		ours, child **os.File
		toChild     bool
	}{{&pp.outR, &pp.outW, false}, {&pp.errR, &pp.errW, false}, {&pp.pwdR, &pp.pwdW, false}, {&pp.gateW, &pp.gateR, true}} {
		a, b, err := childPipe(p.toChild)
		if err != nil {
			for _, f := range opened {
				f.Close()
			}
			return nil, err
		}
		*p.ours, *p.child = a, b
		opened = append(opened, a, b)
	}
	return &pp, nil
}

// closeChildEnds closes the ends bash holds once it has them (or failed to start).
func (pp *pipes) closeChildEnds() {
	pp.outW.Close()
	pp.errW.Close()
	pp.pwdW.Close()
	pp.gateR.Close()
}

// await waits for bash to exit, killing its whole tree on the timeout or when ctx
// ends, and notes which of them ended it in res.
func await(ctx context.Context, c *child, t *tree, pgid int, opts Options, res *Result) exited {
	waitErr := make(chan exited, 1)
	go func() { waitErr <- c.wait() }()
	timer := time.NewTimer(ClampTimeout(opts.Timeout))
	defer timer.Stop()
	select {
	case werr := <-waitErr:
		return werr
	case <-timer.C:
		res.TimedOut = true
	case <-ctx.Done():
		res.Canceled = true
	}
	select {
	case werr := <-waitErr:
		// It ended as the timer fired (select picks either): it ran to its end.
		res.TimedOut, res.Canceled = false, false
		return werr
	default:
	}
	return t.kill(pgid, orDefaultDur(opts.Grace, DefaultGrace), waitErr)
}

// readAvailable returns what can be read from a pollable pipe without waiting, up to
// max bytes.
func readAvailable(f *os.File, max int) string {
	rc, err := f.SyscallConn()
	if err != nil {
		return ""
	}
	var out []byte
	buf := make([]byte, 4096)
	rc.Read(func(fd uintptr) bool {
		for len(out) < max {
			n, err := syscall.Read(int(fd), buf)
			if n <= 0 || err != nil {
				break
			}
			out = append(out, buf[:n]...)
		}
		return true
	})
	return string(out[:min(len(out), max)])
}

// kill stops the whole command: its process group and every process that left it
// (see tree.go). Everything is stopped (SIGSTOP) before anything is sent SIGTERM, and
// continued after: a child that died of its SIGTERM while bash still ran let bash start
// the line's next command before bash's own SIGTERM came (red team: `sleep 4; touch f`
// under a 2 s timeout created f, 5 times in 50). Continued, each process acts on the
// SIGTERM waiting for it before anything else.
func (t *tree) kill(pgid int, grace time.Duration, waitErr <-chan exited) exited {
	start := time.Now()
	t.killed = map[int]bool{}
	syscall.Kill(-pgid, syscall.SIGSTOP)
	ps := t.members()
	signalAll(ps, syscall.SIGSTOP)
	for _, p := range t.members() { // what was forked before its parent stopped
		if !slices.ContainsFunc(ps, func(q procStat) bool { return q.pid == p.pid }) {
			signalAll([]procStat{p}, syscall.SIGSTOP)
			ps = append(ps, p)
		}
	}
	for _, p := range ps {
		t.killed[p.pid] = true
	}
	syscall.Kill(-pgid, syscall.SIGTERM)
	signalAll(ps, syscall.SIGTERM)
	syscall.Kill(-pgid, syscall.SIGCONT)
	signalAll(ps, syscall.SIGCONT)
	werr := killGroup(pgid, grace, waitErr)
	t.killRest(start, grace)
	return werr
}

// killGroup sends SIGTERM to the process group, SIGKILL after grace, and waits
// for bash to be reaped and the group's live members to be gone.
func killGroup(pgid int, grace time.Duration, waitErr <-chan exited) exited {
	syscall.Kill(-pgid, syscall.SIGTERM)
	syscall.Kill(-pgid, syscall.SIGCONT) // a stopped process would not act on SIGTERM
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var werr exited
	reaped := false
	for {
		if reaped && !groupAlive(pgid) {
			return werr
		}
		var wc <-chan exited
		if !reaped {
			wc = waitErr
		}
		select {
		case werr = <-wc:
			reaped = true
		case <-tick.C:
		case <-deadline.C:
			syscall.Kill(-pgid, syscall.SIGKILL)
			if !reaped {
				werr = <-waitErr
			}
			for i := 0; i < 100 && groupAlive(pgid); i++ {
				time.Sleep(10 * time.Millisecond)
			}
			return werr
		}
	}
}

// adoptedChildren reports whether this process has a child it did not start that began
// after since (an orphan of the command, handed to it as the subreaper; not an index
// helper a long-lived server started before). One read per thread of
// /proc/self/task/*/children, and one stat per such child; false where the kernel does
// not keep that list.
func adoptedChildren(since uint64) bool {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			if _, mine := own.Load(pid); mine {
				continue
			}
			if st, ok := readStat(f); ok && st.start >= since {
				return true
			}
		}
	}
	return false
}

// groupAlive reports whether a process group has a member that is not a zombie
// (an init that does not reap, common in containers, leaves zombies behind).
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) == syscall.ESRCH {
		return false
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// exitStatus turns how bash ended into bash's exit code convention: 128+n for a
// signal n; -1 if it could not be reaped.
func exitStatus(e exited) (int, string) {
	switch ws := e.status; {
	case e.err != nil:
		return -1, ""
	case ws.Signaled():
		return 128 + int(ws.Signal()), signalName(ws.Signal())
	default:
		return ws.ExitStatus(), ""
	}
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL", syscall.SIGINT: "SIGINT",
		syscall.SIGHUP: "SIGHUP", syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT", syscall.SIGPIPE: "SIGPIPE",
		syscall.SIGQUIT: "SIGQUIT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGILL: "SIGILL",
		syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2", syscall.SIGALRM: "SIGALRM", syscall.SIGXCPU: "SIGXCPU"}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

func orDefault64(v, d int64) int64 {
	if v <= 0 {
		return d
	}
	return v
}

func orDefaultDur(v, d time.Duration) time.Duration {
	if v <= 0 {
		return d
	}
	return v
}
