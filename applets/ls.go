package applets

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/bmatcuk/doublestar/v4"
)

// LsDefaultLimit is how many entries ls returns before it says how many more there are.
const LsDefaultLimit = 1000

// Ls lists a directory.
type Ls struct {
	Path             string `json:"path" alias:"dir,directory,dir_path" arg:"" optional:"" default:"." help:"the directory to list, absolute or relative to the working directory"`
	LongFormat       bool   `json:"long_format" alias:"long" short:"l" help:"show permissions, size and modification time"`
	IncludeHidden    bool   `json:"include_hidden" alias:"all,hidden" short:"a" help:"include entries whose names start with a dot"`
	Pattern          string `json:"pattern" alias:"glob,filter" help:"only entries whose names match this glob (e.g. *.go, *.{ts,tsx})"`
	SortBy           string `json:"sort_by" alias:"sort" enum:"name,size,modified" default:"name" help:"sort by name, size or modified time (newest first)"`
	Reverse          bool   `json:"reverse" short:"r" help:"reverse the sort order"`
	DirectoriesFirst bool   `json:"directories_first" default:"true" negatable:"" help:"list directories before files"`
	Limit            int    `json:"limit" default:"1000" schema:"min=1" help:"maximum entries to return"`
}

// LsEntry is one listed entry.
type LsEntry struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"` // file, dir, symlink, other
	Size     int64     `json:"size"`
	Mode     string    `json:"mode,omitempty"`
	Modified time.Time `json:"modified,omitzero"`
	Target   string    `json:"target,omitempty"`
}

// LsResult is what ls returns.
type LsResult struct {
	Path    string    `json:"path"`
	Entries []LsEntry `json:"entries"`
	Total   int       `json:"total"`
	More    int       `json:"more"` // entries left out by limit
	long    bool
}

// Run implements core.Command.
func (l *Ls) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	if l.Pattern != "" && !doublestar.ValidatePattern(l.Pattern) {
		return nil, core.Errorf(core.CodeInvalidParams, "pattern %q is not a valid glob; use *, ?, [abc], {a,b}", l.Pattern)
	}
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
	des, err := env.WS.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var entries []LsEntry
	for _, de := range des {
		name := de.Name()
		if !l.IncludeHidden && strings.HasPrefix(name, ".") {
			continue
		}
		if l.Pattern != "" {
			if ok, _ := doublestar.Match(l.Pattern, name); !ok {
				continue
			}
		}
		e := LsEntry{Name: name, Type: "file"}
		info, err := de.Info()
		if err == nil {
			e.Size = info.Size()
			e.Modified = info.ModTime()
			if l.LongFormat {
				e.Mode = info.Mode().String()
			}
		}
		switch {
		case de.IsDir():
			e.Type = "dir"
		case de.Type()&fs.ModeSymlink != 0:
			e.Type = "symlink"
			child := core.Path{Abs: filepath.Join(p.Abs, name), Root: p.Root, Rel: filepath.Join(p.Rel, name)}
			if t, err := env.WS.Stat(child); err == nil && t.IsDir() {
				e.Target = "dir"
			}
		case !de.Type().IsRegular():
			e.Type = "other"
		}
		entries = append(entries, e)
	}
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
	res := LsResult{Path: p.Abs, Total: len(entries), long: l.LongFormat}
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
	return &core.Result{Data: res}, nil
}

// RenderText implements core.TextRenderer.
func (r LsResult) RenderText(p *core.Printer) {
	for _, e := range r.Entries {
		name := e.Name
		if e.Type == "dir" {
			name = p.Path(name + "/")
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
