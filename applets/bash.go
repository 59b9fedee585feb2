package applets

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/gate"
	"github.com/agentbox/agentbox/core/policy"
	"github.com/agentbox/agentbox/core/proc"
	"github.com/agentbox/agentbox/core/sandbox"
	"github.com/agentbox/agentbox/core/shell"
)

// Limits of bash, used by the code and quoted in the description.
const (
	BashDefaultTimeoutMs = 120000 // reference 000
	BashMaxTimeoutMs     = 600000
	BashStdoutCap        = proc.DefaultStdoutCap
	BashStderrCap        = proc.DefaultStderrCap
	BashDefaultWaitMs    = 30000
	bashCwdFile          = "bash_cwd.json"
)

// Bash runs a command line, or acts on background jobs.
type Bash struct {
	Command           string            `json:"command" alias:"cmd,script" arg:"" optional:"" schema:"maxLength=131072" help:"the bash command line to run (bash --noprofile --norc -c)"`
	TimeoutMs         int               `json:"timeout" default:"120000" schema:"min=0,max=600000" help:"timeout in milliseconds, max 600000; a value below 1000 is taken as seconds (120 is two minutes); on timeout the whole process group is killed; the result reports the effective timeout_ms"`
	TimeoutMsExact    *int              `json:"timeout_ms" schema:"min=1000,max=600000" help:"the timeout in milliseconds, always (instead of timeout)"`
	TimeoutS          *int              `json:"timeout_s" schema:"min=1,max=600" help:"the timeout in seconds (instead of timeout)"`
	WorkingDir        string            `json:"working_dir" alias:"cwd,workdir,dir" help:"absolute directory to run in; it persists for the following calls of the session (as does a cd inside the command)"`
	RunInBackground   bool              `json:"run_in_background" alias:"background" help:"start the command as a background job and return its job id and pid at once"`
	BackgroundTimeout int               `json:"background_timeout" schema:"min=0" help:"kill a background job after this many milliseconds (default: none)"`
	Env               map[string]string `json:"env" type:"json" help:"extra environment variables for this call only"`
	Stdin             string            `json:"stdin" alias:"input" help:"text for the command's standard input (default: none, /dev/null); for action input, the text to send to the job"`
	Action            string            `json:"action" enum:"run,list,output,wait,input,kill" default:"run" help:"run a command (default), or act on background jobs: list, output (read new output), wait, input (send stdin), kill"`
	JobID             string            `json:"job_id" alias:"task_id,bash_id,shell_id,id" help:"the background job for output, wait, input and kill"`
	Offset            *int64            `json:"offset" schema:"min=0" help:"output: read stdout from this byte offset instead of from where the last read stopped"`
	WaitMs            int               `json:"wait_ms" default:"30000" schema:"min=0,max=600000" help:"wait: how long to wait for the job to finish, in milliseconds"`
	EOF               bool              `json:"eof" help:"input: close the job's stdin after sending the text"`
	Sandbox           string            `json:"sandbox" enum:"auto,off,workspace-write,read-only" default:"auto" help:"confine the command: workspace-write (writes only in the workspace and temp, no network), read-only (no writes, no network), off, or auto (AGENTBOX_SANDBOX, else off)"`
}

// BashResult is what bash returns.
type BashResult struct {
	Command    string `json:"command,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Signal     string `json:"signal,omitempty"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	DurationMs int64  `json:"duration_ms"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	TimeoutMs  int64  `json:"timeout_ms,omitempty"`
	Dir        string `json:"working_dir,omitempty"`
	StdoutPath string `json:"stdout_path,omitempty"`
	StderrPath string `json:"stderr_path,omitempty"`
	Lingering  bool   `json:"lingering,omitempty"`
	// LingeringPIDs are the processes the command left running; Note says what that means.
	LingeringPIDs []int                 `json:"lingering_pids,omitempty"`
	Note          string                `json:"note,omitempty"`
	Watchdog      *core.WatchdogVerdict `json:"watchdog,omitempty"`
	Sandbox       *sandbox.Report       `json:"sandbox,omitempty"`
	Job           *proc.Job             `json:"job,omitempty"`
	Jobs          []*proc.Job           `json:"jobs,omitempty"`
	More          bool                  `json:"more,omitempty"`
	NextOffset    *int64                `json:"next_offset,omitempty"`
	action        string
}

// Run implements core.Command.
func (b *Bash) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	switch b.Action {
	case "", "run":
		return b.run(ctx, env)
	case "list":
		jobs, err := bashJobs(env)
		if err != nil {
			return nil, err
		}
		list, err := jobs.List()
		if err != nil {
			return nil, core.Errorf(core.CodeIOError, "cannot list background jobs: %v", err)
		}
		if list == nil {
			list = []*proc.Job{}
		}
		return &core.Result{Data: &BashResult{Jobs: list, action: "list"}}, nil
	}
	if b.JobID == "" {
		return nil, core.Errorf(core.CodeInvalidParams, "action %s needs job_id; action list shows the jobs", b.Action)
	}
	jobs, err := bashJobs(env)
	if err != nil {
		return nil, err
	}
	var job *proc.Job
	var meta map[string]any
	out := &BashResult{action: b.Action}
	switch b.Action {
	case "output":
		return b.output(jobs, out)
	case "wait":
		job, err = jobs.WaitContext(ctx, b.JobID, time.Duration(b.WaitMs)*time.Millisecond)
		if ctx.Err() != nil {
			return nil, core.Errorf(core.CodeInterrupted, "the wait for job %s was interrupted; the job keeps running (wait, output or kill it with job_id %s)", b.JobID, b.JobID)
		}
		if err == nil {
			b.Offset = nil
			return b.output(jobs, out)
		}
	case "input":
		if err = jobs.InputContext(ctx, b.JobID, b.Stdin, b.EOF); err == nil {
			job, err = jobs.Get(b.JobID)
		}
		var stalled *proc.InputStalled
		if errors.As(err, &stalled) {
			code := core.CodeTimeout
			if stalled.Cause != nil {
				code = core.CodeInterrupted
			}
			return nil, core.Errorf(code, "%v", stalled).WithDetails(map[string]any{"written": stalled.Written, "total": stalled.Total})
		}
	case "kill":
		d, aerr := env.Authorize(ctx, core.Request{Capability: core.CapShellRun, Target: "kill " + b.JobID, Summary: "kill background job " + b.JobID, Own: true})
		if aerr != nil {
			return nil, aerr
		}
		meta = map[string]any{"decision": d}
		job, err = jobs.Kill(b.JobID, proc.DefaultGrace)
	}
	if err != nil {
		return nil, jobError(err)
	}
	out.Job = job
	return &core.Result{Data: out, Meta: meta}, nil
}

func jobError(err error) error {
	if errors.Is(err, proc.ErrNoJob) {
		return core.Errorf(core.CodeNotFound, "%v", err)
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return ce
	}
	return core.Errorf(core.CodeIOError, "%v", err)
}

// output returns what the job printed since the last read (or from Offset).
func (b *Bash) output(jobs *proc.Jobs, out *BashResult) (*core.Result, error) {
	since, off := true, int64(0)
	if b.Offset != nil {
		since, off = false, *b.Offset
	}
	c, err := jobs.Output(b.JobID, since, off, 0, BashStdoutCap)
	if err != nil {
		return nil, jobError(err)
	}
	out.Job, out.Stdout, out.Stderr, out.More = c.Job, c.Stdout, c.Stderr, c.More
	next := c.StdoutOffset
	out.NextOffset = &next
	if !since && off > next {
		out.Note = fmt.Sprintf("offset %d is past the end of the job's stdout, which holds %d bytes so far; next_offset is its end now", off, next)
	}
	if c.Job.ExitCode != nil {
		out.ExitCode = c.Job.ExitCode
	}
	res := &core.Result{Data: out}
	// The whole of the stream that was cut (a red team: stderr cut, stdout named).
	cut := c.Job.StdoutPath
	if c.More && !c.StdoutMore || len(c.Job.Capped) == 1 && c.Job.Capped[0] == "stderr" {
		cut = c.Job.StderrPath
	}
	if c.More {
		res.Truncated, res.OutputPath = true, cut
	}
	if len(c.Job.Capped) > 0 {
		out.Note = strings.TrimPrefix(out.Note+"; the job "+cappedNote(c.Job), "; ")
		res.Truncated, res.OutputPath = true, cut
	}
	return res, nil
}

func bashJobs(env *core.Env) (*proc.Jobs, error) {
	p, err := env.Session.Path("jobs", "dir")
	if err != nil {
		return nil, err
	}
	return &proc.Jobs{Dir: filepath.Dir(p), Self: env.Executable, MaxAge: env.Session.SidecarMaxAge}, nil
}

type bashCwd struct {
	Dir string `json:"dir"`
}

// run runs one command line.
func (b *Bash) run(ctx context.Context, env *core.Env) (*core.Result, error) {
	if strings.TrimSpace(b.Command) == "" {
		return nil, core.Errorf(core.CodeInvalidParams, "command is empty; pass the bash command line to run (or an action such as list)")
	}
	for k := range b.Env {
		if proc.Forbidden(k) {
			return nil, core.Errorf(core.CodeInvalidParams, "env may not set %s: it would make bash or the dynamic linker run code that was never checked; remove it", k)
		}
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, core.Errorf(core.CodeInvalidParams, "env has an invalid variable name %q", k)
		}
	}
	dir, err := b.workingDir(env)
	if err != nil {
		return nil, err
	}

	envNames := make([]string, 0, len(b.Env))
	for k := range b.Env {
		envNames = append(envNames, k)
	}
	// The gate runs the watchdog first: it refuses what no permission may allow, the
	// same decision permit check reports.
	decision, err := env.Authorize(ctx, core.Request{Capability: core.CapShellRun, Target: b.Command, Summary: "run " + b.Command + " in " + dir, Env: envNames, EnvValues: b.Env, Dir: dir})
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"decision": decision}
	runEnv, err := nestedEnv(env, b.Env)
	if err != nil {
		return nil, err
	}
	sb := sandbox.Config{Mode: sandbox.Mode(b.sandboxMode(env)), Roots: env.WS.Roots}
	var vw *core.WatchdogVerdict
	if v := decision.Watchdog; v != nil && v.Action == string(shell.Flag) {
		vw = v
	}

	if b.RunInBackground {
		jobs, err := bashJobs(env)
		if err != nil {
			return nil, err
		}
		env.ReadyToSpawn()
		job, err := jobs.Start(proc.StartOptions{Command: b.Command, Dir: dir, Env: runEnv, Stdin: b.Stdin, MaxOutput: jobOutputMax(env),
			Timeout: time.Duration(b.BackgroundTimeout) * time.Millisecond, Sandbox: sb})
		if err != nil {
			return nil, core.Errorf(core.CodeIOError, "%v", err)
		}
		out := &BashResult{Command: b.Command, Dir: dir, Job: job, Watchdog: vw, action: "start"}
		if sb.Mode != sandbox.Off && sb.Mode != "" {
			r := sandbox.Plan(sb)
			out.Sandbox = &r
		}
		return &core.Result{Data: out, Meta: meta}, nil
	}

	spillFile, err := env.Session.Path("spill", "bash")
	if err != nil {
		return nil, err
	}
	timeout, err := b.timeout()
	if err != nil {
		return nil, err
	}
	runs, err := env.Session.SharedDir("runs")
	if err != nil {
		return nil, err
	}
	opts := proc.Options{
		Command: b.Command, Dir: dir, Env: runEnv,
		Timeout:  timeout,
		SpillDir: filepath.Dir(spillFile), RunsDir: runs, Sandbox: sb, Self: env.Executable,
		BeforeStart: env.ReadyToSpawn,
	}
	if b.Stdin != "" {
		opts.Stdin = strings.NewReader(b.Stdin)
	}
	r, err := proc.Run(ctx, opts)
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "%v", err)
	}
	if r.Dir != dir {
		// A cd inside the command carries over to the next call, as in a shell.
		if err := env.Session.SaveJSON(bashCwdFile, bashCwd{Dir: r.Dir}); err != nil {
			return nil, err
		}
	}
	code := r.ExitCode
	out := &BashResult{
		Command: b.Command, ExitCode: &code, Signal: r.Signal, Stdout: r.Stdout.Text, Stderr: r.Stderr.Text,
		DurationMs: r.Duration.Milliseconds(), TimedOut: r.TimedOut, Dir: r.Dir,
		StdoutPath: r.Stdout.SpillPath, StderrPath: r.Stderr.SpillPath, Lingering: r.Lingering, LingeringPIDs: r.LingeringPIDs, Watchdog: vw,
		action: "run",
	}
	if r.Lingering {
		out.Note = "the command exited, leaving processes running"
		if len(r.LingeringPIDs) > 0 {
			out.Note += fmt.Sprintf(" (pids %s)", strings.Trim(fmt.Sprint(r.LingeringPIDs), "[]"))
		}
		out.Note += "; what they print from now on is not captured. To keep a process's output, start it with run_in_background; to stop them, kill them"
	}
	if n := invalidUTF8(r.Stdout.Text) + invalidUTF8(r.Stderr.Text); n > 0 {
		// JSON carries text: the envelope shows each such byte as U+FFFD (red team:
		// Latin-1 output came back changed with nothing to say so).
		if out.Note != "" {
			out.Note += "; "
		}
		out.Note += fmt.Sprintf("the output has %d bytes that are not UTF-8, each shown as \uFFFD; to see them, pipe the command through od -c or xxd, or convert it with iconv", n)
	}
	out.TimeoutMs = opts.Timeout.Milliseconds()
	if asked, _ := b.askedTimeout(); asked > proc.MaxTimeout {
		if out.Note != "" {
			out.Note += "; "
		}
		out.Note += fmt.Sprintf("the timeout asked for (%v) was cut to %v, the longest a command may run in the foreground; for longer, use run_in_background", asked, proc.MaxTimeout)
	}
	if r.Sandbox.Mode != sandbox.Off {
		rep := r.Sandbox
		out.Sandbox = &rep
	}
	res := &core.Result{Data: out, Meta: meta}
	if r.Stdout.Truncated || r.Stderr.Truncated {
		res.Truncated = true
		res.OutputPath = r.Stdout.SpillPath
		if res.OutputPath == "" {
			res.OutputPath = r.Stderr.SpillPath
		}
	}
	if r.Canceled {
		return nil, interruptedRun(out, r.Duration)
	}
	return res, nil
}

// interruptedRun is the error of a command a signal or the client's cancel stopped: it
// carries what the command had written by then (an error envelope has no data), so
// nothing it printed is lost.
func interruptedRun(out *BashResult, took time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "the command was interrupted after %v and its process group stopped", took.Round(time.Millisecond))
	if out.Stdout == "" && out.Stderr == "" {
		b.WriteString("; it had written nothing")
	}
	for _, s := range []struct{ name, text, path string }{{"stdout", out.Stdout, out.StdoutPath}, {"stderr", out.Stderr, out.StderrPath}} {
		if s.text == "" {
			continue
		}
		fmt.Fprintf(&b, "\n%s so far", s.name)
		if s.path != "" {
			// The line inside the text says what was left out and how much of it the
			// sidecar holds (at most its first 64 MiB).
			fmt.Fprintf(&b, " (cut; the sidecar is %s)", s.path)
		}
		b.WriteString(":\n" + s.text)
	}
	details := map[string]any{"stdout": out.Stdout, "stderr": out.Stderr, "duration_ms": took.Milliseconds()}
	e := &core.Error{Code: core.CodeInterrupted, Details: details}
	if out.StdoutPath != "" {
		details["stdout_path"] = out.StdoutPath
	}
	if out.StderrPath != "" {
		details["stderr_path"] = out.StderrPath
	}
	if path := cmp.Or(out.StdoutPath, out.StderrPath); path != "" {
		e.Meta = map[string]any{"truncated": true, "output_path": path}
	}
	e.Message = b.String()
	return e
}

// checkNUL refuses a command or environment holding a NUL byte, which no program can
// be given (exec fails with a bare "invalid argument").
func (b *Bash) checkNUL() error {
	if strings.ContainsRune(b.WorkingDir, 0) {
		return core.Errorf(core.CodeInvalidParams, "working_dir holds a NUL byte, which no path can carry; remove it")
	}
	if strings.ContainsRune(b.Command, 0) {
		return core.Errorf(core.CodeInvalidParams, "command holds a NUL byte (\\u0000), which a command line cannot carry; remove it (printf '\\0' writes one)")
	}
	for k, v := range b.Env {
		if strings.ContainsRune(k, 0) || strings.ContainsRune(v, 0) {
			return core.Errorf(core.CodeInvalidParams, "env %q holds a NUL byte, which an environment variable cannot carry; remove it", strings.ReplaceAll(k, "\x00", `\0`))
		}
	}
	return nil
}

// CheckRequest implements core.RequestChecker: two timeouts that differ leave which
// one holds to a guess (two that agree are one answer).
func (b *Bash) CheckRequest(present map[string]bool) error {
	if err := b.checkNUL(); err != nil {
		return err
	}
	if !present["timeout"] || !present["timeout_ms"] && !present["timeout_s"] {
		return nil
	}
	loose := *b
	loose.TimeoutMsExact, loose.TimeoutS = nil, nil
	want, err1 := loose.timeout()
	got, err2 := b.timeout()
	if err1 == nil && err2 == nil && want == got {
		return nil
	}
	return core.Errorf(core.CodeInvalidParams, "timeout and timeout_ms (or timeout_s) are both set, to different times; pass one of them")
}

// timeout is the call's effective timeout. reference 001 gives bash's timeout in
// seconds and others in milliseconds, and nobody means a 120 ms limit, so a timeout
// below 1000 is taken as seconds; timeout_ms and timeout_s say the unit outright.
func (b *Bash) timeout() (time.Duration, error) {
	asked, err := b.askedTimeout()
	return proc.ClampTimeout(asked), err
}

// askedTimeout is the timeout the call asked for, before the limits (0: none asked).
func (b *Bash) askedTimeout() (time.Duration, error) {
	switch {
	case b.TimeoutMsExact != nil && b.TimeoutS != nil:
		return 0, core.Errorf(core.CodeInvalidParams, "timeout_ms and timeout_s both set; pass one of them")
	case b.TimeoutMsExact != nil:
		return time.Duration(*b.TimeoutMsExact) * time.Millisecond, nil
	case b.TimeoutS != nil:
		return time.Duration(*b.TimeoutS) * time.Second, nil
	case b.TimeoutMs > 0 && b.TimeoutMs < 1000:
		return time.Duration(b.TimeoutMs) * time.Second, nil
	}
	return time.Duration(b.TimeoutMs) * time.Millisecond, nil
}

// workingDir is the directory this call runs in: working_dir (which then persists),
// else the session's last directory, else the caller's working directory.
func (b *Bash) workingDir(env *core.Env) (string, error) {
	if b.WorkingDir != "" {
		if !filepath.IsAbs(b.WorkingDir) {
			return "", core.Errorf(core.CodeInvalidParams, "working_dir %q is not absolute; pass an absolute path such as %s", b.WorkingDir, filepath.Join(env.Cwd, b.WorkingDir))
		}
		if !proc.IsDir(b.WorkingDir) {
			return "", core.Errorf(core.CodeNotFound, "working_dir %s does not exist or is not a directory", b.WorkingDir)
		}
		dir := filepath.Clean(b.WorkingDir)
		if err := env.Session.SaveJSON(bashCwdFile, bashCwd{Dir: dir}); err != nil {
			return "", err
		}
		return dir, nil
	}
	var saved bashCwd
	if err := env.Session.LoadJSON(bashCwdFile, &saved); err == nil && saved.Dir != "" {
		if proc.IsDir(saved.Dir) {
			return saved.Dir, nil
		}
		// The folder a cd of this session went to is gone: running in another one
		// unasked could point a relative rm or git clean at the wrong tree (red team).
		// Said once; the next call runs where the session started.
		if err := env.Session.SaveJSON(bashCwdFile, bashCwd{Dir: env.Cwd}); err != nil {
			return "", err
		}
		return "", core.Errorf(core.CodeNotFound, "the session's working directory %s no longer exists (it was removed or renamed since the last command), so this command was not run. Calls from now on run in %s; run the command again to run it there, or pass working_dir", saved.Dir, env.Cwd)
	}
	return env.Cwd, nil
}

func (b *Bash) sandboxMode(env *core.Env) string {
	m := b.Sandbox
	if m == "" || m == "auto" {
		m = env.Getenv("AGENTBOX_SANDBOX")
	}
	if m == "" {
		m = string(sandbox.Off)
	}
	return m
}

// RenderText implements core.TextRenderer: the output as a terminal would show it,
// then "[Exit code: N]" for a failure (reference 000).
func (r *BashResult) RenderText(p *core.Printer) {
	if r.Watchdog != nil {
		p.Println(p.Warn("[watchdog: " + r.Watchdog.Reason + "]"))
	}
	if r.Sandbox != nil {
		for _, n := range r.Sandbox.Notes {
			p.Println(p.Warn("[sandbox: " + n + "]"))
		}
	}
	switch r.action {
	case "list":
		if len(r.Jobs) == 0 {
			p.Println(p.Dim("No background jobs."))
		}
		for _, j := range r.Jobs {
			p.Printf("%s  %-9s pid %-7d %s\n", j.ID, jobStatus(j), j.PID, j.Command)
		}
		return
	case "start":
		p.Printf("Started background job %s (pid %d) in %s.\nRead its output with action output and job_id %s; wait, input and kill work the same way.\n", r.Job.ID, r.Job.PID, r.Dir, r.Job.ID)
		return
	case "input", "kill":
		p.Printf("Job %s: %s\n", r.Job.ID, jobStatus(r.Job))
		return
	}
	writeStream(p, r.Stdout)
	if r.Stderr != "" {
		writeStream(p, r.Stderr)
	}
	if r.action == "output" || r.action == "wait" {
		p.Println(p.Dim(fmt.Sprintf("[job %s: %s]", r.Job.ID, jobStatus(r.Job))))
		if r.More {
			p.Println(p.Dim(fmt.Sprintf("[more output is waiting; read again, or the whole of it in %s]", r.Job.StdoutPath)))
		}
		return
	}
	if r.TimedOut {
		p.Println(p.Warn(fmt.Sprintf("[Timed out after %d ms; the command and its children were killed]", r.TimeoutMs)))
	}
	if r.Note != "" {
		p.Println(p.Dim("[" + r.Note + "]"))
	}
	if r.ExitCode != nil && *r.ExitCode != 0 {
		sig := ""
		if r.Signal != "" {
			sig = " (" + r.Signal + ")"
		}
		p.Println(p.Warn(fmt.Sprintf("[Exit code: %d%s]", *r.ExitCode, sig)))
	}
}

func writeStream(p *core.Printer, s string) {
	if s == "" {
		return
	}
	p.Printf("%s", s)
	if !strings.HasSuffix(s, "\n") {
		p.Println()
	}
}

func jobStatus(j *proc.Job) string {
	switch {
	case j.State == "running":
		return "running"
	case j.ExitCode != nil && j.Signal != "":
		return fmt.Sprintf("%s (exit %d, %s)", j.State, *j.ExitCode, j.Signal)
	case j.ExitCode != nil:
		return fmt.Sprintf("%s (exit %d)", j.State, *j.ExitCode)
	}
	return j.State
}

// ActionFields implements core.ActionFields: what each action uses, so a field it
// would ignore is refused instead.
func (b *Bash) ActionFields() (string, map[string][]string) {
	return "bash", map[string][]string{
		"run": {"command", "timeout", "timeout_ms", "timeout_s", "working_dir", "run_in_background",
			"background_timeout", "env", "stdin", "sandbox"},
		"list":   {},
		"output": {"job_id", "offset"},
		"wait":   {"job_id", "wait_ms"},
		"input":  {"job_id", "stdin", "eof"},
		"kill":   {"job_id"},
	}
}

// jobOutputMax is AGENTBOX_JOB_OUTPUT_MAX: the cap in bytes of each of a background
// job's output files (0 or unset: proc.DefaultJobOutputMax).
func jobOutputMax(env *core.Env) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(env.Getenv("AGENTBOX_JOB_OUTPUT_MAX")), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// nestedEnv is the command's environment: the call's env, and the settings that pin an
// agentbox the command runs (by any name or copy) to this one's policy: its mode as a
// ceiling, its workspace roots, its manifest and its user config. A nested `agentbox bash --mode bypass`
// or `--manifest mine.json` would otherwise run under rules the agent chose; the line
// itself may not set AGENTBOX_* (the gate refuses it), so the pins hold.
func nestedEnv(env *core.Env, callEnv map[string]string) (map[string]string, error) {
	pol, _, err := gate.PolicyFor(env)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(callEnv)+4)
	for k, v := range callEnv {
		out[k] = v
	}
	pin := func(k, v string) {
		if _, set := callEnv[k]; !set && v != "" { // a rule let the call set it: its value stands
			out[k] = v
		}
	}
	pin("AGENTBOX_MODE", string(pol.Mode))
	pin("AGENTBOX_MODE_CEILING", string(pol.Mode))
	pin("AGENTBOX_ROOT", strings.Join(env.WS.Roots, string(filepath.ListSeparator)))
	if f := policy.UserConfigPath(env.Getenv); f != "" {
		if !filepath.IsAbs(f) {
			f = filepath.Join(env.Cwd, f)
		}
		pin("AGENTBOX_USER_CONFIG", f)                           // XDG_CONFIG_HOME=mine agentbox ... keeps these rules
		pin("AGENTBOX_USER_CONFIG_SHA256", pol.UserConfigDigest) // and the file moved or covered too
	}
	if m := env.Getenv("AGENTBOX_MANIFEST"); m != "" && !filepath.IsAbs(m) {
		pin("AGENTBOX_MANIFEST", filepath.Join(env.Cwd, m))
	} else {
		pin("AGENTBOX_MANIFEST", m)
	}
	return out, nil
}

// invalidUTF8 counts the bytes of s that are not part of valid UTF-8.
func invalidUTF8(s string) int {
	if utf8.ValidString(s) {
		return 0
	}
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n++
		}
		i += size
	}
	return n
}
