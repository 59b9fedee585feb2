package index

import (
	"encoding/json"
	"strings"

	"github.com/agentbox/agentbox/core/ignore"
	"github.com/agentbox/agentbox/core/walk"
)

// WalkKey names what a walk with opt covers, to compare a search's walk with the one
// an index was built from (Meta.Walk): "" for a walk no index stands for (hidden
// entries, no ignore files, followed links, a depth limit, named exceptions).
func WalkKey(opt walk.Options) string {
	if opt.IncludeHidden || opt.NoIgnore || opt.Follow || opt.MaxDepth != 0 || opt.Dirs || len(opt.Explicit) > 0 {
		return ""
	}
	skip := opt.SkipDirs
	if skip == nil {
		skip = walk.DefaultSkipDirs
	}
	b, _ := json.Marshal(struct {
		Skip   []string
		Ignore ignore.Options
	}{skip, opt.Ignore})
	return string(b)
}

// Each calls fn, in the index's order, for every file the index records under the
// folder under (relative to the root; "" for all) whose folder ch leaves unchanged:
// its path relative to the root (bytes of the mapping, valid until Close) and whether
// a search must read it: it holds every trigram of one of the literals, or the build
// left it to the search. A file it need not read holds none of them, or is binary.
// The files of ch's folders are the caller's to list from the disk.
func (p *Pruner) Each(under string, ch *Changes, fn func(rel []byte, read, binary bool)) {
	dirs, trees := map[string]bool{}, map[string]bool{}
	for _, d := range ch.Dirs {
		dirs[d] = true
	}
	for _, t := range ch.Trees {
		trees[t] = true
	}
	covered := func(dir string) bool {
		if dirs[dir] {
			return true
		}
		for len(trees) > 0 {
			if trees[dir] {
				return true
			}
			if dir == "" {
				break
			}
			dir = parentOf(dir)
		}
		return false
	}
	prefix := ""
	if under != "" {
		prefix = under + "/"
	}
	lastDir, lastCovered := "\x00", false
	for i, s := range p.segs {
		for id := range uint32(s.nfiles) {
			rel := s.path(id)
			if !strings.HasPrefix(string(rel), prefix) {
				continue
			}
			dir := rel[:max(0, lastSlash(rel))]
			if string(dir) != lastDir {
				lastDir = string(dir)
				lastCovered = covered(lastDir)
			}
			if lastCovered {
				continue
			}
			fn(rel, p.cands[i].has(id), s.binary(id))
		}
	}
}

func lastSlash(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '/' {
			return i
		}
	}
	return -1
}
