package beneath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core/swaptest"
	"golang.org/x/sys/unix"
)

// A file opened beneath an anchor is never the target of a link swapped in its place,
// nor is one below a folder swapped for a link; a root whose real location the caller
// refuses is not opened.
func TestOpenBeneathRefusesSwappedLinks(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "out")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(root, "f.txt"), []byte("inside\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "f.txt"), []byte("OUTSIDE\n"), 0o644)
	os.Symlink(filepath.Join(outside, "f.txt"), filepath.Join(root, "flink"))
	a, err := OpenAnchor(root, func(real string) bool { return strings.HasPrefix(real, root) })
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if fd, err := a.OpenBeneath("flink", unix.O_RDONLY); err == nil {
		unix.Close(fd)
		t.Fatal("a link was opened beneath the anchor")
	}
	defer swaptest.Loop(t, filepath.Join(root, "f.txt"), filepath.Join(root, "flink"))()
	buf := make([]byte, 64)
	for range 2000 {
		fd, err := a.OpenBeneath("f.txt", unix.O_RDONLY)
		if err != nil {
			continue
		}
		n, _ := unix.Read(fd, buf)
		unix.Close(fd)
		if strings.Contains(string(buf[:n]), "OUTSIDE") {
			t.Fatal("the file outside was read through a link swapped in")
		}
	}
	if _, err := OpenAnchor(outside, func(real string) bool { return strings.HasPrefix(real, root) }); err == nil {
		t.Fatal("an anchor outside what inside allows was opened")
	}
}
