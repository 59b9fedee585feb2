package core

import (
	"context"
	"errors"
	"io"
	"time"
)

// Env is everything an applet may use of the outside world. The front end builds it
// from the process (see Main); tests build it in memory (see core/coretest.Env).
type Env struct {
	Applet      string
	Stdin       io.Reader // shell mode only: e.g. write's content from stdin; nil in JSON mode
	Stdout      io.Writer // Stdio applets only (see Spec.Stdio); nil otherwise
	Stderr      io.Writer
	Getenv      func(string) string
	Now         func() time.Time
	Cwd         string
	WS          *Workspace
	Session     *Session
	Interactive bool   // a person typed this at a terminal (shell mode, stdin a terminal)
	Executable  string // this binary, for re-exec'd helpers
	// Gate decides whether a side effect may happen; nil refuses every one (the front
	// end sets core/gate's PolicyGate, tests its DefaultGate).
	Gate Gate
	// Specs is the applet table, for the applets that describe or serve the others
	// (prompt, mcp); passing it in keeps the import direction main → applets → core.
	Specs []Spec
	// Elicit, when set, asks the person through the host (MCP elicitation): message and
	// a flat form schema in, the host's action (accept, decline, cancel) and the filled
	// form out. ask uses it before falling back to the terminal or the headless rule.
	Elicit func(ctx context.Context, message string, schema map[string]any) (action string, content map[string]any, err error)
	// Dialect is the tool-name dialect of the call (--dialect or AGENTBOX_DIALECT); prompt
	// and mcp present the tools in it.
	Dialect string
	// SignalsReady closes once a signal to agentbox cancels the call's context (the
	// front end's call context); nil when signals are not watched (in-process calls).
	SignalsReady <-chan struct{}
}

// ReadyToSpawn returns once a signal to agentbox (SIGINT, SIGTERM, SIGHUP) would cancel
// the call's context rather than end agentbox on the spot, so whatever runs after it is
// always stopped with the call. An applet calls it before a process it starts may do
// anything: before starting one, or, as bash does, before opening the start gate of one
// it started (see proc.Options.BeforeStart).
func (e *Env) ReadyToSpawn() {
	if e.SignalsReady != nil {
		<-e.SignalsReady
	}
}

// Resolve resolves a path argument against the working directory and the workspace.
func (e *Env) Resolve(p string) (Path, error) { return e.WS.Resolve(e.Cwd, p) }

// ResolveRead resolves a path an applet only reads: the workspace, and the current
// session's sidecar folders (output_path files of bash, read, grep, ...), read-only.
func (e *Env) ResolveRead(p string) (Path, error) {
	if e.Session != nil && e.WS != nil && e.WS.ReadOnly == nil {
		e.WS.ReadOnly = e.Session.ReadableDirs()
	}
	return e.WS.ResolveRead(e.Cwd, p)
}

// Request describes a side effect an applet is about to perform.
type Request struct {
	Applet     string // the applet id (write, edit, bash, ...)
	Capability string // fs.read, fs.write, shell.run, net.fetch
	Target     string // the path, command line or host
	// Targets are more targets of the same kind decided together with Target (the
	// files of a multi-file patch); the strictest verdict wins.
	Targets []string
	Summary string // what will happen, for a person who is asked ("overwrite x.go (120 bytes)")
	// Env names the environment variables a command sets (bash's env); the ones that
	// make programs load other code are decided too.
	Env []string
	// Own marks a command the tool runs itself on the agent's behalf (killing a
	// background job): decided by rules and mode, not judged as a shell line.
	Own bool
	// Dir is where a command runs (bash's working directory); "" is env.Cwd.
	Dir string
	// EnvValues are the values of the variables Env names, for the watchdog.
	EnvValues map[string]string
}

// Decision is the gate's verdict, reported in the result's metadata.
type Decision struct {
	Action string `json:"action"` // allow, deny (ask is resolved before it comes back)
	Rule   string `json:"rule,omitempty"`
	Scope  string `json:"scope,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Pattern is the pattern of the rule or grant that decided ("" when the mode or
	// the watchdog did, or the rule has none): fetch reaches a private address only for
	// a host a rule names.
	Pattern string `json:"-"`
	// Watchdog is the shell watchdog's verdict when it refused a command line or
	// flagged it for a person's look.
	Watchdog *WatchdogVerdict `json:"-"`
}

// WatchdogVerdict is the shell watchdog's verdict on a command line it refused or
// flagged (core/shell decides it; core only carries it).
type WatchdogVerdict struct {
	Action string `json:"action"` // deny, or flag: run, with a warning for a person's look
	Reason string `json:"reason,omitempty"`
	Rule   string `json:"rule,omitempty"` // the watchdog rule that decided
}

// Gate is the permission check every side effect goes through.
type Gate interface {
	Authorize(ctx context.Context, env *Env, req Request) (Decision, error)
}

// Authorize asks the gate whether req may happen. A refusal is an *Error
// (permission_denied or needs_input) carrying the decision in its metadata.
func (e *Env) Authorize(ctx context.Context, req Request) (Decision, error) {
	g := e.Gate
	if g == nil {
		g = noGate{}
	}
	if req.Applet == "" {
		req.Applet = e.Applet
	}
	d, err := g.Authorize(ctx, e, req)
	if err != nil {
		var ce *Error
		if !errors.As(err, &ce) {
			ce = Errorf(CodePermissionDenied, "%v", err)
		}
		if ce.Meta == nil {
			ce.Meta = map[string]any{}
		}
		ce.Meta["decision"] = d
		return d, ce
	}
	return d, nil
}

// noGate refuses every side effect: an Env built without a gate fails closed.
type noGate struct{}

func (noGate) Authorize(context.Context, *Env, Request) (Decision, error) {
	return Decision{Action: "deny", Reason: "no permission gate"}, Errorf(CodeInternal, "no permission gate is configured for this call; this is a bug in the host that built the call")
}

func isTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded)
}
