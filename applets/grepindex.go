package applets

import (
	"strconv"
	"strings"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/grep"
	"github.com/agentbox/agentbox/core/index"
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
)

// grepIndex is the index a search under abs may use: the one of the workspace root
// holding abs. AGENTBOX_INDEX=off turns indexes off (no use, no builds).
type grepIndex struct {
	root, cache string
	ix          *index.Index
	pruner      *index.Pruner
	unreadable  bool // there is an index, but it cannot be opened (damaged, an older format)
}

// openGrepIndex opens the index for a search of abs with m and installs its pruner in
// m; the result is never nil, but its ix is when there is no index to use.
func openGrepIndex(env *core.Env, abs string, m *grep.Engine) *grepIndex {
	g := &grepIndex{}
	if env.Getenv("AGENTBOX_INDEX") == "off" || env.WS == nil {
		return g
	}
	for _, r := range env.WS.Roots {
		if abs == r || strings.HasPrefix(abs, strings.TrimSuffix(r, "/")+"/") {
			g.root = r
			break
		}
	}
	g.cache = index.CacheHome(env.Getenv)
	if g.root == "" || g.cache == "" {
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
	if g.pruner = ix.Pruner(lits); g.pruner != nil {
		m.SetPrune(g.pruner.Skip)
	}
	return g
}

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
	if g.root == "" || g.cache == "" || env.Executable == "" || found == nil || found.Searched+found.Binary < minFiles {
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
		changed := g.pruner.Changed.Load()
		if changed <= max(indexStaleFiles, int64(found.Searched)/50) || env.Now().Sub(g.ix.Meta.Built) < indexRebuildAfter {
			return
		}
	}
	var childEnv []string
	for _, k := range []string{"HOME", "XDG_CONFIG_HOME", "AGENTBOX_SKIP_DIRS", "PATH"} {
		if v := env.Getenv(k); v != "" {
			childEnv = append(childEnv, k+"="+v)
		}
	}
	_ = index.Start(env.Executable, g.cache, g.root, childEnv)
}
