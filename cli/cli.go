// Package cli is agentbox's front end: the process boundary (Host), dispatch on argv[0]
// or the first argument, the global flags, JSON or shell mode, the call's Env with the
// policy gate, and the envelope or text written back. It also runs the re-exec'd
// helpers (job supervisor, sandbox, index builder), `agentbox install` and `agentbox
// index`. The applets and core never see the process: everything reaches them through
// core.Env.
package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/agentbox/agentbox/cli/flags"
	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/gate"
	"github.com/agentbox/agentbox/core/index"
	"github.com/agentbox/agentbox/core/policy"
	"github.com/agentbox/agentbox/core/proc"
	"github.com/agentbox/agentbox/core/sandbox"
	"github.com/mattn/go-isatty"
	"golang.org/x/sys/unix"
)

// Host is the process boundary: everything Main takes from the operating system.
type Host struct {
	Stdin            io.Reader
	Stdout, Stderr   io.Writer
	Getenv           func(string) string
	Getwd            func() (string, error)
	Now              func() time.Time
	StdinIsTerminal  bool
	StdoutIsTerminal bool
	// StdinIsData: stdin is a pipe or a regular file, something to read (not a terminal,
	// not /dev/null), as ripgrep decides whether to search it.
	StdinIsData bool
	Executable  string
	// Signals, when set, cancels the call's context (exit status 130).
	Signals bool
	// InheritedPins finds the policy pins of a calling agentbox: on the descriptor its
	// bash left them on, or in the starting environment of the shell that runs this
	// process (see inheritedPins; nil: none).
	InheritedPins func() (map[string]string, error)
}

// OSEnv returns the real process's Host.
func OSEnv() Host {
	exe, _ := os.Executable()
	// Now, before this process opens descriptors of its own (an MCP server's files
	// could reach the pins' number).
	fdPins, fdErr := proc.InheritedPins()
	var stdout io.Writer = os.Stdout
	if runtimeDevNull(1) {
		stdout = closedStdout{}
	}
	return Host{
		Stdin: os.Stdin, Stdout: stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Getwd: os.Getwd, Now: time.Now,
		StdinIsTerminal:  isatty.IsTerminal(os.Stdin.Fd()) || isatty.IsCygwinTerminal(os.Stdin.Fd()),
		StdoutIsTerminal: isatty.IsTerminal(os.Stdout.Fd()) || isatty.IsCygwinTerminal(os.Stdout.Fd()),
		StdinIsData:      stdinIsData(),
		Executable:       exe,
		Signals:          true,
		InheritedPins:    func() (map[string]string, error) { return inheritedPins(fdPins, fdErr) },
	}
}

// runtimeDevNull reports whether descriptor fd is the /dev/null the Go runtime opens in
// place of a standard descriptor that was closed when the process started (for reading
// and writing, which a shell's >/dev/null is not): an answer written there is lost, and
// the exit status must say so.
func runtimeDevNull(fd int) bool {
	var st, null unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return false
	}
	if unix.Stat("/dev/null", &null) != nil || st.Rdev != null.Rdev {
		return false
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_ACCMODE == unix.O_RDWR
}

// closedStdout stands for a standard output that was closed when agentbox started.
type closedStdout struct{}

func (closedStdout) Write([]byte) (int, error) {
	return 0, errors.New("standard output was closed when agentbox started, so the answer has nowhere to go")
}

func stdinIsData() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && (fi.Mode()&os.ModeNamedPipe != 0 || fi.Mode().IsRegular())
}

// Exit statuses.
const (
	ExitOK          = 0
	ExitToolError   = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// globals are the options every applet accepts, in either mode. They are taken out of
// the argument list before the applet's own flags are parsed, so their presence does
// not turn a JSON call into a shell call.
type globals struct {
	JSON, Text bool
	Root       []string
	Session    string
	Mode       string
	Manifest   string
	Color      string
	Dialect    string
}

var globalValueFlags = map[string]bool{"--root": true, "--session": true, "--mode": true, "--manifest": true, "--color": true, "--dialect": true}

func splitGlobals(args []string) (globals, []string, error) {
	var g globals
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--json":
			g.JSON = true
		case a == "--text":
			g.Text = true
		case globalValueFlags[name]:
			if !hasVal {
				if i+1 >= len(args) {
					return g, nil, fmt.Errorf("%s needs a value", name)
				}
				i++
				val = args[i]
			}
			switch name {
			case "--root":
				g.Root = append(g.Root, val)
			case "--session":
				g.Session = val
			case "--mode":
				g.Mode = val
			case "--manifest":
				g.Manifest = val
			case "--color":
				g.Color = val
			case "--dialect":
				g.Dialect = val
			}
		default:
			rest = append(rest, a)
		}
	}
	if g.JSON && g.Text {
		return g, nil, errors.New("--json and --text contradict each other; pass one")
	}
	return g, rest, nil
}

// Main runs agentbox: it dispatches on argv[0] or the first argument, runs the applet
// and returns the exit status.
func Main(args []string, specs []core.Spec, host Host) int {
	if len(args) == 0 {
		args = []string{"agentbox"}
	}
	runHelper(args)
	table := core.NewTable(specs)
	// The dialect (--dialect or AGENTBOX_DIALECT) decides what a tool name means, so it
	// is read before the name is resolved; runApplet takes the flag out again.
	dialect := host.Getenv("AGENTBOX_DIALECT")
	if g, _, err := splitGlobals(args[1:]); err == nil && g.Dialect != "" {
		dialect = g.Dialect
	}
	if _, err := table.DialectTools(dialect); err != nil {
		fmt.Fprintln(host.Stderr, "agentbox: "+core.AsError(err).Message)
		return ExitUsage
	}
	if ref := table.ResolveArgv0(dialect, args[0]); ref != nil {
		return runApplet(ref, args[0], args[1:], table, host)
	}
	rest := args[1:]
	if len(rest) == 0 {
		printUsage(host.Stdout, table)
		return ExitUsage
	}
	switch rest[0] {
	case "-h", "--help", "help":
		if len(rest) > 1 {
			if spec := table.Lookup(rest[1]); spec != nil {
				return runApplet(&core.ToolRef{Spec: spec}, "agentbox "+spec.Name, []string{"--help"}, table, host)
			}
		}
		printUsage(host.Stdout, table)
		return ExitOK
	case "--version", "version":
		fmt.Fprintln(host.Stdout, "agentbox", core.VersionString())
		return ExitOK
	case "--list", "list":
		return listApplets(host, table, rest[1:])
	case "install":
		return install(host, table, rest[1:])
	case "index":
		return indexCmd(host, rest[1:])
	}
	if ref, _ := table.Resolve(dialect, rest[0]); ref != nil {
		return runApplet(ref, "agentbox "+rest[0], rest[1:], table, host)
	}
	closest := table.Closest(rest[0], 3)
	// An agent's call (JSON mode: the name alone, stdin not a terminal, or --json) gets
	// an envelope like every other answer, so a harness never parses stderr.
	if (len(rest) == 1 && !host.StdinIsTerminal) || slices.Contains(rest[1:], "--json") {
		msg := fmt.Sprintf("unknown applet %q", rest[0])
		if len(closest) > 0 {
			msg += fmt.Sprintf("; the closest names are %s", strings.Join(closest, ", "))
		}
		e := core.Errorf(core.CodeInvalidParams, "%s. Run `agentbox --list` (or `agentbox prompt`) to see every applet.", msg)
		if closest == nil {
			closest = []string{}
		}
		_ = core.ErrorEnvelope(e.WithDetails(map[string]any{"closest": closest}), 0).WriteJSON(host.Stdout)
		return ExitUsage
	}
	msg := fmt.Sprintf("agentbox: unknown applet %q", rest[0])
	if len(closest) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", closest[0])
	}
	fmt.Fprintln(host.Stderr, msg+" Run `agentbox --list` to see every applet.")
	return ExitUsage
}

func printUsage(w io.Writer, t *core.Table) {
	fmt.Fprintf(w, `agentbox: the tool layer of a coding agent, in one binary.

Usage:
  agentbox APPLET [flags] [args]     a person at a shell
  echo '{...}' | agentbox APPLET     an agent: one JSON object in, one JSON envelope out
  agentbox --list | --version | install --links DIR [--prefix P]
  agentbox index [--remove] [--json] [DIR]  build (or remove) grep's index of DIR now
  agentbox help APPLET               an applet's flags, defaults and a JSON example

Global flags (any applet): --json, --text, --root DIR, --session ID,
  --mode default|accept-edits|read-only|bypass, --manifest FILE, --color auto|always|never,
  --dialect agentbox|ref002|ref000|claude (tool and parameter names of another agent)

Applets:
`)
	for _, s := range t.Specs {
		fmt.Fprintf(w, "  %-8s %s\n", s.Name, s.Summary)
	}
}

func listApplets(host Host, t *core.Table, args []string) int {
	g, _, _ := splitGlobals(args)
	if g.JSON {
		type row struct {
			Name    string    `json:"name"`
			Aliases []string  `json:"aliases"`
			Kind    core.Kind `json:"kind"`
			Summary string    `json:"summary"`
		}
		var rows []row
		for _, s := range t.Specs {
			rows = append(rows, row{s.Name, s.Aliases, s.Kind, s.Summary})
		}
		_ = core.OutputEnvelope(&core.Result{Data: rows}, 0).WriteJSON(host.Stdout)
		return ExitOK
	}
	for _, s := range t.Specs {
		fmt.Fprintf(host.Stdout, "%-8s %-8s %s\n", s.Name, s.Kind, s.Summary)
	}
	return ExitOK
}

// runApplet is the front end of one call.
func runApplet(ref *core.ToolRef, prog string, args []string, table *core.Table, host Host) (status int) {
	spec := ref.Spec
	if _, closed := host.Stdout.(closedStdout); closed {
		// Nothing is done that no answer could report (red team: a write ran, and the
		// caller never learnt it had).
		fmt.Fprintf(host.Stderr, "%s: standard output was closed when agentbox started, so no answer could be given; nothing was done. Run it with its standard output open.\n", prog)
		return ExitToolError
	}
	start := host.Now()
	ctx, signalsReady := callContext(host)
	g, args, gerr := splitGlobals(args)
	c := &call{ref: ref, table: table, host: host, start: start}
	c.jsonIn = len(args) == 0 && !host.StdinIsTerminal && !spec.Stdio
	c.jsonOut = (c.jsonIn || g.JSON) && !g.Text
	if (c.jsonOut || spec.Stdio) && host.Signals {
		// A reader that goes away takes the envelope with it: that is a write error
		// (exit 1 and a line on stderr), not a silent death by SIGPIPE, for an agent's
		// call and for the MCP server (red team: it died, leaving its calls' commands
		// running). Caught, not ignored: an ignored SIGPIPE is inherited through exec,
		// and every command bash ran then saw EPIPE errors (yes | head complained). At a
		// shell the silent death is what `agentbox grep … | head` wants, as grep does.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	}
	c.color = !c.jsonOut && host.StdoutIsTerminal && host.Getenv("NO_COLOR") == "" && host.Getenv("TERM") != "dumb"
	switch g.Color {
	case "always":
		c.color = !c.jsonOut
	case "never":
		c.color = false
	}
	if gerr != nil {
		return c.fail(core.Errorf(core.CodeInvalidParams, "%v", gerr), ExitUsage)
	}
	defer func() {
		if r := recover(); r != nil {
			status = c.fail(core.Errorf(core.CodeInternal, "agentbox hit an internal error (%v); this is a bug in agentbox, please report it with the request that caused it", r), ExitToolError)
		}
	}()

	env, err := buildEnv(spec, g, host, c.jsonIn)
	if env != nil {
		env.Specs = table.Specs
		if spec.Stdio {
			env.Stdout = host.Stdout
		}
	}
	if err != nil {
		return c.fail(core.AsError(err), ExitUsage)
	}
	defer env.WS.Close()

	cmd, exit := c.decode(ctx, prog, args)
	if exit >= 0 {
		return exit
	}
	env.SignalsReady = signalsReady
	if c.jsonOut {
		go warmEncoders(spec)
	}
	res, err := cmd.Run(ctx, env)
	return c.finish(cmd, res, err, configWarnings(env), ctx.Err() != nil && host.Signals)
}

// call is one applet call's output side: how it answers (JSON or text, colour) and
// since when.
type call struct {
	ref             *core.ToolRef
	table           *core.Table
	host            Host
	start           time.Time
	jsonIn, jsonOut bool
	color           bool
}

func (c *call) elapsed() int64 { return c.host.Now().Sub(c.start).Milliseconds() }

// fail answers with an error (an envelope, or a line on stderr) and returns code.
func (c *call) fail(e *core.Error, code int) int {
	if c.ref.Tool != nil {
		// Hints name the tools as this dialect calls them (read_file, list_skills).
		e.Message = c.table.DialectHints(c.ref.Tool.Dialect, e.Message)
	}
	if c.jsonOut {
		if err := core.ErrorEnvelope(e, c.elapsed()).WriteJSON(c.host.Stdout); err != nil {
			c.unwritten(err)
		}
	} else {
		p := core.NewPrinter(c.host.Stderr, c.color && c.host.StdoutIsTerminal)
		p.Printf("%s: %s %s\n", c.ref.Spec.Name, p.Warn("error ["+string(e.Code)+"]:"), e.Message)
	}
	return code
}

// decode builds the applet's parameters from the JSON request on stdin or from the
// command line. exit >= 0 means the call is over (an error was answered, or help
// printed).
func (c *call) decode(ctx context.Context, prog string, args []string) (core.Command, int) {
	spec, tool := c.ref.Spec, c.ref.Tool
	cmd := spec.New()
	if c.jsonIn {
		// The request is read so that a signal still stops agentbox while a writer
		// holds stdin open and sends nothing.
		data, err := core.ReadAllContext(ctx, c.host.Stdin, core.MaxRequestBytes+1)
		if err != nil {
			if ctx.Err() != nil {
				return nil, c.fail(core.Errorf(core.CodeInterrupted, "interrupted by a signal while waiting for the JSON request on stdin"), ExitInterrupted)
			}
			return nil, c.fail(core.Errorf(core.CodeIOError, "could not read the JSON request from stdin: %v", err), ExitUsage)
		}
		if err := core.DecodeDialectRequest(bytes.NewReader(data), cmd, tool); err != nil {
			return nil, c.fail(core.AsError(err), ExitUsage)
		}
		return cmd, -1
	}
	host := c.host
	exit, err := flags.Parse(spec, prog, cmd, args, flags.Stdio{Stdin: host.Stdin, Stdout: host.Stdout, Stderr: host.Stderr, StdinIsTerminal: host.StdinIsTerminal, StdinIsData: host.StdinIsData})
	if exit >= 0 {
		return nil, exit
	}
	if err == nil && tool != nil && len(tool.Fixed) > 0 {
		// A dialect tool's fixed arguments (update_plan_step's action) hold in shell
		// mode too.
		b, _ := json.Marshal(tool.Fixed)
		err = json.Unmarshal(b, cmd)
	}
	if err != nil {
		return nil, c.fail(core.AsError(err), ExitUsage)
	}
	return cmd, -1
}

// finish answers with the applet's result or error, the policy's warnings added, and
// returns the exit status.
func (c *call) finish(cmd core.Command, res *core.Result, err error, warnings []string, interrupted bool) int {
	if err != nil {
		e := core.AsError(err)
		if len(warnings) > 0 {
			e.Meta = withWarnings(e.Meta, warnings)
		}
		if interrupted {
			e = &core.Error{Code: core.CodeInterrupted, Message: "interrupted by a signal before the call finished: " + e.Message, Meta: e.Meta, Details: e.Details}
			return c.fail(e, ExitInterrupted)
		}
		status := ExitToolError
		if e.Code == core.CodeInvalidParams {
			status = ExitUsage // an invalid request, found while running (the README's 2)
		}
		if se, ok := cmd.(core.ShellErrorExiter); ok && !c.jsonOut {
			status = se.ShellErrorExit()
		}
		return c.fail(e, status)
	}
	if res == nil {
		res = &core.Result{}
	}
	host := c.host
	if len(warnings) > 0 {
		res.Meta = withWarnings(res.Meta, warnings)
		if !c.jsonOut {
			p := core.NewPrinter(host.Stderr, c.color && host.StdoutIsTerminal)
			for _, w := range warnings {
				p.Printf("%s: %s %s\n", c.ref.Spec.Name, p.Warn("warning:"), w)
			}
		}
	}
	var werr error
	switch {
	case c.ref.Spec.Stdio: // the applet spoke on stdout itself
	case c.jsonOut:
		werr = core.OutputEnvelope(res, c.elapsed()).WriteJSON(host.Stdout)
	default:
		// Buffered: a hundred thousand lines were a hundred thousand write calls, half
		// of a big search's time. Notes on stderr flush the results before them, so a
		// terminal shows both in the order they were written.
		out := bufio.NewWriterSize(host.Stdout, 64<<10)
		p := core.NewPrinter(out, c.color)
		p.Err = core.NewPrinter(flushFirst{out, host.Stderr}, c.color && host.StdoutIsTerminal)
		core.RenderText(p, res)
		werr = out.Flush()
	}
	if interrupted && res.Interrupted {
		return ExitInterrupted
	}
	if werr != nil {
		c.unwritten(werr)
		if se, ok := cmd.(core.ShellErrorExiter); ok && !c.jsonOut {
			return se.ShellErrorExit() // grep's 1 means "no match": an error is 2
		}
		return ExitToolError
	}
	if !c.jsonOut && res.ExitCode != 0 {
		return res.ExitCode
	}
	return ExitOK
}

// unwritten says on stderr that the answer did not reach stdout (a full disk, a closed
// descriptor): the exit status alone would not tell a cut file from a whole one.
func (c *call) unwritten(err error) {
	next := "it is incomplete: write it where there is room, or narrow the call"
	if _, closed := c.host.Stdout.(closedStdout); closed {
		next = "it is lost: run agentbox with its standard output open"
	}
	fmt.Fprintf(c.host.Stderr, "agentbox %s: the result could not be written to standard output (%v); %s\n", c.ref.Spec.Name, err, next)
}

// flushFirst writes to w after flushing buf: what was buffered for one stream comes
// out before what is written to the other.
type flushFirst struct {
	buf *bufio.Writer
	w   io.Writer
}

func (f flushFirst) Write(b []byte) (int, error) {
	_ = f.buf.Flush()
	return f.w.Write(b)
}

// configWarnings are the settings the policy ignored (see policy.Policy.Warnings).
func configWarnings(env *core.Env) []string {
	if g, ok := env.Gate.(*gate.PolicyGate); ok {
		return g.Warnings()
	}
	return nil
}

// withWarnings adds the policy's warnings to a result's or error's metadata.
func withWarnings(meta map[string]any, warnings []string) map[string]any {
	if meta == nil {
		meta = map[string]any{}
	}
	meta["warnings"] = warnings
	return meta
}

// callContext is the context of one call: with Host.Signals, SIGINT, SIGTERM and
// SIGHUP cancel it. Subscribing starts threads of os/signal's own (half a millisecond
// of a 5 ms call here), so it runs beside the decoding of the request and the
// applet's checks. The returned channel closes once the subscription is in place, and
// Env.ReadyToSpawn waits for it: bash waits at its start gate until then, so no
// command ever runs that a signal could leave behind. A signal before then ends
// agentbox as it would without a handler, and the gate closes with it. The
// subscription is never stopped: Signals is for the real process, which exits when
// Main returns (signal.Stop would cost another round trip with the signal goroutine).
func callContext(host Host) (context.Context, <-chan struct{}) {
	ready := make(chan struct{})
	if !host.Signals {
		close(ready)
		return context.Background(), ready
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		sigs := make(chan os.Signal, 1)
		// SIGQUIT too (Ctrl-\ at a terminal): Go's own answer is a stack dump and an
		// exit that leaves a command running.
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
		close(ready)
		<-sigs
		cancel()
	}()
	return ctx, ready
}

// warmEncoders has encoding/json build its encoders for the envelope and the types
// the applet's result may hold, beside the applet's run (a command's run leaves a core
// idle), so writing the envelope afterwards does no reflection on the way out. A
// failure here only means the encoder is built later, so it is ignored.
func warmEncoders(spec *core.Spec) {
	defer func() { _ = recover() }()
	_, _ = json.Marshal(core.Envelope{Metadata: map[string]any{"decision": core.Decision{}}})
	for _, v := range spec.Output {
		_, _ = json.Marshal(v)
	}
}

func buildEnv(spec *core.Spec, g globals, host Host, jsonIn bool) (*core.Env, error) {
	getenv := host.Getenv
	if host.InheritedPins != nil {
		// A calling agentbox's bash pinned its policy in its commands' environment, and
		// the shell it started still holds them as they were: they stand over what the
		// command's environment says now (env -i, read AGENTBOX_MODE_CEILING, printf -v),
		// and the stricter ceiling of the two holds.
		pins, err := host.InheritedPins()
		if err != nil {
			return nil, core.Errorf(core.CodePermissionDenied, "%v", err)
		}
		if len(pins) > 0 {
			base := getenv
			ceiling := pins["AGENTBOX_MODE_CEILING"]
			if own := base("AGENTBOX_MODE_CEILING"); own != "" {
				if m, err := policy.ParseMode(own); err == nil {
					if c, err := policy.ParseMode(ceiling); err == nil {
						ceiling = string(policy.StricterMode(m, c))
					}
				}
			}
			getenv = func(k string) string {
				if k == "AGENTBOX_MODE_CEILING" {
					return ceiling
				}
				if v, ok := pins[k]; ok {
					return v
				}
				return base(k)
			}
		}
	}
	if err := nestedFlags(g, getenv, host.Getwd); err != nil {
		return nil, err
	}
	if g.Mode != "" || g.Manifest != "" {
		over := map[string]string{"AGENTBOX_MODE": g.Mode, "AGENTBOX_MANIFEST": g.Manifest}
		base := getenv
		getenv = func(k string) string {
			if v := over[k]; v != "" {
				return v
			}
			return base(k)
		}
	}
	switch m := getenv("AGENTBOX_MODE"); m {
	case "", "default", "accept-edits", "read-only", "bypass":
	default:
		return nil, core.Errorf(core.CodeInvalidParams, "unknown permission mode %q; use default, accept-edits, read-only or bypass", m)
	}
	cwd, err := host.Getwd()
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "cannot determine the working directory: %v", err)
	}
	roots := g.Root
	if len(roots) == 0 {
		if r := getenv("AGENTBOX_ROOT"); r != "" {
			roots = filepath.SplitList(r)
		}
	}
	// Roots pinned by a calling agentbox (a command or subagent it started, or a host's
	// ceiling) bound an MCP client's roots: a nested `agentbox mcp` must not let the
	// model, speaking MCP to it from bash, name the whole disk as its workspace.
	pinnedRoots := getenv("AGENTBOX_MODE_CEILING") != "" && getenv("AGENTBOX_ROOT") != ""
	if len(roots) == 0 {
		roots = []string{core.FindRoot(cwd)}
	}
	for i, r := range roots {
		if !filepath.IsAbs(r) {
			roots[i] = filepath.Join(cwd, r)
		}
		if fi, err := os.Stat(roots[i]); err != nil || !fi.IsDir() {
			return nil, core.Errorf(core.CodeInvalidParams, "workspace root %s is not a directory; pass an existing directory to --root or AGENTBOX_ROOT", roots[i])
		}
	}
	stateHome := policy.XDGHome(getenv, "XDG_STATE_HOME", ".local/state")
	if stateHome == "" {
		stateHome = filepath.Join(os.TempDir(), ".local", "state")
	}
	sid := g.Session
	if sid == "" {
		sid = getenv("AGENTBOX_SESSION")
	}
	sess, err := core.NewSession(stateHome, sid, host.Now)
	if err != nil {
		return nil, err
	}
	sess.SidecarMaxAge = core.ParseMaxAge(getenv("AGENTBOX_SIDECAR_MAX_AGE"))
	dialect := g.Dialect
	if dialect == "" {
		dialect = getenv("AGENTBOX_DIALECT")
	}
	var stdin io.Reader
	if !jsonIn {
		stdin = host.Stdin
	}
	return &core.Env{
		Applet: spec.Name, Stdin: stdin, Stderr: host.Stderr, Getenv: getenv, Now: host.Now,
		Cwd: cwd, WS: core.NewWorkspace(roots...).WithExplicitRoots(pinnedRoots), Session: sess,
		Interactive: !jsonIn && host.StdinIsTerminal, Executable: host.Executable,
		Gate:    &gate.PolicyGate{},
		Dialect: dialect,
	}, nil
}

// runHelper runs a re-exec'd helper (background job supervisor, sandbox, grep's index
// builder and watcher) when args name one; such a process never returns from here.
func runHelper(args []string) {
	if len(args) > 1 && (args[1] == proc.JobMarker || args[1] == sandbox.Marker || args[1] == index.Marker || args[1] == index.WatchMarker) {
		proc.Hook()
		sandbox.Hook()
		index.Hook()
		index.WatchHook()
	}
}

// nestedFlags refuses the flags that would take an agentbox run under another one (its
// bash or task set AGENTBOX_MODE_CEILING, with the workspace roots and the manifest)
// out of that one's policy: another manifest, or roots outside the pinned ones. The
// mode needs no check here: the ceiling caps it.
func nestedFlags(g globals, getenv func(string) string, getwd func() (string, error)) error {
	if getenv("AGENTBOX_MODE_CEILING") == "" {
		return nil
	}
	const why = "this agentbox runs under another one (a command or subagent it started), whose policy it keeps"
	if g.Manifest != "" && g.Manifest != getenv("AGENTBOX_MANIFEST") {
		return core.Errorf(core.CodeInvalidParams, "--manifest cannot be given here: %s; leave the flag out", why)
	}
	pinned := filepath.SplitList(getenv("AGENTBOX_ROOT"))
	if len(g.Root) == 0 || len(pinned) == 0 {
		return nil
	}
	cwd, err := getwd()
	if err != nil {
		return core.Errorf(core.CodeIOError, "cannot determine the working directory: %v", err)
	}
	for _, r := range g.Root {
		if !filepath.IsAbs(r) {
			r = filepath.Join(cwd, r)
		}
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real // a link inside the workspace may lead out of it
		}
		inside := false
		for _, p := range pinned {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			if rel, err := filepath.Rel(p, filepath.Clean(r)); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				inside = true
			}
		}
		if !inside {
			return core.Errorf(core.CodeInvalidParams, "--root %s is outside the workspace (%s): %s; name a folder inside it, or leave the flag out", r, strings.Join(pinned, ", "), why)
		}
	}
	return nil
}

// inheritedPins finds the pins of a calling agentbox: those its bash left on a
// descriptor every process of the command inherits (fdPins, or fdErr when that
// descriptor is open but holds none: this process must not run), else those in the
// environment its shell started with.
func inheritedPins(fdPins map[string]string, fdErr error) (map[string]string, error) {
	if fdPins != nil || fdErr != nil {
		return fdPins, fdErr
	}
	return ancestorPins(), nil
}

// ancestorPins finds the settings an agentbox's bash pins in its commands' environment
// (AGENTBOX_MODE_CEILING, AGENTBOX_ROOT, AGENTBOX_MANIFEST, AGENTBOX_USER_CONFIG, with
// the HOME and XDG_CONFIG_HOME that locate the user config) in the environment the
// shell bash started with (/proc/PID/environ): the leader of this process's group
// (bash runs each command line in a group of its own, which a subshell, a pipeline or
// ( … & ) stays in), its session's leader (a background job's) or its parent. A command
// that cleared its own (env -i agentbox ..., a program's execve with a new environment,
// read or printf -v into a pin) runs under a shell that still holds them. Three reads
// at most: start-up cost is measured. A command that left the group (setsid) or
// replaced the shell (exec as the last word) still holds the pins bash keeps at
// shell.PinsFD (proc.InheritedPins, see inheritedPins).
func ancestorPins() map[string]string {
	keys := proc.PinKeys
	self := os.Getpid()
	sid, _ := unix.Getsid(0)
	seen := map[int]bool{self: true}
	for _, pid := range []int{syscall.Getpgrp(), sid, os.Getppid()} {
		if pid <= 1 || seen[pid] {
			continue
		}
		seen[pid] = true
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		pins := map[string]string{}
		for _, kv := range strings.Split(string(env), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok && slices.Contains(keys, k) {
				pins[k] = v
			}
		}
		if pins["AGENTBOX_MODE_CEILING"] == "" {
			continue
		}
		for _, k := range keys {
			if _, ok := pins[k]; !ok {
				pins[k] = "" // the pinned process had none: neither does this one
			}
		}
		return pins
	}
	return nil
}
