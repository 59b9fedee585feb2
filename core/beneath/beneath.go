// Package beneath opens files and folders below a folder so that nothing renamed into
// the tree meanwhile can take the open elsewhere.
//
// A path-based open of "root/a/b" follows whatever a and b are at that instant: if one
// of them is replaced by a symbolic link (a rename(2) exchange does it atomically)
// between the check that decided the path and the open, the open reaches another file
// under the decided name, outside the workspace or one a deny rule protects. An Anchor
// is an open descriptor of a folder whose real location was checked once; OpenBeneath
// opens a path below it with openat2 and RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, so the
// kernel refuses any link on the way and any way out, whatever is renamed meanwhile.
// Where openat2 is missing (Linux before 5.6, or a seccomp filter), the path is opened
// by name without following a link in its last part, and where it really is, read back
// from /proc/self/fd and compared by device and inode with that path, must be where it
// was asked to be.
//
// Following a link on purpose (Open with follow, FollowedDir) opens through it and then
// checks where the open file really is: a location read back from /proc is believed only
// if a stat of it in this process's view finds the same device and inode, since a link
// into another mount namespace (/proc/PID/cwd) reads back as a path here that is not
// what was opened.
package beneath

import (
	"errors"
	"io/fs"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// resolveBeneath: never through a link, never out of the anchor.
const resolveBeneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// noOpenat2 is set once openat2 has been found missing: every open after uses the
// fallback.
var noOpenat2 atomic.Bool

// ErrChanged is a path that is not what it was when it was decided: a symbolic link, or
// another folder, was put in its place.
var ErrChanged = errors.New("it changed while agentbox opened it (a symbolic link or another folder was put in its place)")

// ErrOutside is an open whose real location is not one the caller allows.
var ErrOutside = errors.New("it leads outside the workspace")

// Anchor is an open folder that paths below it are opened beneath.
type Anchor struct {
	fd   int
	path string // the path it was opened by
	real string // where it really is ("" when /proc cannot say)
}

// OpenAnchor opens the folder at path to open things beneath it. inside, when not nil,
// is asked about the folder's real location, so that a folder swapped for a link out
// since its path was checked is refused.
func OpenAnchor(path string, inside func(real string) bool) (*Anchor, error) {
	fd, err := openRetry(path, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	a := &Anchor{fd: fd, path: path, real: RealPath(fd)}
	if inside != nil && a.real != "" && !inside(a.real) {
		a.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrOutside}
	}
	return a, nil
}

// Close releases the anchor's descriptor.
func (a *Anchor) Close() {
	if a != nil && a.fd >= 0 {
		unix.Close(a.fd)
		a.fd = -1
	}
}

// Path is the path the anchor was opened by.
func (a *Anchor) Path() string { return a.path }

// Fd is the anchor's descriptor (valid until Close).
func (a *Anchor) Fd() int { return a.fd }

// Dup returns a new descriptor of the anchor's folder: reading a folder's entries moves
// its offset, which the anchor's own must not share.
func (a *Anchor) Dup() (int, error) {
	return unix.FcntlInt(uintptr(a.fd), unix.F_DUPFD_CLOEXEC, 0)
}

// OpenBeneath opens rel (slash-separated, relative to the anchor, "" for the anchor
// itself) with flags, meeting no symbolic link and staying beneath the anchor.
func (a *Anchor) OpenBeneath(rel string, flags int) (int, error) {
	if rel == "" {
		rel = "."
	}
	if !noOpenat2.Load() {
		how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolveBeneath}
		for tries := 0; ; tries++ {
			fd, err := unix.Openat2(a.fd, rel, &how)
			switch {
			case err == nil:
				return fd, nil
			case err == unix.EINTR || err == unix.EAGAIN && tries < 8:
				continue // EAGAIN: a rename raced the lookup
			case err == unix.ENOSYS || err == unix.EPERM || err == unix.E2BIG:
				noOpenat2.Store(true) // missing, or refused by a seccomp filter
			case err == unix.ELOOP || err == unix.EXDEV:
				return -1, ErrChanged
			default:
				return -1, err
			}
			break
		}
	}
	path := a.path
	if rel != "." {
		path += "/" + rel
	}
	fd, err := openRetry(path, flags|unix.O_NOFOLLOW)
	if err != nil {
		if err == unix.ELOOP {
			return -1, ErrChanged
		}
		return -1, err
	}
	if a.real != "" {
		want := a.real
		if rel != "." {
			want += "/" + rel
		}
		if got, ok := FollowedReal(fd); !ok || got != want {
			unix.Close(fd)
			return -1, ErrChanged
		}
	}
	return fd, nil
}

// Open is OpenBeneath that, with follow, also opens a path that meets a symbolic link
// (a followed link's contents): through the link, and then allowed, when not nil, is
// asked about where the open file really is (FollowedReal).
func (a *Anchor) Open(rel string, flags int, follow bool, allowed func(real string) bool) (int, error) {
	fd, err := a.OpenBeneath(rel, flags)
	if err != ErrChanged || !follow {
		return fd, err
	}
	path := a.path
	if rel != "" {
		path += "/" + rel
	}
	return OpenFollowing(path, flags, allowed)
}

// OpenFollowing opens path following links, and then allowed, when not nil, is asked
// about where the open file really is; a location that cannot be told is refused.
func OpenFollowing(path string, flags int, allowed func(real string) bool) (int, error) {
	fd, err := openRetry(path, flags)
	if err != nil {
		return -1, err
	}
	if allowed != nil {
		real, ok := FollowedReal(fd)
		if !ok || !allowed(real) {
			unix.Close(fd)
			return -1, ErrOutside
		}
	}
	return fd, nil
}

// FollowedReal is where the open descriptor fd really is, read back from /proc and
// believed only when a stat of that path here finds fd's own device and inode: a link
// into another mount namespace reads back as a path that names something else here.
func FollowedReal(fd int) (string, bool) {
	real := RealPath(fd)
	if real == "" {
		return "", false
	}
	var a, b unix.Stat_t
	if unix.Fstat(fd, &a) != nil || unix.Stat(real, &b) != nil || a.Dev != b.Dev || a.Ino != b.Ino {
		return "", false
	}
	return real, true
}

func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// RealPath is where the open descriptor fd is, as /proc/self/fd says, or "" when /proc
// cannot say.
func RealPath(fd int) string {
	var buf [4096]byte
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf[:])
	if err != nil || n <= 0 || n >= len(buf) || buf[0] != '/' {
		return ""
	}
	return string(buf[:n])
}
