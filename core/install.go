package core

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// install makes one symlink per applet in a directory: `agentbox install --links DIR
// [--prefix P]`. It never replaces a file that is not already a link to this binary, and
// reports what it created, kept and skipped.
func install(host Host, t *Table, args []string) int {
	g, args, err := splitGlobals(args)
	var dir, prefix string
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
		case "-h", "--help":
			fmt.Fprintln(host.Stdout, "Usage: agentbox install --links DIR [--prefix P]\n\nMakes DIR/P<applet> symlinks to this binary for every applet, so `read`, `grep`, ... (or `P-read`) run agentbox's applets. Existing files that are not links to agentbox are never replaced.")
			return ExitOK
		default:
			err = fmt.Errorf("unknown argument %q", args[i])
		}
	}
	if err == nil && dir == "" {
		err = errors.New("--links DIR is required")
	}
	if err != nil {
		fmt.Fprintf(host.Stderr, "agentbox install: %v; usage: agentbox install --links DIR [--prefix P]\n", err)
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
		Skipped []string `json:"skipped"`
	}
	var rep report
	for _, s := range t.Specs {
		link := filepath.Join(dir, prefix+s.Name)
		fi, err := os.Lstat(link)
		if err == nil {
			if fi.Mode()&fs.ModeSymlink != 0 {
				if dest, err := filepath.EvalSymlinks(link); err == nil && dest == exe {
					rep.Kept = append(rep.Kept, link)
					continue
				}
			}
			rep.Skipped = append(rep.Skipped, link+" (exists and is not a link to agentbox)")
			continue
		}
		if err := os.Symlink(exe, link); err != nil {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s (%v)", link, err))
			continue
		}
		rep.Created = append(rep.Created, link)
	}
	if g.JSON {
		_ = OutputEnvelope(&Result{Data: rep}, 0).WriteJSON(host.Stdout)
	} else {
		fmt.Fprintf(host.Stdout, "created %d, kept %d, skipped %d links in %s\n", len(rep.Created), len(rep.Kept), len(rep.Skipped), dir)
		for _, s := range rep.Skipped {
			fmt.Fprintln(host.Stdout, "  skipped", s)
		}
	}
	if len(rep.Skipped) > 0 {
		return ExitToolError
	}
	return ExitOK
}
