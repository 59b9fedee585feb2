package applets

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/grep"
	"github.com/agentbox/agentbox/core/index"
	"github.com/agentbox/agentbox/core/walk"
)

// Thresholds of grep's index (core/index): a search that read at least indexMinFiles
// files under a root without an index (AGENTBOX_INDEX=N sets another number) starts a
// background build of one; a search that met more than indexStaleFiles changed files
// (or a fiftieth of those it searched) starts a rebuild, at most once per
// indexRebuildAfter.
const (
	indexMinFiles     = 3000
	indexStaleFiles   = 50
	indexRebuildAfter = 2 * time.Minute
	// watcherWait bounds the wait for the watcher's answer; past it the search walks.
	watcherWait = 300 * time.Millisecond
)

// grepIndex is the index a search under abs may use: the one of the workspace root
// holding abs. AGENTBOX_INDEX=off turns indexes off (no use, no builds).
type grepIndex struct {
	root, cache string
	ix          *index.Index
	pruner      *index.Pruner
	unreadable  bool // there is an index, but it cannot be opened (damaged, an older format)
	noWatcher   bool // the index could list the files, but no watcher runs for the root
}

// openGrepIndex opens the index for a search of abs with m and installs its pruner in
// m; the result is never nil, but its ix is when there is no index to use.
func openGrepIndex(env *core.Env, abs string, m *grep.Engine, wopt walk.Options) *grepIndex {
	g := &grepIndex{}
	if g.root, g.cache = indexRoot(env, abs); g.root == "" {
		return g
	}
	lits, ok := m.PruneLiterals()
	if !ok {
		return g
	}
	ix, err := index.Open(g.cache, g.root)
	if err != nil {
		g.unreadable = index.Exists(g.cache, g.root)
		return g
	}
	g.ix = ix
	if g.pruner = ix.Pruner(lits); g.pruner == nil {
		return g
	}
	m.SetPrune(g.pruner.Skip)
	// With a watcher that knows what changed since the build, the index's file list
	// replaces the walk (and its lstat per file) for a walk the index stands for. Not
	// where the build met folders it could not list: the walk says which they are now.
	if key := index.WalkKey(wopt); key == "" || key != ix.Meta.Walk || ix.Meta.Unlistable > 0 {
		return g
	}
	under := relUnder(g.root, abs)
	ch, err := index.Sync(g.cache, g.root, under, watcherWait)
	if err != nil {
		g.noWatcher = err == index.ErrNoWatcher
		return g
	}
	if !ch.Answers(ix) || !ch.Visible || inTree(under, ch.Trees) {
		return g // another index or mount namespace, a folder the index's walk leaves out, or a changed one
	}
	m.SetLister(g.lister(m, wopt, ch))
	listedSearches.Add(1)
	return g
}

// listedSearches and listedGlobs count the greps and globs that took their files from
// an index and its watcher (for tests: that they took that path at all).
var listedSearches, listedGlobs atomic.Int64

// indexRoot is the workspace root whose index a search of abs may use, and the cache
// folder indexes live in; "" when indexes are off (AGENTBOX_INDEX=off) or unknown.
func indexRoot(env *core.Env, abs string) (root, cache string) {
	if env.Getenv("AGENTBOX_INDEX") == "off" || env.WS == nil {
		return "", ""
	}
	if cache = index.CacheHome(env.Getenv); cache == "" {
		return "", ""
	}
	for _, r := range env.WS.Roots {
		if abs == r || strings.HasPrefix(abs, strings.TrimSuffix(r, "/")+"/") {
			return r, cache
		}
	}
	return "", ""
}

// relUnder is abs relative to root, slash-separated ("" for root itself).
func relUnder(root, abs string) string {
	if abs == root {
		return ""
	}
	return filepath.ToSlash(strings.TrimPrefix(abs, strings.TrimSuffix(root, "/")+"/"))
}

// inTree reports whether rel is one of trees or inside one.
func inTree(rel string, trees []string) bool {
	for _, t := range trees {
		if rel == t || t == "" || strings.HasPrefix(rel, t+"/") {
			return true
		}
	}
	return false
}

// lister lists a search's files from the index and the watcher's changes (ch): the
// index's candidates in unchanged folders, then the changed folders' files and the
// changed trees as a walk finds them now (the pruner still skips those the index
// proves unchanged and without a literal).
func (g *grepIndex) lister(m *grep.Engine, wopt walk.Options, ch *index.Changes) grep.Lister {
	return func(ctx context.Context, root string, visit func(*walk.Entry) error) (walk.Stats, int64, int64, error) {
		var (
			st               walk.Stats
			searched, binary int64
			cands            []walk.Entry
		)
		under := relUnder(g.root, root)
		prefix := ""
		if under != "" {
			prefix = under + "/"
		}
		denied := newRefusals(root, wopt.Denied, &st)
		checkEach := m.Filtered() || wopt.Denied != nil
		g.pruner.Each(under, ch, func(rel []byte, read, bin bool) {
			if !read && !checkEach {
				if bin {
					binary++
				} else {
					searched++
				}
				return
			}
			srel := string(rel[len(prefix):])
			name := path.Base(srel)
			abs := filepath.Join(root, filepath.FromSlash(srel))
			// As in the walk: the policy first, then the search's filters.
			if denied.file(srel, abs) || !m.Wanted(srel, name) {
				return
			}
			switch {
			case read:
				cands = append(cands, walk.Entry{Path: abs, Rel: srel, Name: name, D: listedFile{abs}})
			case bin:
				binary++
			default:
				searched++
			}
		})
		if err := visitAll(ctx, cands, visit); err != nil {
			return st, searched, binary, err
		}
		wopt.PruneDir = m.PruneDir(root)
		err := walkChanged(ctx, root, under, ch, wopt, visit, &st, denied)
		return st, searched, binary, err
	}
}

// walkChanged visits, from the disk, what a watcher reported changed under the folder
// root (under, relative to the index's root): the changed folders' own entries and
// the changed trees whole, with the walk's options and Rel relative to root.
func walkChanged(ctx context.Context, root, under string, ch *index.Changes, wopt walk.Options, visit func(*walk.Entry) error, st *walk.Stats, denied *refusals) error {
	prefix := ""
	if under != "" {
		prefix = under + "/"
	}
	if wopt.Denied != nil {
		wopt.Denied = denied.walkFilter // a folder counted once however many walks meet it
	}
	wopt.IgnoreBase = root // ignore files apply as in the search's own walk from root
	one := wopt
	one.MaxDepth = 1
	for _, d := range ch.Dirs {
		if (d != under && !strings.HasPrefix(d, prefix)) || inTree(d, ch.Trees) {
			continue
		}
		srel := strings.TrimPrefix(strings.TrimPrefix(d, under), "/")
		if srel != "" && denied.dir(srel) {
			continue
		}
		if err := walkUnder(ctx, root, srel, one, visit, st); err != nil {
			return err
		}
	}
	for _, t := range ch.Trees {
		if !strings.HasPrefix(t, prefix) || inTree(parentDir(t), ch.Trees) {
			continue
		}
		srel := t[len(prefix):]
		if denied.dir(srel) || !visibleDir(ctx, root, srel, one) {
			continue
		}
		if err := walkUnder(ctx, root, srel, wopt, visit, st); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func parentDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "\x00" // the root's parent: no tree
}

// refusals decides and counts, as a walk would, what the policy refuses in a listing
// of root that is partly the index's and partly walks: a refused folder counted once,
// a refused file once. Safe for concurrent use (the walks' workers call it).
type refusals struct {
	root string
	deny func(abs string, isDir bool) bool
	st   *walk.Stats
	mu   sync.Mutex
	memo map[string]bool // folder (relative to root) -> it or one above is refused
}

func newRefusals(root string, deny func(string, bool) bool, st *walk.Stats) *refusals {
	return &refusals{root: root, deny: deny, st: st, memo: map[string]bool{}}
}

// dir reports whether the folder rel (relative to root) or one above it, below root,
// is refused.
func (r *refusals) dir(rel string) bool {
	if r.deny == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dirLocked(rel)
}

func (r *refusals) dirLocked(rel string) bool {
	if rel == "" || rel == "." || rel == "/" {
		return false
	}
	if v, ok := r.memo[rel]; ok {
		return v
	}
	v := r.dirLocked(path.Dir(rel))
	if !v && r.deny(filepath.Join(r.root, filepath.FromSlash(rel)), true) {
		v = true
		r.st.Denied++
	}
	r.memo[rel] = v
	return v
}

// file reports whether the file srel (abs its path) or a folder above it is refused.
func (r *refusals) file(srel, abs string) bool {
	if r.deny == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dirLocked(path.Dir(srel)) {
		return true
	}
	if r.deny(abs, false) {
		r.st.Denied++
		return true
	}
	return false
}

// walkFilter is r as a walk's Denied; the walk's own count of refusals is left out
// (walkUnder does), since r counts them.
func (r *refusals) walkFilter(abs string, isDir bool) bool {
	if abs != r.root && !strings.HasPrefix(abs, strings.TrimSuffix(r.root, "/")+"/") {
		// The real path a link leads to, somewhere else: decided alone (r's folders
		// are relative to root).
		if !r.deny(abs, isDir) {
			return false
		}
		r.mu.Lock()
		r.st.Denied++
		r.mu.Unlock()
		return true
	}
	if isDir {
		return r.dir(relUnder(r.root, abs))
	}
	return r.file(relUnder(r.root, abs), abs)
}

// visitAll calls visit for every entry from as many goroutines as there are CPUs.
func visitAll(ctx context.Context, entries []walk.Entry, visit func(*walk.Entry) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	for range min(runtime.GOMAXPROCS(0), max(1, len(entries)/8)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(entries) || ctx.Err() != nil || firstErr.Load() != nil {
					return
				}
				if err := visit(&entries[i]); err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if p := firstErr.Load(); p != nil && *p != walk.ErrStop {
		return *p
	}
	return nil
}

// walkUnder walks the folder srel of root with opt, its entries' Rel made relative to
// root, adding its counts but refusals to st. A folder that is gone has nothing to
// visit.
func walkUnder(ctx context.Context, root, srel string, opt walk.Options, visit func(*walk.Entry) error, st *walk.Stats) error {
	dir := filepath.Join(root, filepath.FromSlash(srel))
	ws, err := walk.Walk(ctx, dir, opt, func(e *walk.Entry) error {
		if srel != "" {
			e.Rel = srel + "/" + e.Rel
		}
		return visit(e)
	})
	st.Files += ws.Files
	st.Dirs += ws.Dirs // refusals are counted by the caller's Denied
	st.Unlistable.Merge(ws.Unlistable)
	if ws.Truncated {
		st.Truncated, st.Reason = true, ws.Reason
	}
	switch {
	case err == nil, walk.Gone(err):
		return nil // (a folder gone, or made a file, since the watcher's answer: nothing there)
	case srel != "":
		// One that cannot be listed now is passed over and counted, as the walk
		// from the root does.
		st.Unlistable.Add(dir, err)
		return nil
	}
	return err
}

// visibleDir reports whether the folder srel of root is one a walk of its parent
// enters (not hidden, skipped or ignored).
func visibleDir(ctx context.Context, root, srel string, one walk.Options) bool {
	parent, name := path.Split(srel)
	one.Dirs = true
	one.Denied = nil // the caller decides the folder; its siblings are not this walk's to count
	found := false
	_, _ = walk.Walk(ctx, filepath.Join(root, filepath.FromSlash(parent)), one, func(e *walk.Entry) error {
		if e.IsDir && e.Name == name {
			found = true
		}
		return nil
	})
	return found
}

// listedFile is the fs.DirEntry of a file the index listed (a regular file).
type listedFile struct{ path string }

func (f listedFile) Name() string               { return filepath.Base(f.path) }
func (f listedFile) IsDir() bool                { return false }
func (f listedFile) Type() fs.FileMode          { return 0 }
func (f listedFile) Info() (fs.FileInfo, error) { return os.Lstat(f.path) }

// done closes the index and, after a search of a big tree, starts a build when there
// is no index or the one there has fallen behind the tree. It never waits for it.
func (g *grepIndex) done(env *core.Env, found *grep.Result) {
	if g.ix != nil {
		defer g.ix.Close()
	}
	minFiles := indexMinFiles
	if n, err := strconv.Atoi(env.Getenv("AGENTBOX_INDEX")); err == nil && n > 0 {
		minFiles = n
	}
	if g.root == "" || g.cache == "" || env.Executable == "" || found == nil {
		return
	}
	if g.noWatcher {
		_ = index.StartWatcher(env.Executable, g.cache, g.root, helperEnv(env))
	}
	if found.Searched+found.Binary < minFiles {
		return
	}
	switch {
	case g.unreadable:
		// Replaced by a build, no more often than a stale one is.
		if built, ok := index.Built(g.cache, g.root); ok && env.Now().Sub(built) < indexRebuildAfter {
			return
		}
	case g.ix == nil:
		if index.Exists(g.cache, g.root) {
			return // there is one; this search could not use it
		}
	case g.pruner == nil:
		return
	default:
		changed := g.pruner.Changed.Load() + g.pruner.Unknown.Load()
		if changed <= max(indexStaleFiles, int64(found.Searched)/50) || env.Now().Sub(g.ix.Meta.Built) < indexRebuildAfter {
			return
		}
	}
	_ = index.Start(env.Executable, g.cache, g.root, helperEnv(env))
}

// helperEnv is the environment of the index's builder and watcher: what decides the
// walk they stand for.
func helperEnv(env *core.Env) []string {
	var out []string
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "AGENTBOX_SKIP_DIRS", "PATH", "AGENTBOX_WATCH_IDLE"} {
		if v := env.Getenv(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}
