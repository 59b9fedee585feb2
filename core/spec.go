package core

import "context"

// Kind is the ACP tool kind of an applet; clients use it to pick an icon or renderer.
type Kind string

// The ACP kinds agentbox uses.
const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindThink   Kind = "think"
	KindFetch   Kind = "fetch"
	KindOther   Kind = "other"
)

// Target kinds of Spec.Target: what a permission rule naming the applet matches
// (core/policy uses the same words; TestTargetKindsAgree keeps them so).
const (
	TargetPath    = "path"
	TargetCommand = "command"
	TargetHost    = "host"
	TargetNone    = "" // the applet takes no pattern: only "" or "*"
)

// Capabilities an applet may declare (reference 002's requires).
const (
	CapFSRead   = "fs.read"
	CapFSWrite  = "fs.write"
	CapShellRun = "shell.run"
	CapNetFetch = "net.fetch"
	// CapAgentSpawn is starting a subagent (task): its own capability, so a rule can
	// allow or deny delegation apart from running commands.
	CapAgentSpawn = "agent.spawn"
)

// Command is an applet's parameter struct. The struct's tags describe the call once for
// every front end:
//
//	json:"file_path"          the JSON request name
//	alias:"path,filePath"     other agents' names for the same JSON field
//	help:"…"                  the description (kong help and JSON-Schema description)
//	default:"2000"            the default (kong fills it; JSON requests get it too)
//	enum:"a,b"                allowed values
//	required:""               required in both modes
//	arg:"" / short:"n"        kong's positional arguments and short flags
//	schema:"min=1,max=10"     extra JSON-Schema constraints (min, max, minLength, maxLength,
//	                          minItems, maxItems, pattern; "required" = required in JSON only)
//
// Run does the work. It must not touch os.Args, os.Stdin, os.Exit or the real clock:
// everything comes in through env, so tests can run it in memory.
type Command interface {
	Run(ctx context.Context, env *Env) (*Result, error)
}

// Spec is one row of the applet table (applets/registry.go). Dispatch, --list, install,
// help, man pages, completions, prompt and mcp all read the table.
type Spec struct {
	Name        string   // canonical name: `agentbox NAME`
	Aliases     []string // other names that dispatch here (argv[0] and subcommand)
	Kind        Kind
	Summary     string   // one line, for --list and prompt snippets
	Description string   // what a model reads to decide whether to call the tool
	Guidelines  []string // one-line usage guidelines for system prompts
	New         func() Command
	// Capabilities the applet needs (fs.read, fs.write, shell.run, net.fetch,
	// agent.spawn); the last is the side effect permit asks about for it.
	Capabilities []string
	// Target is what a permission rule naming the applet matches: TargetPath (read(**/.env)),
	// TargetCommand (bash(git push *)), TargetHost (fetch(*.example.com)), or TargetNone
	// (task(*): no pattern). The policy learns the applets from these fields alone.
	Target string
	// LongRunning applets report progress to an MCP client that asks for it.
	LongRunning bool
	// Annotations for MCP and prompt: set explicitly for every applet.
	ReadOnly, Destructive, Idempotent, OpenWorld bool
	// Example is a JSON request shown in --help.
	Example string
	// Output lists the types the applet's Result.Data may hold (one per action shape),
	// for the output schema that prompt's json catalog and mcp's tools/list publish.
	Output []any
	// Dialects are the applet's names in other agents' tool sets (see DialectTool).
	Dialects []DialectTool
	// Available, when set, says whether the applet can work in env (task needs an agent
	// command configured); prompt and mcp leave out an applet that cannot, unless the
	// caller names it. nil means always.
	Available func(env *Env) bool
	// Stdio marks an applet that owns stdin and stdout itself (the mcp server): no JSON
	// request is read, no envelope is printed, and Env.Stdout is set.
	Stdio bool
}

// Result is what a successful applet returns.
type Result struct {
	// Data becomes the envelope's "data". If it implements TextRenderer, that renders the
	// text output; a string is printed as is; anything else is printed as indented JSON.
	Data any
	// Truncated must be set whenever anything was cut; OutputPath then names the 0600
	// sidecar file holding the whole output (see Session.Spill).
	Truncated  bool
	OutputPath string
	// Meta adds keys to the envelope's metadata.
	Meta map[string]any
	// ExitCode, when set, is the exit status of a text-mode call that succeeded (grep's
	// 1 for no match, as grep and ripgrep exit); JSON mode always exits 0 with the
	// envelope.
	ExitCode int
	// Interrupted: a signal cut the work short and the output is what was done by then
	// (a search's partial result); the exit status is 130. A call that finished its work
	// although a signal came (a write, a patch) answers as it would have, with status 0.
	Interrupted bool
}

// Spilled marks r as cut, with the whole output in the sidecar file path (from
// Session.Spill and friends). A spill that failed is reported in the metadata as
// spill_error, so the cut is never silent about where the rest went.
func (r *Result) Spilled(path string, err error) {
	r.Truncated = true
	if err != nil {
		if r.Meta == nil {
			r.Meta = map[string]any{}
		}
		r.Meta["spill_error"] = AsError(err).Message + "; the cut output is not saved, so narrow the call instead"
		return
	}
	r.OutputPath = path
}

// TextRenderer renders a result for a person at a terminal or for a harness that asked
// for text.
type TextRenderer interface {
	RenderText(p *Printer)
}
