package applets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/gate"
	"github.com/agentbox/agentbox/core/policy"
	"github.com/agentbox/agentbox/core/proc"
	"github.com/google/shlex"
	"golang.org/x/sys/unix"
)

// task runs the agent the host configures, as a subagent. agentbox is the tool layer,
// not the agent: the host names the command (AGENTBOX_TASK_COMMAND, or a "task" section
// of the manifest or the user config, never a project's), and task gives it agentbox's
// guarantees. The child runs as a background job of the session (core/proc's job
// machinery, the same as bash's), so a foreground task and a background one differ only
// in who waits: its whole process tree dies on timeout, kill or a signal to agentbox,
// and its output lands in the session's files. The child inherits the workspace roots,
// the manifest and the rules, runs in a mode no looser than the parent's
// (AGENTBOX_MODE_CEILING), and gets its own session id derived from the parent's, so
// its agentbox calls are its own and can be traced back.

// Limits of task, used by the code and quoted in the description.
const (
	TaskDefaultTimeoutMs = 600000  // ten minutes: a subagent plans, reads and edits
	TaskMaxTimeoutMs     = 3600000 // an hour
	TaskDefaultMaxDepth  = 2       // a task's task may start no more
	TaskDefaultMaxAtOnce = 4       // running tasks per session
	TaskAnswerCap        = 50 << 10
	taskParseMax         = 8 << 20  // the most of a child's stdout read to find its answer (its end)
	taskSoFarMax         = 16 << 10 // the end of a running child's stdout that action output shows
	taskPromptArgMax     = 100 << 10
	taskDepthVar         = "AGENTBOX_TASK_DEPTH"
	taskCommandVar       = "AGENTBOX_TASK_COMMAND"
	taskStateFile        = "tasks.json"
)

// Task starts a subagent, or acts on the session's tasks.
type Task struct {
	Description     string `json:"description" help:"a short (3-5 word) label for the task, shown in lists and prompts"`
	Prompt          string `json:"prompt" alias:"task,message,instructions" arg:"" optional:"" schema:"maxLength=1048576" help:"the whole task for the subagent: it starts with no memory of this conversation, so say what to do, what is known, and what to report back"`
	SubagentType    string `json:"subagent_type" alias:"agent,agent_type" help:"the kind of agent to run, for a configured command that has a {agent} placeholder; otherwise recorded only"`
	RunInBackground bool   `json:"run_in_background" alias:"background" help:"start the task and return its job_id at once; read it later with action output or wait"`
	TimeoutMs       int    `json:"timeout" default:"0" schema:"min=0,max=3600000" help:"end the subagent (its whole process tree) after this many milliseconds (default 600000, max 3600000; a value below 1000 is taken as seconds)"`
	Action          string `json:"action" enum:"run,list,output,wait,kill" default:"run" help:"run a task (default), or act on the session's tasks: list, output (what it printed so far, and its answer once done), wait, kill"`
	JobID           string `json:"job_id" alias:"task_id,id" help:"the task for output, wait and kill"`
	WaitMs          int    `json:"wait_ms" default:"30000" schema:"min=0,max=3600000" help:"wait: how long to wait for the task to finish, in milliseconds"`
}

// TaskResult is what task returns.
type TaskResult struct {
	Description string `json:"description,omitempty"`
	JobID       string `json:"job_id,omitempty"`
	// SessionID is the child's own agentbox session: PARENT.task-N.
	SessionID string `json:"session_id,omitempty"`
	State     string `json:"state,omitempty"` // starting, running, exited, killed, timed_out, lost
	// Answer is the subagent's final message: extracted from its JSON output where the
	// agent speaks JSON (Format names the adapter), else its whole stdout.
	Answer     string `json:"answer,omitempty"`
	Format     string `json:"format,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	DurationMs int64  `json:"duration_ms,omitempty"`
	Stderr     string `json:"stderr,omitempty"`      // the end of stderr, when the agent failed
	OutputPath string `json:"output_path,omitempty"` // the child's whole stdout
	// SoFar is the end of what a running subagent has printed (action output).
	SoFar string `json:"so_far,omitempty"`
	// AgentError is the failure the agent itself reported (claude's is_error, with its
	// subtype such as error_max_turns); Note says what a result lacks or means.
	AgentError string     `json:"agent_error,omitempty"`
	Note       string     `json:"note,omitempty"`
	Tasks      []TaskInfo `json:"tasks,omitempty"`
	action     string
}

// TaskInfo is one task as listed.
type TaskInfo struct {
	JobID       string `json:"job_id"`
	Description string `json:"description"`
	SessionID   string `json:"session_id"`
	State       string `json:"state"`
	ExitCode    *int   `json:"exit_code,omitempty"`
	Started     string `json:"started"`
}

// taskConfig is the "task" section of the manifest or the user config.
type taskConfig struct {
	Command      json.RawMessage `json:"command"` // ["claude","-p"] or "claude -p"
	MaxDepth     int             `json:"max_depth,omitempty"`
	MaxAtOnce    int             `json:"max_running,omitempty"`
	TimeoutMs    int             `json:"timeout_ms,omitempty"`
	MaxTimeoutMs int             `json:"max_timeout_ms,omitempty"`

	argv   []string
	source string
}

// taskSetupHelp is the not-configured error: what to set, with an example.
const taskSetupHelp = "no subagent is configured: task runs the agent command the host names. Set AGENTBOX_TASK_COMMAND (e.g. `claude -p --output-format json`, `codex exec --json -`, `gemini --output-format json -p {prompt}` or `opencode run --format json {prompt}`; the prompt goes to its stdin, or in place of a {prompt} argument), or add to the manifest or the user config (%s): {\"task\": {\"command\": [\"claude\", \"-p\", \"--output-format\", \"json\"], \"max_depth\": 2, \"max_running\": 4}}. Until then, do the work yourself with the other tools."

// loadTaskConfig reads the configuration; ok is false when no agent is configured.
func loadTaskConfig(env *core.Env) (cfg taskConfig, ok bool, err error) {
	raw, file, err := gate.HostConfig(env, "task")
	if err != nil {
		return cfg, false, err
	}
	if raw != nil {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return cfg, false, core.Errorf(core.CodeInvalidParams, "the \"task\" section of %s is not valid: %v (known keys: command, max_depth, max_running, timeout_ms, max_timeout_ms); fix the file", file, err)
		}
		cfg.source = file
		// A limit written is a limit meant: one that cannot be is refused, not replaced
		// by the default (max_depth 0 allowed two levels).
		for _, l := range []struct {
			name string
			v    int
		}{{"max_depth", cfg.MaxDepth}, {"max_running", cfg.MaxAtOnce}, {"timeout_ms", cfg.TimeoutMs}, {"max_timeout_ms", cfg.MaxTimeoutMs}} {
			if l.v < 0 || l.v == 0 && bytes.Contains(raw, []byte(`"`+l.name+`"`)) {
				return cfg, false, core.Errorf(core.CodeInvalidParams, "task.%s in %s is %d; it must be at least 1 (leave it out for the default); fix the file", l.name, file, l.v)
			}
		}
		if cfg.TimeoutMs > 0 && cfg.MaxTimeoutMs > 0 && cfg.TimeoutMs > cfg.MaxTimeoutMs {
			return cfg, false, core.Errorf(core.CodeInvalidParams, "task.timeout_ms in %s (%d) is more than its max_timeout_ms (%d); fix the file", file, cfg.TimeoutMs, cfg.MaxTimeoutMs)
		}
		if len(cfg.Command) > 0 {
			var s string
			if json.Unmarshal(cfg.Command, &s) == nil {
				if cfg.argv, err = shlex.Split(s); err != nil {
					return cfg, false, core.Errorf(core.CodeInvalidParams, "task.command in %s cannot be split into words: %v", file, err)
				}
			} else if err := json.Unmarshal(cfg.Command, &cfg.argv); err != nil {
				return cfg, false, core.Errorf(core.CodeInvalidParams, "task.command in %s must be a string or an array of strings", file)
			}
		}
	}
	if c := strings.TrimSpace(env.Getenv(taskCommandVar)); c != "" {
		if cfg.argv, err = shlex.Split(c); err != nil {
			return cfg, false, core.Errorf(core.CodeInvalidParams, "%s cannot be split into words: %v", taskCommandVar, err)
		}
		cfg.source = taskCommandVar
	}
	if len(cfg.argv) == 0 {
		return cfg, false, nil
	}
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = TaskDefaultMaxDepth
	}
	if cfg.MaxAtOnce <= 0 {
		cfg.MaxAtOnce = TaskDefaultMaxAtOnce
	}
	if cfg.MaxTimeoutMs <= 0 {
		cfg.MaxTimeoutMs = TaskMaxTimeoutMs
	}
	if cfg.TimeoutMs <= 0 {
		cfg.TimeoutMs = min(TaskDefaultTimeoutMs, cfg.MaxTimeoutMs)
	}
	return cfg, true, nil
}

// taskAvailable is the table's Available: task is offered only when an agent is set up.
func taskAvailable(env *core.Env) bool {
	_, ok, err := loadTaskConfig(env)
	return ok || err != nil // a broken config is shown, so its error is seen
}

// taskState is the session's record of its tasks (tasks.json).
type taskState struct {
	Next  int                  `json:"next"`
	Tasks map[string]taskEntry `json:"tasks"` // by job id
}

type taskEntry struct {
	Description string `json:"description"`
	SessionID   string `json:"session_id"`
}

func taskJobs(env *core.Env) (*proc.Jobs, error) {
	p, err := env.Session.Path("tasks", "dir")
	if err != nil {
		return nil, err
	}
	return &proc.Jobs{Dir: filepath.Dir(p), Self: env.Executable, MaxAge: env.Session.SidecarMaxAge}, nil
}

// Run implements core.Command.
func (t *Task) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	switch t.Action {
	case "", "run":
		return t.run(ctx, env)
	case "list":
		return t.list(env)
	}
	if t.JobID == "" {
		return nil, core.Errorf(core.CodeInvalidParams, "action %s needs job_id; action list shows the session's tasks", t.Action)
	}
	jobs, err := taskJobs(env)
	if err != nil {
		return nil, err
	}
	var state taskState
	if err := env.Session.LoadJSON(taskStateFile, &state); err != nil {
		return nil, err
	}
	entry := state.Tasks[t.JobID]
	switch t.Action {
	case "output":
		job, err := jobs.Get(t.JobID)
		if err != nil {
			return nil, jobError(err)
		}
		return t.finish(jobs, job, entry)
	case "wait":
		job, err := t.await(ctx, jobs, t.JobID, time.Duration(t.WaitMs)*time.Millisecond)
		if err != nil {
			return nil, err
		}
		return t.finish(jobs, job, entry)
	case "kill":
		if _, err := env.Authorize(ctx, core.Request{Capability: core.CapAgentSpawn, Target: "kill " + t.JobID, Summary: "stop subagent task " + t.JobID, Own: true}); err != nil {
			return nil, err
		}
		job, err := jobs.Kill(t.JobID, proc.DefaultGrace)
		if err != nil {
			return nil, jobError(err)
		}
		return t.finish(jobs, job, entry)
	}
	return nil, core.Errorf(core.CodeInvalidParams, "unknown action %q; use run, list, output, wait or kill", t.Action)
}

func (t *Task) list(env *core.Env) (*core.Result, error) {
	jobs, err := taskJobs(env)
	if err != nil {
		return nil, err
	}
	var state taskState
	if err := env.Session.LoadJSON(taskStateFile, &state); err != nil {
		return nil, err
	}
	all, err := jobs.List()
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "cannot list the tasks: %v", err)
	}
	out := &TaskResult{Tasks: []TaskInfo{}, action: "list"}
	for _, j := range all {
		e := state.Tasks[j.ID]
		out.Tasks = append(out.Tasks, TaskInfo{JobID: j.ID, Description: e.Description, SessionID: e.SessionID, State: j.State, ExitCode: j.ExitCode, Started: j.Started.Format(time.RFC3339)})
	}
	return &core.Result{Data: out}, nil
}

// run starts a task and, in the foreground, waits for its answer.
func (t *Task) run(ctx context.Context, env *core.Env) (*core.Result, error) {
	if strings.TrimSpace(t.Prompt) == "" {
		return nil, core.Errorf(core.CodeInvalidParams, "prompt is empty; give the subagent its whole task: what to do, what is known, what to report back")
	}
	if strings.ContainsRune(t.Prompt, 0) || strings.ContainsRune(t.SubagentType, 0) || strings.ContainsRune(t.Description, 0) {
		return nil, core.Errorf(core.CodeInvalidParams, "the prompt, description or subagent_type holds a NUL character, which no program argument or file name can carry; remove it")
	}
	cfg, ok, err := loadTaskConfig(env)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, core.Errorf(core.CodeInvalidParams, taskSetupHelp, policy.UserConfigPath(env.Getenv))
	}
	depth, _ := strconv.Atoi(env.Getenv(taskDepthVar))
	if depth >= cfg.MaxDepth {
		return nil, core.Errorf(core.CodeInvalidParams, "this agent is a subagent %d level(s) deep and tasks may nest only %d deep (max_depth; the command comes from %s); do this work yourself", depth, cfg.MaxDepth, cfg.source)
	}
	timeout, err := t.timeout(cfg)
	if err != nil {
		return nil, err
	}
	description := strings.TrimSpace(t.Description)
	if description == "" {
		description = clipString(strings.Join(strings.Fields(t.Prompt), " "), 60)
	}
	decision, err := env.Authorize(ctx, core.Request{Capability: core.CapAgentSpawn, Target: description, Summary: "start a subagent (" + strings.Join(cfg.argv, " ") + "): " + description})
	if err != nil {
		return nil, err
	}
	pol, _, err := gate.PolicyFor(env)
	if err != nil {
		return nil, err
	}
	jobs, err := taskJobs(env)
	if err != nil {
		return nil, err
	}

	var job *proc.Job
	var entry taskEntry
	// Counting the running tasks and starting one is one step under the session's lock,
	// so two calls at once cannot both take the last place.
	err = env.Session.WithLock(ctx, "tasks", func() error {
		all, err := jobs.List()
		if err != nil {
			return core.Errorf(core.CodeIOError, "cannot list the tasks: %v", err)
		}
		running := 0
		for _, j := range all {
			if j.State == "running" || j.State == "starting" {
				running++
			}
		}
		if running >= cfg.MaxAtOnce {
			return core.Errorf(core.CodeConflict, "%d tasks are already running in this session, the most at once (max_running); wait for one (action wait) or stop one (action kill), see action list", running)
		}
		var state taskState
		if err := env.Session.LoadJSON(taskStateFile, &state); err != nil {
			return err
		}
		// A child's session is a fresh one: after tasks.json is deleted (as its corrupt
		// state's error says to) or old tasks are swept, N would name an old child's.
		state.Next++
		for env.Session.SiblingExists(childSessionID(env.Session.ID, state.Next)) {
			state.Next++
		}
		entry = taskEntry{Description: description, SessionID: childSessionID(env.Session.ID, state.Next)}
		// The number is taken before the subagent starts: an agentbox killed between the
		// start and the record below leaves a gap, never a second child under one
		// session (a red team killed starts and got four children sharing task-1).
		if err := env.Session.SaveJSON(taskStateFile, state); err != nil {
			return err
		}
		command, stdinFile, err := t.commandLine(env, cfg.argv)
		if err != nil {
			return err
		}
		extra := map[string]string{
			"AGENTBOX_SESSION":      entry.SessionID,
			"AGENTBOX_MODE":         string(pol.Mode),
			"AGENTBOX_MODE_CEILING": string(pol.Mode),
			"AGENTBOX_ROOT":         strings.Join(env.WS.Roots, string(filepath.ListSeparator)),
			taskDepthVar:            strconv.Itoa(depth + 1),
		}
		if m := env.Getenv("AGENTBOX_MANIFEST"); m != "" {
			if !filepath.IsAbs(m) {
				m = filepath.Join(env.Cwd, m)
			}
			extra["AGENTBOX_MANIFEST"] = m
		}
		if stdinFile != "" {
			command += " < " + shellQuote(stdinFile)
		} else {
			command += " < /dev/null" // the prompt is an argument: an agent reading stdin gets EOF
		}
		env.ReadyToSpawn()
		job, err = jobs.Start(proc.StartOptions{Command: command, Dir: env.Cwd, Env: extra, Timeout: timeout, MaxOutput: jobOutputMax(env), KillRest: true, Foreground: !t.RunInBackground})
		if err != nil {
			return core.Errorf(core.CodeIOError, "cannot start the subagent: %v", err)
		}
		if state.Tasks == nil {
			state.Tasks = map[string]taskEntry{}
		}
		state.Tasks[job.ID] = entry
		return env.Session.SaveJSON(taskStateFile, state)
	})
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"decision": decision}
	if t.RunInBackground {
		out := &TaskResult{Description: description, JobID: job.ID, SessionID: entry.SessionID, State: job.State, action: "start"}
		return &core.Result{Data: out, Meta: meta}, nil
	}
	job, err = t.await(ctx, jobs, job.ID, 0)
	if err != nil {
		return nil, err
	}
	res, err := t.finish(jobs, job, entry)
	if err != nil {
		return nil, err
	}
	res.Meta = meta
	return res, nil
}

// await waits for a task to end: up to limit (0: until it ends by itself, its own
// timeout bounding it), or until ctx is cancelled, which kills its process tree.
func (t *Task) await(ctx context.Context, jobs *proc.Jobs, id string, limit time.Duration) (*proc.Job, error) {
	var deadline time.Time
	if limit > 0 {
		deadline = time.Now().Add(limit)
	}
	for {
		job, err := jobs.Wait(id, 100*time.Millisecond)
		if err != nil {
			return nil, jobError(err)
		}
		if job.State == "lost" {
			// Its supervisor died (killed from outside) without recording the end: what
			// is left of the subagent's tree is stopped, and the call says so (a red team
			// found a normal-looking result and the agent's processes running on).
			_, _ = jobs.Kill(id, proc.DefaultGrace)
			return nil, core.Errorf(core.CodeIOError, "the subagent's supervisor died (killed from outside) before the subagent ended, so how it ended is not known; what was left of its process tree was stopped, and what it printed is in %s", job.StdoutPath)
		}
		if job.State != "running" && job.State != "starting" {
			return job, nil
		}
		if ctx.Err() != nil {
			_, _ = jobs.Kill(id, proc.DefaultGrace)
			return nil, core.Errorf(core.CodeInterrupted, "the task was cancelled; its subagent and everything it started were stopped")
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return job, nil
		}
	}
}

// finish reports a task: its answer once it has ended, else its state.
func (t *Task) finish(jobs *proc.Jobs, job *proc.Job, entry taskEntry) (*core.Result, error) {
	out := &TaskResult{Description: entry.Description, JobID: job.ID, SessionID: entry.SessionID, State: job.State, ExitCode: job.ExitCode, OutputPath: job.StdoutPath, action: "result"}
	if job.Ended != nil {
		out.DurationMs = job.Ended.Sub(job.Started).Milliseconds()
	}
	if job.State == "running" || job.State == "starting" {
		if job.StdoutBytes > 0 {
			c, err := jobs.Output(job.ID, false, max(job.StdoutBytes-taskSoFarMax, 0), job.StderrBytes, taskSoFarMax)
			if err == nil {
				out.SoFar = c.Stdout
				if job.StdoutBytes > taskSoFarMax {
					out.SoFar = fmt.Sprintf("[the last %d KB of %d bytes so far; the whole of it is in %s]\n%s", taskSoFarMax>>10, job.StdoutBytes, job.StdoutPath, out.SoFar)
				}
			}
		}
		return &core.Result{Data: out}, nil
	}
	// The final message is at the end of what an agent prints: past taskParseMax, the
	// end is what is read.
	c, err := jobs.Output(job.ID, false, max(job.StdoutBytes-taskParseMax, 0), max(job.StderrBytes-4096, 0), taskParseMax)
	if err != nil {
		return nil, jobError(err)
	}
	if job.State == "timed_out" {
		return nil, core.Errorf(core.CodeTimeout, "the subagent did not finish in time and was stopped with everything it started; what it printed is in %s (raise timeout, or split the task)", job.StdoutPath)
	}
	if job.ExitCode != nil && *job.ExitCode == 127 {
		return nil, core.Errorf(core.CodeInvalidParams, "the task command could not be run (exit 127: not found): %s; fix AGENTBOX_TASK_COMMAND or the task command of the config, then try again", strings.TrimSpace(c.Stderr))
	}
	out.Answer, out.Format, out.AgentError = extractAnswer(c.Stdout)
	failed := job.ExitCode == nil || *job.ExitCode != 0
	switch {
	case out.AgentError != "":
		out.Note = "the subagent reported that it failed (" + out.AgentError + "); answer is its last message"
	case out.Answer == "" && !failed:
		out.Note = "the subagent ended without an answer (its stdout was empty)"
	case out.Answer == "" && job.ExitCode != nil:
		out.Note = fmt.Sprintf("the subagent exited with code %d without an answer", *job.ExitCode)
		if code := *job.ExitCode; code > 128 && code < 128+65 {
			out.Note += fmt.Sprintf(" (code %d is a process killed by signal %d, %s)", code, code-128, unix.SignalName(syscall.Signal(code-128)))
		}
	}
	if out.Note != "" && out.Answer == "" {
		if strings.TrimSpace(c.Stderr) == "" {
			out.Note += "; it printed nothing on stderr either"
		} else {
			out.Note += "; stderr says what it printed there"
		}
	}
	if failed || out.Note != "" {
		out.Stderr = strings.TrimSpace(c.Stderr)
		if job.StderrBytes > 4096 {
			out.Stderr = fmt.Sprintf("[the last 4 KB of %d bytes; the whole stderr is in %s]\n%s", job.StderrBytes, job.StderrPath, out.Stderr)
		}
	}
	res := &core.Result{Data: out}
	if len(job.Capped) > 0 {
		out.Note = strings.TrimPrefix(out.Note+"; the subagent "+cappedNote(job), "; ")
		res.Truncated, res.OutputPath = true, job.StdoutPath
		if !slices.Contains(job.Capped, "stdout") {
			res.OutputPath = job.StderrPath // the stream that was cut
		}
	}
	if len(out.Answer) > TaskAnswerCap || c.More || job.StdoutBytes > taskParseMax && out.Format == "text" {
		if out.Format == "text" {
			// A plain-text agent ends with its conclusion: the end is kept.
			out.Answer = "[…the start is in output_path] " + clipStart(out.Answer, TaskAnswerCap)
		} else {
			out.Answer = clipString(out.Answer, TaskAnswerCap)
		}
		res.Truncated, res.OutputPath = true, job.StdoutPath
	}
	return res, nil
}

// cappedNote says that a job's output files are not all it printed.
func cappedNote(job *proc.Job) string {
	return fmt.Sprintf("printed more than its output cap (AGENTBOX_JOB_OUTPUT_MAX): the files of its %s hold its start and its end, and %d bytes from the middle were dropped",
		strings.Join(job.Capped, " and "), job.DroppedBytes)
}

// clipStart keeps the last n bytes of s (at a character's start).
func clipStart(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// commandLine turns the configured argv into a bash command line that execs it: the
// prompt in place of a {prompt} word, else from a file on stdin (returned).
func (t *Task) commandLine(env *core.Env, argv []string) (line, stdinFile string, err error) {
	inline := false
	words := make([]string, len(argv))
	// One pass over the placeholders: a {agent} inside the prompt stays as written.
	fill := strings.NewReplacer("{prompt}", t.Prompt, "{agent}", t.SubagentType)
	for i, a := range argv {
		if strings.Contains(a, "{prompt}") {
			inline = true
		}
		a = fill.Replace(a)
		words[i] = shellQuote(a)
		// bash -c takes the line as one argument, which the kernel caps (128 KB):
		// quoting can double a prompt's length.
		if len(words[i]) > taskPromptArgMax {
			return "", "", core.Errorf(core.CodeTooLarge, "the prompt is %d KB once quoted, too long for the {prompt} argument of the task command (%d KB at most); shorten it, or configure the command without {prompt} so the prompt goes to its stdin", len(words[i])>>10, taskPromptArgMax>>10)
		}
	}
	line = "exec " + strings.Join(words, " ")
	if !inline {
		if stdinFile, err = env.Session.Spill("task-prompt", []byte(t.Prompt)); err != nil {
			return "", "", err
		}
	}
	return line, stdinFile, nil
}

func (t *Task) timeout(cfg taskConfig) (time.Duration, error) {
	ms := t.TimeoutMs
	if ms > 0 && ms < 1000 {
		ms *= 1000 // seconds, as bash takes them
	}
	if ms == 0 {
		ms = cfg.TimeoutMs
	}
	if ms > cfg.MaxTimeoutMs {
		return 0, core.Errorf(core.CodeInvalidParams, "timeout %d ms is over the most a task may run, %d ms; split the task or ask for less", ms, cfg.MaxTimeoutMs)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// childSessionID derives a task's session id from its parent's: PARENT.task-N. Where
// the whole would be too long, the parent's id is shortened from the left and a digest
// of all of it put in front, so two long parents never share a child's session (their
// todos, grants and reads).
func childSessionID(parent string, n int) string {
	suffix := ".task-" + strconv.Itoa(n)
	if len(parent)+len(suffix) <= 128 {
		return parent + suffix
	}
	sum := sha256.Sum256([]byte(parent))
	digest := hex.EncodeToString(sum[:8])
	keep := 128 - len(suffix) - len(digest) - 1
	return digest + "-" + strings.TrimLeft(parent[len(parent)-keep:], "._-") + suffix
}

// shellQuote quotes s as one bash word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// extractAnswer finds a subagent's final message in what it printed: the JSON of a
// known agent (claude --output-format json or stream-json, codex exec --json, gemini
// --output-format json, opencode run --format json), else the whole text.
func extractAnswer(stdout string) (answer, format, agentErr string) {
	trimmed := strings.TrimSpace(stdout)
	if trimmed == "" {
		return "", "text", ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(trimmed), &obj) == nil {
		if a, ok := claudeResult(obj); ok {
			return a, "claude", claudeError(obj)
		}
		if a, ok := jsonString(obj["response"]); ok {
			return a, "gemini", ""
		}
	}
	lines := strings.Split(trimmed, "\n")
	var claude, claudeErr, codex, opencode string
	var sawClaude, sawCodex, sawOpencode bool
	jsonLines := 0
	for _, line := range lines {
		var ev map[string]json.RawMessage
		if json.Unmarshal([]byte(strings.TrimSpace(line)), &ev) != nil {
			continue
		}
		jsonLines++
		typ, _ := jsonString(ev["type"])
		switch typ {
		case "result":
			if a, ok := claudeResult(ev); ok {
				claude, claudeErr, sawClaude = a, claudeError(ev), true
			}
		case "item.completed":
			var item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if json.Unmarshal(ev["item"], &item) == nil && item.Type == "agent_message" {
				codex, sawCodex = item.Text, true
			}
		case "step_start":
			opencode = ""
		case "text":
			var part struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(ev["part"], &part) == nil {
				opencode += part.Text
				sawOpencode = true
			}
		}
		if msg, ok := ev["msg"]; ok { // codex before its thread/item events
			var m struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			}
			if json.Unmarshal(msg, &m) == nil && m.Type == "agent_message" {
				codex, sawCodex = m.Message, true
			}
		}
	}
	switch {
	case jsonLines == 0:
		return trimmed, "text", ""
	case sawClaude:
		return claude, "claude", claudeErr
	case sawCodex:
		return codex, "codex", ""
	case sawOpencode:
		return strings.TrimSpace(opencode), "opencode", ""
	}
	return trimmed, "text", ""
}

// claudeResult is the final message of claude's result event; one that ended in an
// error (max turns) may have none.
func claudeResult(obj map[string]json.RawMessage) (string, bool) {
	if typ, _ := jsonString(obj["type"]); typ != "result" {
		return "", false
	}
	if a, ok := jsonString(obj["result"]); ok {
		return a, true
	}
	return "", claudeError(obj) != ""
}

// claudeError is the failure claude's result event reports: its subtype (error_max_turns,
// error_during_execution) where is_error is true or the subtype is an error.
func claudeError(obj map[string]json.RawMessage) string {
	var isErr bool
	_ = json.Unmarshal(obj["is_error"], &isErr)
	sub, _ := jsonString(obj["subtype"])
	if !isErr && !strings.HasPrefix(sub, "error") {
		return ""
	}
	if sub == "" || sub == "success" {
		sub = "is_error"
	}
	return sub
}

func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// RenderText implements core.TextRenderer: the answer, as a harness shows a model.
func (r *TaskResult) RenderText(p *core.Printer) {
	switch r.action {
	case "list":
		if len(r.Tasks) == 0 {
			p.Println(p.Dim("No tasks in this session."))
		}
		for _, t := range r.Tasks {
			p.Printf("%s  %-9s %s  (session %s)\n", t.JobID, t.State, t.Description, t.SessionID)
		}
		return
	case "start":
		p.Printf("Started task %s (%s) in the background as session %s.\nRead its answer with action wait or output and job_id %s; kill stops it.\n", r.JobID, r.Description, r.SessionID, r.JobID)
		return
	}
	if r.State == "running" || r.State == "starting" {
		p.Printf("Task %s (%s) is still running; wait for it with action wait.\n", r.JobID, r.Description)
		return
	}
	writeStream(p, r.Answer)
	if r.Stderr != "" {
		writeStream(p, r.Stderr)
	}
	if r.ExitCode != nil && *r.ExitCode != 0 {
		p.Println(p.Warn(fmt.Sprintf("[task %s %s: exit code %d]", r.JobID, r.State, *r.ExitCode)))
	} else if r.State == "killed" {
		p.Println(p.Warn(fmt.Sprintf("[task %s was stopped]", r.JobID)))
	}
}

// ActionFields implements core.ActionFields.
func (t *Task) ActionFields() (string, map[string][]string) {
	return "task", map[string][]string{
		"run":    {"description", "prompt", "subagent_type", "run_in_background", "timeout"},
		"list":   {},
		"output": {"job_id"},
		"wait":   {"job_id", "wait_ms"},
		"kill":   {"job_id"},
	}
}
