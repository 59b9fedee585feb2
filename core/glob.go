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
	namesHidden := strings.Contains(rest, "/.") || strings.HasPrefix(rest, ".")
	explicit := map[string]bool{}
	for _, part := range strings.Split(rest, "/") {
		explicit[part] = true
	}
	walkErr := filepath.WalkDir(base.Abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == base.Abs {
				return err
			}
			return nil // unreadable subdirectory: skip it, keep the rest
		}
		if ctx.Err() != nil {
			res.Partial = "cancelled"
			return filepath.SkipAll
		}
		if !opt.Deadline.IsZero() && time.Now().After(opt.Deadline) {
			res.Partial = "time budget exhausted"
			return filepath.SkipAll
		}
		if p == base.Abs {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if !explicit[name] && ((strings.HasPrefix(name, ".") && !opt.IncludeHidden && !namesHidden) || isAlwaysSkipped(name)) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(name, ".") && !opt.IncludeHidden && !namesHidden {
			return nil
		}
		rel, _ := filepath.Rel(base.Abs, p)
		if doublestar.MatchUnvalidated(rest, filepath.ToSlash(rel)) {
			m := GlobMatch{Path: p}
			if info, err := d.Info(); err == nil {
				m.ModTime = info.ModTime()
			}
			res.Matches = append(res.Matches, m)
		}
		return nil
	})
	if walkErr != nil {
		return res, fsError(base, walkErr)
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
