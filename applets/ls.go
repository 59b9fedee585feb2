package applets

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/grep"
	"github.com/agentbox/agentbox/core/walk"
	"github.com/bmatcuk/doublestar/v4"
)

// Limits of ls, used by the code and quoted in the descriptions.
const (
	LsDefaultLimit = 1000 // entries returned before "... and N more entries"
	LsMaxDepth     = 20   // deepest tree view
	LsTimeBudget   = 20 * time.Second
)

// Ls lists a directory, or with depth a tree of them.
type Ls struct {
	Path             string `json:"path" alias:"dir,directory,dir_path" arg:"" optional:"" default:"." help:"the directory to list, absolute or relative to the working directory"`
	LongFormat       bool   `json:"long_format" alias:"long" short:"l" help:"show permissions, size and modification time"`
	IncludeHidden    bool   `json:"include_hidden" alias:"all,hidden" short:"a" help:"include entries whose names start with a dot"`
	Pattern          string `json:"pattern" alias:"glob,filter" help:"only entries whose names match this glob (e.g. *.go, *.{ts,tsx}); with depth, folders stay when something inside matches"`
	SortBy           string `json:"sort_by" alias:"sort" enum:"name,size,modified" default:"name" help:"sort by name, size or modified time (newest first)"`
	Reverse          bool   `json:"reverse" short:"r" help:"reverse the sort order"`
	DirectoriesFirst bool   `json:"directories_first" default:"true" negatable:"" help:"list directories before files"`
	Limit            int    `json:"limit" default:"1000" schema:"min=1" help:"maximum entries to return"`
	Depth            int    `json:"depth" alias:"max_depth,recursive_depth" short:"d" default:"1" schema:"min=1,max=20" help:"levels to list: 1 is the folder itself, more gives a tree view"`
	Respect          bool   `json:"respect_gitignore" alias:"gitignore" default:"true" negatable:"" help:"leave out what .gitignore, .ignore and git's excludes ignore; node_modules-like folders are listed but not descended into"`
}

// LsEntry is one listed entry.
type LsEntry struct {
	Name     string    `json:"name"`
	Path     string    `json:"path,omitempty"` // relative to the listed folder, with depth > 1
	Type     string    `json:"type"`           // file, dir, symlink, other
	Size     int64     `json:"size"`
	Mode     string    `json:"mode,omitempty"`
	Modified time.Time `json:"modified,omitzero"`
	Target   string    `json:"target,omitempty"`
	level    int       // 0 for the folder's own entries
}

// LsResult is what ls returns.
type LsResult struct {
	Path    string    `json:"path"`
	Entries []LsEntry `json:"entries"`
	Total   int       `json:"total"`
	More    int       `json:"more"` // entries left out by limit
	Partial string    `json:"partial,omitempty"`
	long    bool
}

// Run implements core.Command.
func (l *Ls) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	if l.Pattern != "" && !doublestar.ValidatePattern(l.Pattern) {
		return nil, core.Errorf(core.CodeInvalidParams, "pattern %q is not a valid glob; use *, ?, [abc], {a,b}", l.Pattern)
	}
	depth := min(max(l.Depth, 1), LsMaxDepth)
	p, err := env.Resolve(l.Path)
	if err != nil {
		return nil, err
	}
	if _, err := env.Authorize(ctx, core.Request{Capability: core.CapFSRead, Target: p.Abs, Summary: "list " + p.Abs}); err != nil {
		return nil, err
	}
	fi, err := env.WS.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, core.Errorf(core.CodeInvalidParams, "%s is a file, not a directory; use read to see its content", p.Abs)
	}
	// The one walker, depth-limited; the always-skipped folders are listed (they exist)
	// but not descended into, so the walker's own skip list is off and applied here.
	opt := walkOptions(env, l.IncludeHidden, l.Respect, false, LsTimeBudget)
	skip := opt.SkipDirs
	opt.SkipDirs, opt.Dirs, opt.MaxDepth = []string{}, true, depth
	if !l.Respect {
		skip = []string{}
	}
	defer grep.PauseGC(SearchGCLimit)()
	var (
		mu       sync.Mutex
		children = map[string][]LsEntry{} // parent rel ("" for the folder) -> entries
	)
	st, err := walk.Walk(ctx, p.Abs, opt, func(e *walk.Entry) error {
		ent := LsEntry{Name: e.Name, Type: "file", level: strings.Count(e.Rel, "/")}
		if depth > 1 {
			ent.Path = e.Rel
		}
		typ := e.D.Type()
		if info, err := e.D.Info(); err == nil {
			ent.Size, ent.Modified = info.Size(), info.ModTime()
			if l.LongFormat {
				ent.Mode = info.Mode().String()
			}
		}
		switch {
		case e.IsDir:
			ent.Type = "dir"
		case typ&fs.ModeSymlink != 0:
			ent.Type = "symlink"
			child := core.Path{Abs: e.Path, Root: p.Root, Rel: filepath.Join(p.Rel, filepath.FromSlash(e.Rel))}
			if t, err := env.WS.Stat(child); err == nil && t.IsDir() {
				ent.Target = "dir"
			}
		case !typ.IsRegular():
			ent.Type = "other"
		}
		parent := path.Dir(e.Rel)
		if parent == "." {
			parent = ""
		}
		mu.Lock()
		children[parent] = append(children[parent], ent)
		mu.Unlock()
		if e.IsDir && walk.Skipped(skip, e.Name) {
			return fs.SkipDir // listed, not descended into
		}
		return nil
	})
	if errors.Is(err, fs.ErrPermission) {
		return nil, core.Errorf(core.CodePermissionDenied, "the system refused to list %s (permission denied); check its permissions or list another directory", p.Abs)
	}
	if err != nil {
		return nil, core.Errorf(core.CodeIOError, "cannot list %s: %v", p.Abs, err)
	}
	entries := l.flatten(children, "", depth)
	all := entries
	res := LsResult{Path: p.Abs, Total: len(entries), long: l.LongFormat}
	if st.Truncated {
		res.Partial = st.Reason
	}
	if len(entries) > l.Limit {
		res.More = len(entries) - l.Limit
		entries = entries[:l.Limit]
	}
	if !l.LongFormat {
		for i := range entries {
			entries[i].Modified = time.Time{}
		}
	}
	res.Entries = entries
	if res.Entries == nil {
		res.Entries = []LsEntry{}
	}
	r := &core.Result{Data: res}
	if res.More > 0 || res.Partial != "" {
		r.Truncated = true
		var b strings.Builder
		for _, e := range all {
			if e.Path != "" {
				b.WriteString(e.Path)
			} else {
				b.WriteString(e.Name)
			}
			if e.Type == "dir" {
				b.WriteByte('/')
			}
			b.WriteByte('\n')
		}
		if out, err := env.Session.Spill("ls", []byte(b.String())); err == nil {
			r.OutputPath = out
		}
	}
	return r, nil
}

// flatten returns the entries under parent in display order: each folder's entries
// sorted, each directory followed by its own (a pre-order tree walk). With a pattern,
// files must match it; in a tree, a folder stays when something inside it does.
func (l *Ls) flatten(children map[string][]LsEntry, parent string, depth int) []LsEntry {
	list := children[parent]
	l.sort(list)
	var out []LsEntry
	for _, e := range list {
		var sub []LsEntry
		if e.Type == "dir" && depth > 1 {
			sub = l.flatten(children, path.Join(parent, e.Name), depth)
		}
		if l.Pattern != "" {
			ok, _ := doublestar.Match(l.Pattern, e.Name)
			if !ok && (depth == 1 || e.Type != "dir" || len(sub) == 0) {
				continue
			}
		}
		out = append(out, e)
		out = append(out, sub...)
	}
	return out
}

func (l *Ls) sort(entries []LsEntry) {
	less := func(a, b LsEntry) bool {
		switch l.SortBy {
		case "size":
			if a.Size != b.Size {
				return a.Size > b.Size
			}
		case "modified":
			if !a.Modified.Equal(b.Modified) {
				return a.Modified.After(b.Modified)
			}
		}
		return a.Name < b.Name
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if l.DirectoriesFirst && (a.Type == "dir") != (b.Type == "dir") {
			return a.Type == "dir"
		}
		if l.Reverse {
			return less(b, a)
		}
		return less(a, b)
	})
}

// RenderText implements core.TextRenderer: one entry a line, a tree indented by two
// spaces a level.
func (r LsResult) RenderText(p *core.Printer) {
	for _, e := range r.Entries {
		name := strings.Repeat("  ", e.level) + e.Name
		if e.Type == "dir" {
			name = strings.Repeat("  ", e.level) + p.Path(e.Name+"/")
		}
		if r.long {
			p.Printf("%s %8s %s %s\n", e.Mode, humanSize(e.Size), e.Modified.Format("2006-01-02 15:04"), name)
		} else {
			p.Println(name)
		}
	}
	if r.More > 0 {
		p.Println(p.Dim(fmt.Sprintf("... and %d more entries (showing %d of %d; raise limit or narrow with pattern)", r.More, len(r.Entries), r.Total)))
	}
	if r.Total == 0 {
		p.Println(p.Dim("(empty)"))
	}
	if r.Partial != "" {
		p.Println(p.Warn("partial result: " + r.Partial))
	}
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}
