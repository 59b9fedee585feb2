package core

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core/beneath"
	"github.com/agentbox/agentbox/core/statefile"
	"github.com/agentbox/agentbox/core/textfmt"
	"golang.org/x/sys/unix"
)

// Workspace is the set of roots every file applet is confined to. Paths are resolved
// lexically against the roots first (so the error can say which roots exist), then every
// operation goes through an os.Root, which refuses `..` and symlinks that lead out of the
// root at the system-call level, so a race cannot smuggle a path out either.
type Workspace struct {
	Roots []string // absolute, cleaned, symlinks resolved
	// ReadOnly are extra roots for reading only (ResolveRead): the current session's
	// sidecar folders, so an output_path can be read and searched. Resolve, which
	// every write uses, never returns a path in them.
	ReadOnly []string

	// Explicit: the roots are pinned (a calling agentbox's, or under a host's mode
	// ceiling), so an MCP client's roots may narrow them but not add to them (Within).
	Explicit bool

	mu      sync.Mutex
	opened  map[string]*os.Root
	anchors map[string]*beneath.Anchor // for reads that must meet no link (OpenRegular)
}

// WithExplicitRoots marks w's roots as pinned (see Explicit) and returns w.
func (w *Workspace) WithExplicitRoots(explicit bool) *Workspace {
	w.Explicit = explicit
	return w
}

// Within returns the part of other (an MCP client's roots) inside w when w's roots are
// pinned: the roots of other inside w, or nil (w itself) when none is, so the client
// does not widen them. Without pinned roots, other as it is.
func (w *Workspace) Within(other *Workspace) *Workspace {
	if !w.Explicit || other == nil {
		return other
	}
	defer other.Close()
	var keep []string
	for _, r := range other.Roots {
		if w.Contains(r) {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	return NewWorkspace(keep...).WithExplicitRoots(true)
}

// Path is a path inside the workspace.
type Path struct {
	Abs  string // absolute, cleaned
	Root string // the root that contains it
	Rel  string // relative to Root ("." for the root itself)
}

// NewWorkspace returns a workspace over roots (made absolute and symlink-resolved).
func NewWorkspace(roots ...string) *Workspace {
	w := &Workspace{opened: map[string]*os.Root{}}
	for _, r := range roots {
		if r == "" {
			continue
		}
		if abs, err := filepath.Abs(r); err == nil {
			r = abs
		}
		if real, err := filepath.EvalSymlinks(r); err == nil {
			r = real
		}
		w.Roots = append(w.Roots, filepath.Clean(r))
	}
	return w
}

// FindRoot picks the default workspace root for a working directory: the git top level
// containing it, else the directory itself.
func FindRoot(cwd string) string {
	for dir := cwd; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return cwd
		}
		dir = parent
	}
}

// Resolve makes p absolute (relative to cwd) and confines it to the roots.
func (w *Workspace) Resolve(cwd, p string) (Path, error) {
	if p == "" {
		return Path{}, Errorf(CodeInvalidParams, "the path is empty; pass a file path, absolute or relative to %s", cwd)
	}
	if strings.ContainsRune(p, 0) {
		return Path{}, Errorf(CodeInvalidParams, "the path contains a NUL byte; pass a real file path")
	}
	if strings.HasPrefix(p, "~/") || p == "~" {
		return Path{}, Errorf(CodeInvalidParams, "the path %q starts with ~, which agentbox does not expand; pass an absolute path", p)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, abs)
	}
	abs = filepath.Clean(abs)
	if err := checkPathLength(abs); err != nil {
		return Path{}, err
	}
	if _, ok := w.lexical(abs); ok && strings.ContainsRune(abs, utf8.RuneError) {
		shown, err := byShownName(abs)
		if err != nil {
			return Path{}, err
		}
		abs = shown
	}
	if path, ok := w.lexical(abs); ok {
		// Judge where the path really leads: a symlink on the way (leading or nested,
		// relative or absolute) that lands inside a root gives that real location, which
		// os.Root then opens without meeting the link (it refuses absolute targets);
		// one that leads out is refused here, in every mode, since no permission could
		// make os.Root open it.
		real := realPrefix(abs)
		if real == abs {
			return path, nil
		}
		if rp, ok := w.lexical(real); ok {
			return rp, nil
		}
		// The resolved target is not named: it would tell whether a file exists outside.
		return Path{}, Errorf(CodeOutsideWorkspace, "%s leads outside the workspace through a symlink; use a path inside the workspace (roots: %s)", abs, strings.Join(w.Roots, ", "))
	}
	// The path may name a root through a symlinked prefix (/tmp → /private/tmp): judge
	// the real location of the longest existing prefix.
	if real := realPrefix(abs); real != abs {
		if path, ok := w.lexical(real); ok {
			return path, nil
		}
	}
	return Path{}, Errorf(CodeOutsideWorkspace, "%s is outside the workspace (roots: %s); use a path inside a root, or start agentbox with --root to widen the workspace", abs, strings.Join(w.Roots, ", "))
}

// byShownName finds the file a listing showed. A name whose bytes are not UTF-8 is
// shown with U+FFFD for each such byte (JSON carries nothing else), and a model names
// the file as it was shown: a part of abs holding U+FFFD that does not exist as written
// is matched against its folder's names as they are shown. One match is taken; more
// than one cannot be told apart, which the error says. abs is clean and absolute.
func byShownName(abs string) (string, error) {
	cur := string(filepath.Separator)
	for _, part := range strings.Split(abs, string(filepath.Separator)) {
		if part == "" {
			continue
		}
		next := filepath.Join(cur, part)
		if strings.ContainsRune(part, utf8.RuneError) {
			entries, _ := os.ReadDir(cur)
			var found []string
			for _, e := range entries {
				if name := e.Name(); !utf8.ValidString(name) {
					if shown, _ := textfmt.ShowInvalid(name); shown == part {
						found = append(found, name)
					}
				}
			}
			_, err := os.Lstat(next)
			literal := err == nil
			switch {
			case len(found) == 0:
			case len(found) == 1 && !literal:
				next = filepath.Join(cur, found[0])
			default:
				// Listings show these names alike (a name really holding U+FFFD among
				// them): which one is meant cannot be told, so none is guessed.
				n := len(found)
				if literal {
					n++
				}
				return "", Errorf(CodeInvalidParams, "%s names %d files in %s that listings show alike: their names hold different bytes that are not UTF-8 (or U+FFFD itself), each shown as U+FFFD, so no path written here can tell them apart; rename them with bash first (ls -b %s shows their bytes)", abs, n, cur, cur)
			}
		}
		cur = next
	}
	return cur, nil
}

// ResolveEntry is Resolve for an applet that removes or moves the entry p names: the
// folders on the way are resolved, the last part is not followed, so the Path is the
// entry itself. When the entry is a symbolic link, isLink is set with where it points:
// Resolve would give the link's target, which the applet must not remove (patch's delete
// and move refuse it).
func (w *Workspace) ResolveEntry(cwd, p string) (path Path, isLink bool, target string, err error) {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, abs)
	}
	abs = filepath.Clean(abs)
	if _, ok := w.lexical(abs); ok && strings.ContainsRune(abs, utf8.RuneError) {
		// The last part too is matched as listings show names (Resolve does it for
		// the folders): one name that shows alike is taken, two are refused.
		if abs, err = byShownName(abs); err != nil {
			return Path{}, false, "", err
		}
	}
	dir, err := w.Resolve(cwd, filepath.Dir(abs))
	if err != nil {
		return Path{}, false, "", err
	}
	name := filepath.Base(abs)
	path = Path{Abs: filepath.Join(dir.Abs, name), Root: dir.Root, Rel: filepath.Join(dir.Rel, name)}
	if dir.Rel == "." {
		path.Rel = name
	}
	if fi, err := os.Lstat(path.Abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ = os.Readlink(path.Abs)
		return path, true, target, nil
	}
	return path, false, "", nil
}

// ResolveRead is Resolve for an applet that only reads: a path inside one of the
// ReadOnly roots (reached without a symlink) is accepted too.
func (w *Workspace) ResolveRead(cwd, p string) (Path, error) {
	path, err := w.Resolve(cwd, p)
	if err == nil || len(w.ReadOnly) == 0 || AsError(err).Code != CodeOutsideWorkspace {
		return path, err
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, abs)
	}
	abs = filepath.Clean(abs)
	ro := &Workspace{Roots: w.ReadOnly}
	if rp, ok := ro.lexical(abs); ok && realPrefix(abs) == abs {
		return rp, nil
	}
	return path, err
}

func (w *Workspace) lexical(abs string) (Path, bool) {
	for _, r := range w.Roots {
		if abs == r {
			return Path{Abs: abs, Root: r, Rel: "."}, true
		}
		prefix := r
		if !strings.HasSuffix(prefix, string(filepath.Separator)) {
			prefix += string(filepath.Separator)
		}
		if strings.HasPrefix(abs, prefix) {
			return Path{Abs: abs, Root: r, Rel: abs[len(prefix):]}, true
		}
	}
	return Path{}, false
}

func realPrefix(abs string) string {
	return realPrefixDepth(abs, 0)
}

// realPrefixDepth is realPrefix that also follows a link whose target does not exist
// yet: writing through it creates the target, so the target is where the path leads
// (a dangling link to .git/hooks/post-commit, or out of the workspace).
func realPrefixDepth(abs string, depth int) string {
	rest := ""
	for dir := abs; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 && depth < 40 {
			if target, err := os.Readlink(dir); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(dir), target)
				}
				return realPrefixDepth(filepath.Join(target, rest), depth+1)
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

func (w *Workspace) root(r string) (*os.Root, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.opened == nil {
		w.opened = map[string]*os.Root{}
	}
	if rt, ok := w.opened[r]; ok {
		return rt, nil
	}
	rt, err := os.OpenRoot(r)
	if err != nil {
		return nil, err
	}
	w.opened[r] = rt
	return rt, nil
}

// Close releases the opened roots.
func (w *Workspace) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, rt := range w.opened {
		rt.Close()
		delete(w.opened, k)
	}
	for k, a := range w.anchors {
		a.Close()
		delete(w.anchors, k)
	}
}

// anchor is the open root r to open paths beneath without meeting a link.
func (w *Workspace) anchor(r string) (*beneath.Anchor, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if a, ok := w.anchors[r]; ok {
		return a, nil
	}
	a, err := beneath.OpenAnchor(r, nil)
	if err != nil {
		return nil, err
	}
	if w.anchors == nil {
		w.anchors = map[string]*beneath.Anchor{}
	}
	w.anchors[r] = a
	return a, nil
}

func (w *Workspace) do(p Path, op func(rt *os.Root) error) error {
	rt, err := w.root(p.Root)
	if err != nil {
		return fsError(p, err)
	}
	return fsError(p, op(rt))
}

// Stat follows symlinks (inside the root).
func (w *Workspace) Stat(p Path) (fi fs.FileInfo, err error) {
	err = w.do(p, func(rt *os.Root) error { fi, err = rt.Stat(p.Rel); return err })
	return fi, err
}

// Lstat does not follow a final symlink.
func (w *Workspace) Lstat(p Path) (fi fs.FileInfo, err error) {
	err = w.do(p, func(rt *os.Root) error { fi, err = rt.Lstat(p.Rel); return err })
	return fi, err
}

// ReadFile reads a regular file whole (see OpenRegular: never a FIFO or a device).
func (w *Workspace) ReadFile(p Path) ([]byte, error) {
	f, _, err := w.OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fsError(p, err)
	}
	return b, nil
}

// Readlink reads a symlink's target as written (it is not followed).
func (w *Workspace) Readlink(p Path) (target string, err error) {
	err = w.do(p, func(rt *os.Root) error { target, err = rt.Readlink(p.Rel); return err })
	return target, err
}

// Open opens a file or directory for reading.
func (w *Workspace) Open(p Path) (f *os.File, err error) {
	err = w.do(p, func(rt *os.Root) error { f, err = rt.Open(p.Rel); return err })
	return f, err
}

// OpenRegular opens a regular file for reading and refuses anything else (directories,
// FIFOs, devices, sockets) without blocking: a FIFO is opened non-blocking and closed
// again, so reading it can never hang.
func (w *Workspace) OpenRegular(p Path) (*os.File, fs.FileInfo, error) {
	// Resolve gave p's real path, so no link lies on it: one met now was swapped in
	// since the path was decided (a read-denied file's, or one outside) and is not
	// followed, as os.Root would follow a link that stays inside the root.
	a, err := w.anchor(p.Root)
	if err != nil {
		return nil, nil, fsError(p, err)
	}
	fd, err := a.OpenBeneath(filepath.ToSlash(p.Rel), unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		if errors.Is(err, beneath.ErrChanged) {
			// A link on the way: tell a loop, or one that leads out, from one swapped in.
			if _, serr := os.Stat(p.Abs); errors.Is(serr, syscall.ELOOP) {
				return nil, nil, fsError(p, serr)
			}
			if _, inside := w.lexical(realPrefix(p.Abs)); !inside {
				return nil, nil, Errorf(CodeOutsideWorkspace, "%s leads outside the workspace through a symlink; use a path inside the workspace (roots: %s)", p.Abs, strings.Join(w.Roots, ", "))
			}
		}
		return nil, nil, fsError(p, &fs.PathError{Op: "open", Path: p.Abs, Err: err})
	}
	f := os.NewFile(uintptr(fd), p.Abs)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fsError(p, err)
	}
	switch {
	case fi.IsDir():
		f.Close()
		return nil, nil, Errorf(CodeIsDirectory, "%s is a directory; use ls to list it (or glob/grep to search it)", p.Abs)
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, nil, Errorf(CodeInvalidParams, "%s is not a regular file (%s); agentbox reads only regular files, so it cannot hang on a pipe or device", p.Abs, statefile.Kind(fi.Mode()))
	}
	// Back to blocking reads for a regular file (O_NONBLOCK has no effect there, but be explicit).
	_ = syscall.SetNonblock(int(f.Fd()), false)
	return f, fi, nil
}

// ReadDir lists a directory.
func (w *Workspace) ReadDir(p Path) (entries []fs.DirEntry, err error) {
	err = w.do(p, func(rt *os.Root) error {
		f, err := rt.Open(p.Rel)
		if err != nil {
			return err
		}
		defer f.Close()
		entries, err = f.ReadDir(-1)
		return err
	})
	return entries, err
}

// MkdirAll creates a directory and its parents.
func (w *Workspace) MkdirAll(p Path, perm fs.FileMode) error {
	return w.do(p, func(rt *os.Root) error { return rt.MkdirAll(p.Rel, perm) })
}

// Remove removes a file or an empty directory.
func (w *Workspace) Remove(p Path) error {
	return w.do(p, func(rt *os.Root) error { return rt.Remove(p.Rel) })
}

// RemoveExpect removes p if it still holds what the caller expects (see Expectation),
// under the same directory lock WriteAtomic takes.
func (w *Workspace) RemoveExpect(p Path, want Expectation) error {
	// The folder is opened beneath the root without meeting a link, and the file is
	// checked and removed in it by name: a link swapped in for the file or a folder on
	// the way since the change was decided cannot make this remove another file.
	a, err := w.anchor(p.Root)
	if err != nil {
		return fsError(p, err)
	}
	dfd, err := a.OpenBeneath(filepath.ToSlash(filepath.Dir(p.Rel)), unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return fsError(p, &fs.PathError{Op: "open", Path: filepath.Dir(p.Abs), Err: err})
	}
	defer unix.Close(dfd)
	for {
		err = unix.Flock(dfd, unix.LOCK_EX) // the lock lockDir takes: the folder's
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return Errorf(CodeIOError, "could not lock the directory %s for writing: %v", filepath.Dir(p.Abs), err)
	}
	base := filepath.Base(p.Rel)
	if err := expectAt(dfd, base, p, want); err != nil {
		return err
	}
	if !want.Set {
		if err := unix.Unlinkat(dfd, base, 0); err != nil {
			return fsError(p, &fs.PathError{Op: "remove", Path: p.Abs, Err: err})
		}
		return nil
	}
	// There is no compare-and-unlink: the entry is first renamed aside (whatever it is
	// at that instant), checked there, and removed only if it is the file expected;
	// anything else (a link swapped in since the check above) is put back.
	aside := tempName(base + "-rm")
	if err := unix.Renameat(dfd, base, dfd, aside); err != nil {
		if err == unix.ENOENT && want.Absent {
			return nil
		}
		return fsError(p, &fs.PathError{Op: "remove", Path: p.Abs, Err: err})
	}
	if err := expectAt(dfd, aside, p, want); err != nil {
		if unix.Renameat2(dfd, aside, dfd, base, unix.RENAME_NOREPLACE) != nil {
			return Errorf(CodeConflict, "%s changed while it was being removed, and another file took its name meanwhile; nothing was removed: what was there is now %s", p.Abs, filepath.Join(filepath.Dir(p.Abs), aside))
		}
		return err
	}
	if err := unix.Unlinkat(dfd, aside, 0); err != nil {
		unix.Renameat(dfd, aside, dfd, base)
		return fsError(p, &fs.PathError{Op: "remove", Path: p.Abs, Err: err})
	}
	return nil
}

// SweepTemp removes the temporary file an interrupted WriteAtomic of p may have left,
// under the directory lock WriteAtomic holds while its temporary file exists, so a
// write in progress is never touched. A missing file or directory is no error.
func (w *Workspace) SweepTemp(p Path) error {
	target, err := w.followLinks(p)
	if err != nil {
		return err
	}
	return w.do(target, func(rt *os.Root) error {
		dir := filepath.Dir(target.Rel)
		unlock, err := lockDir(rt, dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer unlock()
		err = rt.Remove(filepath.Join(dir, tempName(filepath.Base(target.Rel))))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
}

// Rename moves a file within one root.
func (w *Workspace) Rename(from, to Path) error {
	if from.Root != to.Root {
		return Errorf(CodeInvalidParams, "cannot move %s to %s: they are in different workspace roots", from.Abs, to.Abs)
	}
	return w.do(from, func(rt *os.Root) error { return rt.Rename(from.Rel, to.Rel) })
}

// WriteOptions tune WriteAtomic.
type WriteOptions struct {
	Perm fs.FileMode // for new files; an existing file keeps its mode
	// SetPerm gives an existing file Perm's permission bits too (a patch's mode
	// change, or a rollback putting one back); its special bits stay.
	SetPerm    bool
	CreateDirs bool // create missing parent directories
	// Expect makes the write conditional on what the caller read: checked under the
	// directory lock before the temporary file is written, and the file's identity
	// again just before the rename, so a concurrent writer's change is not overwritten
	// unseen.
	Expect Expectation
	// OnWritten runs after the rename, still under the directory lock, so that what a
	// caller records about the new content (a session's read stamp) is ordered with
	// the writes themselves.
	OnWritten func(target Path, fi fs.FileInfo)
	// Locked says the caller already holds the directory lock (LockFor).
	Locked bool
	// Dir, when set, is the real path of the folder the caller was allowed to write in
	// (RealDir, taken when it was decided): the write happens in that folder or not at
	// all, though a link on the way be swapped meanwhile.
	Dir string
}

// RealDir is the real path of the folder a write of p lands in now (its links,
// the final one included, resolved): what a caller decides on and passes as
// WriteOptions.Dir.
func (w *Workspace) RealDir(p Path) (string, error) {
	target, err := w.followLinks(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(filepath.Dir(target.Abs))
}

// LockFor takes the lock WriteAtomic takes for p (on the directory of the file p
// resolves to), for a caller that must read and write under it; pass Locked to the
// writes made while holding it.
func (w *Workspace) LockFor(p Path) (unlock func(), err error) {
	target, err := w.followLinks(p)
	if err != nil {
		return nil, err
	}
	err = w.do(target, func(rt *os.Root) error {
		unlock, err = lockDir(rt, filepath.Dir(target.Rel))
		return err
	})
	return unlock, err
}

// Expectation is what a conditional write expects to replace.
type Expectation struct {
	Set    bool   // check at all
	Absent bool   // the file must not exist
	SHA256 string // otherwise: the hex SHA-256 of its current content
}

// ExpectContent expects the file to hold exactly data (nil: to be absent).
func ExpectContent(data []byte) Expectation {
	if data == nil {
		return Expectation{Set: true, Absent: true}
	}
	sum := sha256.Sum256(data)
	return Expectation{Set: true, SHA256: hex.EncodeToString(sum[:])}
}

// WriteInfo reports what WriteAtomic did.
type WriteInfo struct {
	Created bool // the file did not exist before
	Target  Path // the file written: the symlink's target when p was a symlink
	// NewDirs are the folders the write made (CreateDirs), deepest first: a caller that
	// takes the write back removes them too.
	NewDirs []Path
}

// WriteAtomic replaces p's content in one step: a temporary file in the same directory
// is written, synced and renamed over the target, and the directory is synced, so a
// crash at any moment leaves either the old or the new content. A symlink is written
// through to its target (which must be inside the workspace). The new file keeps what
// the old one had besides its content: its whole mode (setuid, setgid and sticky bits
// included), its owner and group (as root; otherwise the group where the system allows
// it) and its extended attributes (best effort: the ones the system refuses to copy,
// such as security.* for an unprivileged user, are skipped).
//
// A rename cannot keep a file's other names or honour a read-only mode, so a file with
// more than one hard link, or with no write permission for anyone, is refused unchanged.
// The target is checked once more right before the rename; if it changed while the
// temporary file was written (another program saved it), the write is a conflict.
func (w *Workspace) WriteAtomic(p Path, data []byte, opt WriteOptions) (WriteInfo, error) {
	// p is what Resolve decided, its links already followed: a link there now was put in
	// its place since, and following it would write a file nobody decided (a racing
	// rename exchange made a patch rewrite .git/config that way).
	if fi, err := os.Lstat(p.Abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := w.followLinks(p); err != nil {
			return WriteInfo{}, err // a link out is outside_workspace, as it always was
		}
		return WriteInfo{}, Errorf(CodeConflict, "%s is a symbolic link now: one was put in its place after the path was decided, so nothing was written; look at it again and redo the change", p.Abs)
	}
	target := p
	info := WriteInfo{Target: target}
	perm := opt.Perm
	if perm == 0 {
		perm = 0o644
	}
	dir := filepath.Dir(target.Rel)
	err := w.do(target, func(rt *os.Root) error {
		if _, err := rt.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			if !opt.CreateDirs {
				return Errorf(CodeNotFound, "the directory %s does not exist; create it first or pass create_directories=true", filepath.Join(target.Root, dir))
			}
			for d := dir; d != "." && d != "/"; d = filepath.Dir(d) {
				if _, err := rt.Stat(d); !errors.Is(err, fs.ErrNotExist) {
					break
				}
				info.NewDirs = append(info.NewDirs, Path{Abs: filepath.Join(target.Root, d), Root: target.Root, Rel: d})
			}
			if err := rt.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		// Everything from here happens in the folder opened once: a link on the way
		// swapped later cannot move the write elsewhere.
		drt, err := rt.OpenRoot(dir)
		if err != nil {
			return err
		}
		defer drt.Close()
		if opt.Dir != "" {
			if real, err := rootPath(drt); err != nil || real != opt.Dir {
				return Errorf(CodeConflict, "the folder of %s changed while it was written (a link on the way now leads to %s, not %s); nothing was written: check the path and try again", target.Abs, real, opt.Dir)
			}
		}
		outer := target // as named to the caller; below, relative to the open folder
		rt, dir, target := drt, ".", target
		target.Rel = filepath.Base(target.Rel)
		if !opt.Locked {
			unlock, err := lockDir(rt, dir)
			if err != nil {
				return err
			}
			defer unlock()
		}
		old, err := openOriginal(rt, target)
		if err != nil {
			return err
		}
		defer old.close()
		info.Created = old.fi == nil
		if old.fi != nil {
			if err := refuseRename(target, old.fi); err != nil {
				return err
			}
			perm = old.fi.Mode() & keptModeBits
			if opt.SetPerm {
				perm = perm&^fs.ModePerm | opt.Perm&fs.ModePerm
			}
		}
		if err := w.expectIn(drt, outer, opt.Expect); err != nil {
			return err
		}
		// Writers of this directory are serialised, so one fixed temporary name per
		// target is enough, and removing it first sweeps what a killed writer left.
		tmp := filepath.Join(dir, tempName(filepath.Base(target.Rel)))
		if err := rt.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// 0600 until the owner is settled: never a setuid file with the wrong owner.
		f, err := rt.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		ok := false
		defer func() {
			if !ok {
				f.Close()
				rt.Remove(tmp)
			}
		}()
		if _, err := f.Write(data); err != nil {
			return err
		}
		if err := old.keepOwner(f, target); err != nil {
			return err
		}
		// After the chown, which clears setuid and setgid; explicit, so the umask cannot
		// strip bits either.
		if err := f.Chmod(perm); err != nil {
			return err
		}
		if err := old.copyXattrs(f, target); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if testHookBeforeRecheck != nil {
			testHookBeforeRecheck(target)
		}
		// Writing and syncing a large file takes long; whatever another program did to
		// the target meanwhile must not be overwritten. POSIX has no compare-and-rename,
		// so a change in the instant between this check and the rename still can be.
		if err := old.unchanged(rt, target); err != nil {
			return err
		}
		if err := rt.Rename(tmp, target.Rel); err != nil {
			return err
		}
		ok = true
		if opt.OnWritten != nil {
			if fi, err := rt.Stat(target.Rel); err == nil {
				opt.OnWritten(outer, fi)
			}
		}
		if d, err := rt.Open(dir); err == nil {
			_ = d.Sync()
			d.Close()
		}
		return nil
	})
	return info, err
}

// testHookBeforeRecheck, if set by a test, runs once the temporary file is synced: the
// moment another program's save would land during a long write.
var testHookBeforeRecheck func(target Path)

// keptModeBits are the parts of an existing file's mode its new content keeps.
const keptModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// original is the file a write replaces, as found under the directory lock: what the
// new file inherits, and what must still be there just before the rename.
type original struct {
	fi fs.FileInfo // nil: the file does not exist
	f  *os.File    // for its extended attributes; nil if it could not be opened
}

// openOriginal looks at the target under the lock. Directories and special files are
// refused before anything is opened (opening a device can have effects); a file that
// cannot be opened for reading is still replaced, without its extended attributes.
func openOriginal(rt *os.Root, target Path) (*original, error) {
	fi, err := rt.Stat(target.Rel)
	if errors.Is(err, fs.ErrNotExist) {
		return &original{}, nil
	}
	if err != nil {
		return nil, err
	}
	if err := refuseKind(target, fi); err != nil {
		return nil, err
	}
	f, err := rt.OpenFile(target.Rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return &original{fi: fi}, nil
		}
		return nil, err
	}
	// The open file's own status, so that a file swapped in since the Stat is caught.
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	if err := refuseKind(target, fi); err != nil {
		f.Close()
		return nil, err
	}
	return &original{fi: fi, f: f}, nil
}

func (o *original) close() {
	if o.f != nil {
		o.f.Close()
	}
}

func refuseKind(target Path, fi fs.FileInfo) error {
	switch {
	case fi.IsDir():
		return Errorf(CodeIsDirectory, "%s is a directory; pass the path of a file inside it", target.Abs)
	case !fi.Mode().IsRegular():
		return Errorf(CodeInvalidParams, "%s is not a regular file (%s); refusing to replace it", target.Abs, statefile.Kind(fi.Mode()))
	}
	return nil
}

// refuseRename refuses the files a rename would change in ways nobody asked for.
func refuseRename(target Path, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o222 == 0 {
		return Errorf(CodePermissionDenied, "%s is read-only (mode %04o: no one may write it), so it was left untouched; if the change is intended, make it writable first (chmod u+w %s) and call again", target.Abs, unixMode(fi.Mode()), target.Abs)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return Errorf(CodeInvalidParams, "%s has %d hard links (other names for the same file: find . -samefile FILE lists them); a write replaces the file with a new one, so the other names would keep the old content. Nothing was written. To change every name, rewrite it in place with bash (cat new > FILE keeps the file); to give this name its own copy on purpose, break the link first (f='%s'; cp -p \"$f\" \"$f.tmp\" && mv \"$f.tmp\" \"$f\") and call again", target.Abs, st.Nlink, strings.ReplaceAll(target.Abs, "'", `'\''`))
	}
	return nil
}

// unixMode is m as chmod writes it (04755, not -rwsr-xr-x).
func unixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= syscall.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		u |= syscall.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		u |= syscall.S_ISVTX
	}
	return u
}

// keepOwner gives the temporary file the original's owner and group. Root can always;
// another user may keep the group if it belongs to it, else the file takes the user's
// group, as any editor that saves by renaming does.
func (o *original) keepOwner(f *os.File, target Path) error {
	if o.fi == nil {
		return nil
	}
	st, ok := o.fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if os.Geteuid() == 0 {
		if err := f.Chown(int(st.Uid), int(st.Gid)); err != nil {
			return Errorf(CodeIOError, "could not give the new content of %s its owner %d:%d (%v); the file is unchanged", target.Abs, st.Uid, st.Gid, err)
		}
		return nil
	}
	if err := f.Chown(-1, int(st.Gid)); err != nil && !errors.Is(err, syscall.EPERM) {
		return err
	}
	return nil
}

// copyXattrs copies the original's extended attributes to the temporary file. Those the
// system will not let this process set (security.* unless root) or that the file
// system does not support are skipped: the rename must not fail for them.
func (o *original) copyXattrs(f *os.File, target Path) error {
	if o.f == nil {
		return nil
	}
	src, dst := int(o.f.Fd()), int(f.Fd())
	names, err := listXattrs(src)
	if err != nil {
		return nil // no extended attributes to read here
	}
	for _, name := range names {
		val, err := getXattr(src, name)
		if err != nil {
			continue
		}
		if err := unix.Fsetxattr(dst, name, val, 0); err != nil && !skippableXattr(err) {
			return Errorf(CodeIOError, "could not copy the extended attribute %s of %s to its new content (%v); the file is unchanged", name, target.Abs, err)
		}
	}
	return nil
}

func skippableXattr(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP)
}

func listXattrs(fd int) ([]string, error) {
	for {
		n, err := unix.Flistxattr(fd, nil)
		if err != nil || n == 0 {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Flistxattr(fd, buf)
		if errors.Is(err, unix.ERANGE) {
			continue // grew in between
		}
		if err != nil {
			return nil, err
		}
		var names []string
		for _, name := range strings.Split(string(buf[:n]), "\x00") {
			if name != "" {
				names = append(names, name)
			}
		}
		return names, nil
	}
}

func getXattr(fd int, name string) ([]byte, error) {
	for {
		n, err := unix.Fgetxattr(fd, name, nil)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Fgetxattr(fd, name, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		return buf[:n], err
	}
}

// unchanged checks, right before the rename, that the target is still the file found
// under the lock: same inode, size and times (a save by renaming brings a new inode, one
// in place new times), or still absent.
func (o *original) unchanged(rt *os.Root, target Path) error {
	fi, err := rt.Lstat(target.Rel)
	switch {
	case errors.Is(err, fs.ErrNotExist) && o.fi == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return Errorf(CodeConflict, "%s was deleted or moved away by another program while its new content was being written; nothing was written. Look at the directory again and redo the change", target.Abs).
			WithDetails(ConcurrentChange{Path: target.Abs})
	case err != nil:
		return err
	case o.fi == nil:
		return Errorf(CodeConflict, "%s was created by another program while this write was in progress; nothing was written. Read it and redo the change", target.Abs).
			WithDetails(ConcurrentChange{Path: target.Abs})
	case !fi.Mode().IsRegular():
		return Errorf(CodeConflict, "%s was replaced by %s while its new content was being written; nothing was written. Look at what is there now before writing it again", target.Abs, statefile.Kind(fi.Mode()))
	case !sameVersion(o.fi, fi):
		return Errorf(CodeConflict, "%s changed while its new content was being written (another program saved it); nothing was written. Read it again and redo the change on the current content", target.Abs).
			WithDetails(ConcurrentChange{Path: target.Abs})
	}
	return nil
}

// sameVersion reports whether two stats show the same file, unchanged.
func sameVersion(a, b fs.FileInfo) bool {
	if a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) || a.Mode() != b.Mode() {
		return false
	}
	sa, oka := a.Sys().(*syscall.Stat_t)
	sb, okb := b.Sys().(*syscall.Stat_t)
	if !oka || !okb {
		return true
	}
	return sa.Ino == sb.Ino && sa.Dev == sb.Dev && sa.Ctim == sb.Ctim
}

// TempMarker is part of every temporary file name WriteAtomic uses, so leftovers of a
// killed process can be recognised and swept.
const TempMarker = ".agentbox-tmp"

// lockDir takes an exclusive flock on a directory. The directory's inode, unlike a
// file's, survives the rename that replaces a file, so it serialises writers across
// processes without leaving lock files in the user's tree; the kernel drops it when a
// holder dies.
func lockDir(rt *os.Root, dir string) (func(), error) {
	d, err := rt.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		d.Close()
		return nil, Errorf(CodeIOError, "could not lock the directory %s for writing: %v", dir, err)
	}
	return func() { d.Close() }, nil
}

// tempName is the temporary file WriteAtomic writes base's new content to.
func tempName(base string) string {
	name := "." + base + TempMarker
	if len(name) > 255 { // NAME_MAX
		sum := sha256.Sum256([]byte(base))
		name = "." + hex.EncodeToString(sum[:8]) + TempMarker
	}
	return name
}

// checkExpectation compares the file's current state with what the caller expects.
// expectIn checks want on target in its folder, open as drt: the folder is opened again
// beneath the root, without meeting a link, and must be drt's, and the file is opened in
// it without following a link, so a link swapped in for it is a change.
func (w *Workspace) expectIn(drt *os.Root, target Path, want Expectation) error {
	if !want.Set {
		return nil
	}
	a, err := w.anchor(target.Root)
	if err != nil {
		return err
	}
	dfd, err := a.OpenBeneath(filepath.ToSlash(filepath.Dir(target.Rel)), unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return fsError(target, &fs.PathError{Op: "open", Path: filepath.Dir(target.Abs), Err: err})
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	fi, err := drt.Stat(".")
	if err != nil || unix.Fstat(dfd, &st) != nil {
		return fsError(target, err)
	}
	if sys, ok := fi.Sys().(*syscall.Stat_t); !ok || uint64(sys.Dev) != st.Dev || sys.Ino != st.Ino {
		return Errorf(CodeConflict, "the folder of %s changed while it was written (a link on the way was swapped); nothing was written: check the path and try again", target.Abs)
	}
	return expectAt(dfd, filepath.Base(target.Rel), target, want)
}

// expectAt checks that the file name in the open folder dfd is what want says (never
// following a link there: a link put in its place is a change).
func expectAt(dfd int, name string, target Path, want Expectation) error {
	if !want.Set {
		return nil
	}
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	}
	switch {
	case err == unix.ENOENT:
		if want.Absent {
			return nil
		}
		return Errorf(CodeConflict, "%s was deleted while this change was being prepared; read the directory again and redo the change", target.Abs)
	case err == unix.ELOOP:
		return Errorf(CodeConflict, "%s was replaced by a symbolic link while this change was being prepared; look at it again and redo the change", target.Abs).
			WithDetails(ConcurrentChange{Path: target.Abs})
	case err != nil:
		return fsError(target, &fs.PathError{Op: "open", Path: target.Abs, Err: err})
	}
	f := os.NewFile(uintptr(fd), target.Abs)
	defer f.Close()
	if want.Absent {
		return Errorf(CodeConflict, "%s was created by someone else while this change was being prepared; read it and redo the change", target.Abs)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, want.SHA256) {
		return Errorf(CodeConflict, "%s changed while this change was being prepared (another process wrote it); read it again and redo the change on the current content", target.Abs).
			WithDetails(ConcurrentChange{Path: target.Abs})
	}
	return nil
}

// ConcurrentChange is the detail of a conditional write that found the file changed by
// another writer between the caller's read and its write: a caller whose change is
// defined by content (an edit) may read again and retry.
type ConcurrentChange struct {
	Path string `json:"changed_concurrently"`
}

// IsConcurrentChange reports whether err is such a refused conditional write.
func IsConcurrentChange(err error) bool {
	if err == nil {
		return false
	}
	_, ok := AsError(err).Details.(ConcurrentChange)
	return ok
}

// followLinks resolves a chain of symlinks at p, checking each hop stays inside the
// workspace. A missing final target is fine (the write creates it).
func (w *Workspace) followLinks(p Path) (Path, error) {
	for hops := 0; hops < 40; hops++ {
		fi, err := w.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		var dest string
		if err := w.do(p, func(rt *os.Root) (err error) { dest, err = rt.Readlink(p.Rel); return err }); err != nil {
			return p, err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p.Abs), dest)
		}
		next, err := w.Resolve("/", dest)
		if err != nil {
			return p, Errorf(CodeOutsideWorkspace, "%s is a symlink to %s, which is outside the workspace; write to a path inside the workspace instead", p.Abs, dest)
		}
		p = next
	}
	return p, Errorf(CodeInvalidParams, "%s is a symlink loop (more than 40 hops); fix the link or write another path", p.Abs)
}

// fsError turns os.Root and syscall failures into coded errors that name the path.
func fsError(p Path, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	code := classify(err)
	switch code {
	case CodeNotFound:
		return &Error{Code: code, Message: fmt.Sprintf("%s does not exist", p.Abs)}
	case CodeOutsideWorkspace:
		return &Error{Code: code, Message: fmt.Sprintf("%s leads outside the workspace (through a symlink or ..); use a path inside the workspace", p.Abs)}
	case CodePermissionDenied:
		return &Error{Code: code, Message: fmt.Sprintf("the system refused access to %s (permission denied); check its permissions or choose another path", p.Abs)}
	case CodeIsDirectory:
		return &Error{Code: code, Message: fmt.Sprintf("%s is a directory", p.Abs)}
	}
	switch {
	case errors.Is(err, beneath.ErrChanged):
		return &Error{Code: CodeConflict, Message: fmt.Sprintf("%s changed while agentbox opened it (a symbolic link or another folder was put in its place); look at it again and call again", p.Abs)}
	case errors.Is(err, syscall.ELOOP):
		return &Error{Code: code, Message: fmt.Sprintf("%s is a symbolic link that cannot be followed here (a loop, or a link put in its place while agentbox opened it); fix or remove the link, or pass the path it should point to", p.Abs)}
	case errors.Is(err, syscall.ENXIO):
		return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("%s is not a regular file (a socket or a device with nothing behind it); pass the path of a regular file", p.Abs)}
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return &Error{Code: code, Message: fmt.Sprintf("no space left to write %s (the disk or quota is full); the file is unchanged. Free some space and call again", p.Abs)}
	case errors.Is(err, syscall.EROFS):
		return &Error{Code: code, Message: fmt.Sprintf("%s is on a read-only file system; the file is unchanged. Write somewhere else", p.Abs)}
	case errors.Is(err, syscall.ENOTDIR), strings.HasSuffix(err.Error(), "not a directory"): // (os.Root's OpenRoot of a file says so without an Errno)
		return &Error{Code: CodeNotFound, Message: fmt.Sprintf("%s cannot exist: %s is a file, not a folder; check the path", p.Abs, fileOnTheWay(p))}
	}
	return &Error{Code: code, Message: fmt.Sprintf("%s: %v", p.Abs, err)}
}

// fileOnTheWay names the first part of p's path (below its root) that is not a folder,
// or says "a part of the path" when none is found (it changed meanwhile).
func fileOnTheWay(p Path) string {
	dir := p.Root
	for _, part := range strings.Split(filepath.Dir(p.Rel), string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		dir = filepath.Join(dir, part)
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			return dir
		}
	}
	return "a part of the path"
}

func classify(err error) ErrorCode {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return CodeNotFound
	case errors.Is(err, fs.ErrPermission):
		return CodePermissionDenied
	case errors.Is(err, syscall.EISDIR):
		return CodeIsDirectory
	case strings.Contains(err.Error(), "path escapes from parent"):
		return CodeOutsideWorkspace
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EDQUOT):
		return CodeIOError
	case errors.Is(err, syscall.ELOOP):
		return CodeInvalidParams
	}
	if isTimeout(err) {
		return CodeTimeout
	}
	return CodeIOError
}

// Contains reports whether an absolute path lies inside one of the roots (lexically).
func (w *Workspace) Contains(abs string) bool {
	_, ok := w.lexical(filepath.Clean(abs))
	return ok
}

// WorkspaceFromURIs builds a workspace from file:// URIs (an MCP client's roots),
// keeping the ones that name existing directories; nil when none does.
func WorkspaceFromURIs(uris []string) *Workspace {
	var dirs []string
	for _, uri := range uris {
		u, err := url.Parse(uri)
		if err != nil || u.Scheme != "file" || u.Host != "" && u.Host != "localhost" {
			continue // not a local folder (file://otherhost/... names another machine's)
		}
		if fi, err := os.Stat(u.Path); err == nil && fi.IsDir() {
			dirs = append(dirs, filepath.Clean(u.Path))
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	return NewWorkspace(dirs...)
}

// checkPathLength refuses a path no file system call could take (longer than PATH_MAX,
// or a component longer than NAME_MAX) before anything is created or echoed back.
func checkPathLength(abs string) error {
	if len(abs) > MaxPathBytes {
		return Errorf(CodeInvalidParams, "the path is %d bytes long (%s); paths are at most %d bytes, so pass a shorter path", len(abs), ClipMiddle(abs, 120), MaxPathBytes)
	}
	for _, c := range strings.Split(abs, string(filepath.Separator)) {
		if len(c) > 255 {
			return Errorf(CodeInvalidParams, "a component of the path is %d bytes long (%s); file names are at most 255 bytes", len(c), ClipMiddle(c, 80))
		}
	}
	return nil
}

// rootPath is the real path of the folder a Root holds open.
func rootPath(rt *os.Root) (string, error) {
	d, err := rt.Open(".")
	if err != nil {
		return "", err
	}
	defer d.Close()
	return os.Readlink(fmt.Sprintf("/proc/self/fd/%d", d.Fd()))
}
