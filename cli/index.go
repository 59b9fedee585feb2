package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/index"
)

// indexCmd builds (or removes) grep's index of a folder in the foreground: `agentbox
// index [--remove] [DIR]`. DIR defaults to the workspace root of the working directory.
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
			fmt.Fprintln(host.Stdout, "Usage: "+usage+"\n\nBuilds grep's trigram index of DIR (default: the git top level of the working directory, else the working directory) in the user's cache folder, replacing the one there. grep builds one in the background after a search of a big tree; this builds it now and says what it holds. The index only prunes: a file it does not know, or whose size, mtime, ctime or inode changed since, is searched as without one. --remove deletes it; --json answers with an envelope. AGENTBOX_INDEX=off stops grep from using or building indexes.")
			return ExitOK
		default:
			if dir != "" || len(a) > 0 && a[0] == '-' {
				fmt.Fprintf(host.Stderr, "agentbox index: unexpected %q\nUsage: %s\n", a, usage)
				return ExitUsage
			}
			dir = a
		}
	}
	cwd, err := host.Getwd()
	if err != nil {
		fmt.Fprintln(host.Stderr, "agentbox index: cannot read the working directory:", err)
		return ExitToolError
	}
	if dir == "" {
		dir = core.FindRoot(cwd)
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	cache := index.CacheHome(host.Getenv)
	if cache == "" {
		fmt.Fprintln(host.Stderr, "agentbox index: no cache folder: set XDG_CACHE_HOME or HOME to an absolute path")
		return ExitToolError
	}
	if remove {
		if err := index.Remove(cache, dir); err != nil {
			fmt.Fprintln(host.Stderr, "agentbox index:", err)
			return ExitToolError
		}
		fmt.Fprintf(host.Stdout, "removed the index of %s\n", dir)
		return ExitOK
	}
	start := time.Now()
	m, err := index.Build(context.Background(), cache, dir, index.BuildOptions{Walk: index.DefaultWalk(host.Getenv)})
	if err != nil {
		fmt.Fprintf(host.Stderr, "agentbox index: %v\n", err)
		return ExitToolError
	}
	size := index.Size(cache, dir)
	pct := 0.0
	if m.Bytes > 0 {
		pct = 100 * float64(size) / float64(m.Bytes)
	}
	took := time.Since(start)
	if asJSON {
		_ = core.OutputEnvelope(&core.Result{Data: indexReport{Root: dir, Files: m.Files, TextBytes: m.Bytes, Postings: m.Postings,
			Segments: len(m.Segments), IndexBytes: size, Dir: index.Dir(cache, dir), DurationMS: took.Milliseconds()}}, took.Milliseconds()).WriteJSON(host.Stdout)
		return ExitOK
	}
	fmt.Fprintf(host.Stdout, "indexed %s: %d files, %.1f MB of text, in %s; the index is %.1f MB (%.0f%% of the text), %d segments, in %s\n",
		dir, m.Files, float64(m.Bytes)/1e6, took.Round(time.Millisecond), float64(size)/1e6, pct, len(m.Segments), index.Dir(cache, dir))
	return ExitOK
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
}
