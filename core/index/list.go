package index

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/agentbox/agentbox/core/ignore"
	"github.com/agentbox/agentbox/core/walk"
)

// WalkKey names what a walk with opt covers, to compare a search's walk with the one
// an index was built from (Meta.Walk): "" for a walk no index stands for (hidden
// entries, no ignore files, followed links, a depth limit, named exceptions).
func WalkKey(opt walk.Options) string {
	if opt.IncludeHidden || opt.NoIgnore || opt.Follow || opt.MaxDepth != 0 || opt.Dirs {
		return ""
	}
	skip := opt.SkipDirs
	if skip == nil {
		skip = walk.DefaultSkipDirs
	}
	for _, name := range opt.Explicit {
		// A name kept from the skip list or the hidden rule changes the walk; any
		// other (glob's literal pattern parts) does not.
		if strings.HasPrefix(name, ".") || slices.ContainsFunc(skip, func(s string) bool {
			return s == name || strings.HasPrefix(s, "*") && strings.HasSuffix(name, s[1:])
		}) {
			return ""
		}
	}
	b, _ := json.Marshal(struct {
		Skip   []string
		Ignore ignore.Options
	}{skip, opt.Ignore})
	return string(b)
}

// coverage answers whether the folder of an entry is one a watcher reported changed
// (Changes.Dirs) or lies in a changed tree (Changes.Trees); it remembers the last
// folder's answer, since entries come grouped by folder.
type coverage struct {
	dirs, trees map[string]bool
	lastDir     string
	last        bool
}

func newCoverage(ch *Changes) *coverage {
	c := &coverage{dirs: map[string]bool{}, trees: map[string]bool{}, lastDir: "\x00"}
	for _, d := range ch.Dirs {
		c.dirs[d] = true
	}
	for _, t := range ch.Trees {
		c.trees[t] = true
	}
	return c
}

func (c *coverage) covers(rel []byte) bool {
	dir := rel[:max(0, lastSlash(rel))]
	if string(dir) == c.lastDir {
		return c.last
	}
	c.lastDir = string(dir)
	c.last = c.dirs[c.lastDir]
	for d := c.lastDir; !c.last && len(c.trees) > 0; d = parentOf(d) {
		if c.trees[d] {
			c.last = true
		}
		if d == "" {
			break
		}
	}
	return c.last
}

// each calls fn for every entry of segs under the folder under (relative to the root;
// "" for all) whose folder ch leaves unchanged.
func each(segs []*segment, under string, ch *Changes, fn func(s *segment, i int, id uint32, rel []byte)) {
	prefix := ""
	if under != "" {
		prefix = under + "/"
	}
	c := newCoverage(ch)
	for i, s := range segs {
		for id := range uint32(s.nfiles) {
			rel := s.path(id)
			if strings.HasPrefix(string(rel), prefix) && !c.covers(rel) {
				fn(s, i, id, rel)
			}
		}
	}
}

// Each calls fn, in the index's order, for every regular file the index records under
// the folder under (relative to the root; "" for all) whose folder ch leaves
// unchanged: its path relative to the root (bytes of the mapping, valid until Close)
// and whether a search must read it: it holds every trigram of one of the literals,
// or the build left it to the search. A file it need not read holds none of them, or
// is binary. The files of ch's folders are the caller's to list from the disk.
func (p *Pruner) Each(under string, ch *Changes, fn func(rel []byte, read, binary bool)) {
	each(p.segs, under, ch, func(s *segment, i int, id uint32, rel []byte) {
		if s.regular(id) {
			fn(rel, p.cands[i].has(id), s.binary(id))
		}
	})
}

// An Entry is what the index recorded of one entry of the tree (not a folder).
type Entry struct {
	Rel     []byte      // relative to the root; bytes of the mapping, valid until Close
	Mode    fs.FileMode // 0 (a regular file), fs.ModeSymlink, or fs.ModeIrregular (FIFO, socket, device)
	Size    int64
	ModTime time.Time
	// Racy: the build left the file to the search (changed as the build began, with
	// other links, UTF-16, too large, unreadable): its recorded metadata may not be
	// current (a clock tick old, or changed through a link no watch sees); stat it.
	Racy bool
}

// Files calls fn, in the index's order, for every entry the index records under the
// folder under whose folder ch leaves unchanged (see Each).
func (ix *Index) Files(under string, ch *Changes, fn func(e *Entry)) {
	var e Entry
	each(ix.segs, under, ch, func(s *segment, _ int, id uint32, rel []byte) {
		r, f := s.record(id), s.flags(id)
		e = Entry{Rel: rel, Size: r.size, ModTime: time.Unix(0, r.mtime), Racy: f&searchFlag != 0}
		switch {
		case f&linkFlag != 0:
			e.Mode = fs.ModeSymlink
		case f&otherFlag != 0:
			e.Mode = fs.ModeIrregular
		}
		fn(&e)
	})
}

func lastSlash(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '/' {
			return i
		}
	}
	return -1
}
