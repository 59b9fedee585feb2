package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Forbidden reports whether an environment variable must not reach bash: ones that
// make bash (or the dynamic linker) run code the watchdog never saw.
func Forbidden(name string) bool {
	switch name {
	case "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT":
		return true
	}
	return strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(name, "DYLD_")
}

// CleanEnv builds the environment for bash: base (nil = os.Environ()) with the
// forbidden variables removed, then extra added (forbidden names skipped too; the
// caller should have refused them with an error already).
func CleanEnv(base []string, extra map[string]string) []string {
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if Forbidden(name) || hasKey(extra, name) || name == RunVar {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !Forbidden(k) && k != "" && !strings.Contains(k, "=") {
			out = append(out, k+"="+extra[k])
		}
	}
	return withGitSafety(out)
}

// withGitSafety has git refuse a bare repository it was not pointed at
// (safe.bareRepository=explicit, git 2.38 and later; older versions ignore it): a
// folder a repository ships, or an agent writes, with HEAD, objects, refs and a config
// would otherwise be taken for a repository by git run inside it, and its config's
// core.fsmonitor run. The setting is added after any GIT_CONFIG_* entries present.
func withGitSafety(env []string) []string {
	n := 0
	at := -1
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			if c, err := strconv.Atoi(v); err == nil && c >= 0 {
				n, at = c, i
			}
		}
	}
	out := append([]string(nil), env...)
	if at >= 0 {
		out = append(out[:at], out[at+1:]...)
	}
	return append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+1),
		fmt.Sprintf("GIT_CONFIG_KEY_%d=safe.bareRepository", n), fmt.Sprintf("GIT_CONFIG_VALUE_%d=explicit", n))
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// fallbacks are tried after PATH.
var fallbacks = []string{"/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"}

var bashCache sync.Map // PATH -> string

// FindBash returns the absolute path of the real bash: the first on pathList (then
// the usual places) that is not this very binary, so agentbox installed as "bash"
// never runs itself. Identity is the file's device and inode (os.Stat follows
// symlinks), which catches a symlink or a hard link to agentbox; a plain stat per
// candidate keeps this off the per-call overhead that resolving every path would add.
func FindBash(pathList string) (string, error) { return findBash(pathList, "") }

// findBash is FindBash for a caller that knows this binary's path (self; "" looks it up).
func findBash(pathList, self string) (string, error) {
	if v, ok := bashCache.Load(pathList); ok {
		return v.(string), nil
	}
	// Both the binary the caller names and the one running: a caller's idea of itself
	// can be stale or wrong, and bash must never be agentbox.
	var selves []os.FileInfo
	running, _ := os.Executable()
	for _, p := range []string{self, running} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil {
			selves = append(selves, fi)
		}
	}
	try := func(c string) bool {
		st, err := os.Stat(c)
		if err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
			return false
		}
		for _, me := range selves {
			if os.SameFile(st, me) {
				return false
			}
		}
		return true
	}
	for dir := range strings.SplitSeq(pathList, string(os.PathListSeparator)) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry could be anything the command created
		}
		if c := filepath.Join(dir, "bash"); try(c) {
			bashCache.Store(pathList, c)
			return c, nil
		}
	}
	for _, c := range fallbacks {
		if try(c) {
			bashCache.Store(pathList, c)
			return c, nil
		}
	}
	return "", fmt.Errorf("no bash found on PATH (%s) or in %s; install bash", pathList, strings.Join(fallbacks, ", "))
}

// IsDir reports whether path is an existing directory (for working directories,
// which may lie outside the workspace).
func IsDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
