package applets

import (
	"context"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/glob"
	"github.com/agentbox/agentbox/core/index"
	"github.com/agentbox/agentbox/core/walk"
)

// globLister is how a glob under abs lists files: from grep's index of the workspace
// root and its watcher's changes when both are there and agree, and the folder walked
// is one the index's walk enters (the index's file list, with the changed folders
// read from the disk), else by walking (also when the build met a folder it could
// not list: the walk reports the ones there are now). The returned close releases the index.
func globLister(env *core.Env, abs string) (glob.Lister, func()) {
	root, cache := indexRoot(env, abs)
	if root == "" || !index.Exists(cache, root) {
		return walk.Walk, func() {}
	}
	ix, err := index.Open(cache, root)
	if err != nil {
		return walk.Walk, func() {}
	}
	list := func(ctx context.Context, base string, opt walk.Options, visit func(*walk.Entry) error) (walk.Stats, error) {
		if index.WalkKey(opt) != ix.Meta.Walk || ix.Meta.Unlistable > 0 || (base != root && !strings.HasPrefix(base, strings.TrimSuffix(root, "/")+"/")) {
			return walk.Walk(ctx, base, opt, visit)
		}
		if real, err := env.WS.Resolve(base, base); err != nil || real.Abs != base {
			// A folder reached through a link: the index knows it by no name, and the
			// walk decides what is below it where it really is.
			return walk.Walk(ctx, base, opt, visit)
		}
		under := relUnder(root, base)
		ch, err := index.Sync(cache, root, under, watcherWait)
		if err != nil {
			if err == index.ErrNoWatcher && env.Executable != "" {
				_ = index.StartWatcher(env.Executable, cache, root, helperEnv(env))
			}
			return walk.Walk(ctx, base, opt, visit)
		}
		if !ch.Answers(ix) || !ch.Visible || inTree(under, ch.Trees) {
			return walk.Walk(ctx, base, opt, visit)
		}
		listedGlobs.Add(1)
		var st walk.Stats
		prefix := ""
		if under != "" {
			prefix = under + "/"
		}
		denied := newRefusals(base, opt.Denied, &st)
		ix.Files(under, ch, func(e *index.Entry) {
			if err != nil {
				return
			}
			srel := string(e.Rel[len(prefix):])
			abs := filepath.Join(base, filepath.FromSlash(srel))
			if denied.file(srel, abs) {
				return
			}
			st.Files++
			d := indexedEntry{name: path.Base(srel), mode: e.Mode, size: e.Size, mtime: e.ModTime, path: abs, racy: e.Racy}
			err = visit(&walk.Entry{Path: abs, Rel: srel, Name: d.name, D: d})
		})
		if err == walk.ErrStop {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		return st, walkChanged(ctx, base, under, ch, opt, visit, &st, denied)
	}
	return list, ix.Close
}

// indexedEntry is the fs.DirEntry (and fs.FileInfo) of an entry as the index recorded
// it; a racy one is stat'ed for its time.
type indexedEntry struct {
	name, path string
	mode       fs.FileMode
	size       int64
	mtime      time.Time
	racy       bool
}

func (e indexedEntry) Name() string      { return e.name }
func (e indexedEntry) IsDir() bool       { return false }
func (e indexedEntry) Type() fs.FileMode { return e.mode }
func (e indexedEntry) Info() (fs.FileInfo, error) {
	if e.racy {
		return listedFile{e.path}.Info()
	}
	return e, nil
}
func (e indexedEntry) Size() int64        { return e.size }
func (e indexedEntry) Mode() fs.FileMode  { return e.mode | 0o644 }
func (e indexedEntry) ModTime() time.Time { return e.mtime }
func (e indexedEntry) Sys() any           { return nil }
