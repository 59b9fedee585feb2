package applets

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/glob"
	"github.com/agentbox/agentbox/core/grep"
	"github.com/agentbox/agentbox/core/walk"
)

// GlobDefaultLimit is how many files glob returns before it says how many more matched.
const GlobDefaultLimit = 1000

// GlobTimeBudget bounds one glob walk; past it the result is partial and says so.
const GlobTimeBudget = 20 * time.Second

// Glob finds files by pattern.
type Glob struct {
	Pattern       string `json:"pattern" alias:"glob,glob_pattern" arg:"" optional:"" schema:"required,maxLength=4096" help:"doublestar pattern: * within a folder, ** across folders, ?, [abc], [!abc], {a,b} (e.g. **/*.go, src/**/*.{ts,tsx})"`
	Path          string `json:"path" alias:"dir,directory,cwd" arg:"" optional:"" default:"." help:"the directory the pattern is relative to"`
	Limit         int    `json:"limit" alias:"max_results,head_limit" default:"1000" schema:"min=1" help:"maximum files to return (newest first)"`
	IncludeHidden bool   `json:"include_hidden" alias:"hidden" short:"H" help:"include files and folders whose names start with a dot (a pattern that names a dot path includes them anyway)"`
	RespectIgnore bool   `name:"respect" json:"respect_gitignore" alias:"gitignore" default:"true" negatable:"" help:"leave out what .gitignore, .ignore and git's excludes ignore, and node_modules-like folders (unless the pattern names them)"`

	// The spellings fd users type at a shell (shell mode only).
	Extension []string `json:"-" short:"e" name:"extension" sep:"none" help:"only files with this extension (repeatable, as fd -e go); with no pattern, every such file"`
	FileType  string   `json:"-" short:"t" name:"type" help:"f (files, the default) or d (folders), as fd -t"`

	dirs  bool
	shell bool // typed at a shell: paths relative as typed, as fd prints them
}

// GlobResult is what glob returns.
type GlobResult struct {
	Pattern string   `json:"pattern"`
	Root    string   `json:"root"`
	Files   []string `json:"files"` // absolute paths, newest modification first
	Total   int      `json:"total"`
	More    int      `json:"more"`
	Partial string   `json:"partial,omitempty"`
	Denied  int      `json:"denied,omitempty"` // entries left out: the permission policy does not allow reading them
	// Folders the system would not let the walk see, so not searched.
	Unlistable *walk.Unlistable `json:"unlistable,omitempty"`
}

// ShellDefaults implements core.ShellDefaulter: with fd's -e or -t and no pattern, or
// fd's "." pattern, everything below the folder is matched, as fd lists it.
func (g *Glob) ShellDefaults(given func(string) bool) {
	g.shell = true
	if !given("limit") {
		g.Limit = LsShellLimit // a person sees every match, as fd prints them
	}
	if g.Pattern == "." || (g.Pattern == "" && (len(g.Extension) > 0 || g.FileType != "")) {
		// fd's "match everything" regex is "."; a bare -e or -t lists every such entry.
		g.Pattern = "**/*"
	}
}

// Run implements core.Command.
func (g *Glob) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	dir, err := env.Resolve(g.Path)
	if err != nil {
		return nil, err
	}
	if _, err := env.Authorize(ctx, core.Request{Capability: core.CapFSRead, Target: dir.Abs, Summary: "search " + dir.Abs}); err != nil {
		return nil, err
	}
	if fi, err := env.WS.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, core.Errorf(core.CodeInvalidParams, "%s is a file, not a directory; pass its folder as path, or read it", dir.Abs)
	}
	if err := glob.Validate(filepath.ToSlash(g.Pattern)); err != nil {
		return nil, core.Errorf(core.CodeInvalidParams, "%s", err.Error())
	}
	// The walk starts at the pattern's fixed leading folders: confine that folder too
	// (an absolute pattern or one climbing out with ..).
	base := glob.Base(dir.Abs, g.Pattern)
	if _, err := env.WS.Resolve(dir.Abs, base); err != nil {
		return nil, err
	}
	switch g.FileType {
	case "", "f", "file":
	case "d", "dir", "directory":
		g.dirs = true
	default:
		return nil, core.Errorf(core.CodeInvalidParams, "type %q is not f (files) or d (folders)", g.FileType)
	}
	defer grep.PauseGC(SearchGCLimit)()
	opt := walkOptions(env, g.IncludeHidden, g.RespectIgnore, false, GlobTimeBudget)
	opt.Dirs = g.dirs
	list, closeIndex := globLister(env, dir.Abs)
	defer closeIndex()
	found, err := glob.GlobListed(ctx, dir.Abs, g.Pattern, opt, list)
	if err != nil {
		return nil, walkError("search", base, err)
	}
	if len(g.Extension) > 0 || g.FileType != "" {
		kept := found.Matches[:0]
		for _, m := range found.Matches {
			if g.FileType != "" && !g.dirs && m.Symlink {
				continue // fd's -t f: regular files, not links
			}
			if len(g.Extension) > 0 && !hasExtension(m.Path, g.Extension) {
				continue
			}
			kept = append(kept, m)
		}
		found.Matches = kept
	}
	partial := ""
	if found.Truncated {
		partial = found.Reason
	}
	res := GlobResult{Pattern: g.Pattern, Root: dir.Abs, Total: len(found.Matches), Partial: partial, Denied: found.Denied, Files: []string{},
		Unlistable: found.Unlistable.Or()}
	for i, m := range found.Matches {
		if i == g.Limit {
			res.More = len(found.Matches) - g.Limit
			break
		}
		res.Files = append(res.Files, m.Path)
	}
	if g.shell && !filepath.IsAbs(g.Path) && !strings.HasPrefix(g.Path, "~") && !filepath.IsAbs(g.Pattern) {
		// Paths print relative, as typed: under the path, or under the pattern's own
		// leading folders when it starts with ./ or ../ (glob './src/*.go').
		typed, from := g.Path, dir.Abs
		if lead := literalLead(g.Pattern); lead != "" && (strings.HasPrefix(g.Pattern, "./") || strings.HasPrefix(g.Pattern, "../")) {
			typed, from = filepath.Join(g.Path, lead), base
			if g.Path == "." {
				typed = lead
			}
			if strings.HasPrefix(g.Pattern, "./") && !strings.HasPrefix(typed, "./") {
				typed = "./" + typed
			}
		}
		given := filepath.Clean(typed)
		var unlisted []string
		if res.Unlistable != nil {
			unlisted = res.Unlistable.Paths
		}
		for _, list := range [][]string{res.Files, unlisted} {
			for i, f := range list {
				if rest, ok := strings.CutPrefix(f, from); ok {
					list[i] = displayJoin(typed, given, rest)
				}
			}
		}
	}
	result := &core.Result{Data: res, Interrupted: cancelled(res.Partial)}
	if g.shell && res.Total == 0 {
		result.ExitCode = 1 // nothing found, as fd and find-style tools report it
	}
	if res.More > 0 || res.Partial != "" {
		// Streamed: a million paths are not built into one string first.
		result.Spilled(env.Session.SpillLines("glob", len(found.Matches), func(i int) string { return found.Matches[i].Path }))
	}
	return result, nil
}

// RenderText implements core.TextRenderer.
func (r GlobResult) RenderText(p *core.Printer) {
	for _, f := range r.Files {
		p.Println(p.Path(f))
	}
	switch {
	case r.Total == 0:
		p.Note(fmt.Sprintf("No files match %s in %s.", r.Pattern, r.Root))
	case r.More > 0:
		p.Note(fmt.Sprintf("... and %d more files (showing the %d newest of %d; raise --limit)", r.More, len(r.Files), r.Total))
	}
	if r.Denied > 0 {
		p.Note(fmt.Sprintf("(%s left out: the permission policy does not allow reading them)", plural(r.Denied, "path")))
	}
	if r.Unlistable != nil {
		p.Note(unlistableNote("searched", r.Unlistable))
	}
	if r.Partial != "" {
		p.Note("partial result: " + r.Partial)
	}
}

// hasExtension reports whether path ends in one of the extensions, ignoring case as fd
// does (-e go finds main.GO).
func hasExtension(path string, exts []string) bool {
	for _, ext := range exts {
		suffix := "." + strings.TrimPrefix(ext, ".")
		if len(path) >= len(suffix) && strings.EqualFold(path[len(path)-len(suffix):], suffix) {
			return true
		}
	}
	return false
}

// literalLead is a pattern's leading folders without wildcards ("./src" of
// "./src/**/*.go"), as typed.
func literalLead(pattern string) string {
	segs := strings.Split(pattern, "/")
	n := 0
	for n < len(segs)-1 && !strings.ContainsAny(segs[n], "*?[{\\") {
		n++
	}
	return strings.Join(segs[:n], "/")
}
