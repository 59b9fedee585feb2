// Package glob finds files by doublestar pattern (`**`, `*`, `?`, `[abc]`, `[!abc]`,
// `{a,b}`) the fast way: it walks only beneath the pattern's fixed leading directory
// (doublestar.SplitPattern), matches each file with doublestar.MatchUnvalidated (with
// plain fast paths for `**/name` and `**/*.ext` shapes), stats only the matches, and sorts
// them newest modification first, ties by path. It shares core/walk's walker, so hidden
// entries, the always-skipped folders and ignore files are left out the same way as
// everywhere else — except that a pattern which itself names a dot path (".github/**",
// "**/.env") or a skipped folder ("node_modules/**") asks for it and gets it.
package glob

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentbox/agentbox/core/walk"
	"github.com/bmatcuk/doublestar/v4"
)

// Match is one matching file.
type Match struct {
	Path    string    `json:"path"` // absolute
	ModTime time.Time `json:"modified"`
	Symlink bool      `json:"symlink,omitempty"` // a link, not a regular file (fd's -t f leaves it out)
}

// Result is every match, newest first.
type Result struct {
	Matches   []Match
	Truncated bool   // the walk stopped early
	Reason    string // why
	Denied    int    // entries the permission policy does not let the caller read
	// Unlistable: the folders the system would not let the walk see (not searched).
	Unlistable walk.Unlistable
}

// Validate checks a pattern and explains what is wrong with it.
func Validate(pattern string) error {
	if pattern == "" {
		return fmt.Errorf("empty glob pattern: give one such as **/*.go")
	}
	if !doublestar.ValidatePattern(pattern) {
		return fmt.Errorf("glob pattern %q is not valid (an unclosed [ or {, or a trailing \\?); use *, **, ?, [abc], [!abc] and {a,b}", pattern)
	}
	return nil
}

// Base returns the folder a search for pattern (relative to root, or absolute) walks:
// the pattern's fixed leading directories, as an absolute, cleaned path.
func Base(root, pattern string) string {
	pattern = filepath.ToSlash(pattern)
	if !strings.HasPrefix(pattern, "/") {
		pattern = filepath.ToSlash(filepath.Clean(root)) + "/" + strings.TrimPrefix(pattern, "./")
	}
	base, _ := doublestar.SplitPattern(pattern)
	return filepath.Clean(filepath.FromSlash(base))
}

// Glob finds the files below root (an absolute directory) matching pattern, which is
// relative to root or absolute. opt tunes the walk; IncludeHidden is turned on for patterns
// that name a dot path, and named skip-list folders are let through. opt.Dirs matches
// folders instead of files (fd's -t d).
func Glob(ctx context.Context, root, pattern string, opt walk.Options) (*Result, error) {
	return GlobListed(ctx, root, pattern, opt, walk.Walk)
}

// A Lister stands in for walk.Walk: it visits what a walk of root with opt would (an
// index that knows the tree, core/index with its watcher).
type Lister func(ctx context.Context, root string, opt walk.Options, visit func(*walk.Entry) error) (walk.Stats, error)

// GlobListed is Glob with the files listed by list instead of walk.Walk.
func GlobListed(ctx context.Context, root, pattern string, opt walk.Options, list Lister) (*Result, error) {
	pattern = filepath.ToSlash(pattern)
	if err := Validate(pattern); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(pattern, "/") {
		pattern = strings.TrimPrefix(pattern, "./")
		pattern = filepath.ToSlash(filepath.Clean(root)) + "/" + pattern
	}
	base, rest := doublestar.SplitPattern(pattern)
	base = filepath.FromSlash(base)
	res := &Result{}
	if rest == "" || !hasMeta(rest) {
		// No wildcard below base: the pattern names one path, decided as the walk of its
		// folder would decide it. By the name first, whether it exists or not (a count
		// that moved with existence would say whether a denied file is there), then by
		// where its folder really is; a link is listed as a link, not followed.
		p := filepath.Join(base, unescape(rest))
		if opt.Denied != nil && (opt.Denied(p, opt.Dirs) || deniedReal(p, opt)) {
			res.Denied = 1
			return res, nil
		}
		fi, err := lstatFile(p)
		switch {
		case err == nil && fi.IsDir() == opt.Dirs:
			res.Matches = append(res.Matches, Match{Path: p, ModTime: fi.ModTime(), Symlink: fi.Mode()&fs.ModeSymlink != 0})
		case err != nil && !walk.Gone(err):
			return nil, err // whether it is there cannot be told (a folder that may not be entered)
		}
		return res, nil
	}
	parts := strings.Split(rest, "/")
	for _, part := range parts {
		if strings.HasPrefix(part, ".") || strings.Contains(part, "{.") || strings.Contains(part, ",.") {
			opt.IncludeHidden = true
		}
		if !hasMeta(part) {
			opt.Explicit = append(opt.Explicit, part)
		}
	}
	match := matcher(rest)
	var mu sync.Mutex
	st, err := list(ctx, base, opt, func(e *walk.Entry) error {
		if e.IsDir != opt.Dirs || !match(e.Rel, e.Name) {
			return nil // with opt.Dirs, folders are what is matched, not files
		}
		m := Match{Path: e.Path, Symlink: e.D.Type()&fs.ModeSymlink != 0}
		if fi, err := e.D.Info(); err == nil {
			m.ModTime = fi.ModTime()
		}
		mu.Lock()
		res.Matches = append(res.Matches, m)
		mu.Unlock()
		return nil
	})
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok && pe.Path == base && walk.Gone(err) {
			return res, nil // a fixed prefix that does not exist matches nothing
		}
		return nil, err
	}
	res.Truncated, res.Reason = st.Truncated, st.Reason
	res.Denied = int(st.Denied)
	res.Unlistable = st.Unlistable
	Sort(res.Matches)
	return res, nil
}

// Sort orders matches newest first; files with no time sort last; ties by path.
func Sort(ms []Match) {
	sort.Slice(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if !a.ModTime.Equal(b.ModTime) {
			return a.ModTime.After(b.ModTime)
		}
		return a.Path < b.Path
	})
}

// matcher returns a predicate on (root-relative path, name) for a pattern, with fast
// paths for the shapes agents use most.
func matcher(p string) func(rel, name string) bool {
	if tail, ok := strings.CutPrefix(p, "**/"); ok && !strings.Contains(tail, "/") && !strings.Contains(tail, "**") {
		// "**/<name pattern>": only the file name matters.
		if !hasMeta(tail) {
			lit := unescape(tail)
			return func(_, name string) bool { return name == lit }
		}
		if tail[0] == '*' && !hasMeta(tail[1:]) {
			suf := unescape(tail[1:])
			return func(_, name string) bool { return strings.HasSuffix(name, suf) }
		}
		return func(_, name string) bool { return doublestar.MatchUnvalidated(tail, name) }
	}
	if !strings.Contains(p, "/") && p[0] == '*' && !hasMeta(p[1:]) {
		suf := unescape(p[1:])
		return func(rel, _ string) bool { return !strings.Contains(rel, "/") && strings.HasSuffix(rel, suf) }
	}
	return func(rel, _ string) bool { return doublestar.MatchUnvalidated(p, rel) }
}

// deniedReal reports whether opt.Denied refuses p where its folder really is, when a
// link on the way makes that another path.
func deniedReal(p string, opt walk.Options) bool {
	dir, err := evalSymlinks(filepath.Dir(p))
	if err != nil {
		return false // no folder: nothing to list
	}
	real := filepath.Join(dir, filepath.Base(p))
	return real != p && opt.Denied(real, opt.Dirs)
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[{\`) }

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
