package cli

import (
	"errors"
	"fmt"
	"github.com/agentbox/agentbox/core"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// shellBuiltins are names a POSIX shell or bash runs itself: a link by such a name
// would not run for a person, and would for `env NAME` or a script's exec, so it is
// not made unless forced.
var shellBuiltins = []string{
	".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command",
	"compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo",
	"enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash",
	"help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd",
	"printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift",
	"shopt", "source", "suspend", "test", "times", "trap", "true", "type", "typeset",
	"ulimit", "umask", "unalias", "unset", "wait",
}

// install makes one symlink per applet in a directory: `agentbox install --links DIR
// [--prefix P] [--force]`. A name that is already a command elsewhere on PATH, or a
// shell builtin, is left out unless --force says to shadow it: linking `grep` or `bash`
// into a folder early on PATH would break every script that runs the system's. It
// never replaces a file that is not already a link to this binary, and reports what it
// created, kept, left out and why.
func install(host Host, t *core.Table, args []string) int {
	const usage = "agentbox install --links DIR [--prefix P] [--force]"
	g, args, err := splitGlobals(args)
	var dir, prefix string
	force := false
	for i := 0; err == nil && i < len(args); i++ {
		name, val, has := strings.Cut(args[i], "=")
		switch name {
		case "--links", "--prefix":
			if !has {
				if i+1 >= len(args) {
					err = fmt.Errorf("%s needs a value", name)
					break
				}
				i++
				val = args[i]
			}
			if name == "--links" {
				dir = val
			} else {
				prefix = val
			}
		case "--force":
			force = true
		case "-h", "--help":
			fmt.Fprintln(host.Stdout, "Usage: "+usage+"\n\nMakes DIR/P<applet> symlinks to this binary for every applet, so `edit`, `glob`, ... (or `P-grep`) run agentbox's applets.\nA name that is already a command on PATH (grep, ls, bash, patch, ...) or a shell builtin (read, echo) is left out, so scripts and pipelines keep running the system's: use --prefix ab- for every applet under a prefix, or --force to shadow them (only in a folder that is first on an agent's PATH, never a person's).\nExisting files that are not links to agentbox are never replaced.")
			return ExitOK
		default:
			err = fmt.Errorf("unknown argument %q", args[i])
		}
	}
	if err == nil && dir == "" {
		err = errors.New("--links DIR is required")
	}
	if err == nil && (strings.ContainsAny(prefix, `/\`) || prefix == "." || prefix == "..") {
		// A prefix is part of a name: "../" would put the links in another folder.
		err = fmt.Errorf("--prefix %q must be a name prefix such as ab-, without a path separator", prefix)
	}
	if err != nil {
		fmt.Fprintf(host.Stderr, "agentbox install: %v; usage: %s\n", err, usage)
		return ExitUsage
	}
	exe := host.Executable
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(host.Stderr, "agentbox install: %v\n", err)
		return ExitToolError
	}
	type report struct {
		Created []string `json:"created"`
		Kept    []string `json:"kept"`
		// LeftOut: names that would shadow a command or builtin (--prefix or --force).
		LeftOut []string `json:"left_out"`
		// Removed: links of ours from an earlier run that hide a command now.
		Removed []string `json:"removed,omitempty"`
		Skipped []string `json:"skipped"` // could not be made
	}
	var rep report
	for _, s := range t.Specs {
		name := prefix + s.Name
		link := filepath.Join(dir, name)
		fi, err := os.Lstat(link)
		if err == nil {
			if fi.Mode()&fs.ModeSymlink != 0 {
				if dest, err := filepath.EvalSymlinks(link); err == nil && dest == exe {
					// Our own link: kept, unless it now hides a command (an earlier
					// --force, or a command installed since) and this run has no --force.
					if why := shadows(host, name, dir, exe); why != "" && !force {
						if err := os.Remove(link); err == nil {
							rep.Removed = append(rep.Removed, name+" ("+why+")")
							continue
						}
					}
					rep.Kept = append(rep.Kept, link)
					continue
				}
			}
			rep.Skipped = append(rep.Skipped, link+" (exists and is not a link to agentbox)")
			continue
		}
		if !force {
			if why := shadows(host, name, dir, exe); why != "" {
				rep.LeftOut = append(rep.LeftOut, name+" ("+why+")")
				continue
			}
		}
		if err := os.Symlink(exe, link); err != nil {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s (%v)", link, err))
			continue
		}
		rep.Created = append(rep.Created, link)
	}
	if g.JSON {
		_ = core.OutputEnvelope(&core.Result{Data: rep}, 0).WriteJSON(host.Stdout)
	} else {
		fmt.Fprintf(host.Stdout, "created %d, kept %d, left out %d, skipped %d links in %s\n", len(rep.Created), len(rep.Kept), len(rep.LeftOut), len(rep.Skipped), dir)
		if len(rep.Removed) > 0 {
			fmt.Fprintln(host.Stdout, "  removed links of an earlier run that hide the system's commands (--force keeps them):")
			for _, s := range rep.Removed {
				fmt.Fprintln(host.Stdout, "    "+s)
			}
		}
		if len(rep.LeftOut) > 0 {
			fmt.Fprintln(host.Stdout, "  left out, so the system's commands keep running (use --prefix ab- to link them as ab-NAME, or --force to shadow them):")
			for _, s := range rep.LeftOut {
				fmt.Fprintln(host.Stdout, "    "+s)
			}
		}
		for _, s := range rep.Skipped {
			fmt.Fprintln(host.Stdout, "  skipped", s)
		}
	}
	if len(rep.Skipped) > 0 {
		return ExitToolError
	}
	return ExitOK
}

// shadows says why a link called name in dir would hide a command a person or a script
// runs today ("" if it would not): a shell builtin, or an executable of that name in
// another PATH folder that is not this binary.
func shadows(host Host, name, dir, exe string) string {
	if slices.Contains(shellBuiltins, name) {
		return "a shell builtin"
	}
	getenv := host.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	absDir, _ := filepath.Abs(dir)
	for _, d := range filepath.SplitList(getenv("PATH")) {
		if d == "" {
			continue
		}
		if a, _ := filepath.Abs(d); a == absDir {
			continue
		}
		p := filepath.Join(d, name)
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && real == exe {
			continue
		}
		return "shadows " + p
	}
	return ""
}
