package policy

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentbox/agentbox/core/shell"
)

// Analysis is what the shell analyser (core/shell) reports about a command line:
// every simple command, and why it is unsure of the line, if it is.
type Analysis struct {
	Commands  []SimpleCommand
	Uncertain []string
	// NoCaseGlob: the line may turn on nocaseglob, so its patterns match in any case.
	NoCaseGlob bool
	// Links are the symbolic links the line makes, absolute link path to target.
	Links map[string]string
}

// SimpleCommand is one command of a line, after quote removal and wrapper unwrapping.
type SimpleCommand struct {
	Argv      []string
	Redirects []Redirect
	// Dir is the folder the command runs in after a cd earlier on the line ("" when the
	// line did not move); DirUnknown when it moved somewhere that cannot be known.
	Dir        string
	DirUnknown bool
	Context    string   // where it sits: "pipeline", "$(...)", "sh -c", ...
	Env        []string // variables set for this command alone (X=1 cmd, env X=1 cmd)
	// Partial[i] is set when Argv[i] is only the literal prefix of a word computed at
	// run time; nil when every word is literal.
	Partial []bool
	// Typed and TypedPartial are Argv and Partial as the line spells the options, for
	// rules (nil when the same; see shell.SimpleCommand).
	Typed        []string
	TypedPartial []bool
}

// Redirect is a redirection of a simple command.
type Redirect struct {
	Op     string // >, >>, <, <>, &>, >|, ...
	Target string // the file (or fd for >&)
	// Partial is set when Target is only the literal prefix of a computed word.
	Partial bool
	// Tree: the command writes what is below Target file by file (rm -r, git clean).
	Tree bool
	// WorkTree: a git command's work tree; its .git folders are git's own.
	WorkTree bool
}

// Policy holds the rules of every scope, the mode and the watchdog.
type Policy struct {
	Mode Mode
	// Ceiling, when set, is the loosest mode this process may run in (a subagent's,
	// from AGENTBOX_MODE_CEILING): refusals then suggest no looser mode.
	Ceiling Mode
	Env     Env
	// Watchdog refuses categories of calls no rule or mode can allow (it holds in
	// bypass mode too). Nil means the built-in one: the shell watchdog (core/shell)
	// over every command line, configured by ShellWatchdog, and DefaultWatchdog over
	// every path. Set NoWatchdog to disable both (tests).
	Watchdog func(c *Check) (reason string, refuse bool)
	// ShellWatchdog configures the shell watchdog: the built-in lists plus the
	// "watchdog" sections of the config files (see ParseWatchdog), the home directory
	// and AGENTBOX_BASH_STRICT. The zero value is the built-in configuration.
	ShellWatchdog shell.Config

	// ConfigFiles are the user config and manifest this policy was read from: protected
	// from writes like the project's .agentbox folder; UserConfigDir is the user
	// config's folder, protected whole (user skills and other settings live there).
	ConfigFiles   []string
	UserConfigDir string
	// UserConfigDigest is the SHA-256 (hex) of the user config as read, "none" when
	// there is none: bash pins it (AGENTBOX_USER_CONFIG_SHA256) so that a nested
	// agentbox runs under the same rules or not at all, not under a file moved, covered
	// or swapped since.
	UserConfigDigest string
	// StateDir is agentbox's state folder: the session's grants and the patch
	// journals there decide what later calls may do, so no applet writes it.
	StateDir string
	// protect holds what the protected-file checks read off the file system once per
	// policy (where the home folder's start-up files lead through links).
	protect *protectCache
	// Getenv reads agentbox's own environment, which a command inherits: the watchdog
	// expands variables a line uses with it. Nil knows no variables.
	Getenv func(string) string
	// CodeEnv adds names to CodeLoadingEnv (the configs' watchdog "code_env").
	CodeEnv []string
	// Warnings are the project-config settings that were ignored (a mode, trusted
	// roots, switched-off watchdog rules, a file that could not be read): shown in every
	// result's metadata and in permit list, so a person sees what the repository tried.
	Warnings []string

	rules   []*Rule // manifest, user, trusted project, session
	tighten []*Rule // untrusted project rules: they may only make a verdict stricter
}

// New returns a policy with the given mode and rules (their Scope must be set).
func New(env Env, mode Mode, rules ...*Rule) *Policy {
	p := &Policy{Mode: mode, Env: env, protect: &protectCache{}}
	p.ShellWatchdog.Home = env.Home
	for i, r := range env.Roots {
		p.Env.Roots[i] = filepath.Clean(r)
	}
	p.add(rules...)
	return p
}

func (p *Policy) add(rules ...*Rule) {
	for _, r := range rules {
		if r.Scope == "" {
			r.Scope = ScopeSession
		}
		p.rules = append(p.rules, r)
	}
}

// AddRules adds rules in their own scope. Project-scope rules added here are trusted;
// use AddUntrusted for a project the user has not trusted.
func (p *Policy) AddRules(rules ...*Rule) { p.add(rules...) }

// AddUntrusted adds rules that may only tighten a verdict.
func (p *Policy) AddUntrusted(rules ...*Rule) { p.tighten = append(p.tighten, rules...) }

// SetSession replaces the session-scope rules (the grants).
func (p *Policy) SetSession(rules []*Rule) {
	kept := p.rules[:0:0]
	for _, r := range p.rules {
		if r.Scope != ScopeSession {
			kept = append(kept, r)
		}
	}
	for _, r := range rules {
		r.Scope = ScopeSession
		kept = append(kept, r)
	}
	p.rules = kept
}

// Rules lists every rule, untrusted project rules included, in load order.
func (p *Policy) Rules() []*Rule {
	return append(append([]*Rule(nil), p.rules...), p.tighten...)
}

// NoWatchdog is a watchdog that refuses nothing.
func NoWatchdog(*Check) (string, bool) { return "", false }

// Evaluate decides a request: every check it expands to is decided on its own and the
// strictest verdict wins (the first part with that verdict is reported).
func (p *Policy) Evaluate(req Request) Decision {
	verdict := p.WatchdogVerdict(req)
	if verdict != nil && verdict.Action == shell.Deny {
		if d := p.manifestDeny(req); d != nil {
			return *d
		}
		return Decision{Action: Deny, Part: req.Target, Reason: "the watchdog refuses it: " + verdict.Reason, Watchdog: verdict}
	}
	var worst Decision
	var asks []Check
	for i, c := range p.Checks(req) {
		d := p.decide(&c)
		if d.Action == Ask {
			asks = append(asks, c)
		}
		if i == 0 || d.Action > worst.Action {
			worst = d
		}
	}
	if worst.Action == Ask {
		worst.Asks = asks
	}
	worst.Watchdog = verdict
	return worst
}

// WatchdogVerdict runs the shell watchdog (core/shell) over a command request's line:
// the same engine and configuration whether bash runs the line or permit check asks
// about it, so both get one decision. It returns nil for other requests, for the
// tool's own commands, for clean lines, and when a caller replaced the watchdog
// (Policy.Watchdog).
func (p *Policy) WatchdogVerdict(req Request) *shell.Verdict {
	if req.Own || p.Watchdog != nil || req.Target == "" {
		return nil
	}
	k := capKinds[req.Capability]
	if req.Capability == "" {
		k, _ = appletKind(req.Applet)
	}
	if k != kindCommand {
		return nil
	}
	ctx := shell.Context{Home: p.ShellWatchdog.Home, Dir: p.cwd(req.Cwd), Getenv: p.requestEnv(req)}
	a, _ := shell.AnalyzeIn(req.Target, ctx)
	v := shell.Check(a, p.ShellWatchdog)
	for _, name := range slices.Sorted(maps.Keys(req.EnvValues)) {
		// bash's env field: GIT_SSH_COMMAND's value runs as surely as the line.
		if v.Action == shell.Deny {
			break
		}
		if val := req.EnvValues[name]; shell.CommandVariable(name) && val != "" {
			va, _ := shell.AnalyzeIn(val, ctx)
			cv := shell.Check(va, p.ShellWatchdog)
			if cv.Action == shell.Deny {
				cv.Reason = fmt.Sprintf("env %s: %s", name, cv.Reason)
				v = cv
			}
		}
	}
	if v.Action == shell.Allow {
		return nil
	}
	if v.Action == shell.Deny && slices.Contains(shell.FailClosedRules, v.Rule) && p.allowsExactly(req) {
		// What the watchdog cannot know, a rule naming this very line has decided.
		return nil
	}
	return &v
}

// requestEnv is the environment a command request runs with: the call's own variables
// over the process's.
func (p *Policy) requestEnv(req Request) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := req.EnvValues[name]; ok {
			return v, true
		}
		if p.Getenv != nil {
			if v := p.Getenv(name); v != "" {
				return v, true
			}
		}
		return "", false
	}
}

// allowsExactly reports an allow rule of the user config or manifest whose pattern is
// this command line, character for character.
func (p *Policy) allowsExactly(req Request) bool {
	for _, r := range p.rules {
		if r.Action == Allow && (r.Scope == ScopeUser || r.Scope == ScopeManifest) && r.Pattern == req.Target &&
			(r.Permission == "bash" || r.Permission == CapShellRun) {
			return true
		}
	}
	return false
}

// manifestDeny is the host manifest's deny of a request, which outranks everything
// (the watchdog included) in what the decision reports.
func (p *Policy) manifestDeny(req Request) *Decision {
	for _, c := range p.Checks(req) {
		if r := p.best(p.rules, &c, func(r *Rule) bool { return r.Scope == ScopeManifest && r.Action == Deny }); r != nil {
			d := p.decideRules(&c) // the manifest's deny, with the reason it gives
			return &d
		}
	}
	return nil
}

// Explain decides a request like Evaluate and also returns the decision of every
// check it expands to (each simple command of a bash line, each redirection, ...).
func (p *Policy) Explain(req Request) (Decision, []Decision) {
	var parts []Decision
	for _, c := range p.Checks(req) {
		parts = append(parts, p.decide(&c))
	}
	return p.Evaluate(req), parts
}

// Untrusted reports whether r is a rule of an untrusted project (it may only tighten).
func (p *Policy) Untrusted(r *Rule) bool {
	for _, t := range p.tighten {
		if t == r {
			return true
		}
	}
	return false
}

// WithGrants returns a copy of the policy whose session rules are the given ones.
func (p *Policy) WithGrants(rules []*Rule) *Policy {
	q := *p
	q.rules = append([]*Rule(nil), p.rules...)
	q.SetSession(rules)
	return &q
}

// Checks expands a request into the pieces that are decided one by one.
func (p *Policy) Checks(req Request) []Check {
	if len(req.Targets) > 0 {
		var out []Check
		for _, t := range append([]string{req.Target}, req.Targets...) {
			if t == "" {
				continue
			}
			one := req
			one.Target, one.Targets = t, nil
			out = append(out, p.Checks(one)...)
		}
		return out
	}
	capability := req.Capability
	k := capKinds[capability]
	if capability == "" {
		k, _ = appletKind(req.Applet)
	}
	base := Check{Applet: req.Applet, Capability: capability, kind: k}
	switch k {
	case kindPath:
		return p.pathChecks(base, req.Target, req.Cwd)
	case kindHost:
		base.Host, base.Port = parseHostTarget(req.Target)
		base.Display = req.Target
		return []Check{base}
	case kindCommand:
		entries := make([]string, 0, len(req.Env))
		for _, n := range req.Env {
			if v, ok := req.EnvValues[n]; ok {
				n += "=" + v
			}
			entries = append(entries, n)
		}
		return append(p.commandChecks(base, req), p.envChecks(base, entries)...)
	}
	base.Display = req.Target
	return []Check{base}
}

func (p *Policy) cwd(cwd string) string {
	if cwd == "" && len(p.Env.Roots) > 0 {
		return p.Env.Roots[0]
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	return cwd
}

func (p *Policy) pathChecks(base Check, target, cwd string) []Check {
	return p.pathChecksThrough(base, target, cwd, nil)
}

// pathChecksThrough is pathChecks for a path a command opens: the kernel resolves
// L/../x through the link L (physically), where the path as text says x, so that
// reading is decided too, the links the line itself makes (links) included (red team:
// ln -s ~/.config/zzz L; echo ... > L/../agentbox/config.json rewrote the user config).
func (p *Policy) pathChecksThrough(base Check, target, cwd string, links map[string]string) []Check {
	if pid, dir, rest, ok := shell.ProcDir(target); ok {
		// /proc/PID/root/x is /x; /proc/self/cwd/x (and $$, the line's own shell) is x
		// where the command runs; another process's cwd may be any folder, the
		// workspace's too (red team: >> /proc/$$/cwd/.git/config, a path with a $ in
		// it, was uncertain, which bypass allows).
		rest = "/" + rest
		switch {
		case dir == "root":
			return p.pathChecksThrough(base, rest, cwd, links)
		case pid == "self" || pid == "thread-self" || pid == "$$":
			return p.pathChecksThrough(base, p.cwd(cwd)+rest, cwd, links)
		}
		var out []Check
		for _, dir := range append([]string{p.cwd(cwd)}, p.Env.Roots...) {
			out = append(out, p.pathChecksThrough(base, dir+rest, cwd, links)...)
		}
		return out
	}
	if dynamic(target) {
		base.Display, base.Path, base.Uncertain = target, "", true
		return []Check{base}
	}
	raw := target
	if (raw == "~" || strings.HasPrefix(raw, "~/")) && p.Env.Home != "" {
		raw = p.Env.Home + strings.TrimPrefix(raw, "~")
	}
	if !filepath.IsAbs(raw) {
		raw = p.cwd(cwd) + "/" + raw
	}
	abs := filepath.Clean(raw)
	forms := []string{abs}
	if real := resolveExisting(abs); real != abs {
		forms = append(forms, real)
	}
	if links != nil || strings.Contains(raw, "..") {
		if phys := physicalPath(raw, links); !slices.Contains(forms, phys) {
			forms = append(forms, phys)
		}
	}
	var out []Check
	for _, f := range forms {
		c := base
		c.Path, c.Display = f, f
		c.Inside = p.inside(f) || c.Capability == CapFSRead && p.insideRead(f)
		out = append(out, c)
	}
	return out
}

// maxTreeEntries bounds the walk of a folder a command writes as a whole, entry by
// entry where rules could refuse some (maxTreeChecks decided), name by name otherwise.
const (
	maxTreeChecks  = 10000
	maxTreeEntries = 200000
)

// treeChecks are the checks of what is below a folder a command writes file by file
// (rm -r, find -delete, git clean), as it is now: a denied file, a .git folder or a
// protected config inside it is written as surely as if it were named. Where no rule
// could deny or ask for writing a path, only protection can refuse one, and the walk
// looks only for the names that start a protected path (.git, .agentbox, .envrc, ...:
// cheap, no decision per file); otherwise
// each entry is decided, and past maxTreeChecks the rest is a check of a path that
// cannot be known. A .git folder is decided as itself (its protection covers what is
// in it), or skipped in a git work tree (workTree: git keeps its repository); links
// are not followed (what they name is decided by pathChecks).
func (p *Policy) treeChecks(base Check, target, cwd string, workTree bool) []Check {
	if dynamic(target) {
		return nil // pathChecks made it uncertain already
	}
	root := target
	if (root == "~" || strings.HasPrefix(root, "~/")) && p.Env.Home != "" {
		root = p.Env.Home + strings.TrimPrefix(root, "~")
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(p.cwd(cwd), root)
	}
	root = resolveExisting(filepath.Clean(root))
	// What the rules guard lies in the workspace and the home folder: a tree inside one
	// is walked; a tree holding a workspace root (find /tmp -delete) walks that root.
	// (The watchdog refuses removing a home or system tree outright.)
	var walks []string
	for _, r := range append(slices.Clone(p.Env.Roots), p.Env.Home) {
		if r == "" {
			continue
		}
		if _, ok := within(r, root); ok {
			walks = []string{root}
			break
		}
		if _, ok := within(root, r); ok && r != p.Env.Home {
			walks = append(walks, r)
		}
	}
	strict := p.refusesSomeWrite()
	var out []Check
	// Protected files named by absolute path (the user config, the manifest, the state
	// folder) that lie below are decided whether or not the walk reaches them.
	for _, f := range p.protectedFiles() {
		if _, ok := within(root, f); ok && f != root {
			out = append(out, p.pathChecks(base, f, "")...)
		}
	}
	n, decided := 0, 0
	for _, top := range walks {
		_ = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil || path == root {
				return nil // unreadable: nothing there to decide, and rm cannot reach it either
			}
			if n++; n > maxTreeEntries {
				return filepath.SkipAll
			}
			name := d.Name()
			isGit := strings.EqualFold(name, ".git")
			if isGit && workTree {
				return filepath.SkipDir // git writes its own repository; its work tree is what counts
			}
			if strict || protectedName(name) {
				if decided++; strict && decided > maxTreeChecks {
					c := base
					c.Display, c.Uncertain = filepath.Join(top, "…")+fmt.Sprintf(" (more than %d entries below %s: not all could be checked)", maxTreeChecks, root), true
					out = append(out, c)
					return filepath.SkipAll
				}
				out = append(out, p.pathChecks(base, path, "")...)
			}
			if d.IsDir() && isGit {
				return filepath.SkipDir
			}
			return nil
		})
	}
	return out
}

// refusesSomeWrite reports whether a rule denies or asks for writing some path (a
// file applet's or fs.write rule, or one for every permission).
func (p *Policy) refusesSomeWrite() bool {
	for _, l := range [][]*Rule{p.rules, p.tighten} {
		for _, r := range l {
			if r.Action == Allow {
				continue
			}
			switch r.Permission {
			case CapFSWrite, "*", "write", "edit", "patch", "multiedit":
				return true
			}
		}
	}
	return false
}

// insideRead reports whether abs is in one of the read-only roots (the session's
// sidecar folders).
func (p *Policy) insideRead(abs string) bool {
	for _, r := range p.Env.ReadRoots {
		if _, ok := within(r, abs); ok {
			return true
		}
	}
	return false
}

func (p *Policy) inside(abs string) bool {
	for _, r := range p.Env.Roots {
		if _, ok := within(r, abs); ok {
			return true
		}
	}
	return false
}

// protectedOperands decides as a write every protected file a command names in its
// arguments (an operand, or the value of --opt=FILE) where agentbox does not know
// the program: countless tools write a file named on their command line (ed's w,
// sdiff -o, msgfmt -o, objcopy IN OUT, logsave, sqlite3's .output: a red team's list),
// and one that only reads it is asked about the protected file, which is the safe
// side. Programs known to only read, and those whose writes are modelled
// (shell.WriteTargets, TreeWrites), are left to that.
func (p *Policy) protectedOperands(sc SimpleCommand, dir string, uncertain bool, applet string, links map[string]string) []Check {
	if len(sc.Argv) < 2 || readOnlyPrograms[filepath.Base(sc.Argv[0])] ||
		len(shell.WriteTargets(sc.Argv)) > 0 || len(shell.TreeWrites(sc.Argv)) > 0 {
		return nil
	}
	var out []Check
	for i, arg := range sc.Argv[1:] {
		if i+1 < len(sc.Partial) && sc.Partial[i+1] {
			continue
		}
		// The word, an option's value (--out=F, -oF) and a key's (of=F): a program this
		// package does not know may write any of them.
		cands := []string{arg}
		if k, v, ok := strings.Cut(arg, "="); ok && (strings.HasPrefix(arg, "-") || k != "" && strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == "") {
			cands = append(cands, v)
		}
		if len(arg) > 2 && arg[0] == '-' && arg[1] != '-' {
			cands = append(cands, arg[2:])
		}
		for _, c := range cands {
			if c == "" || dynamic(c) {
				continue
			}
			wc := Check{Applet: applet, Capability: CapFSWrite, kind: kindPath, Uncertain: uncertain}
			for _, ch := range p.pathChecksThrough(wc, c, dir, links) {
				if why, _ := p.protectedWhy(ch.Path); why != "" {
					out = append(out, ch)
				}
			}
		}
	}
	return out
}

// readOnlyPrograms only read the files they name, or change nothing a protected file
// holds.
var readOnlyPrograms = map[string]bool{"cat": true, "less": true, "more": true, "head": true, "tail": true,
	"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "wc": true, "file": true, "stat": true,
	"ls": true, "diff": true, "cmp": true, "md5sum": true, "sha1sum": true, "sha256sum": true, "sha512sum": true,
	"b2sum": true, "cksum": true, "od": true, "hexdump": true, "strings": true, "realpath": true, "readlink": true,
	"basename": true, "dirname": true, "test": true, "[": true, "echo": true, "printf": true, "bat": true, "nl": true,
	"tac": true, "rev": true, "cut": true, "tr": true, "sort": true, "uniq": true, "comm": true, "join": true,
	"paste": true, "du": true, "tree": true, "cd": true, "pushd": true, "source": true, ".": true, "true": true,
	":": true, "git": true, "jq": true, "column": true, "fold": true, "view": true,
	// Programs that read keys and folders they are named, or only set a mode (chmod 600
	// ~/.ssh/key, mkdir -p ~/.ssh: routine, and planting nothing).
	"chmod": true, "mkdir": true, "ssh": true, "ssh-add": true, "ssh-keyscan": true, "gpg": true, "agentbox": true}

// physicalPath is where the kernel takes raw, an absolute path as written: each ".."
// leaves the folder the path has reached, links (on disk, or made by the line: links,
// absolute link path to absolute target) followed first, not the text before it.
func physicalPath(raw string, links map[string]string) string {
	follow := func(cur string) string {
		for range 40 {
			t, ok := links[cur]
			if !ok {
				break
			}
			cur = t
		}
		return resolveDepth(cur, 0)
	}
	cur := "/"
	for _, comp := range strings.Split(raw, "/") {
		switch comp {
		case "", ".":
		case "..":
			cur = filepath.Dir(follow(cur))
		default:
			cur = filepath.Join(cur, comp)
		}
	}
	return follow(cur)
}

// resolveExisting resolves the symlinks of the longest existing prefix of abs and
// appends the rest, so a path through a symlinked directory is matched where it lands.
func resolveExisting(abs string) string {
	return resolveDepth(abs, 0)
}

// resolveDepth follows a link whose target does not exist yet too: a write through it
// creates the target, so the target is the path to decide.
func resolveDepth(abs string, depth int) string {
	rest := ""
	for cur := abs; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&os.ModeSymlink != 0 && depth < 40 {
			if target, err := os.Readlink(cur); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(cur), target)
				}
				return resolveDepth(filepath.Join(target, rest), depth+1)
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func (p *Policy) commandChecks(base Check, req Request) []Check {
	line := req.Target
	getenv := p.requestEnv(req)
	a, err := shellSplit(line, p.cwd(req.Cwd), p.Env.Home, getenv)
	if err != nil || a == nil {
		c := base
		c.Uncertain, c.opaque, c.Display = true, true, line
		return []Check{c}
	}
	uncertain := len(a.Uncertain) > 0
	var out []Check
	for _, sc := range a.Commands {
		c := base
		c.Argv, c.Partial, c.Uncertain = sc.Argv, sc.Partial, uncertain
		if sc.Typed != nil {
			// Rules match the options as typed (bash(tar -xzf *)); the analysis read them
			// apart.
			c.Argv, c.Partial = sc.Typed, sc.TypedPartial
		}
		c.Display = quoteArgv(c.Argv)
		out = append(out, c)
		// X=1 cmd on the line is decided like bash's env field: GIT_CONFIG_* before an
		// allowed git status plants a command as surely.
		out = append(out, p.envChecks(base, slices.Clone(sc.Env))...)
		dir := req.Cwd
		if sc.Dir != "" {
			dir = sc.Dir // a cd earlier on the line: paths are relative to where it went
		}
		out = append(out, p.protectedOperands(sc, dir, uncertain, base.Applet, a.Links)...)
		for _, rd := range sc.Redirects {
			capability := redirectCap(rd)
			if capability == "" {
				continue
			}
			if rd.Op == "<>" {
				// Opened for reading and writing: both are decided.
				rc := Check{Applet: base.Applet, Capability: CapFSRead, kind: kindPath, Uncertain: uncertain}
				out = append(out, p.pathChecksThrough(rc, rd.Target, dir, a.Links)...)
			}
			pc := Check{Applet: base.Applet, Capability: capability, kind: kindPath, Uncertain: uncertain}
			if sc.DirUnknown && !filepath.IsAbs(rd.Target) && !strings.HasPrefix(rd.Target, "~") {
				// The line moved to a folder that cannot be known: the file could be
				// anywhere.
				pc.Display, pc.Uncertain = rd.Target+" (in a folder the line's cd made unknown)", true
				out = append(out, pc)
				continue
			}
			if rd.Partial {
				// Only a prefix is known: the file could be any path at all.
				pc.Display, pc.Uncertain = rd.Target+"…", true
				out = append(out, pc)
				continue
			}
			out = append(out, p.pathChecksThrough(pc, rd.Target, dir, a.Links)...)
			if rd.Tree {
				out = append(out, p.treeChecks(pc, rd.Target, dir, rd.WorkTree)...)
			}
			if strings.ContainsAny(rd.Target, "*?[") {
				// < .en? reads what the pattern matches when the line runs: every match
				// is decided as a path of its own.
				for _, m := range globFrom(rd.Target, dir, a.NoCaseGlob) {
					out = append(out, p.pathChecksThrough(pc, m, dir, a.Links)...)
				}
			}
		}
	}
	if len(out) == 0 {
		c := base
		c.Uncertain, c.Display = uncertain, line
		c.Argv = []string{}
		out = append(out, c)
	}
	return out
}

// globFrom matches a bash glob against the file system from cwd, as bash expands a
// redirection's word ([!x] is bash's negation).
func globFrom(pattern, cwd string, nocase bool) []string {
	if !filepath.IsAbs(pattern) {
		if cwd == "" {
			return nil
		}
		pattern = filepath.Join(cwd, pattern)
	}
	pattern = strings.ReplaceAll(pattern, "[!", "[^")
	if nocase {
		pattern = shell.NoCase(pattern)
	}
	var m []string
	for _, v := range shell.GlobstarVariants(pattern) {
		found, _ := filepath.Glob(v)
		m = append(m, found...)
	}
	if len(m) > 64 {
		m = m[:64]
	}
	return m
}

func redirectCap(rd Redirect) string {
	t := rd.Target
	if strings.Contains(rd.Op, "&") && t != "" && (t == "-" || strings.Trim(t, "0123456789") == "") {
		return "" // fd duplication
	}
	switch t {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty":
		return ""
	}
	if strings.HasPrefix(rd.Op, "<") && !strings.Contains(rd.Op, ">") {
		if strings.HasPrefix(rd.Op, "<<") {
			return "" // here-doc / here-string: no file
		}
		return CapFSRead
	}
	return CapFSWrite
}

// decide decides one check, following the order in the package doc; a write to a
// protected file is then held to ask (see protected.go).
func (p *Policy) decide(c *Check) Decision {
	return p.guardProtected(c, p.decideRules(c))
}

func (p *Policy) decideRules(c *Check) Decision {
	if r := p.best(p.rules, c, func(r *Rule) bool { return r.Scope == ScopeManifest && r.Action == Deny }); r != nil {
		if c.opaque {
			return Decision{Action: Deny, Rule: r, Part: c.Display, Reason: fmt.Sprintf(
				"the line cannot be analysed, so it could be what the host manifest denies (%s); rewrite it so that it parses", r.Pattern)}
		}
		return Decision{Action: Deny, Rule: r, Part: c.Display, Reason: fmt.Sprintf("the host manifest denies %s", c.Display)}
	}
	if c.Capability == CapShellEnv {
		return p.decideEnv(c)
	}
	wd := p.Watchdog
	if wd == nil {
		wd = DefaultWatchdog
	}
	if reason, refuse := wd(c); refuse {
		return Decision{Action: Deny, Part: c.Display, Reason: "the watchdog refuses it: " + reason}
	}
	switch p.Mode {
	case ModeReadOnly:
		if c.Capability != CapFSRead {
			return Decision{Action: Deny, Mode: p.Mode, Part: c.Display, Reason: "the permission mode is read-only: only reads are allowed"}
		}
	}
	var d Decision
	if r := p.best(p.rules, c, nil); r != nil && (p.Mode != ModeBypass || r.Action != Allow) {
		// Bypass skips prompts, not what a person wrote down: their deny and ask rules
		// hold there too (as Claude Code's do), and the allow rules add nothing.
		d = Decision{Action: r.Action, Rule: r, Part: c.Display, Reason: fmt.Sprintf("rule %s", r)}
	} else if p.Mode == ModeBypass {
		d = Decision{Action: Allow, Mode: p.Mode, Part: c.Display, Reason: "the permission mode is bypass"}
	} else {
		d = p.modeDecision(c)
	}
	if r := p.strictest(p.tighten, c); r != nil && r.Action > d.Action {
		d = Decision{Action: r.Action, Rule: r, Part: c.Display, Reason: fmt.Sprintf("rule %s (an untrusted project rule can only tighten)", r)}
	}
	return d
}

func (p *Policy) modeDecision(c *Check) Decision {
	mode := p.Mode
	if mode == "" {
		mode = ModeDefault
	}
	d := Decision{Action: Ask, Mode: mode, Part: c.Display}
	switch {
	case c.Capability == CapFSRead && c.Inside && !c.Uncertain:
		d.Action, d.Reason = Allow, "reads inside the workspace are allowed"
	case c.Capability == CapFSRead:
		d.Reason = "a read outside the workspace needs approval"
	case c.Capability == CapFSWrite && c.Applet == "plan" && c.Inside && isPlanPath(c.Path):
		d.Action, d.Reason = Allow, "the plan applet's own files under "+PlanDir+" are allowed in mode "+string(mode)
	case c.Capability == CapFSWrite && mode == ModeAcceptEdits && c.Inside && !c.Uncertain:
		d.Action, d.Reason = Allow, "mode accept-edits allows writes inside the workspace"
	case c.Capability == CapFSWrite:
		d.Reason = "writing files needs approval in mode " + string(mode)
	case c.Capability == CapShellRun || c.kind == kindCommand:
		d.Reason = "running commands needs approval in mode " + string(mode)
	case c.Capability == CapNetFetch:
		d.Reason = "network access needs approval in mode " + string(mode)
	case c.Capability == CapAgentSpawn:
		d.Reason = "starting a subagent needs approval in mode " + string(mode)
	default:
		d.Reason = "this call needs approval in mode " + string(mode)
	}
	return d
}

type candidate struct {
	r       *Rule
	exact   bool
	literal int
}

// better reports whether a ranks before b in the total order of the package doc.
func better(a, b candidate) bool {
	if a.exact != b.exact {
		return a.exact
	}
	if c := cmp.Compare(a.literal, b.literal); c != 0 {
		return c > 0
	}
	if c := cmp.Compare(a.r.permRank, b.r.permRank); c != 0 {
		return c > 0
	}
	if c := cmp.Compare(a.r.Action, b.r.Action); c != 0 {
		return c > 0
	}
	return tiebreak(a.r, b.r) < 0
}

// tiebreak orders rules that decide alike, only so that the reported rule is stable.
func tiebreak(a, b *Rule) int {
	return cmp.Or(
		cmp.Compare(scopeRank(a.Scope), scopeRank(b.Scope)),
		cmp.Compare(a.Permission, b.Permission),
		cmp.Compare(a.Pattern, b.Pattern),
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Grant, b.Grant),
		cmp.Compare(a.Where, b.Where),
	)
}

func (p *Policy) best(rules []*Rule, c *Check, filter func(*Rule) bool) *Rule {
	var top candidate
	for _, r := range rules {
		if filter != nil && !filter(r) {
			continue
		}
		ok, exact, lit := r.match(c, &p.Env)
		if !ok {
			continue
		}
		cand := candidate{r, exact, lit}
		if top.r == nil || better(cand, top) {
			top = cand
		}
	}
	return top.r
}

// strictest is the matching rule with the strictest action (then the most specific).
func (p *Policy) strictest(rules []*Rule, c *Check) *Rule {
	var top candidate
	for _, r := range rules {
		ok, exact, lit := r.match(c, &p.Env)
		if !ok {
			continue
		}
		cand := candidate{r, exact, lit}
		if top.r == nil || r.Action > top.r.Action || r.Action == top.r.Action && better(cand, top) {
			top = cand
		}
	}
	return top.r
}

// isPlanPath reports whether path is a workspace's plan folder or inside it.
func isPlanPath(path string) bool {
	return strings.HasSuffix(path, "/"+PlanDir) || strings.Contains(path, "/"+PlanDir+"/")
}
