package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// The permission section of a config file (user, project or manifest):
//
//	{"permissions": {
//	    "mode": "accept-edits",                    // user config and manifest only
//	    "rules": [{"permission": "bash", "pattern": "npm run test *", "action": "allow"}],
//	    "allow": ["bash(go test *)", "fetch(*.golang.org)"],   // shorthand: permission(pattern)
//	    "ask":   ["write(**/*.lock)"],
//	    "deny":  ["read(**/.env)", "bash(rm -rf *)"],
//	    "trusted_roots": ["~/src/myproject"]       // user config only
//	}}
//
// The "watchdog" object tunes the bash watchdog (see ParseWatchdog). Other top-level
// keys belong to other parts of agentbox and are not read here; inside "permissions"
// and "watchdog" an unknown key is an error.

// Section is the "permissions" object of a config file.
type Section struct {
	Mode         string     `json:"mode,omitempty"`
	Rules        []RuleSpec `json:"rules,omitempty"`
	Allow        []string   `json:"allow,omitempty"`
	Ask          []string   `json:"ask,omitempty"`
	Deny         []string   `json:"deny,omitempty"`
	TrustedRoots []string   `json:"trusted_roots,omitempty"`

	// Ignored lists the settings dropped from a project config, as warnings.
	Ignored []string `json:"-"`
}

// RuleSpec is a rule as written in a file.
type RuleSpec struct {
	Permission string `json:"permission"`
	Pattern    string `json:"pattern,omitempty"`
	Action     string `json:"action"`
}

// ConfigError is a config file that cannot be used: the file, the rule (if one is at
// fault) and what is wrong.
type ConfigError struct {
	File  string
	Scope Scope
	Where string // rules[2], deny[0], mode, ...
	Msg   string
}

func (e *ConfigError) Error() string {
	where := ""
	if e.Where != "" {
		where = " " + e.Where
	}
	if e.Scope == ScopeProject {
		return fmt.Sprintf("%s config %s%s: %s", e.Scope, e.File, where, e.Msg)
	}
	return fmt.Sprintf("%s config %s%s: %s; fix the file or remove the entry (agentbox will not run with a config it cannot read)", e.Scope, e.File, where, e.Msg)
}

// ParseShorthand reads "permission(pattern)" or a bare "permission".
func ParseShorthand(s string) (permission, pattern string, err error) {
	s = strings.TrimSpace(s)
	i := strings.IndexByte(s, '(')
	if i < 0 {
		if strings.ContainsAny(s, ") \t") || s == "" {
			return "", "", fmt.Errorf("%q is not of the form permission or permission(pattern)", s)
		}
		return s, "", nil
	}
	if !strings.HasSuffix(s, ")") {
		return "", "", fmt.Errorf("%q is not of the form permission(pattern): the closing ) is missing", s)
	}
	permission, pattern = strings.TrimSpace(s[:i]), s[i+1:len(s)-1]
	if permission == "" {
		return "", "", fmt.Errorf("%q has no permission before (", s)
	}
	return permission, pattern, nil
}

// ParseSection decodes and compiles a config file's permission section. A file
// without one yields a nil section and no rules.
func ParseSection(data []byte, file string, scope Scope) (*Section, []*Rule, error) {
	fail := func(where, format string, args ...any) error {
		return &ConfigError{File: file, Scope: scope, Where: where, Msg: fmt.Sprintf(format, args...)}
	}
	var top struct {
		Permissions  json.RawMessage `json:"permissions"`
		Mode         json.RawMessage `json:"mode"`
		TrustedRoots json.RawMessage `json:"trusted_roots"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fail("", "not valid JSON: %v", err)
	}
	// A mode or trusted_roots outside "permissions" sets nothing; a project config that
	// writes them is told so, not ignored in silence.
	var misplaced []string
	for key, v := range map[string]json.RawMessage{"mode": top.Mode, "trusted_roots": top.TrustedRoots} {
		if len(v) > 0 {
			misplaced = append(misplaced, fmt.Sprintf("%s config %s: top-level %q ignored (permission settings belong under \"permissions\"%s)", scope, file, key, map[bool]string{true: ", and a project config may not set it", false: ""}[scope == ScopeProject]))
		}
	}
	sort.Strings(misplaced)
	raw := top.Permissions
	if len(raw) == 0 || string(raw) == "null" {
		if len(misplaced) > 0 {
			return &Section{Ignored: misplaced}, nil, nil
		}
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	sec := Section{Ignored: misplaced}
	if err := dec.Decode(&sec); err != nil {
		return nil, nil, fail("permissions", "%v (known keys: mode, rules, allow, ask, deny, trusted_roots)", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, fail("permissions", "trailing data after the object")
	}
	// A project config is the repository's word, and a hostile repository must not be
	// able to switch agentbox off by writing what it may not say: such settings are
	// dropped with a warning, never an error that stops every call.
	if sec.Mode != "" && scope == ScopeProject {
		sec.Ignored = append(sec.Ignored, fmt.Sprintf("%s config %s: mode %q ignored (a project config may not set the permission mode; set it in the user config or with --mode)", scope, file, sec.Mode))
		sec.Mode = ""
	}
	if sec.Mode != "" {
		if _, err := ParseMode(sec.Mode); err != nil {
			return nil, nil, fail("mode", "%v", err)
		}
	}
	if len(sec.TrustedRoots) > 0 && scope != ScopeUser {
		if scope != ScopeProject {
			return nil, nil, fail("trusted_roots", "only the user config may mark project roots as trusted")
		}
		sec.Ignored = append(sec.Ignored, fmt.Sprintf("%s config %s: trusted_roots ignored (only the user config may mark project roots as trusted)", scope, file))
		sec.TrustedRoots = nil
	}
	var rules []*Rule
	for i, rs := range sec.Rules {
		where := fmt.Sprintf("rules[%d]", i)
		a, err := ParseAction(rs.Action)
		if err != nil {
			return nil, nil, fail(where, "%v", err)
		}
		if rs.Permission == "" {
			return nil, nil, fail(where, "permission is missing")
		}
		r, err := Compile(rs.Permission, rs.Pattern, a)
		if err != nil {
			return nil, nil, fail(where, "%v", err)
		}
		r.Scope, r.File, r.Where = scope, file, where
		rules = append(rules, r)
	}
	for _, group := range []struct {
		name   string
		list   []string
		action Action
	}{{"allow", sec.Allow, Allow}, {"ask", sec.Ask, Ask}, {"deny", sec.Deny, Deny}} {
		for i, s := range group.list {
			where := fmt.Sprintf("%s[%d]", group.name, i)
			perm, pat, err := ParseShorthand(s)
			if err != nil {
				return nil, nil, fail(where, "%v", err)
			}
			r, err := Compile(perm, pat, group.action)
			if err != nil {
				return nil, nil, fail(where, "%v", err)
			}
			r.Scope, r.File, r.Where = scope, file, where
			rules = append(rules, r)
		}
	}
	return &sec, rules, nil
}

// Sources names the config files to load.
type Sources struct {
	Manifest string   // --manifest / AGENTBOX_MANIFEST; must exist when named
	User     string   // the user config; "" means UserConfigPath(getenv)
	Projects []string // workspace roots whose .agentbox/config.json is read
	Mode     string   // --mode / AGENTBOX_MODE; overrides the user config's mode
	// Ceiling (AGENTBOX_MODE_CEILING) is the loosest mode allowed: a task's child runs
	// under its parent's mode, and no --mode, environment or config can loosen it.
	Ceiling string
	Getenv  func(string) string
}

// StateDir is agentbox's state folder ($XDG_STATE_HOME/agentbox, or
// ~/.local/state/agentbox): sessions, grants, patch journals, locks.
func StateDir(getenv func(string) string) string {
	if d := XDGHome(getenv, "XDG_STATE_HOME", ".local/state"); d != "" {
		return canonical(absPath(filepath.Join(d, "agentbox")))
	}
	return ""
}

// XDGHome is an XDG base folder: the variable's value where it is an absolute path,
// else fallback below $HOME ("" without one). The specification has a relative value
// ignored, and so does every reader here: a relative XDG_STATE_HOME put the session's
// grants where no protection looked, and an agent forged one (a fourteenth red team).
func XDGHome(getenv func(string) string, name, fallback string) string {
	if d := getenv(name); filepath.IsAbs(d) {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, fallback)
	}
	return ""
}

// UserConfigPath is $XDG_CONFIG_HOME/agentbox/config.json, or ~/.config/... .
func UserConfigPath(getenv func(string) string) string {
	if f := getenv("AGENTBOX_USER_CONFIG"); f != "" {
		return f // pinned by a calling agentbox's bash: a command cannot swap the rules
	}
	if d := XDGHome(getenv, "XDG_CONFIG_HOME", ".config"); d != "" {
		return filepath.Join(d, "agentbox", "config.json")
	}
	return ""
}

// MaxConfigBytes bounds a config file: a project could name /dev/zero.
const MaxConfigBytes = 1 << 20

// readConfigFile reads a config that must be a regular file of at most MaxConfigBytes;
// a project's must also stay inside the roots once its links are resolved (a link in a
// repository must not load a file from elsewhere, nor quote it in a warning). A FIFO,
// a device or /dev/zero is refused before anything blocks.
func readConfigFile(file string, scope Scope, roots []string) ([]byte, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		kind := "a special file"
		switch m := fi.Mode(); {
		case m.IsDir():
			kind = "a folder"
		case m&fs.ModeNamedPipe != 0:
			kind = "a FIFO"
		case m&fs.ModeDevice != 0:
			kind = "a device"
		}
		return nil, fmt.Errorf("%s is not a regular file but %s", file, kind)
	}
	if fi.Size() > MaxConfigBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than a config may be (%d)", file, fi.Size(), MaxConfigBytes)
	}
	if scope == ScopeProject {
		real, err := filepath.EvalSymlinks(file)
		if err != nil {
			return nil, err
		}
		inside := false
		for _, r := range roots {
			if rr, err := filepath.EvalSymlinks(r); err == nil {
				if _, ok := under(real, rr); ok {
					inside = true
				}
			}
		}
		if !inside {
			return nil, fmt.Errorf("%s is a link that leads outside the workspace", file)
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxConfigBytes))
}

// tightenWith adds an untrusted project's rules, which can only tighten, but not all
// at once: a rule that would decide every call is not a rule about the project's own
// files, and a repository must not switch the tool off, so it is dropped with a warning.
func (p *Policy) tightenWith(rules []*Rule, file, root string) {
	for _, r := range rules {
		if catchAll(r, root, &p.Env) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: the rule %s %s(%s) covers every call, which a project config may not tighten; it was ignored (name the paths or commands it means)", file, r.Action, r.Permission, r.Pattern))
			continue
		}
		p.tighten = append(p.tighten, r)
	}
}

// catchAll reports a rule that would decide every call of its kind in the project at
// root: a pattern that is everything ("*", "**"), or one that matches the root itself
// or a file in it that no rule about the project's own files would name (fs.read(/),
// write({workspace}), bash(* *)).
func catchAll(r *Rule, root string, env *Env) bool {
	switch strings.TrimSpace(r.Pattern) {
	case "", "*", "**", "**/*", "/**", "./**", "~/**":
		return true
	}
	applet, capability := r.Permission, ""
	if k, ok := capKinds[r.Permission]; ok || r.Permission == "*" {
		applet = ""
		capability = r.Permission
		if r.Permission == "*" || k == kindPath {
			capability = CapFSRead
		}
	}
	probes := []Check{
		{Applet: applet, Capability: capability, kind: kindPath, Path: root, Inside: true},
		{Applet: applet, Capability: capability, kind: kindPath, Path: filepath.Join(root, "agentbox-probe.zz9"), Inside: true},
		{Applet: applet, Capability: CapShellRun, kind: kindCommand, Argv: []string{"agentbox-probe-zz9", "x"}},
	}
	if r.Permission == "*" || r.Permission == CapFSWrite {
		probes = append(probes, Check{Capability: CapFSWrite, kind: kindPath, Path: filepath.Join(root, "agentbox-probe.zz9"), Inside: true})
	}
	for i := range probes {
		if ok, _, _ := r.match(&probes[i], env); ok {
			return true
		}
	}
	return false
}

// ProjectConfigPath is <root>/.agentbox/config.json.
func ProjectConfigPath(root string) string {
	return filepath.Join(root, ".agentbox", "config.json")
}

// Load reads the manifest, user and project configs and builds a policy.
func Load(src Sources, env Env) (*Policy, error) {
	getenv := src.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if env.Aliases == nil {
		home, xdg, roots := env.Home, getenv("XDG_CONFIG_HOME"), env.Roots
		env.Aliases = sync.OnceValue(func() map[string]map[string]string { return loadAliases(home, xdg, roots) })
	}
	p := New(env, ModeDefault)
	read := func(file string, scope Scope, mustExist bool) (*Section, []*Rule, error) {
		data, err := readConfigFile(file, scope, env.Roots)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && !mustExist {
				return nil, nil, nil
			}
			return nil, nil, &ConfigError{File: file, Scope: scope, Msg: err.Error()}
		}
		if scope == ScopeUser {
			sum := sha256.Sum256(data)
			p.UserConfigDigest = hex.EncodeToString(sum[:])
		}
		w, err := ParseWatchdog(data, file, scope)
		if err != nil {
			return nil, nil, err
		}
		if w != nil {
			p.Warnings = append(p.Warnings, w.Ignored...)
		}
		p.addWatchdog(w)
		return ParseSection(data, file, scope)
	}
	mode := ""
	if src.Manifest != "" {
		p.ConfigFiles = append(p.ConfigFiles, canonical(absPath(src.Manifest)))
		sec, rules, err := read(src.Manifest, ScopeManifest, true)
		if err != nil {
			return nil, err
		}
		p.add(rules...)
		if sec != nil && sec.Mode != "" {
			mode = sec.Mode
		}
	}
	user := src.User
	if user == "" {
		user = UserConfigPath(getenv)
	}
	var trusted []string
	if user != "" {
		p.ConfigFiles = append(p.ConfigFiles, canonical(absPath(user)))
		p.UserConfigDir = canonical(filepath.Dir(absPath(user)))
		p.StateDir = StateDir(getenv)
		p.UserConfigDigest = "none"
		sec, rules, err := read(user, ScopeUser, false)
		if err != nil {
			return nil, err
		}
		if want := getenv("AGENTBOX_USER_CONFIG_SHA256"); want != "" && want != p.UserConfigDigest {
			return nil, &ConfigError{File: user, Scope: ScopeUser, Msg: "this is not the user config the calling agentbox runs under " +
				"(AGENTBOX_USER_CONFIG_SHA256 differs: the file changed, moved or is hidden since its command started), " +
				"so this agentbox will not run under other rules; run it again from the calling agentbox"}
		}
		p.add(rules...)
		if sec != nil {
			if sec.Mode != "" {
				mode = sec.Mode
			}
			for _, t := range sec.TrustedRoots {
				if strings.HasPrefix(t, "~/") && env.Home != "" {
					t = filepath.Join(env.Home, t[2:])
				}
				if !filepath.IsAbs(t) {
					return nil, &ConfigError{File: user, Scope: ScopeUser, Where: "trusted_roots", Msg: fmt.Sprintf("%q is not an absolute path (or ~/path)", t)}
				}
				trusted = append(trusted, canonical(t))
			}
		}
	}
	for _, root := range src.Projects {
		file := ProjectConfigPath(root)
		sec, rules, err := read(file, ScopeProject, false)
		if err != nil {
			// A project config that cannot be used is the repository's problem: its
			// rules could only tighten (or, trusted, add what the user already allows),
			// so it is skipped with a warning rather than stopping every call.
			p.Warnings = append(p.Warnings, fmt.Sprintf("%v; the project config was ignored", err))
			continue
		}
		if sec != nil {
			p.Warnings = append(p.Warnings, sec.Ignored...)
		}
		isTrusted := false
		for _, t := range trusted {
			if t == canonical(root) {
				isTrusted = true
			}
		}
		if isTrusted {
			p.add(rules...)
			continue
		}
		p.tightenWith(rules, file, root)
	}
	if src.Mode != "" {
		mode = src.Mode
	}
	m, err := ParseMode(mode)
	if err != nil {
		return nil, err
	}
	if src.Ceiling != "" {
		c, err := ParseMode(src.Ceiling)
		if err != nil {
			return nil, fmt.Errorf("AGENTBOX_MODE_CEILING: %v", err)
		}
		m = StricterMode(m, c)
		p.Ceiling = c
	}
	p.Mode = m
	p.ShellWatchdog.Home = env.Home
	p.Getenv = getenv
	p.ShellWatchdog.Strict = p.ShellWatchdog.Strict || getenv("AGENTBOX_BASH_STRICT") == "1"
	return p, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// canonical cleans a path and resolves its symlinks when it exists.
func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
