package policy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentbox/agentbox/core/shell"
)

// Action is a rule's verdict. The numeric order is strictness: Allow < Ask < Deny.
type Action uint8

// The actions, least strict first.
const (
	Allow Action = iota + 1
	Ask
	Deny
)

func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "none"
}

// ParseAction reads "allow", "ask" or "deny".
func ParseAction(s string) (Action, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return 0, fmt.Errorf("action %q is not one of allow, ask, deny", s)
}

// MarshalJSON writes the action's name.
func (a Action) MarshalJSON() ([]byte, error) { return json.Marshal(a.String()) }

// UnmarshalJSON reads the action's name.
func (a *Action) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("action must be a string: allow, ask or deny")
	}
	v, err := ParseAction(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Stricter returns the stricter of two actions.
func Stricter(a, b Action) Action {
	if b > a {
		return b
	}
	return a
}

// PlanDir is where the plan applet keeps its files, relative to a workspace root. Its
// writes there are the agent's own notes, like the session's todo list: the modes
// that ask for other writes allow them (read-only still refuses, and rules still apply).
const PlanDir = ".agentbox/plans"

// Mode is the permission mode: the fallback when no rule matches.
type Mode string

// The permission modes.
//
//	default       reads inside the workspace allowed; writes, commands, fetches ask;
//	              the plan applet's own files (PlanDir) allowed
//	accept-edits  as default, and writes inside the workspace allowed
//	read-only     everything but reads denied
//	bypass        everything allowed but what a deny or ask rule names (the watchdog
//	              and the protected files still hold)
const (
	ModeDefault     Mode = "default"
	ModeAcceptEdits Mode = "accept-edits"
	ModeReadOnly    Mode = "read-only"
	ModeBypass      Mode = "bypass"
)

// looseness orders the modes from the strictest.
var looseness = map[Mode]int{ModeReadOnly: 0, ModeDefault: 1, ModeAcceptEdits: 2, ModeBypass: 3}

// StricterMode is the stricter of two modes.
func StricterMode(a, b Mode) Mode {
	if looseness[b] < looseness[a] {
		return b
	}
	return a
}

// ParseMode reads a mode name; "" is the default mode.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "":
		return ModeDefault, nil
	case ModeDefault, ModeAcceptEdits, ModeReadOnly, ModeBypass:
		return Mode(s), nil
	}
	return "", fmt.Errorf("permission mode %q is not one of default, accept-edits, read-only, bypass", s)
}

// Scope is where a rule came from.
type Scope string

// The rule scopes.
const (
	ScopeManifest Scope = "manifest"
	ScopeUser     Scope = "user"
	ScopeProject  Scope = "project"
	ScopeSession  Scope = "session"
)

func scopeRank(s Scope) int {
	switch s {
	case ScopeManifest:
		return 0
	case ScopeUser:
		return 1
	case ScopeProject:
		return 2
	}
	return 3
}

// The capabilities a request may name.
const (
	CapFSRead   = "fs.read"
	CapFSWrite  = "fs.write"
	CapShellRun = "shell.run"
	CapNetFetch = "net.fetch"
	// CapAgentSpawn is starting a subagent (the task applet); it takes no pattern.
	CapAgentSpawn = "agent.spawn"
)

// Request is a side effect an applet is about to perform.
type Request struct {
	Applet     string // applet id: write, bash, fetch, ...
	Capability string // fs.read, fs.write, shell.run, net.fetch
	Target     string // a path, a command line or a URL / host
	// Targets are more targets of the same kind, decided with Target as one call
	// (the files of a multi-file patch): the strictest verdict of them all wins.
	Targets []string
	Summary string // what will happen, for a person who is asked
	Cwd     string // resolves relative path targets; defaults to the first root
	// Env names the environment variables a command request sets (bash's env): the
	// code-loading ones are decided too (see CodeLoadingEnv).
	Env []string
	// Own marks a command the tool itself runs on the agent's behalf (bash's kill of
	// a background job), which the shell watchdog does not judge as a command line.
	Own bool
	// EnvValues are the values of Env, so the watchdog can expand them ($X in the line).
	EnvValues map[string]string
}

// Decision is a verdict and what made it.
type Decision struct {
	Action Action `json:"action"`
	// Rule is the deciding rule, nil when the mode (or the watchdog) decided.
	Rule *Rule `json:"rule,omitempty"`
	// Mode is set when the permission mode decided.
	Mode Mode `json:"mode,omitempty"`
	// Guard names the protection that held a write to a protected file to ask.
	Guard string `json:"guard,omitempty"`
	// Variable is the code-loading environment variable whose own decision this is
	// (decideEnv), when no shell.env rule decided it.
	Variable string `json:"variable,omitempty"`
	// Part is the piece of the request that decided: a simple command of a bash line,
	// a redirection target or a resolved path.
	Part   string `json:"part,omitempty"`
	Reason string `json:"reason"`
	// Watchdog is the shell watchdog's verdict on a command line when it refused the
	// line or flagged it for a person's look; nil for other requests and clean lines.
	Watchdog *shell.Verdict `json:"watchdog,omitempty"`
	// Asks lists every part of a bash line whose own verdict is ask, so that a grant
	// can cover them all (only set on ask decisions).
	Asks []Check `json:"-"`
}

// Source describes what decided, in one phrase: the rule with its scope, file and
// index, or the mode.
func (d Decision) Source() string {
	switch {
	case d.Rule != nil:
		return d.Rule.String()
	case d.Guard != "":
		return "protected file"
	case d.Variable != "":
		return "code-loading variable " + d.Variable
	case d.Mode != "":
		return "mode " + string(d.Mode)
	}
	return "watchdog"
}

// Check is one piece of a request, decided on its own: a simple command, a
// redirection, a path form or a host.
type Check struct {
	Applet     string
	Capability string
	kind       kind
	Path       string   // kindPath: absolute, cleaned
	Argv       []string // kindCommand
	Partial    []bool   // Partial[i]: Argv[i] is only the literal prefix of a computed word
	Host, Port string   // kindHost
	Uncertain  bool     // the shell analyser was unsure of the line
	opaque     bool     // no analysis at all: the line could be any command
	Inside     bool     // kindPath: under a workspace root
	Display    string
}

type kind uint8

const (
	kindNone kind = iota
	kindPath
	kindCommand
	kindHost
)

func quoteArgv(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%^*?", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
