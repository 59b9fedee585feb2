// Package statefile reads agentbox's own state files (a session's todo list, tasks and
// grants, a job's records) without ever blocking: a FIFO or a device put where a state
// file belongs would otherwise hang the call in open(2), beyond the reach of its
// context and of the signals that end it.
package statefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Read reads the regular file at path whole, never through a symlink. Anything else
// there is an error that says what to do; a missing file is an error satisfying errors.Is(err, fs.ErrNotExist).
func Read(path string) ([]byte, error) {
	// Nor through a link: a state file is agentbox's own, and a link put in its place
	// would have its error quote the file it leads to.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is not a regular file but a symlink; agentbox keeps its state in regular files: remove it and call again", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file but %s; agentbox keeps its state in regular files: remove it and call again", path, Kind(fi.Mode()))
	}
	return io.ReadAll(f)
}

// Kind names what a file that is not a regular one is, for an error's text.
func Kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeSymlink != 0:
		return "a symlink"
	}
	return "an irregular file"
}
