// Package walk is the one directory walker that ls, glob, grep and read's "did you mean"
// share. It walks in parallel (tree.go: every folder opened beneath the root, so that
// nothing renamed into the tree while it runs takes the walk out of it) and calls the
// visitor from the walking goroutines themselves (no channel between walking and
// searching: measured faster), so a visitor must be safe for concurrent use.
//
// What it leaves out, in order: the always-skipped directory names (SkipDirs, reference
// 001's list by default; names the caller spells out in Explicit are kept), hidden
// entries (unless IncludeHidden), and whatever the ignore files say (core/ignore, unless
// NoIgnore). Symbolic links are not followed unless Follow is set, and then a folder
// reached through links is entered once, so a cycle is not walked twice.
//
// Cancellation and the time budget stop the walk early; Walk then returns what was
// visited with Stats.Truncated set and a reason a model can act on.
package walk

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentbox/agentbox/core/beneath"
	"github.com/agentbox/agentbox/core/ignore"
)

// DefaultSkipDirs are the directory names no walk descends into unless asked: reference
// 001's list without "build" and "dist". Those two are real source folders far too often
// (Go's go/build and cmd/go/internal/work/build*, Python's distutils-era "dist" modules,
// Gradle's buildSrc siblings) for a blanket rule; where they hold output, the project's
// .gitignore says so and the ignore engine hides them. An entry "*.suffix" matches names
// ending in that suffix. Callers may replace the list (see ParseSkipDirs).
var DefaultSkipDirs = []string{".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv",
	".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".eggs", "*.egg-info"}

// ParseSkipDirs reads a skip list written by a person (AGENTBOX_SKIP_DIRS): names
// separated by commas or spaces. "" keeps the default (nil); "none" skips nothing; a list
// starting with "+" extends the default instead of replacing it ("+build,dist").
func ParseSkipDirs(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if s == "none" {
		return []string{}
	}
	var out []string
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		out = append(out, DefaultSkipDirs...)
		s = rest
	}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, strings.TrimPrefix(f, "+"))
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// VCSDirs is the minimal skip list: version-control metadata only (what ripgrep skips
// through hidden-file rules plus .git itself).
var VCSDirs = []string{".git", ".hg", ".svn"}

// Options tune a walk. The zero value walks everything but hidden entries, skips
// DefaultSkipDirs, honours ignore files and has no time budget.
type Options struct {
	IncludeHidden bool           // include entries whose names start with "."
	NoIgnore      bool           // do not read .gitignore / .ignore / excludes
	Ignore        ignore.Options // which ignore sources count
	SkipDirs      []string       // nil: DefaultSkipDirs; empty non-nil: none
	Explicit      []string       // names never skipped by SkipDirs or the hidden rule
	Follow        bool           // follow symbolic links (loop-safe)
	// Confine, when set with Follow, is asked about the resolved target of every
	// symbolic link; a link whose target it refuses is left out (workspace confinement).
	Confine func(target string) bool
	// Inside, when set, is asked about the real location of the walk's root once it is
	// open: a root swapped for a link out since its path was checked is refused (see
	// tree.go; everything below the root is opened beneath it).
	Inside   func(real string) bool
	Dirs     bool          // also call the visitor for directories (before their contents)
	MaxDepth int           // 0: unlimited; 1: the root's entries only
	Budget   time.Duration // 0: none; else stop after this long, truncated
	Workers  int           // 0: four, or one per CPU where there are more
	// IgnoreBase, when set to a folder above the root, makes the ignore files apply as
	// in a walk from that folder that reached the root (grep's index walks changed
	// folders alone, and must leave out what the search's own walk would): a nested
	// repository between them starts its own git rules where that walk's would.
	IgnoreBase string
	// Denied, when set, is asked about every entry that survives the other filters: a
	// path it refuses (the permission policy does not let the caller read it) is left
	// out, never visited, and counted in Stats.Denied; a refused directory is pruned.
	// An entry reached through a symbolic link (a followed link, anything below one,
	// or below a root that is one) is asked about by its real path too, as read
	// decides a link by its target: the rules name real paths.
	Denied func(abs string, isDir bool) bool
	// PruneDir, when set, is asked about every folder that survives the other filters
	// (Denied included): a folder it refuses is not entered, nor counted or reported,
	// as if an ignore file left it out (grep's negated globs, as ripgrep prunes them).
	PruneDir func(abs, name string) bool
}

// FollowedAllowed is whether what a followed link leads to (its real path, a folder
// with isDir) may be read: Confine and Denied, asked again about where an open through
// the link really landed (the link may have changed since the walk decided it). nil
// when neither is set.
func (opt Options) FollowedAllowed(isDir bool) func(real string) bool {
	if opt.Confine == nil && opt.Denied == nil {
		return nil
	}
	return func(real string) bool {
		return (opt.Confine == nil || opt.Confine(real)) && (opt.Denied == nil || !opt.Denied(real, isDir))
	}
}

// Entry is what the visitor sees.
type Entry struct {
	Path  string      // absolute (root joined with Rel)
	Rel   string      // slash-separated, relative to the root
	Name  string      // last component
	IsDir bool        // a directory (followed symlinks to directories included)
	D     fs.DirEntry // Info() is cached, and taken beneath the folder's descriptor during the visit
}

// Stats describe a finished walk.
type Stats struct {
	Files, Dirs int64
	Denied      int64 // entries left out because Options.Denied refused them
	// Unlistable is what the walk could not see and passed over, as ripgrep does.
	Unlistable Unlistable
	Truncated  bool
	Reason     string // why the walk stopped early: "cancelled", "time budget of 30s exhausted"
}

// MaxUnlistablePaths bounds Unlistable.Paths: a tree of ten thousand locked
// folders is reported by count, not listed.
const MaxUnlistablePaths = 10

// Unlistable counts the folders below a walk's root the system would not list
// (permission denied, a name too long, an I/O error), and the links to follow whose
// target it would not let the walk reach. Paths holds the first MaxUnlistablePaths of
// them in path order (PathLess), absolute; Why the system's reasons, each once.
type Unlistable struct {
	Count int      `json:"count"`
	Paths []string `json:"paths"`
	Why   []string `json:"why"`
}

// Add counts the folder abs as one the system would not list, for the reason err gave.
func (u *Unlistable) Add(abs string, err error) {
	u.Count++
	u.addPath(abs)
	u.addWhy(Why(err))
}

// Merge adds o to u (a listing made of several walks).
func (u *Unlistable) Merge(o Unlistable) {
	for _, p := range o.Paths {
		u.addPath(p)
	}
	for _, w := range o.Why {
		u.addWhy(w)
	}
	u.Count += o.Count
}

// Or is u, or nil when it counts nothing (a result's field left out).
func (u Unlistable) Or() *Unlistable {
	if u.Count == 0 {
		return nil
	}
	return &u
}

// addPath keeps abs if it is among the first MaxUnlistablePaths in path order, not in
// the order of the walk's workers: the same tree gives the same answer.
func (u *Unlistable) addPath(abs string) {
	i, _ := slices.BinarySearchFunc(u.Paths, abs, func(a, b string) int {
		switch {
		case PathLess(a, b):
			return -1
		case a == b:
			return 0
		}
		return 1
	})
	if i < MaxUnlistablePaths {
		u.Paths = slices.Insert(u.Paths, i, abs)
		u.Paths = u.Paths[:min(len(u.Paths), MaxUnlistablePaths)]
	}
}

func (u *Unlistable) addWhy(why string) {
	if !slices.Contains(u.Why, why) {
		u.Why = append(u.Why, why)
	}
}

// Gone reports whether err says a path is not there (removed, or a folder on the way
// is now a file): nothing to see, rather than something the system would not show.
func Gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// Why is the system's reason in err, without the operation and path around it
// ("permission denied" of "open /a/b: permission denied").
func Why(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}

// PathLess orders paths as a tree walk would (and ripgrep's --sort path does): by
// component, so "os/exec/x.go" comes before "os/exec.go".
func PathLess(a, b string) bool {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return true
		}
		if cb == '/' {
			return false
		}
		return ca < cb
	}
	return len(a) < len(b)
}

// ErrStop may be returned by a visitor to end the walk early without an error (for
// example when it has enough results); Stats.Truncated is then left to the caller.
var ErrStop = errors.New("walk: stop")

var errHalt = errors.New("walk: halt")

// Walk calls visit for every regular file (and symlink, and with Dirs every directory)
// below root that survives the filters. root must be an absolute directory. A visitor
// error other than ErrStop ends the walk and is returned; fs.SkipDir from a directory
// visit prunes it.
func Walk(ctx context.Context, root string, opt Options, visit func(*Entry) error) (Stats, error) {
	w := &walker{ctx: ctx, root: filepath.Clean(root), opt: opt, visit: visit, skip: opt.SkipDirs, explicit: map[string]bool{}}
	if w.skip == nil {
		w.skip = DefaultSkipDirs
	}
	for _, n := range opt.Explicit {
		w.explicit[n] = true
	}
	if !opt.NoIgnore {
		w.rootStack, w.ignorePrefix = rootStack(w.root, opt)
	}
	if opt.Budget > 0 {
		w.deadline = time.Now().Add(opt.Budget)
	}
	if opt.Denied != nil {
		// A root reached through a link (glob's src/linked/**) is decided where it lands,
		// and so is everything below it.
		real, err := filepath.EvalSymlinks(w.root)
		if err == nil && real != w.root {
			if opt.Denied(real, true) {
				return Stats{Denied: 1}, nil
			}
			w.reals.Store(w.root, real)
			w.linked.Store(true)
		}
	}
	anchor, err := beneath.OpenAnchor(w.root, opt.Inside)
	if err != nil {
		return Stats{}, err
	}
	defer anchor.Close()
	eng := &engine{anchor: anchor, fn: w.entry, follow: opt.Follow, followed: opt.FollowedAllowed(true), maxDepth: opt.MaxDepth}
	err = eng.run(opt.Workers)
	st := w.st
	if r := w.reason.Load(); r != nil {
		st.Truncated, st.Reason = true, r.(string)
	}
	if w.visErr != nil {
		if w.visErr == ErrStop {
			return st, nil
		}
		return st, w.visErr
	}
	if err != nil && err != errHalt {
		return st, err
	}
	return st, nil
}

// rootStack is the ignore rules at root, and the path of root below opt.IgnoreBase
// (with a trailing slash) when they are computed from there.
func rootStack(root string, opt Options) (*ignore.Stack, string) {
	rel, err := filepath.Rel(opt.IgnoreBase, root)
	if opt.IgnoreBase == "" || err != nil || rel == "." || !filepath.IsLocal(rel) {
		return ignore.ForRoot(root, opt.Ignore), ""
	}
	rel = filepath.ToSlash(rel)
	s := ignore.ForRoot(opt.IgnoreBase, opt.Ignore)
	partial := ""
	for _, part := range strings.Split(rel, "/") {
		if partial != "" {
			partial += "/"
		}
		partial += part
		s = s.Child(filepath.Join(opt.IgnoreBase, filepath.FromSlash(partial)), partial, opt.Ignore)
	}
	return s, rel + "/"
}

// walker is one Walk: its options and the state the engine's workers share.
type walker struct {
	ctx       context.Context
	root      string
	opt       Options
	visit     func(*Entry) error
	skip      []string
	explicit  map[string]bool
	stacks    sync.Map // dir abs path -> *ignore.Stack
	rootStack *ignore.Stack
	// ignorePrefix is the root's path below Options.IgnoreBase ("" without one):
	// the ignore rules see paths from there.
	ignorePrefix string
	deadline     time.Time
	st           Stats
	reason       atomic.Value // why the walk stopped early
	visitMu      sync.Mutex
	visErr       error // the first error visit returned
	n            atomic.Int64
	halted       atomic.Bool
	// reals maps a folder reached through a symbolic link to its real path (only with
	// Options.Denied), so what lies below it is decided where it really is; linked
	// says whether it holds anything, keeping the common walk off the map.
	reals  sync.Map
	linked atomic.Bool
}

// halt stops the walk early for a reason reported in Stats.
func (w *walker) halt(why string) error {
	w.reason.CompareAndSwap(nil, why)
	w.halted.Store(true)
	return errHalt
}

// fail stops the walk with visit's error, the first one kept.
func (w *walker) fail(err error) error {
	w.halted.Store(true)
	w.visitMu.Lock()
	if w.visErr == nil {
		w.visErr = err
	}
	w.visitMu.Unlock()
	return errHalt
}

// entry is the engine's callback for each entry, on any of its workers.
func (w *walker) entry(path string, d fs.DirEntry, err error) error {
	if err != nil {
		if path == w.root {
			return err
		}
		// An unreadable subdirectory: left out, the rest kept, and counted. One that
		// vanished since its parent was listed is no more than a deleted file.
		if !Gone(err) {
			w.unlistable(path, err)
		}
		return nil
	}
	if w.halted.Load() {
		return errHalt // the other workers finish the folder they read: visit nothing more
	}
	// Checking the clock on every entry costs little next to the syscalls, but a
	// counter keeps it off the hot path entirely.
	if c := w.n.Add(1); c&63 == 0 {
		if w.ctx.Err() != nil {
			return w.halt("cancelled")
		}
		if !w.deadline.IsZero() && time.Now().After(w.deadline) {
			return w.halt("time budget of " + w.opt.Budget.String() + " exhausted")
		}
	}
	if path == w.root {
		if w.rootStack != nil {
			w.stacks.Store(w.root, w.rootStack)
		}
		return nil
	}
	name := d.Name()
	typ := d.Type()
	isDir := typ.IsDir()
	real := "" // the entry's real path, when it differs from path and the policy asks
	if typ&fs.ModeSymlink != 0 && w.opt.Follow {
		if w.opt.Confine != nil || w.opt.Denied != nil {
			// A link that cannot be resolved (dangling, a /proc fd of a deleted or
			// unnamed file) cannot be decided: it is not followed.
			r, err := filepath.EvalSymlinks(path)
			if err != nil && !Gone(err) && !errors.Is(err, syscall.ELOOP) {
				// Its target lies where the system would not let the walk look (a
				// folder it may not enter): not followed, and said so.
				w.unlistable(path, err)
				return fs.SkipDir
			}
			if err != nil || (w.opt.Confine != nil && !w.opt.Confine(r)) {
				return fs.SkipDir // not followed
			}
			real = r
		}
		if de, ok := d.(*dirent); ok {
			if fi, err := de.statFollow(); err == nil {
				isDir = fi.IsDir()
			}
		}
	} else if w.linked.Load() {
		if r, ok := w.reals.Load(path[:len(path)-len(name)-1]); ok {
			real = filepath.Join(r.(string), name)
		}
	}
	if real == path {
		real = ""
	}
	rel := path[len(w.root)+1:]
	if len(w.root) == 1 { // root "/"
		rel = path[1:]
	}
	stack := w.parentStack(path, name)
	irel := rel
	if w.ignorePrefix != "" {
		irel = w.ignorePrefix + rel
	}
	if !w.wanted(path, real, irel, name, isDir, stack) {
		if isDir {
			return fs.SkipDir
		}
		return nil
	}
	if isDir {
		atomic.AddInt64(&w.st.Dirs, 1)
		if real != "" && w.opt.Denied != nil {
			w.reals.Store(path, real) // before the engine reads the folder: it is enqueued after this call
			w.linked.Store(true)
		}
		if stack != nil {
			w.stacks.Store(path, stack.Child(path, irel, w.opt.Ignore))
		}
		if w.opt.Dirs {
			if err := w.visit(&Entry{Path: path, Rel: rel, Name: name, IsDir: true, D: d}); err != nil {
				if err == fs.SkipDir {
					return fs.SkipDir
				}
				return w.fail(err)
			}
		}
		return nil // a followed link to a folder: the engine enqueues it itself
	}
	atomic.AddInt64(&w.st.Files, 1)
	if err := w.visit(&Entry{Path: path, Rel: rel, Name: name, D: d}); err != nil {
		return w.fail(err)
	}
	return nil
}

// unlistable counts path as a folder (or a link's target) the system would not let
// the walk see.
func (w *walker) unlistable(path string, err error) {
	w.visitMu.Lock()
	w.st.Unlistable.Add(path, err)
	w.visitMu.Unlock()
}

// parentStack is the ignore rules of path's folder (nil when ignore files are off).
func (w *walker) parentStack(path, name string) *ignore.Stack {
	if w.rootStack == nil {
		return nil
	}
	dir := path[:len(path)-len(name)-1]
	if dir == "" {
		dir = "/"
	}
	if v, ok := w.stacks.Load(dir); ok {
		return v.(*ignore.Stack)
	}
	return nil
}

// wanted decides whether an entry is walked: hidden entries, the skipped folders, what
// the ignore files ignore and what the policy denies (counted) by path or by real
// path (real, "" when it is path) are left out. A name the caller gave explicitly is
// exempt from the hidden and skip rules.
func (w *walker) wanted(path, real, rel, name string, isDir bool, stack *ignore.Stack) bool {
	matched, ignored := stack.Decide(rel, name, isDir)
	if !w.explicit[name] {
		// A hidden entry an ignore file re-includes with a "!" rule is searched, as
		// ripgrep does (its regression 90).
		if name[0] == '.' && !w.opt.IncludeHidden && !(matched && !ignored) {
			return false
		}
		if isDir && skipName(w.skip, name) {
			return false
		}
	}
	if matched && ignored {
		return false
	}
	if w.opt.Denied != nil && (w.opt.Denied(path, isDir) || real != "" && w.opt.Denied(real, isDir)) {
		atomic.AddInt64(&w.st.Denied, 1)
		return false
	}
	return !isDir || w.opt.PruneDir == nil || !w.opt.PruneDir(path, name)
}

// Skipped reports whether a directory called name is on the skip list (nil: the
// default list), for callers that list such a folder but do not descend into it.
func Skipped(skip []string, name string) bool {
	if skip == nil {
		skip = DefaultSkipDirs
	}
	return skipName(skip, name)
}

func skipName(skip []string, name string) bool {
	for _, s := range skip {
		if s == name || (s[0] == '*' && strings.HasSuffix(name, s[1:])) {
			return true
		}
	}
	return false
}
