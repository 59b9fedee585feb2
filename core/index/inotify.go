package index

import (
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inotify is the watcher's view of Linux's inotify: folders watched by path, events in
// the kernel's order. It is written here on x/sys/unix rather than taken from
// fsnotify because the watcher needs IN_CLOSE_WRITE (the one event a write through a
// memory mapping raises, when the file is closed), which fsnotify does not offer, and
// IN_ISDIR, which it does not pass on.
type inotify struct {
	file   *os.File // the inotify descriptor, in the runtime's poller: Close ends a Read
	mu     sync.Mutex
	paths  map[int32]string // watch descriptor -> folder
	events chan inotifyEvent
}

// inotifyEvent is one event: the path it names (the watched folder joined with the
// entry's name, or the folder itself) and the kernel's mask; overflow marks a lost
// queue (IN_Q_OVERFLOW), after which nothing may be trusted.
type inotifyEvent struct {
	path     string
	mask     uint32
	overflow bool
}

// watchMask is what a watched folder reports: entries created, written (including
// the close after a write through a mapping), changed in metadata, removed and moved,
// and the folder's own removal and move.
const watchMask = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW

func newInotify() (*inotify, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	n := &inotify{file: os.NewFile(uintptr(fd), "inotify"), paths: map[int32]string{}, events: make(chan inotifyEvent, 4096)}
	go n.read()
	return n, nil
}

// add watches the folder dir (again: a folder watched already keeps its descriptor).
func (n *inotify) add(dir string) error {
	raw, err := n.file.SyscallConn()
	if err != nil {
		return err
	}
	var wd int
	cerr := raw.Control(func(fd uintptr) { wd, err = unix.InotifyAddWatch(int(fd), dir, watchMask) })
	if cerr != nil {
		return cerr
	}
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.paths[int32(wd)] = dir
	n.mu.Unlock()
	return nil
}

func (n *inotify) close() error { return n.file.Close() }

// read turns the descriptor's bytes into events until it is closed, then closes the
// channel.
func (n *inotify) read() {
	defer close(n.events)
	buf := make([]byte, 64<<10)
	for {
		size, err := n.file.Read(buf)
		if err != nil {
			return // closed (or broken: the watcher then has no events and exits)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= size; {
			raw := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(raw.Len)]
			off += unix.SizeofInotifyEvent + int(raw.Len)
			if raw.Mask&unix.IN_Q_OVERFLOW != 0 {
				n.events <- inotifyEvent{overflow: true}
				continue
			}
			n.mu.Lock()
			dir, ok := n.paths[raw.Wd]
			switch {
			case raw.Mask&unix.IN_IGNORED != 0:
				delete(n.paths, raw.Wd) // the watch is gone (its folder removed)
			case raw.Mask&unix.IN_MOVE_SELF != 0:
				// The folder moved: its path here is stale. Its parent's event names
				// the old and new paths; the watch itself is dropped.
				delete(n.paths, raw.Wd)
				_ = n.rmWatch(raw.Wd)
			}
			n.mu.Unlock()
			if !ok {
				continue
			}
			path := dir
			if i := indexNUL(name); i > 0 {
				path = dir + "/" + string(name[:i])
			}
			n.events <- inotifyEvent{path: path, mask: raw.Mask}
		}
	}
}

func (n *inotify) rmWatch(wd int32) error {
	raw, err := n.file.SyscallConn()
	if err != nil {
		return err
	}
	return raw.Control(func(fd uintptr) { _, _ = unix.InotifyRmWatch(int(fd), uint32(wd)) })
}

// indexNUL is the length of the NUL-padded name the kernel wrote.
func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}
