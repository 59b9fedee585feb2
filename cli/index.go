package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/index"
)

// indexCmd builds (or removes) grep's index in the foreground: `agentbox index
// [--remove] [--json] [DIR]`. Without DIR it takes the folders grep keys its indexes
// by, the workspace roots (AGENTBOX_ROOT, else the git top level of the working
// directory, else the working directory).
func indexCmd(host Host, args []string) int {
	const usage = "agentbox index [--remove] [--json] [DIR]"
	remove, asJSON := false, false
	var dir string
	for _, a := range args {
		switch a {
		case "--remove":
			remove = true
		case "--json":
			asJSON = true
		case "-h", "--help":
			fmt.Fprintln(host.Stdout, "Usage: "+usage+"\n\nBuilds grep's trigram index of DIR (default: each workspace root: AGENTBOX_ROOT, else the git top level of the working directory, else the working directory) in the user's cache folder, replacing the one there. grep builds one in the background after a search of a big tree; this builds it now and says what it holds. The index only prunes: a file it does not know, or whose size, mtime, ctime or inode changed since, is searched as without one. The first search that uses it starts a watcher (inotify) that notes the folders changed since, so that grep and glob can take the rest from the index without walking the tree. --remove deletes it, which stops its watcher; --json answers with one envelope per folder, errors included. AGENTBOX_INDEX=off stops grep from using or building indexes.")
			return ExitOK
		default:
			if dir != "" || len(a) > 0 && a[0] == '-' {
				fmt.Fprintf(host.Stderr, "agentbox index: unexpected %q\nUsage: %s\n", a, usage)
				return ExitUsage
			}
			dir = a
		}
	}
	fail := func(e *core.Error) int {
		if asJSON {
			_ = core.ErrorEnvelope(e, 0).WriteJSON(host.Stdout)
		} else {
			fmt.Fprintln(host.Stderr, "agentbox index: "+e.Message)
		}
		return ExitToolError
	}
	cwd, err := host.Getwd()
	if err != nil {
		return fail(core.Errorf(core.CodeIOError, "cannot read the working directory: %v", err))
	}
	cache := index.CacheHome(host.Getenv)
	if cache == "" {
		return fail(core.Errorf(core.CodeInvalidParams, "no cache folder for the index: set XDG_CACHE_HOME or HOME to an absolute path"))
	}
	dirs := []string{dir}
	switch {
	case dir != "":
	case host.Getenv("AGENTBOX_ROOT") != "":
		dirs = filepath.SplitList(host.Getenv("AGENTBOX_ROOT"))
	default:
		dirs = []string{core.FindRoot(cwd)}
	}
	code := ExitOK
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real // the workspace resolves its roots: the index is keyed the same way
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			code = fail(core.Errorf(core.CodeInvalidParams, "%s is not a directory; give the folder to index", d))
			continue
		}
		if remove {
			if err := index.Remove(cache, d); err != nil {
				code = fail(core.Errorf(core.CodeIOError, "cannot remove the index of %s: %v", d, err))
				continue
			}
			if asJSON {
				_ = core.OutputEnvelope(&core.Result{Data: map[string]string{"removed": d}}, 0).WriteJSON(host.Stdout)
			} else {
				fmt.Fprintf(host.Stdout, "removed the index of %s\n", d)
			}
			continue
		}
		if !buildIndex(host, cache, d, asJSON) {
			code = ExitToolError
		}
	}
	return code
}

// buildIndex builds the index of dir and reports it.
func buildIndex(host Host, cache, dir string, asJSON bool) bool {
	start := time.Now()
	m, err := index.Build(context.Background(), cache, dir, index.BuildOptions{Walk: index.DefaultWalk(host.Getenv)})
	if err != nil {
		msg := fmt.Sprintf("cannot index %s: %v", dir, err)
		if err == index.ErrBusy {
			msg = fmt.Sprintf("another process is building the index of %s; wait for it, then run agentbox index again if you still need to", dir)
		}
		if asJSON {
			_ = core.ErrorEnvelope(core.Errorf(core.CodeIOError, "%s", msg), 0).WriteJSON(host.Stdout)
		} else {
			fmt.Fprintln(host.Stderr, "agentbox index: "+msg)
		}
		return false
	}
	size := index.Size(cache, dir)
	took := time.Since(start)
	if asJSON {
		_ = core.OutputEnvelope(&core.Result{Data: indexReport{Root: dir, Files: m.Files, TextBytes: m.Bytes, Postings: m.Postings,
			Segments: len(m.Segments), IndexBytes: size, Dir: index.Dir(cache, dir), DurationMS: took.Milliseconds(), Unlistable: m.Unlistable}}, took.Milliseconds()).WriteJSON(host.Stdout)
		return true
	}
	pct := 0.0
	if m.Bytes > 0 {
		pct = 100 * float64(size) / float64(m.Bytes)
	}
	fmt.Fprintf(host.Stdout, "indexed %s: %d files, %.1f MB of text, in %s; the index is %.1f MB (%.0f%% of the text), %d segments, in %s\n",
		dir, m.Files, float64(m.Bytes)/1e6, took.Round(time.Millisecond), float64(size)/1e6, pct, len(m.Segments), index.Dir(cache, dir))
	if m.Unlistable > 0 {
		fmt.Fprintf(host.Stderr, "(%d folders could not be listed, so their files are not in the index; searches still walk the tree to report them: grep, glob or ls name them)\n", m.Unlistable)
	}
	return true
}

// indexReport is what `agentbox index --json` answers.
type indexReport struct {
	Root       string `json:"root"`
	Files      int    `json:"files"`
	TextBytes  int64  `json:"text_bytes"`
	Postings   int64  `json:"postings"`
	Segments   int    `json:"segments"`
	IndexBytes int64  `json:"index_bytes"`
	Dir        string `json:"dir"`
	DurationMS int64  `json:"duration_ms"`
	// Unlistable counts the folders the build could not list: their files are not in
	// the index, and searches walk the tree rather than take the index's list alone.
	Unlistable int `json:"unlistable,omitempty"`
}
