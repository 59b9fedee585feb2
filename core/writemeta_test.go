package core

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// writeMetaWorkspace is a workspace with one file, f.txt, holding "old\n".
func writeMetaWorkspace(t *testing.T) (*Workspace, Path, string) {
	t.Helper()
	root := realTemp(t)
	ws := NewWorkspace(root)
	t.Cleanup(ws.Close)
	abs := filepath.Join(root, "f.txt")
	if err := os.WriteFile(abs, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ws.Resolve(root, "f.txt")
	if err != nil {
		t.Fatal(err)
	}
	return ws, p, abs
}

// A rewritten file keeps its whole mode, whatever the umask.
func TestWriteAtomicKeepsWholeMode(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	for _, mode := range []uint32{0o4755, 0o2664, 0o1644, 0o6775, 0o644, 0o600, 0o200} {
		ws, p, abs := writeMetaWorkspace(t)
		if err := syscall.Chmod(abs, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.WriteAtomic(p, []byte("new\n"), WriteOptions{}); err != nil {
			t.Fatalf("mode %04o: %v", mode, err)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(abs, &st); err != nil {
			t.Fatal(err)
		}
		if got := st.Mode &^ syscall.S_IFMT; got != mode {
			t.Errorf("mode %04o became %04o", mode, got)
		}
	}
}

// As root, the new file gets the old owner and group.
func TestWriteAtomicKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	ws, p, abs := writeMetaWorkspace(t)
	if err := os.Chown(abs, 1234, 2345); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Chmod(abs, 0o4755); err != nil { // chown after chmod must not drop setuid
		t.Fatal(err)
	}
	if _, err := ws.WriteAtomic(p, []byte("new\n"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(abs, &st); err != nil {
		t.Fatal(err)
	}
	if st.Uid != 1234 || st.Gid != 2345 {
		t.Errorf("owner became %d:%d, want 1234:2345", st.Uid, st.Gid)
	}
	if st.Mode&syscall.S_ISUID == 0 {
		t.Errorf("setuid dropped: mode %o", st.Mode)
	}
}

func TestWriteAtomicKeepsXattrs(t *testing.T) {
	ws, p, abs := writeMetaWorkspace(t)
	if err := unix.Setxattr(abs, "user.test", []byte("kept"), 0); err != nil {
		t.Skipf("no user xattrs on this file system: %v", err)
	}
	if _, err := ws.WriteAtomic(p, []byte("new\n"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := unix.Getxattr(abs, "user.test", buf)
	if err != nil || string(buf[:n]) != "kept" {
		t.Errorf("user.test after the write: %q, %v", buf[:max(n, 0)], err)
	}
}

// What a rename cannot do right is refused, and the file stays as it was.
func TestWriteAtomicRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, abs string)
		code  ErrorCode
		says  []string
	}{
		{"read-only", func(t *testing.T, abs string) { os.Chmod(abs, 0o444) }, CodePermissionDenied, []string{"read-only", "0444", "chmod u+w"}},
		{"read-only executable", func(t *testing.T, abs string) { os.Chmod(abs, 0o555) }, CodePermissionDenied, []string{"read-only", "0555"}},
		{"hard link", func(t *testing.T, abs string) {
			if err := os.Link(abs, abs+".link"); err != nil {
				t.Fatal(err)
			}
		}, CodeInvalidParams, []string{"2 hard links", "other names would keep the old content", "cp ", "mv "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, p, abs := writeMetaWorkspace(t)
			tc.setup(t, abs)
			before, _ := os.Stat(abs)
			_, err := ws.WriteAtomic(p, []byte("new\n"), WriteOptions{})
			if err == nil || AsError(err).Code != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error does not say %q: %v", s, err)
				}
			}
			after, _ := os.Stat(abs)
			if b, _ := os.ReadFile(abs); string(b) != "old\n" || !os.SameFile(before, after) {
				t.Errorf("file touched: %q", b)
			}
			assertNoTemp(t, abs)
		})
	}
}

// Another program's save that lands while the temporary file is being written is not
// overwritten: the write is a conflict and what the other program saved stays.
func TestWriteAtomicConcurrentSaveIsNotLost(t *testing.T) {
	for _, tc := range []struct {
		name   string
		absent bool                           // f.txt does not exist when the write starts
		save   func(t *testing.T, abs string) // what the other program does meanwhile
		check  func(t *testing.T, abs string) // what must be there afterwards
	}{
		{name: "editor saves by rename", save: func(t *testing.T, abs string) {
			os.WriteFile(abs+".swp", []byte("editor\n"), 0o644)
			if err := os.Rename(abs+".swp", abs); err != nil {
				t.Fatal(err)
			}
		}, check: hasContent("editor\n")},
		{name: "written in place", save: func(t *testing.T, abs string) {
			os.WriteFile(abs, []byte("in place, longer\n"), 0o644)
		}, check: hasContent("in place, longer\n")},
		{name: "replaced by a FIFO", save: func(t *testing.T, abs string) {
			os.Remove(abs)
			if err := syscall.Mkfifo(abs, 0o644); err != nil {
				t.Fatal(err)
			}
		}, check: func(t *testing.T, abs string) {
			if fi, err := os.Lstat(abs); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v %v", fi, err)
			}
		}},
		{name: "deleted", save: func(t *testing.T, abs string) { os.Remove(abs) }, check: func(t *testing.T, abs string) {
			if _, err := os.Lstat(abs); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a deleted file came back: %v", err)
			}
		}},
		{name: "created meanwhile", absent: true, save: func(t *testing.T, abs string) {
			os.WriteFile(abs, []byte("theirs\n"), 0o644)
		}, check: hasContent("theirs\n")},
	} {
		for _, conditional := range []bool{true, false} {
			t.Run(tc.name+map[bool]string{true: " (conditional)", false: ""}[conditional], func(t *testing.T) {
				ws, p, abs := writeMetaWorkspace(t)
				opt := WriteOptions{}
				if conditional {
					opt.Expect = ExpectContent([]byte("old\n"))
				}
				if tc.absent {
					os.Remove(abs)
					if conditional {
						opt.Expect = ExpectContent(nil)
					}
				}
				testHookBeforeRecheck = func(Path) { tc.save(t, abs) }
				defer func() { testHookBeforeRecheck = nil }()
				_, err := ws.WriteAtomic(p, []byte("agent\n"), opt)
				if err == nil || AsError(err).Code != CodeConflict {
					t.Fatalf("got %v, want conflict", err)
				}
				if !strings.Contains(err.Error(), "nothing was written") {
					t.Errorf("error does not say nothing was written: %v", err)
				}
				tc.check(t, abs)
				assertNoTemp(t, abs)
			})
		}
	}
}

func hasContent(want string) func(t *testing.T, abs string) {
	return func(t *testing.T, abs string) {
		t.Helper()
		if b, err := os.ReadFile(abs); err != nil || string(b) != want {
			t.Errorf("content %q (%v), want %q", b, err, want)
		}
	}
}

func assertNoTemp(t *testing.T, abs string) {
	t.Helper()
	if _, err := os.Lstat(filepath.Join(filepath.Dir(abs), tempName(filepath.Base(abs)))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file left behind: %v", err)
	}
}

// TestWriteAtomicStaysInTheDecidedFolder: a write is decided on where its path leads
// when the call is checked; a link on the way swapped before the write (src/race ->
// d1, then -> ..) sent a patch's write to the denied file the new link leads to. With
// Dir, the write happens in the folder it was decided in or not at all.
func TestWriteAtomicStaysInTheDecidedFolder(t *testing.T) {
	root := realTemp(t)
	ws := NewWorkspace(root)
	t.Cleanup(ws.Close)
	for name, body := range map[string]string{"protected.txt": "PROTECTED\n", "src/d1/protected.txt": "ok\n"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "src", "race")
	if err := os.Symlink("d1", link); err != nil {
		t.Fatal(err)
	}
	p, err := ws.Resolve(root, "src/race/protected.txt")
	if err != nil {
		t.Fatal(err)
	}
	decided, err := ws.RealDir(p)
	if err != nil || decided != filepath.Join(root, "src", "d1") {
		t.Fatalf("RealDir: %q, %v", decided, err)
	}
	// The link is swapped after the decision.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", link); err != nil {
		t.Fatal(err)
	}
	// The path is named again for the write (as patch names each file when it writes).
	p, err = ws.Resolve(root, "src/race/protected.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ws.WriteAtomic(p, []byte("PWN\n"), WriteOptions{Dir: decided})
	if err == nil || AsError(err).Code != CodeConflict {
		t.Errorf("write through a swapped link: %v; want a conflict", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "protected.txt")); string(b) != "PROTECTED\n" {
		t.Errorf("the file the new link leads to was written: %q", b)
	}
	// Swapped back: the write lands where it was decided.
	os.Remove(link)
	if err := os.Symlink("d1", link); err != nil {
		t.Fatal(err)
	}
	if p, err = ws.Resolve(root, "src/race/protected.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.WriteAtomic(p, []byte("new\n"), WriteOptions{Dir: decided}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src", "d1", "protected.txt")); string(b) != "new\n" {
		t.Errorf("the decided file holds %q", b)
	}
}
