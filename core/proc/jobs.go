package proc

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentbox/agentbox/core/sandbox"
	"github.com/agentbox/agentbox/core/shell"
	"github.com/agentbox/agentbox/core/statefile"
)

// JobMarker is the hidden first argument that makes the binary a job supervisor.
const JobMarker = "__agentbox_job__"

// DefaultJobMaxAge is how long a finished job's files are kept.
const DefaultJobMaxAge = 24 * time.Hour

// Jobs manages background jobs under one directory (a session's jobs/ folder):
// one sub-directory per job with its spec, pid, stdout, stderr, stdin FIFO, read
// cursor and exit record. Every operation works from those files, so any agentbox
// process of the session can list, read, feed, wait for or kill any job.
type Jobs struct {
	Dir  string // created 0700 if missing
	Self string // the binary to run as supervisor; "" = os.Executable()
	// MaxAge is how long a finished job's files are kept; zero means DefaultJobMaxAge.
	MaxAge time.Duration
}

// StartOptions describe a background command.
type StartOptions struct {
	Command string            `json:"command"`
	Dir     string            `json:"dir"`
	Env     map[string]string `json:"env,omitempty"`
	BaseEnv []string          `json:"-"`                 // nil = the starter's os.Environ(); handed to the supervisor as its environment
	Stdin   string            `json:"-"`                 // first input for the job's stdin
	Timeout time.Duration     `json:"timeout,omitempty"` // background_timeout; 0 = none
	Grace   time.Duration     `json:"grace,omitempty"`
	Bash    string            `json:"bash"`
	Sandbox sandbox.Config    `json:"sandbox"`
	// MaxOutput caps each of the job's output files (stdout, stderr) in bytes; past it
	// the middle is read and dropped and the last part (a tenth of the cap, at most
	// 1 MiB) is kept after a note, so a job that prints forever cannot fill the disk.
	// 0 means DefaultJobOutputMax.
	MaxOutput int64 `json:"max_output,omitempty"`
	// KillRest stops what the job leaves behind when it exits (every process of its
	// tree, daemons included): a subagent's helpers end with it.
	KillRest bool `json:"kill_rest,omitempty"`
	// Foreground: the starter waits for the job, which ends with it: its supervisor
	// gets SIGTERM (and stops the job's tree) when the starter dies, even of SIGKILL
	// (red team: a foreground subagent outlived its killed agentbox by its timeout).
	Foreground bool `json:"-"`
}

// DefaultJobOutputMax is the default cap of a background job's stdout and stderr files.
const DefaultJobOutputMax = 64 << 20

// Job is a job's state as read from its files.
type Job struct {
	ID          string     `json:"id"`
	PID         int        `json:"pid"`
	Command     string     `json:"command"`
	Dir         string     `json:"dir"`
	Started     time.Time  `json:"started"`
	State       string     `json:"state"` // starting, running, exited, killed, timed_out, lost
	ExitCode    *int       `json:"exit_code,omitempty"`
	Signal      string     `json:"signal,omitempty"`
	Ended       *time.Time `json:"ended,omitempty"`
	StdoutBytes int64      `json:"stdout_bytes"`
	StderrBytes int64      `json:"stderr_bytes"`
	StdoutPath  string     `json:"stdout_path"`
	StderrPath  string     `json:"stderr_path"`
	// Capped: the job printed past its output cap (StartOptions.MaxOutput) on this
	// stream, "stdout" or "stderr" or both; the file then holds the first MaxOutput
	// bytes and the last part, and DroppedBytes were dropped between them so far.
	Capped       []string `json:"output_capped,omitempty"`
	DroppedBytes int64    `json:"dropped_bytes,omitempty"`
	supervisor   int
}

type pidFile struct {
	PID        int       `json:"pid"`
	Supervisor int       `json:"supervisor"`
	Started    time.Time `json:"started"`
}

type exitFile struct {
	ExitCode int       `json:"exit_code"`
	Signal   string    `json:"signal,omitempty"`
	Ended    time.Time `json:"ended"`
	TimedOut bool      `json:"timed_out,omitempty"`
	Killed   bool      `json:"killed,omitempty"`
}

type cursorFile struct {
	Stdout int64 `json:"stdout"`
	Stderr int64 `json:"stderr"`
}

// ErrNoJob is returned for an unknown job id.
var ErrNoJob = errors.New("no such background job")

func (j *Jobs) path(id string, name string) string { return filepath.Join(j.Dir, id, name) }

func (j *Jobs) checkID(id string) error {
	if id == "" || strings.ContainsAny(id, `/\.`) {
		return fmt.Errorf("%w %q; list the jobs to see their ids", ErrNoJob, id)
	}
	if _, err := os.Stat(filepath.Join(j.Dir, id, "spec.json")); err != nil {
		return fmt.Errorf("%w %q; list the jobs to see their ids", ErrNoJob, id)
	}
	return nil
}

// Start launches a background job and returns as soon as it runs. The job lives in
// its own session, so it outlives the caller.
func (j *Jobs) Start(o StartOptions) (*Job, error) {
	if err := os.MkdirAll(j.Dir, 0o700); err != nil {
		return nil, err
	}
	maxAge := j.MaxAge
	if maxAge <= 0 {
		maxAge = DefaultJobMaxAge
	}
	j.Cleanup(maxAge)
	if o.Bash == "" {
		var err error
		if o.Bash, err = FindBash(lookupEnv(CleanEnv(o.BaseEnv, o.Env), "PATH")); err != nil {
			return nil, err
		}
	}
	// The environment goes to the supervisor as its own, never into spec.json: the
	// job's folder is readable to the session, and the host's variables hold secrets.
	baseEnv := o.BaseEnv
	if baseEnv == nil {
		baseEnv = os.Environ()
	}
	o.BaseEnv = nil
	if st, err := os.Stat(o.Dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("working directory %s does not exist or is not a directory", o.Dir)
	}
	id, err := j.newID()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(j.Dir, id)
	started := false
	defer func() {
		if !started {
			os.RemoveAll(dir) // a job that never started leaves no "starting" entry behind
		}
	}()
	if err := writeJSON(filepath.Join(dir, "spec.json"), o); err != nil {
		return nil, err
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "stdin"), 0o600); err != nil {
		return nil, fmt.Errorf("cannot create the job's stdin FIFO: %v", err)
	}
	self := j.Self
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	log, err := os.OpenFile(filepath.Join(dir, "supervisor.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	ready, readyW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, JobMarker, dir)
	cmd.Args[0] = "agentbox" // a binary that dispatches on argv[0] (tests) must see agentbox
	cmd.Env = withPins(baseEnv, o.Env)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{readyW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if o.Foreground {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		ready.Close()
		return nil, fmt.Errorf("cannot start the job supervisor: %v", err)
	}
	// A supervisor is this process's child in another session: mark it as started
	// here so a timed-out command's kill never takes it for an escaped orphan.
	sup := cmd.Process.Pid
	own.Store(sup, struct{}{})
	go func() { cmd.Wait(); own.Delete(sup) }() // reap it if this process lives longer than the job
	ready.SetReadDeadline(time.Now().Add(10 * time.Second))
	msg, _ := io.ReadAll(io.LimitReader(ready, 256))
	ready.Close()
	if !strings.HasPrefix(string(msg), "ok") {
		why := strings.TrimPrefix(strings.TrimSpace(string(msg)), "error: ")
		if why == "" {
			b, _ := os.ReadFile(filepath.Join(dir, "supervisor.log"))
			why = strings.TrimSpace(string(b))
		}
		return nil, fmt.Errorf("background job did not start: %s", why)
	}
	started = true
	if o.Stdin != "" {
		if err := j.Input(id, o.Stdin, false); err != nil {
			return nil, err
		}
	}
	return j.Get(id)
}

// newID allocates the next free numeric id with an atomic mkdir.
func (j *Jobs) newID() (string, error) {
	n := 1
	if ents, err := os.ReadDir(j.Dir); err == nil {
		for _, e := range ents {
			if k, err := strconv.Atoi(e.Name()); err == nil && k >= n {
				n = k + 1
			}
		}
	}
	for tries := 0; tries < 1000; tries++ {
		id := strconv.Itoa(n + tries)
		err := os.Mkdir(filepath.Join(j.Dir, id), 0o700)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", errors.New("cannot allocate a job id")
}

// jobStartGrace is how long a job may take from its spec to its supervisor's pid file
// before it counts as lost.
const jobStartGrace = 30 * time.Second

// Get reads one job's state.
func (j *Jobs) Get(id string) (*Job, error) {
	if err := j.checkID(id); err != nil {
		return nil, err
	}
	var spec StartOptions
	if err := readJSON(j.path(id, "spec.json"), &spec); err != nil {
		return nil, err
	}
	job := &Job{ID: id, Command: spec.Command, Dir: spec.Dir, State: "running",
		StdoutPath: j.path(id, "stdout"), StderrPath: j.path(id, "stderr")}
	var pf pidFile
	if readJSON(j.path(id, "pid.json"), &pf) == nil {
		job.PID, job.Started, job.supervisor = pf.PID, pf.Started, pf.Supervisor
	} else if st, err := os.Stat(j.path(id, "spec.json")); err == nil {
		// Not started yet (or its supervisor died before it could say so): date it by
		// its spec, so that a cleanup in another process never takes a job being born
		// for an old lost one.
		job.Started = st.ModTime()
	}
	if st, err := os.Stat(job.StdoutPath); err == nil {
		job.StdoutBytes = st.Size()
	}
	if st, err := os.Stat(job.StderrPath); err == nil {
		job.StderrBytes = st.Size()
	}
	for _, stream := range []string{"stdout", "stderr"} {
		if b, err := os.ReadFile(j.path(id, stream+".capped")); err == nil {
			job.Capped = append(job.Capped, stream)
			n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			job.DroppedBytes += n
		}
	}
	var ef exitFile
	if readJSON(j.path(id, "exit.json"), &ef) == nil {
		code := ef.ExitCode
		job.ExitCode, job.Signal, job.Ended = &code, ef.Signal, &ef.Ended
		switch {
		case ef.TimedOut:
			job.State = "timed_out"
		case ef.Killed:
			job.State = "killed"
		default:
			job.State = "exited"
		}
	} else if pf.Supervisor == 0 && time.Since(job.Started) < jobStartGrace {
		job.State = "starting"
	} else if pf.Supervisor == 0 || !alive(pf.Supervisor) {
		job.State = "lost" // the supervisor died without recording an exit
	}
	return job, nil
}

// List returns every job, oldest first.
func (j *Jobs) List() ([]*Job, error) {
	ents, err := os.ReadDir(j.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []int
	for _, e := range ents {
		if k, err := strconv.Atoi(e.Name()); err == nil {
			ids = append(ids, k)
		}
	}
	sort.Ints(ids)
	var out []*Job
	for _, k := range ids {
		if job, err := j.Get(strconv.Itoa(k)); err == nil {
			out = append(out, job)
		}
	}
	return out, nil
}

// Chunk is output read from a job.
type Chunk struct {
	Job          *Job   `json:"job"`
	Stdout       string `json:"stdout"`
	Stderr       string `json:"stderr"`
	StdoutOffset int64  `json:"stdout_offset"` // where the next read starts
	StderrOffset int64  `json:"stderr_offset"`
	More         bool   `json:"more,omitempty"` // more output is already available past max
	// StdoutMore: of the two, stdout is one with more past max (else only stderr is).
	StdoutMore bool `json:"-"`
}

// Output reads a job's output. With since set it continues where the previous
// since-read stopped (and moves that cursor); otherwise it reads from the given
// offsets. At most max bytes per stream are returned (0 = 64 KiB).
func (j *Jobs) Output(id string, since bool, outOff, errOff int64, max int) (*Chunk, error) {
	if err := j.checkID(id); err != nil {
		return nil, err
	}
	if max <= 0 {
		max = 64 << 10
	}
	// Read the state first: if it says finished, everything written is on disk.
	job, err := j.Get(id)
	if err != nil {
		return nil, err
	}
	c := &Chunk{Job: job}
	err = j.withLock(id, func() error {
		var cur cursorFile
		if since {
			readJSON(j.path(id, "cursor.json"), &cur)
			outOff, errOff = cur.Stdout, cur.Stderr
		}
		var more1, more2 bool
		c.Stdout, c.StdoutOffset, more1 = readAt(j.path(id, "stdout"), outOff, max)
		c.Stderr, c.StderrOffset, more2 = readAt(j.path(id, "stderr"), errOff, max)
		c.More, c.StdoutMore = more1 || more2, more1
		if since {
			return writeJSON(j.path(id, "cursor.json"), cursorFile{Stdout: c.StdoutOffset, Stderr: c.StderrOffset})
		}
		return nil
	})
	return c, err
}

func readAt(name string, off int64, max int) (string, int64, bool) {
	f, err := os.Open(name)
	if err != nil {
		return "", off, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", off, false
	}
	if off < 0 || off > st.Size() {
		off = st.Size()
	}
	n := min(st.Size()-off, int64(max))
	buf := make([]byte, n)
	k, _ := f.ReadAt(buf, off)
	return string(buf[:k]), off + int64(k), off+int64(k) < st.Size()
}

// Wait waits up to timeout for the job to finish and returns its state.
func (j *Jobs) Wait(id string, timeout time.Duration) (*Job, error) {
	return j.WaitContext(context.Background(), id, timeout)
}

// WaitContext is Wait that also ends when ctx does (a signal to the caller), returning
// the job as it is then and ctx's error.
func (j *Jobs) WaitContext(ctx context.Context, id string, timeout time.Duration) (*Job, error) {
	deadline := time.Now().Add(timeout)
	for {
		job, err := j.Get(id)
		if err != nil || job.State != "running" && job.State != "starting" || !time.Now().Before(deadline) {
			return job, err
		}
		if ctx.Err() != nil {
			return job, ctx.Err()
		}
		select {
		case <-time.After(min(25*time.Millisecond, time.Until(deadline))):
		case <-ctx.Done():
		}
	}
}

// killLost stops the process group of a job whose supervisor died (killed by hand, or
// by the OOM killer) and records it as killed: nothing else would end it, not even its
// timeout, which the supervisor kept. The group is the job's only while its leader is
// still a process agentbox started for a command (it carries RunVar).
func (j *Jobs) killLost(id string, job *Job, grace time.Duration) (*Job, error) {
	if !groupAlive(job.PID) {
		// Nothing left to stop (its bash dies with its supervisor): recorded as killed,
		// as it is.
		ef := exitFile{ExitCode: 128 + int(syscall.SIGKILL), Signal: "SIGKILL", Killed: true, Ended: time.Now()}
		if err := writeJSON(j.path(id, "exit.json"), ef); err != nil {
			return nil, err
		}
		return j.Get(id)
	}
	// The leader may be gone (it dies with its supervisor) while what it started runs
	// on in its group: any member will do.
	ours := false
	for _, p := range scanProcs() {
		if p.pgid != job.PID {
			continue
		}
		if env, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/environ"); err == nil && strings.Contains("\x00"+string(env), "\x00"+RunVar+"=") {
			ours = true
			break
		}
	}
	if !ours {
		return job, nil // the group is another process's now
	}
	os.WriteFile(j.path(id, "killed"), nil, 0o600)
	syscall.Kill(-job.PID, syscall.SIGTERM)
	syscall.Kill(-job.PID, syscall.SIGCONT)
	deadline := time.Now().Add(orDefaultDur(grace, DefaultGrace))
	for time.Now().Before(deadline) && groupAlive(job.PID) {
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(-job.PID, syscall.SIGKILL)
	ef := exitFile{ExitCode: 128 + int(syscall.SIGKILL), Signal: "SIGKILL", Killed: true, Ended: time.Now()}
	if err := writeJSON(j.path(id, "exit.json"), ef); err != nil {
		return nil, err
	}
	return j.Get(id)
}

// Input sends data to the job's stdin; with eof the job's stdin is closed after it.
func (j *Jobs) Input(id, data string, eof bool) error {
	return j.InputContext(context.Background(), id, data, eof)
}

// InputStall is how long Input waits for a job that takes none of its input (its
// stdin pipe full: the job does not read it) before it gives up.
var InputStall = 10 * time.Second

// InputStalled is Input's error when the job stopped taking its input, or the call
// was cancelled, before all of it went in: Written bytes of Total did.
type InputStalled struct {
	ID             string
	Written, Total int
	Cause          error // context.Canceled, or nil for a stall
}

func (e *InputStalled) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("job %s took %d of the %d bytes of input before the call was interrupted; the job keeps running (send the rest, from byte %d, with action input)", e.ID, e.Written, e.Total, e.Written)
	}
	return fmt.Sprintf("job %s took %d of the %d bytes of input and then none for %v: it is not reading its standard input (the pipe is full); read its output, or send the rest, from byte %d, later", e.ID, e.Written, e.Total, InputStall, e.Written)
}

func (e *InputStalled) Unwrap() error { return e.Cause }

// InputContext is Input that gives up when the job takes nothing for InputStall, or
// when ctx ends (a signal to agentbox): never a call that hangs on a job that does not
// read (red team: a 300 KB input to a server hung the call, and a signal, for as long
// as the server ran).
func (j *Jobs) InputContext(ctx context.Context, id, data string, eof bool) error {
	if err := j.checkID(id); err != nil {
		return err
	}
	job, err := j.Get(id)
	if err != nil {
		return err
	}
	if job.State != "running" {
		return fmt.Errorf("background job %s is %s; it cannot take input", id, job.State)
	}
	// Its own lock: an output or wait of the job never waits for an input to go in.
	return j.withNamedLock(id, "input.lock", func() error {
		f, err := os.OpenFile(j.path(id, "stdin"), os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return fmt.Errorf("background job %s no longer reads input: %v", id, err)
		}
		defer f.Close()
		defer context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Now()) })()
		// Frames: 4-byte big-endian length, then data; the length 0xFFFFFFFF closes
		// stdin. A frame is one write of at most PIPE_BUF bytes, which a FIFO takes
		// whole or not at all, so a write cut short by the deadline cuts no frame.
		frame := func(p []byte, n uint32) error {
			if ctx.Err() == nil {
				f.SetWriteDeadline(time.Now().Add(InputStall))
			}
			var hdr [4]byte
			binary.BigEndian.PutUint32(hdr[:], n)
			_, err := f.Write(append(hdr[:], p...))
			return err
		}
		b := []byte(data)
		for len(b) > 0 {
			k := min(len(b), 4000) // one atomic FIFO write per frame
			if err := frame(b[:k], uint32(k)); err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					return &InputStalled{ID: id, Written: len(data) - len(b), Total: len(data), Cause: ctx.Err()}
				}
				return fmt.Errorf("cannot write to job %s's stdin: %v", id, err)
			}
			b = b[k:]
		}
		if eof {
			// The job may read its last input and exit before the close frame goes
			// out; its stdin is closed then all the same.
			if err := frame(nil, 0xFFFFFFFF); err != nil && !errors.Is(err, syscall.EPIPE) {
				return err
			}
		}
		return nil
	})
}

// Kill stops a job: SIGTERM to its process group, SIGKILL after grace.
func (j *Jobs) Kill(id string, grace time.Duration) (*Job, error) {
	job, err := j.Get(id)
	if err != nil {
		return nil, err
	}
	if job.State == "lost" && job.PID > 0 {
		return j.killLost(id, job, grace)
	}
	if job.State != "running" || job.PID == 0 {
		return job, nil
	}
	os.WriteFile(j.path(id, "killed"), nil, 0o600)
	// The supervisor kills the whole tree, escaped processes included (tree.go); the
	// group is signalled here too in case the supervisor is gone.
	if job.supervisor > 0 {
		syscall.Kill(job.supervisor, syscall.SIGTERM)
	}
	syscall.Kill(-job.PID, syscall.SIGTERM)
	syscall.Kill(-job.PID, syscall.SIGCONT)
	if job, err = j.Wait(id, orDefaultDur(grace, DefaultGrace)); err == nil && job.State == "running" {
		syscall.Kill(-job.PID, syscall.SIGKILL)
		job, err = j.Wait(id, 5*time.Second)
	}
	return job, err
}

// Cleanup removes finished (or lost) jobs older than maxAge and returns their ids.
func (j *Jobs) Cleanup(maxAge time.Duration) []string {
	jobs, _ := j.List()
	var gone []string
	cutoff := time.Now().Add(-maxAge)
	for _, job := range jobs {
		old := job.Ended != nil && job.Ended.Before(cutoff) ||
			job.State == "lost" && job.Started.Before(cutoff)
		if old && os.RemoveAll(filepath.Join(j.Dir, job.ID)) == nil {
			gone = append(gone, job.ID)
		}
	}
	return gone
}

func (j *Jobs) withLock(id string, fn func() error) error { return j.withNamedLock(id, "lock", fn) }

func (j *Jobs) withNamedLock(id, name string, fn func() error) error {
	f, err := os.OpenFile(j.path(id, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn()
}

// alive reports whether pid is a live (non-zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	return len(f) == 0 || f[0] != "Z" && f[0] != "X"
}

func writeJSON(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

func readJSON(name string, v any) error {
	b, err := statefile.Read(name)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Hook runs the job supervisor when the process was started as one (os.Args[1] is
// JobMarker) and never returns then; otherwise it returns at once. Call it first
// thing in main (and in TestMain of tests that start jobs).
func Hook() {
	if len(os.Args) < 3 || os.Args[1] != JobMarker {
		return
	}
	code := supervise(os.Args[2])
	os.Exit(code)
}

// supervise runs one job: starts bash in its own process group, reports readiness
// on fd 3, feeds the stdin FIFO, enforces the timeout and records the exit.
func supervise(dir string) int {
	syscall.CloseOnExec(3) // the job itself must not hold the readiness pipe open
	ready := os.NewFile(3, "ready")
	fail := func(err error) int {
		if ready != nil {
			fmt.Fprintf(ready, "error: %v", err)
			ready.Close()
		}
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var spec StartOptions
	if err := readJSON(filepath.Join(dir, "spec.json"), &spec); err != nil {
		return fail(err)
	}
	jio, err := openJobIO(dir, spec.MaxOutput)
	if err != nil {
		return fail(err)
	}
	t := newTree()
	cmd, err := jobCommand(spec, t, jio)
	if err != nil {
		return fail(err)
	}
	becomeSubreaper()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	c, err := startChild(cmd)
	if err != nil {
		return fail(err)
	}
	jio.inR.Close()
	jio.outW.Close()
	jio.errW.Close()
	pid := c.pid
	t.begin(pid)
	if err := writeJSON(filepath.Join(dir, "pid.json"), pidFile{PID: pid, Supervisor: os.Getpid(), Started: time.Now()}); err != nil {
		syscall.Kill(-pid, syscall.SIGKILL)
		return fail(err)
	}
	fmt.Fprint(ready, "ok")
	ready.Close()
	ready = nil

	go pumpStdin(jio.fifo, jio.inW)
	ef := awaitJob(c, t, spec, sigs)
	if _, err := os.Stat(filepath.Join(dir, "killed")); err == nil {
		// Jobs.Kill marks the kill before it signals this process and the job's group:
		// bash may have died of the group's signal before this process acted on its
		// own, so what escaped the group is stopped here, before the exit is recorded
		// (CI saw setsid'd processes outlive a killed job that way).
		t.killRest(time.Now(), orDefaultDur(spec.Grace, DefaultGrace))
	}
	// Let the copiers finish what the job wrote; a process that escaped the tree and
	// still holds a pipe does not hold up the exit record for long (the timer fires
	// once: after it, nothing more is waited for).
	drained := time.After(2 * time.Second)
	copied := 0
drain:
	for copied < 2 {
		select {
		case <-jio.copied:
			copied++
		case <-drained:
			break drain
		}
	}
	if spec.KillRest {
		t.killRest(time.Now(), orDefaultDur(spec.Grace, DefaultGrace))
	}
	ef.Ended = time.Now()
	if _, err := os.Stat(filepath.Join(dir, "killed")); err == nil && !ef.TimedOut {
		ef.Killed = true
	}
	if err := writeJSON(filepath.Join(dir, "exit.json"), ef); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// jobIO wires a background job to its folder: stdin from the stdin FIFO through a
// pipe, stdout and stderr through pipes that capped copiers drain into the files (each
// reports on copied when done).
type jobIO struct {
	fifo, inR, inW, outW, errW *os.File
	copied                     chan struct{}
}

func openJobIO(dir string, limit int64) (*jobIO, error) {
	open := func(name string) (*os.File, error) {
		return os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	}
	stdout, err := open("stdout")
	if err != nil {
		return nil, err
	}
	stderr, err := open("stderr")
	if err != nil {
		return nil, err
	}
	jio := &jobIO{copied: make(chan struct{}, 2)}
	// O_RDWR: opening never blocks and the FIFO never reports EOF between writers.
	if jio.fifo, err = os.OpenFile(filepath.Join(dir, "stdin"), os.O_RDWR, 0); err != nil {
		return nil, err
	}
	if jio.inR, jio.inW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = DefaultJobOutputMax
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	jio.outW, jio.errW = outW, errW
	go func() { copyCapped(stdout, outR, limit); jio.copied <- struct{}{} }()
	go func() { copyCapped(stderr, errR, limit); jio.copied <- struct{}{} }()
	return jio, nil
}

// withPins is the supervisor's environment: the starter's, with the job's pins (the
// PinKeys its Env sets). The supervisor is the subreaper of the job's orphans, so a
// process of the job that left its group and session, closed shell.PinsFD and cleared
// its environment still finds the pins in its parent's environment.
func withPins(base []string, env map[string]string) []string {
	out := slices.Clone(base)
	for _, k := range PinKeys {
		if v, ok := env[k]; ok {
			out = append(out, k+"="+v) // later entries win, for the pins' readers too
		}
	}
	return out
}

// jobPinsPrelude moves a job's pins from fd 3 to shell.PinsFD.
var jobPinsPrelude = fmt.Sprintf(`exec %d<&3 3<&-; `, shell.PinsFD)

// jobCommand is the job's bash: its own process group and tree id, the cleaned
// environment, and the sandbox when one is asked for.
func jobCommand(spec StartOptions, t *tree, jio *jobIO) (*exec.Cmd, error) {
	env := CleanEnv(spec.BaseEnv, spec.Env)
	script := spec.Command
	// The calling agentbox's pins go to the job as to a foreground command's bash: on
	// shell.PinsFD, which every process of the job (a subagent's tools included)
	// inherits through env -u, env -i, setsid and timeout's own process group.
	pins, err := sealPins(env)
	if err != nil {
		return nil, fmt.Errorf("cannot hand the job this agentbox's policy pins: %v", err)
	}
	if pins != nil {
		script = jobPinsPrelude + script
	}
	cmd := exec.Command(spec.Bash, "--noprofile", "--norc", "-c", script)
	if pins != nil {
		cmd.ExtraFiles = []*os.File{pins} // fd 3, which the prelude moves
	}
	cmd.Dir = spec.Dir
	cmd.Env = append(env, RunVar+"="+t.id)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = jio.inR, jio.outW, jio.errW
	// The job's bash dies with its supervisor, which alone enforces its timeout.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if spec.Sandbox.Mode != "" && spec.Sandbox.Mode != sandbox.Off {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		if _, err := sandbox.Wrap(cmd, spec.Sandbox, self); err != nil {
			return nil, err
		}
		cmd.SysProcAttr.Setpgid = true
	}
	return cmd, nil
}

// awaitJob waits for the job to exit, killing its whole tree on its timeout or on a
// signal (Jobs.Kill), and returns its exit record.
func awaitJob(c *child, t *tree, spec StartOptions, sigs <-chan os.Signal) exitFile {
	waitErr := make(chan exited, 1)
	go func() { waitErr <- c.wait() }()
	var ef exitFile
	var werr exited
	var timeout <-chan time.Time
	if spec.Timeout > 0 {
		timer := time.NewTimer(spec.Timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case werr = <-waitErr:
	case <-timeout:
		ef.TimedOut = true
		werr = t.kill(c.pid, orDefaultDur(spec.Grace, DefaultGrace), waitErr)
	case <-sigs: // Jobs.Kill
		werr = t.kill(c.pid, orDefaultDur(spec.Grace, DefaultGrace), waitErr)
	}
	ef.ExitCode, ef.Signal = exitStatus(werr)
	return ef
}

// pumpStdin copies framed input from the FIFO into the job's stdin.
func pumpStdin(fifo *os.File, w *os.File) {
	defer w.Close()
	var hdr [4]byte
	buf := make([]byte, 4096)
	for {
		if _, err := io.ReadFull(fifo, hdr[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(hdr[:])
		if n == 0xFFFFFFFF {
			return
		}
		for n > 0 {
			k := min(int(n), len(buf))
			if _, err := io.ReadFull(fifo, buf[:k]); err != nil {
				return
			}
			if _, err := w.Write(buf[:k]); err != nil {
				return
			}
			n -= uint32(k)
		}
	}
}

// copyCapped copies r into f until limit bytes, then says so in f at once, keeps
// reading so the writer never blocks, drops the middle and appends the last
// min(jobTailKeep, limit/10) bytes after a second note: the file ends at most that tail
// and two notes past the cap.
func copyCapped(f *os.File, r *os.File, limit int64) {
	defer f.Close()
	defer r.Close()
	n, _ := io.Copy(f, io.LimitReader(r, limit))
	if n < limit {
		return
	}
	var one [1]byte
	if k, _ := r.Read(one[:]); k == 0 {
		return // exactly at the cap: nothing was lost
	}
	keep := int(min(jobTailKeep, limit/10))
	// Beside the file, what was dropped so far (Job.Capped): a reader is told the file
	// is not the whole output, not only by the note inside it.
	capped := f.Name() + ".capped"
	os.WriteFile(capped, []byte("0"), 0o600)
	fmt.Fprintf(f, "\n[agentbox: this job's output reached its cap of %d bytes (AGENTBOX_JOB_OUTPUT_MAX); the middle is dropped and the last %d bytes follow]\n", limit, keep)
	// The end of a flood is kept: a program's last lines (a subagent's answer, a test
	// run's summary) matter most.
	tail := make([]byte, 0, keep)
	dropped := int64(0)
	buf := make([]byte, 64<<10)
	pending := one[:1]
	lastNote := time.Now()
	for {
		tail = append(tail, pending...)
		if over := len(tail) - keep; over > 0 {
			dropped += int64(over)
			tail = append(tail[:0], tail[over:]...)
		}
		if time.Since(lastNote) > time.Second {
			os.WriteFile(capped, []byte(strconv.FormatInt(dropped, 10)), 0o600)
			lastNote = time.Now()
		}
		k, err := r.Read(buf)
		pending = buf[:k]
		if err != nil {
			tail = append(tail, pending...)
			if over := len(tail) - keep; over > 0 {
				dropped += int64(over)
				tail = tail[over:]
			}
			break
		}
	}
	fmt.Fprintf(f, "[agentbox: %d bytes were dropped]\n", dropped)
	f.Write(tail)
	os.WriteFile(capped, []byte(strconv.FormatInt(dropped, 10)), 0o600)
}

// jobTailKeep is how much of the end of a capped job output is kept (at most a tenth
// of the cap).
const jobTailKeep = 1 << 20
