package core

import (
	"context"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// GlobOptions tune Glob.
type GlobOptions struct {
	IncludeHidden bool
	Deadline      time.Time // zero: no time budget
}

// GlobMatch is one file that matched.
type GlobMatch struct {
	Path    string    `json:"path"`
	ModTime time.Time `json:"modified"`
}

// GlobResult is every match, newest first.
type GlobResult struct {
	Matches []GlobMatch
	// Partial is set, with a reason, when the walk stopped early (time budget, cancel).
	Partial string
}

// Glob finds the files under dir that match a doublestar pattern (relative to dir, or
// absolute). Only the pattern's fixed leading directories are walked; hidden entries and
// the always-skipped directories (SkippedDirs) are left out unless the pattern names them
// or IncludeHidden is set; symlinks are not followed. Matches are sorted by modification
// time, newest first, ties by path.
func (w *Workspace) Glob(ctx context.Context, dir Path, pattern string, opt GlobOptions) (GlobResult, error) {
	var res GlobResult
	if !doublestar.ValidatePattern(filepath.ToSlash(pattern)) {
		return res, Errorf(CodeInvalidParams, "pattern %q is not a valid glob; use *, **, ?, [abc], [!abc] and {a,b}", pattern)
	}
	if !filepath.IsAbs(pattern) {
		pattern = filepath.ToSlash(filepath.Join(dir.Abs, pattern))
	}
	baseDir, rest := doublestar.SplitPattern(filepath.ToSlash(pattern))
	base, err := w.Resolve(dir.Abs, filepath.FromSlash(baseDir))
	if err != nil {
		return res, err
	}
	if rest == "" { // no wildcard: the pattern names one path
		if fi, err := w.Stat(base); err == nil && !fi.IsDir() {
			res.Matches = append(res.Matches, GlobMatch{Path: base.Abs, ModTime: fi.ModTime()})
		}
		return res, nil
	}
	// A pattern that spells out a hidden or skipped name asks for it.
	walk := WalkOptions{IncludeHidden: opt.IncludeHidden || strings.Contains(rest, "/.") || strings.HasPrefix(rest, "."), Deadline: opt.Deadline, Explicit: map[string]bool{}}
	for _, part := range strings.Split(rest, "/") {
		walk.Explicit[part] = true
	}
	partial, err := w.WalkFiles(ctx, base, walk, func(p, rel string, d fs.DirEntry) error {
		if doublestar.MatchUnvalidated(rest, rel) {
			m := GlobMatch{Path: p}
			if info, err := d.Info(); err == nil {
				m.ModTime = info.ModTime()
			}
			res.Matches = append(res.Matches, m)
		}
		return nil
	})
	res.Partial = partial
	if err != nil {
		return res, err
	}
	sort.Slice(res.Matches, func(i, j int) bool {
		a, b := res.Matches[i], res.Matches[j]
		if !a.ModTime.Equal(b.ModTime) {
			return a.ModTime.After(b.ModTime)
		}
		return a.Path < b.Path
	})
	return res, nil
}

func isAlwaysSkipped(name string) bool {
	if strings.HasSuffix(name, ".egg-info") {
		return true
	}
	for _, s := range SkippedDirs {
		if s == name && !strings.HasPrefix(s, ".") {
			return true
		}
	}
	return false
}

// WalkOptions tune WalkFiles.
type WalkOptions struct {
	IncludeHidden bool
	Deadline      time.Time
	Explicit      map[string]bool // names the caller asked for by name: never skipped
}

// WalkFiles calls fn for every regular file below dir (rel is slash-separated and
// relative to dir), skipping hidden entries unless IncludeHidden and the always-skipped
// folders, never following symlinks. It stops early on cancellation or at the deadline
// and returns why as partial.
func (w *Workspace) WalkFiles(ctx context.Context, dir Path, opt WalkOptions, fn func(abs, rel string, d fs.DirEntry) error) (partial string, err error) {
	walkErr := filepath.WalkDir(dir.Abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir.Abs {
				return err
			}
			return nil // an unreadable subdirectory: skip it, keep the rest
		}
		if ctx.Err() != nil {
			partial = "cancelled"
			return filepath.SkipAll
		}
		if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) {
			partial = "time budget exhausted"
			return filepath.SkipAll
		}
		if p == dir.Abs {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if !opt.Explicit[name] && ((strings.HasPrefix(name, ".") && !opt.IncludeHidden) || isAlwaysSkipped(name)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || (strings.HasPrefix(name, ".") && !opt.IncludeHidden && !opt.Explicit[name]) {
			return nil
		}
		rel, _ := filepath.Rel(dir.Abs, p)
		return fn(p, filepath.ToSlash(rel), d)
	})
	if walkErr != nil {
		return partial, fsError(dir, walkErr)
	}
	return partial, nil
}
