package index

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agentbox/agentbox/core/ignore"
	"github.com/agentbox/agentbox/core/walk"
	"golang.org/x/sys/unix"
)

// The watcher: a helper process per indexed root that keeps, from inotify events, the
// list of folders changed since the index was built, so that a search can take every
// other file's state from the index without a walk and an lstat per file.
//
// It starts with a rescan: it watches every folder grep's default walk enters, then
// compares every file it finds with the index's record of it (the same metadata check
// a search makes) and every recorded file with what it found. Each folder holding a
// difference is "changed" (a search lists it from the disk); a folder created,
// removed or renamed since is a changed tree (a search walks it whole). From then on
// every event adds its folder; a change to an ignore file or a .git, a new hard link,
// a new index build or an event queue overflow starts a rescan, and while one runs, a
// search walks as before. What no event shows is checked at each question: the ignore
// files outside the tree, the mount table at the root, and the identity of the root
// and index folders (replaced at the same path, the watcher exits).
//
// A search asks over a socket (abstract, Linux only; the peer's uid is checked both
// ways) and gets the list as of its asking: the watcher creates a file in the index
// folder, which it also watches, and answers when that file's event arrives, after
// every event queued before it (inotify delivers one instance's events in order). No
// watcher, a busy one or any doubt means the search walks. The watcher exits when the
// root or its index is removed, and after an idle period without a search.

// WatchMarker is the hidden first argument that makes the binary a watcher.
const WatchMarker = "__agentbox_watch__"

// WatchIdle is how long a watcher waits without a search before it exits.
const WatchIdle = 10 * time.Minute

// startGap is the least time between two starts of a root's watcher.
const startGap = 10 * time.Second

// maxChanged bounds the changed folders a watcher reports: each costs a search a walk
// of its own (about 0.1 ms, ignore files included), so past a few hundred a search is
// better off walking the tree, and its count of changed files then asks for a rebuild.
const maxChanged = 256

// ErrNoWatcher: no watcher runs for the root (start one).
var ErrNoWatcher = errors.New("index: no watcher runs for this root")

// errWatcherBusy: the watcher is rescanning, or its answer would be too long.
var errWatcherBusy = errors.New("index: the watcher is not ready")

// Changes are the folders a watcher saw change since the build of the index it
// compared with (Built: that index's Meta.Built). Paths are slash-separated, relative
// to the root ("" is the root). A search takes the files of Dirs from the disk and
// walks Trees whole; every other file is as the index recorded it. Visible says
// whether the folder the search asked about is one the index's walk enters (a search
// of a hidden, skipped or ignored folder, or a path through a link, is not one the
// index's list stands for).
type Changes struct {
	Built time.Time
	// Index is the Stamp of the index the watcher compared with, and MountNS its mount
	// namespace: a search takes the answer only for the index it opened, seen through
	// the same mounts (Answers).
	Index   string
	MountNS string
	Dirs    []string
	Trees   []string
	Visible bool
	Busy    bool
}

// Answers reports whether the changes are a watcher's answer for ix, the index this
// search opened, as this process sees the tree: an index rewritten or its meta.json
// edited since the watcher compared, or a search in another mount namespace (a
// sandbox that mounted something over the tree), must walk instead.
func (ch *Changes) Answers(ix *Index) bool {
	return ch.Index != "" && ch.Index == ix.Stamp && ch.MountNS != "" && ch.MountNS == mountNS()
}

// mountNS names this process's mount namespace ("" when /proc cannot say).
var mountNS = sync.OnceValue(func() string {
	ns, _ := os.Readlink("/proc/self/ns/mnt")
	return ns
})

// changesWire is Changes as sent: names as bytes (base64 in JSON), since a folder's
// name need not be UTF-8 and a JSON string would mangle it.
type changesWire struct {
	Built   time.Time `json:"built"`
	Index   string    `json:"index"`
	MountNS string    `json:"mount_ns"`
	Dirs    [][]byte  `json:"dirs"`
	Trees   [][]byte  `json:"trees"`
	Visible bool      `json:"visible,omitempty"`
	Busy    bool      `json:"busy,omitempty"`
}

func toWire(ch Changes) changesWire {
	w := changesWire{Built: ch.Built, Index: ch.Index, MountNS: ch.MountNS, Visible: ch.Visible, Busy: ch.Busy, Dirs: [][]byte{}, Trees: [][]byte{}}
	for _, d := range ch.Dirs {
		w.Dirs = append(w.Dirs, []byte(d))
	}
	for _, t := range ch.Trees {
		w.Trees = append(w.Trees, []byte(t))
	}
	return w
}

func fromWire(w changesWire) Changes {
	ch := Changes{Built: w.Built, Index: w.Index, MountNS: w.MountNS, Visible: w.Visible, Busy: w.Busy}
	for _, d := range w.Dirs {
		ch.Dirs = append(ch.Dirs, string(d))
	}
	for _, t := range w.Trees {
		ch.Trees = append(ch.Trees, string(t))
	}
	return ch
}

// socketName is the abstract socket of root's watcher, unique per cache folder.
func socketName(cacheHome, root string) string {
	sum := sha256.Sum256([]byte(Dir(cacheHome, root)))
	return "@agentbox-watch-" + hex.EncodeToString(sum[:16])
}

// Sync asks root's watcher for the changes since its index was built, as of now (every
// change made before the call is in the answer), and whether the folder under
// (relative to the root) is one the index's walk enters. ErrNoWatcher when none runs.
func Sync(cacheHome, root, under string, timeout time.Duration) (*Changes, error) {
	c, err := net.DialTimeout("unix", socketName(cacheHome, root), timeout)
	if err != nil {
		return nil, ErrNoWatcher
	}
	defer c.Close()
	if !sameUser(c) {
		return nil, errors.New("index: the watcher's socket belongs to another user")
	}
	_ = c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write([]byte("sync " + hex.EncodeToString([]byte(under)) + "\n")); err != nil {
		return nil, err
	}
	var wire changesWire
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&wire); err != nil {
		return nil, err
	}
	ch := fromWire(wire)
	if ch.Busy {
		return nil, errWatcherBusy
	}
	for _, list := range [][]string{ch.Dirs, ch.Trees} {
		for _, rel := range list {
			// A folder below the root, as the watcher writes them: anything else (a
			// stranger on the socket) must not send a search out of its root.
			if rel != "" && (!filepath.IsLocal(rel) || path.Clean(rel) != rel) {
				return nil, errors.New("index: the watcher named a folder outside the root: " + strconv.Quote(rel))
			}
		}
	}
	return &ch, nil
}

// sameUser reports whether the process at the other end of c runs as this user.
func sameUser(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	same := false
	_ = raw.Control(func(fd uintptr) {
		cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		same = err == nil && int(cred.Uid) == os.Getuid()
	})
	return same
}

// StartWatcher starts root's watcher in a detached process of the binary self and
// returns at once; if one runs already, the new one exits.
func StartWatcher(self, cacheHome, root string, env []string) error {
	// One start per startGap: searches right after a start would not find the new
	// watcher listening yet and start more (each would exit at once, but in vain).
	stamp := filepath.Join(Dir(cacheHome, root), "watch.start")
	if fi, err := os.Lstat(stamp); err == nil {
		if fi.Mode().IsRegular() && time.Since(fi.ModTime()) < startGap {
			return nil
		}
		os.Remove(stamp) // old, or a FIFO that would block the write
	}
	if f, err := os.OpenFile(stamp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err != nil {
		return nil // another search is starting one now
	} else {
		f.Close()
	}
	cmd := exec.Command(self, WatchMarker, root, cacheHome)
	cmd.Args[0] = "agentbox"
	cmd.Env = env
	cmd.Dir = "/" // a working folder in the root would keep it alive (and its removal unseen)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// localFS are the file systems whose every change reaches inotify: on a network or
// FUSE file system another machine's writes raise no event, so no watcher runs there.
var localFS = map[int64]bool{
	0xEF53:     true, // ext2/3/4
	0x58465342: true, // xfs
	0x9123683E: true, // btrfs
	0x01021994: true, // tmpfs
	0x794c7630: true, // overlayfs
	0x2fc12fc1: true, // zfs
	0xF2F52010: true, // f2fs
}

func isLocalFS(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && localFS[int64(st.Type)]
}

// Watch runs root's watcher until the root or its index goes, idle passes without a
// search, or ctx ends. It returns nil when another watcher already serves the root.
func Watch(ctx context.Context, cacheHome, root string, opt walk.Options, idle time.Duration) error {
	root = filepath.Clean(root)
	if !isLocalFS(root) {
		return errors.New("index: " + root + " is not on a local file system; inotify would miss changes")
	}
	ln, err := net.Listen("unix", socketName(cacheHome, root))
	if err != nil {
		return nil // another watcher holds the name
	}
	defer ln.Close()
	fw, err := newInotify()
	if err != nil {
		return err
	}
	defer fw.close()
	w := &watcher{cache: cacheHome, root: root, dir: Dir(cacheHome, root), opt: opt, fw: fw,
		syncs: make(chan *syncRequest), pending: map[string]*syncRequest{}}
	w.opt.Dirs = true
	if err := fw.add(w.dir); err != nil {
		return err
	}
	if w.rootID, err = identity(root); err != nil {
		return err
	}
	if w.dirID, err = identity(w.dir); err != nil {
		return err
	}
	if err := w.rescan(); err != nil {
		return err
	}
	go w.serve(ln)
	return w.loop(ctx, idle)
}

// identity is a folder's device and inode: the root or the index folder replaced by
// another at the same path (a parent renamed and the path made again) raises no event
// on the old one's watch.
func identity(dir string) ([2]uint64, error) {
	var st unix.Stat_t
	if err := lstat(dir, &st); err != nil {
		return [2]uint64{}, err
	}
	return [2]uint64{st.Dev, st.Ino}, nil
}

// mountStamp is the part of the mount table that bears on root: a folder mounted over
// one in the tree raises no inotify event, so each answer compares the table with the
// one the last rescan saw.
func mountStamp(root string) string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	return relevantMounts(string(data), root)
}

// relevantMounts are the lines of a mountinfo table whose mount point is root, under
// it, or above it.
func relevantMounts(table, root string) string {
	var b strings.Builder
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		mp := unescapeMount(f[4])
		if mp == root || strings.HasPrefix(mp, strings.TrimSuffix(root, "/")+"/") || mp == "/" || strings.HasPrefix(root, strings.TrimSuffix(mp, "/")+"/") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// unescapeMount undoes mountinfo's octal escapes (a space is \040, a newline \012).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

type watcher struct {
	cache, root, dir string
	opt              walk.Options
	fw               *inotify

	// Owned by loop.
	built        time.Time
	stamp        string // the compared index's Stamp
	dirs, trees  map[string]bool
	visible      map[string]bool // the folders the last rescan's walk entered
	repos        map[string]bool // those of them holding a .git (nested repositories: their info/exclude is stamped)
	sources      string          // stamp of the ignore files outside the tree (see ignoreSources)
	linked       []string        // the tree's ignore files that are links (see treeSources)
	rescanSoon   bool
	syncs        chan *syncRequest
	pending      map[string]*syncRequest
	ready        atomic.Bool
	seq          atomic.Int64
	lastActivity time.Time
	rootID       [2]uint64 // the root's device and inode
	dirID        [2]uint64 // the index folder's
	mounts       string    // mountStamp at the last rescan
	gone         bool      // the root or the index is not the one watched: exit
}

type syncRequest struct {
	token string
	under string // the folder the search is of, relative to the root
	reply chan Changes
}

// serve answers searches: each asks "sync" and gets the changes as of its asking.
func (w *watcher) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go w.answer(c)
	}
}

func (w *watcher) answer(c net.Conn) {
	defer c.Close()
	if !sameUser(c) {
		return
	}
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(io.LimitReader(c, 16<<10)).ReadString('\n')
	arg, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "sync ")
	under, herr := hex.DecodeString(arg)
	if err != nil || !ok || herr != nil {
		return
	}
	ch := Changes{Busy: true}
	if w.ready.Load() {
		req := &syncRequest{token: "sync-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(w.seq.Add(1), 10), under: string(under), reply: make(chan Changes, 1)}
		select {
		case w.syncs <- req:
			select {
			case ch = <-req.reply:
			case <-time.After(2 * time.Second):
			}
		case <-time.After(2 * time.Second):
		}
	}
	_ = json.NewEncoder(c).Encode(toWire(ch))
}

func (w *watcher) loop(ctx context.Context, idle time.Duration) error {
	w.lastActivity = time.Now()
	tick := time.NewTicker(min(idle/2, 30*time.Second))
	defer tick.Stop()
	rescanTimer := time.NewTimer(time.Hour)
	rescanTimer.Stop()
	for {
		select {
		case req := <-w.syncs:
			w.lastActivity = time.Now()
			// The marker's event comes after every event already queued.
			p := filepath.Join(w.dir, req.token)
			if f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
				f.Close()
				w.pending[req.token] = req
			} else {
				req.reply <- Changes{Busy: true}
			}
		case ev, ok := <-w.fw.events:
			if !ok {
				return nil
			}
			if ev.overflow {
				// Events were lost: compare the tree again.
				w.ready.Store(false)
				rescanTimer.Reset(100 * time.Millisecond)
				continue
			}
			if done := w.event(ev); done || w.gone {
				return nil
			}
			if w.rescanSoon && w.ready.Load() {
				w.ready.Store(false)
				rescanTimer.Reset(100 * time.Millisecond) // one rescan for a burst (a checkout)
			}
		case <-rescanTimer.C:
			if err := w.rescan(); err != nil {
				return err
			}
		case <-tick.C:
			if time.Since(w.lastActivity) > idle {
				return nil
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// event records one inotify event; it reports whether the watcher should exit.
func (w *watcher) event(ev inotifyEvent) bool {
	const (
		created = unix.IN_CREATE | unix.IN_MOVED_TO
		gone    = unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
		self    = unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
	)
	if ev.path == w.root || ev.path == w.dir {
		return ev.mask&self != 0 // the root or the index is gone
	}
	if filepath.Dir(ev.path) == w.dir {
		name := filepath.Base(ev.path)
		switch {
		case name == "meta.json" && ev.mask&created != 0:
			w.rescanSoon = true // a new build: compare with it
		case strings.HasPrefix(name, "sync-") && ev.mask&unix.IN_CREATE != 0:
			if req := w.pending[name]; req != nil {
				delete(w.pending, name)
				os.Remove(ev.path)
				req.reply <- w.changes(req.under)
			}
		}
		return false
	}
	rel, ok := strings.CutPrefix(ev.path, w.root+"/")
	if !ok {
		return false
	}
	if ev.mask&self != 0 {
		// A watched folder's own removal or move; its parent's event says so too, if
		// the parent is watched.
		w.trees[rel] = true
		return false
	}
	if !w.visible[parentOf(rel)] {
		// A folder the walk leaves out (it was watched before an ignore file changed),
		// or one inside a changed tree, which searches walk whole anyway.
		return false
	}
	w.dirs[parentOf(rel)] = true
	isDir := ev.mask&unix.IN_ISDIR != 0
	switch {
	case isDir && ev.mask&(created|gone) != 0:
		// A folder created (filled before a watch could be added), removed or moved:
		// searches walk it whole, and whatever the index knew under it is gone.
		w.trees[rel] = true
	case isDir && ev.mask&unix.IN_ATTRIB != 0:
		// A folder's permissions or owner changed: who may list and read what is
		// below it did, which the index cannot tell; searches walk it whole.
		w.trees[rel] = true
	case ev.mask&created != 0:
		var st unix.Stat_t
		if lstat(ev.path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 {
			// A new link to a file: its other names' folders raise no event when
			// it is written through this one. A rescan finds them by their ctime.
			w.rescanSoon = true
		}
	}
	switch path.Base(rel) {
	case ignore.GitIgnore, ignore.DotIgnore, ".git":
		// What the walk leaves out may have changed anywhere below (a .git made or
		// removed starts or ends a nested repository).
		w.rescanSoon = true
	}
	return false
}

// changes is the answer to a sync: busy while a rescan is due, or when the ignore
// files outside the tree or the mount table at the root changed since the last one;
// the watcher exits when the root or the index folder is not the one it watches.
func (w *watcher) changes(under string) Changes {
	if id, err := identity(w.root); err != nil || id != w.rootID {
		w.gone = true
		return Changes{Busy: true}
	}
	if id, err := identity(w.dir); err != nil || id != w.dirID {
		w.gone = true
		return Changes{Busy: true}
	}
	if !w.ready.Load() || len(w.dirs)+len(w.trees) > maxChanged {
		return Changes{Busy: true}
	}
	if inTree, _ := treeSources(w.root, w.repos, w.linked, time.Time{}); ignoreSources(w.root, w.opt.Ignore)+inTree != w.sources || mountStamp(w.root) != w.mounts {
		w.rescanSoon = true
		return Changes{Busy: true}
	}
	ch := Changes{Built: w.built, Index: w.stamp, MountNS: mountNS(), Dirs: []string{}, Trees: []string{}, Visible: w.standsFor(under)}
	for d := range w.dirs {
		ch.Dirs = append(ch.Dirs, d)
	}
	for t := range w.trees {
		ch.Trees = append(ch.Trees, t)
	}
	return ch
}

// standsFor reports whether the index's list stands for a walk from the folder under:
// the root's walk enters it. (A repository starting at it or above it decides its
// files by its own rules in both walks: core/ignore's Child and ForRoot agree.)
func (w *watcher) standsFor(under string) bool {
	return w.visible[under]
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// rescan watches every folder of the walk and compares the tree with the index (see
// the package's watcher comment). Without a readable index there is nothing to keep.
func (w *watcher) rescan() error {
	w.ready.Store(false)
	w.rescanSoon = false
	ix, err := Open(w.cache, w.root)
	if err != nil {
		return err
	}
	defer ix.Close()
	start := time.Now()
	w.sources, w.mounts = ignoreSources(w.root, w.opt.Ignore), mountStamp(w.root)
	var (
		mu      sync.Mutex
		dirs    = map[string]bool{}
		visible = map[string]bool{"": true}
		repos   = map[string]bool{}
		seen    = make([]bitset, len(ix.segs))
		addErr  error
	)
	for i, s := range ix.segs {
		seen[i] = newBitset(s.nfiles)
	}
	var rootSt unix.Stat_t
	if err := lstat(w.root, &rootSt); err != nil {
		return err
	}
	if err := w.fw.add(w.root); err != nil {
		return err
	}
	var visited atomic.Int64
	_, err = walk.Walk(context.Background(), w.root, w.opt, func(e *walk.Entry) error {
		if visited.Add(1)%4096 == 0 {
			if _, err := os.Lstat(w.dir); err != nil {
				return errors.New("index: the index was removed during a rescan")
			}
		}
		if e.IsDir {
			// Watched before its entries are read: a change after this is an event,
			// one before it shows in the comparison below.
			var st unix.Stat_t
			if lstat(e.Path, &st) == nil && st.Dev != rootSt.Dev && !isLocalFS(e.Path) {
				return errors.New("index: " + e.Path + " is on a network file system")
			}
			err := w.fw.add(e.Path)
			isRepo := lstat(filepath.Join(e.Path, ".git"), &st) == nil
			mu.Lock()
			defer mu.Unlock()
			if err != nil && addErr == nil {
				addErr = fmt.Errorf("index: cannot watch %s: %w", e.Path, err)
			}
			visible[e.Rel] = true
			repos[e.Rel] = isRepo
			return nil
		}
		var st unix.Stat_t
		known := false
		if lstat(e.Path, &st) == nil {
			for i, s := range ix.segs {
				if id, ok := s.lookup(e.Rel); ok {
					mu.Lock()
					seen[i].set(id)
					mu.Unlock()
					known = s.unchanged(id, &st)
					break
				}
			}
		}
		if !known {
			mu.Lock()
			dirs[parentOf(e.Rel)] = true
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if addErr != nil {
		return addErr // out of inotify watches: searches walk
	}
	trees := map[string]bool{}
	for i, s := range ix.segs {
		for id := range uint32(s.nfiles) {
			if seen[i].has(id) {
				continue
			}
			// Recorded, not found: its folder changed, or a folder above it went (or
			// is now left out); the highest such folder is a changed tree.
			d := parentOf(string(s.path(id)))
			if visible[d] {
				dirs[d] = true
				continue
			}
			for !visible[parentOf(d)] {
				d = parentOf(d)
			}
			trees[d] = true
		}
	}
	var linked []string // the tree's ignore files that are links: their targets may lie outside
	for d := range visible {
		for _, name := range []string{ignore.GitIgnore, ignore.DotIgnore} {
			p := filepath.Join(w.root, filepath.FromSlash(d), name)
			var st unix.Stat_t
			if lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				linked = append(linked, p)
			}
		}
	}
	slices.Sort(linked)
	w.linked = linked
	inTree, racy := treeSources(w.root, repos, linked, start.Add(-RacyWindow))
	w.sources += inTree
	if racy {
		// Changed about when the walk read it: what the walk made of it is not
		// known, so the next answer finds the stamp different and rescans.
		w.sources += "racy\n"
	}
	w.dirs, w.trees, w.visible, w.repos, w.built, w.stamp = dirs, trees, visible, repos, ix.Meta.Built, ix.Stamp
	w.ready.Store(true)
	return nil
}

// ignoreSources stamps the ignore files a walk of root reads outside root: those of
// its ancestors, the repository's info/exclude and the user's global excludes (and
// the configuration naming them). A watcher cannot see them change; a search compares
// the stamp instead.
func ignoreSources(root string, opt ignore.Options) string {
	var b strings.Builder
	for _, p := range ignore.Sources(root, opt) {
		stampSource(&b, p, time.Time{})
	}
	return b.String()
}

// treeSources stamps what the walk reads inside the tree that no event reports a
// change to: the info/exclude files of the repositories below the root (repos; .git
// folders are not watched), and the targets of the ignore files that are links
// (linked; a target outside the tree is not watched). racy: one changed at or after
// since (never, for a zero since).
func treeSources(root string, repos map[string]bool, linked []string, since time.Time) (stamp string, racy bool) {
	var rels []string
	for rel, isRepo := range repos {
		if isRepo && rel != "" {
			rels = append(rels, rel)
		}
	}
	slices.Sort(rels)
	var b strings.Builder
	for _, rel := range rels {
		racy = stampSource(&b, ignore.RepoExclude(filepath.Join(root, filepath.FromSlash(rel))), since) || racy
	}
	for _, p := range linked {
		racy = stampSource(&b, p, since) || racy
	}
	return b.String(), racy
}

// stampSource writes the metadata of the file p to b, and, where p is a link, of the
// file it leads to (editing a linked excludes file changes the target, not the link).
// It reports whether either changed at or after since (never, for a zero since).
func stampSource(b *strings.Builder, p string, since time.Time) (racy bool) {
	var st unix.Stat_t
	if lstat(p, &st) != nil {
		fmt.Fprintf(b, "%s -\n", p)
		return false
	}
	fmt.Fprintf(b, "%s %v\n", p, recordOf(&st))
	changed := func(st *unix.Stat_t) bool {
		return !since.IsZero() && (st.Ctim.Nano() >= since.UnixNano() || st.Mtim.Nano() >= since.UnixNano())
	}
	racy = changed(&st)
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		var target unix.Stat_t
		if unix.Stat(p, &target) != nil {
			fmt.Fprintf(b, "%s -> -\n", p)
			return racy
		}
		fmt.Fprintf(b, "%s -> %v\n", p, recordOf(&target))
		racy = racy || changed(&target)
	}
	return racy
}

// WatchHook makes the binary a watcher when it was started by StartWatcher, and never
// returns then; otherwise it returns at once.
func WatchHook() {
	if len(os.Args) < 4 || os.Args[1] != WatchMarker {
		return
	}
	closeInherited()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10)
	idle := WatchIdle
	if d, err := time.ParseDuration(os.Getenv("AGENTBOX_WATCH_IDLE")); err == nil && d > 0 {
		idle = d
	}
	if err := Watch(context.Background(), os.Args[3], os.Args[2], DefaultWalk(os.Getenv), idle); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// closeInherited closes the descriptors above standard error that this process
// inherited without close-on-exec (the caller's, as in `out=$(agentbox grep 9>&1)`):
// a helper that outlives the call must not hold the caller's pipes open. The Go
// runtime's own descriptors are all close-on-exec.
func closeInherited() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			unix.Close(fd)
		}
	}
}
