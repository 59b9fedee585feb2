package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/agentbox/agentbox/core/shell"
)

// The "watchdog" section of a config file tunes the bash watchdog (core/shell), the
// check that refuses destructive command lines before any permission rule is read:
//
//	{"watchdog": {
//	    "strict": true,                             // refuse lines that cannot be analysed
//	    "deny_commands":   ["terraform", "kubectl"], // base names (globs) refused outright
//	    "protected_trees": ["/srv"],                 // no rm -r, chmod -R, mv, find -delete of these
//	    "protected_files": ["/srv/data/*"],          // path globs nothing may write
//	    "downloaders":     ["gh"],                   // piped into an interpreter: refused
//	    "interpreters":    ["jshell"],
//	    "disable": ["kill-all"]                      // switch built-in rules off (not in a project config)
//	}}
//
// The lists add to the built-in ones (shell.DefaultConfig); strict set anywhere holds.
// Adding only tightens, so every scope may do it; disable loosens, so a project config
// may not. An unknown key, rule name or malformed entry is a ConfigError.

// WatchdogSection is the "watchdog" object of a config file.
type WatchdogSection struct {
	Strict         bool     `json:"strict,omitempty"`
	Disable        []string `json:"disable,omitempty"`
	DenyCommands   []string `json:"deny_commands,omitempty"`
	ProtectedTrees []string `json:"protected_trees,omitempty"`
	ProtectedFiles []string `json:"protected_files,omitempty"`
	Downloaders    []string `json:"downloaders,omitempty"`
	Interpreters   []string `json:"interpreters,omitempty"`
	// CodeEnv adds environment-variable globs to CodeLoadingEnv.
	CodeEnv []string `json:"code_env,omitempty"`

	// Ignored lists the settings dropped from a project config, as warnings.
	Ignored []string `json:"-"`
}

// ParseWatchdog decodes and checks a config file's watchdog section; a file without
// one yields nil.
func ParseWatchdog(data []byte, file string, scope Scope) (*WatchdogSection, error) {
	fail := func(where, format string, args ...any) error {
		return &ConfigError{File: file, Scope: scope, Where: where, Msg: fmt.Sprintf(format, args...)}
	}
	var top struct {
		Watchdog json.RawMessage `json:"watchdog"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fail("", "not valid JSON: %v", err)
	}
	raw := top.Watchdog
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var w WatchdogSection
	if err := dec.Decode(&w); err != nil {
		return nil, fail("watchdog", "%v (known keys: strict, disable, deny_commands, protected_trees, protected_files, downloaders, interpreters, code_env)", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("watchdog", "trailing data after the object")
	}
	if len(w.Disable) > 0 && scope == ScopeProject {
		w.Ignored = append(w.Ignored, fmt.Sprintf("%s config %s: watchdog.disable ignored (a project config may not switch watchdog rules off; do it in the user config)", scope, file))
		w.Disable = nil
	}
	for i, r := range w.Disable {
		if !slices.Contains(shell.Rules, r) {
			return nil, fail(fmt.Sprintf("watchdog.disable[%d]", i), "unknown rule %q (the rules are %s)", r, strings.Join(shell.Rules, ", "))
		}
	}
	for _, l := range []struct {
		name  string
		list  []string
		globs bool
	}{
		{"deny_commands", w.DenyCommands, true}, {"protected_trees", w.ProtectedTrees, false},
		{"protected_files", w.ProtectedFiles, true}, {"downloaders", w.Downloaders, false},
		{"interpreters", w.Interpreters, true}, {"code_env", w.CodeEnv, true},
	} {
		for i, s := range l.list {
			where := fmt.Sprintf("watchdog.%s[%d]", l.name, i)
			switch {
			case strings.TrimSpace(s) == "":
				return nil, fail(where, "the entry is empty")
			case l.globs:
				if _, err := path.Match(s, ""); err != nil {
					return nil, fail(where, "%q is not a valid glob: %v", s, err)
				}
			}
			if (l.name == "deny_commands" || l.name == "downloaders" || l.name == "interpreters") && strings.Contains(s, "/") {
				return nil, fail(where, "%q is matched against a command's base name, so it may not contain a slash", s)
			}
			if (l.name == "protected_trees" || l.name == "protected_files") && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~") {
				return nil, fail(where, "%q must be an absolute path or start with ~", s)
			}
		}
	}
	return &w, nil
}

// addWatchdog merges a section into the policy's watchdog configuration.
func (p *Policy) addWatchdog(w *WatchdogSection) {
	if w == nil {
		return
	}
	c := &p.ShellWatchdog
	if c.DenyCommands == nil {
		*c = shell.DefaultConfig()
	}
	c.Strict = c.Strict || w.Strict
	c.Disable = append(c.Disable, w.Disable...)
	c.DenyCommands = append(c.DenyCommands, w.DenyCommands...)
	c.ProtectedTrees = append(c.ProtectedTrees, w.ProtectedTrees...)
	c.ProtectedFiles = append(c.ProtectedFiles, w.ProtectedFiles...)
	c.Downloaders = append(c.Downloaders, w.Downloaders...)
	c.Interpreters = append(c.Interpreters, w.Interpreters...)
	p.CodeEnv = append(p.CodeEnv, w.CodeEnv...)
}
