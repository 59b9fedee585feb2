// Package index is grep's trigram index: it prunes the files a search must read, and
// never decides a match. For a tree searched again and again (an agent greps dozens of
// times per task), the index records, for every text file the walk sees, which byte
// trigrams (ASCII case folded) it holds, with the file's metadata at the time (size,
// mtime, ctime, inode). A search whose pattern requires one of a set of literals asks
// the index which files hold every trigram of at least one literal; any other file
// whose metadata is still what the index recorded cannot match and is counted as
// searched without being opened (a file the index knows as binary is counted as
// binary, as a search would). Everything else is searched as without an index: files
// the index does not know (new, UTF-16, too large, racily changed at build time),
// files whose metadata changed (edited by agentbox or behind its back), and every file
// of a search whose pattern has no literal of three bytes or more. So the answer is
// always exactly a full scan's, however old the index.
//
// An index lives in the user's cache folder, keyed by the root it covers, as a
// meta.json naming one or more segment files; a segment holds a bounded number of
// postings, which bounds a build's memory on any tree. Builds run in a detached helper
// process (the same binary re-executed with Marker), started after a search of a big
// tree that found no index or a stale one, so no call ever waits for one; `agentbox
// index` builds one in the foreground.
//
// A watcher (watch.go, inotify.go), started by the first search that uses an index,
// keeps the folders changed since the build; with its answer a search takes every
// other file from the index's list (Each, Files) instead of walking the tree and
// checking each file's metadata. See watch.go for what it watches and what it cannot.
package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Marker is the hidden first argument that makes the binary an index builder.
const Marker = "__agentbox_index__"

// RacyWindow: a file whose mtime or ctime is this close to the start of a build is not
// recorded (git's "racily clean" entries): a change in the same clock tick would leave
// its metadata as recorded.
const RacyWindow = 2 * time.Second

// Dir is the folder of the index of root under the cache home (XDG_CACHE_HOME, or
// ~/.cache).
func Dir(cacheHome, root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(cacheHome, "agentbox", "index", hex.EncodeToString(sum[:12]))
}

// CacheHome is the cache folder indexes live under: XDG_CACHE_HOME when it is an
// absolute path (the XDG rule: a relative one is ignored), else ~/.cache; "" when
// neither is known.
func CacheHome(getenv func(string) string) string {
	if c := getenv("XDG_CACHE_HOME"); filepath.IsAbs(c) {
		return c
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".cache")
	}
	return ""
}

// Meta is an index's meta.json.
type Meta struct {
	Root     string    `json:"root"`
	Built    time.Time `json:"built"`
	Segments []string  `json:"segments"` // file names in the index folder
	Files    int       `json:"files"`    // files recorded
	Bytes    int64     `json:"bytes"`    // text they hold
	Postings int64     `json:"postings"` // (trigram, file) pairs
	Walk     string    `json:"walk"`     // WalkKey of the build's walk
	// Unlistable counts the folders the build's walk could not list: their files are
	// not in the list, so a search does not take its files from the list alone.
	Unlistable int `json:"unlistable,omitempty"`
}

// Index is an open index: its segments, mapped read-only.
type Index struct {
	Meta Meta
	// Stamp is the SHA-256 (hex) of the meta.json this index was opened from: which
	// index, segments included, a watcher's answer is for.
	Stamp string
	segs  []*segment
}

// Open opens the index of root, or returns an error when there is none that can be
// read (the caller then searches without one).
func Open(cacheHome, root string) (*Index, error) {
	dir := Dir(cacheHome, root)
	f, _, err := openRegular(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	f.Close()
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m.Root != filepath.Clean(root) {
		return nil, errors.New("index: meta.json is for another root")
	}
	sum := sha256.Sum256(b)
	ix := &Index{Meta: m, Stamp: hex.EncodeToString(sum[:])}
	for _, name := range m.Segments {
		if strings.ContainsAny(name, `/\`) {
			ix.Close()
			return nil, errors.New("index: bad segment name")
		}
		s, err := openSegment(filepath.Join(dir, name))
		if err != nil {
			ix.Close()
			return nil, err
		}
		ix.segs = append(ix.segs, s)
	}
	return ix, nil
}

// Close unmaps the segments.
func (ix *Index) Close() {
	for _, s := range ix.segs {
		s.close()
	}
	ix.segs = nil
}

// Pruner answers, for the files of one search, whether the index proves a file holds
// none of the search's literals. It is safe for concurrent use.
type Pruner struct {
	root  string
	segs  []*segment
	cands []bitset // per segment: files that hold every trigram of some literal
	// Counters for the caller's decision to rebuild: files the index did not know or
	// whose metadata had changed, and files it pruned.
	Unknown, Changed, Pruned counter
}

// Pruner returns the pruner for a search under the index's root (or a folder in it)
// whose every match holds one of lits, in any ASCII case (the trigrams are folded, so
// a case-sensitive search is pruned as a case-insensitive one would be: a little less,
// never wrongly). It returns nil when the literals cannot prune: one of them is
// shorter than a trigram.
func (ix *Index) Pruner(lits [][]byte) *Pruner {
	if len(lits) == 0 {
		return nil
	}
	var tris [][]uint32
	for _, l := range lits {
		t := trigramsOf(l)
		if len(t) == 0 {
			return nil
		}
		tris = append(tris, t)
	}
	p := &Pruner{root: ix.Meta.Root, segs: ix.segs}
	for _, s := range ix.segs {
		p.cands = append(p.cands, s.candidates(tris))
	}
	return p
}

// Skip reports whether the file at the absolute path need not be read: the index knows
// it, its metadata is what the index recorded, and it either lacks a trigram of every
// literal (skip: no match) or has a NUL byte in its first grep.ChunkSize bytes (skip
// and binary: a search counts it as binary unread). A false skip means: search it.
func (p *Pruner) Skip(path string) (skip, binary bool) {
	rel, ok := strings.CutPrefix(path, p.root)
	if !ok || p.root != "/" && rel != "" && rel[0] != '/' {
		return false, false
	}
	rel = strings.TrimPrefix(rel, "/")
	for i, s := range p.segs {
		id, ok := s.lookup(rel)
		if !ok {
			continue
		}
		if p.cands[i].has(id) || !s.regular(id) {
			return false, false
		}
		var st unix.Stat_t
		if err := lstat(path, &st); err != nil || !s.record(id).sameAs(&st) {
			p.Changed.add()
			return false, false
		}
		p.Pruned.add()
		return true, s.binary(id)
	}
	p.Unknown.add()
	return false, false
}

func lstat(path string, st *unix.Stat_t) error {
	for {
		err := unix.Lstat(path, st)
		if err != unix.EINTR {
			return err
		}
	}
}

// record is what the index knows of one file.
type record struct {
	size, mtime, ctime int64
	ino                uint64
}

func recordOf(st *unix.Stat_t) record {
	return record{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino}
}

func (r record) sameAs(st *unix.Stat_t) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG && recordOf(st) == r
}

// racy reports whether a file's timestamps are too close to the build's start to be
// trusted later: within window (0: RacyWindow; negative: never).
func (r record) racy(start time.Time, window time.Duration) bool {
	if window == 0 {
		window = RacyWindow
	}
	return window > 0 && max(r.mtime, r.ctime) >= start.Add(-window).UnixNano()
}

// Remove deletes the index of root, if any.
func Remove(cacheHome, root string) error {
	err := os.RemoveAll(Dir(cacheHome, root))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Exists reports whether root has an index (readable or not).
func Exists(cacheHome, root string) bool {
	_, ok := Built(cacheHome, root)
	return ok
}

// Built returns when root's index was last written (its meta.json's mtime).
func Built(cacheHome, root string) (time.Time, bool) {
	fi, err := os.Stat(filepath.Join(Dir(cacheHome, root), "meta.json"))
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// Size is the bytes the index of root takes on disk.
func Size(cacheHome, root string) int64 {
	var n int64
	entries, _ := os.ReadDir(Dir(cacheHome, root))
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}
