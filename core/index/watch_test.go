package index

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// watchTree builds an index of a small tree at root and runs its watcher until the
// test ends; it returns the cache folder and a channel closed when the watcher ends.
func watchTree(t *testing.T, root string) (string, <-chan struct{}) {
	t.Helper()
	cache := t.TempDir()
	writeTree(t, root, map[string]string{"a/x.txt": "hay\n", "b/y.txt": "hay\n"})
	if _, err := Build(context.Background(), cache, root, BuildOptions{Walk: DefaultWalk(os.Getenv), RacyWindow: -1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := Watch(ctx, cache, root, DefaultWalk(os.Getenv), time.Hour); err != nil {
			t.Errorf("the watcher failed: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if _, err := Sync(cache, root, "", time.Second); err == nil {
			return cache, done
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("the watcher never answered")
		}
	}
}

// A root replaced by another folder at the same path (its parent renamed, the path
// made again) raises no event on the old root's watches: the watcher notices at the
// next question and exits instead of answering for the old tree.
func TestWatcherLeavesAReplacedRoot(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "p", "root")
	cache, done := watchTree(t, root)
	if err := os.Rename(filepath.Join(parent, "p"), filepath.Join(parent, "p.old")); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"a/x.txt": "needle\n"})
	if ch, err := Sync(cache, root, "", time.Second); err == nil {
		t.Fatalf("the watcher answered for the old root: %+v", ch)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher kept running on a replaced root")
	}
}

// A folder mounted over one in the tree raises no inotify event; the watcher follows
// the mount table and compares the tree again. Needs the right to mount (root).
func TestWatcherSeesAMountOver(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	cache, _ := watchTree(t, root)
	writeTree(t, other, map[string]string{"m.txt": "needle\n"})
	if err := unix.Mount(other, filepath.Join(root, "b"), "", unix.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount here (%v): the mount-table watch is not tested", err)
	}
	defer unix.Unmount(filepath.Join(root, "b"), unix.MNT_DETACH)
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		ch, err := Sync(cache, root, "", time.Second)
		if err == nil {
			for _, d := range ch.Dirs {
				if d == "b" {
					return
				}
			}
			t.Fatalf("after a mount over b, the watcher reports %+v without b", ch)
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("no answer after the mount: %v", err)
		}
	}
}

func TestRelevantMounts(t *testing.T) {
	table := `22 1 8:1 / / rw - ext4 /dev/sda1 rw
30 22 0:5 / /home/u/proj/b rw - tmpfs t rw
31 22 0:6 / /home/u/projects rw - tmpfs t rw
32 22 0:7 / /home rw - tmpfs t rw
33 22 0:8 / /var/lib/docker rw - overlay o rw
`
	// A mount point with a space is written \040: it is under a root with a space.
	if got := relevantMounts("40 22 0:9 / /home/u/my\\040proj/m rw - tmpfs t rw\n", "/home/u/my proj"); got == "" {
		t.Error("a mount under a root whose name has a space was not seen")
	}
	got := relevantMounts(table, "/home/u/proj")
	for _, want := range []string{" / / ", "/home/u/proj/b", " /home "} {
		if !strings.Contains(got, want) {
			t.Errorf("relevant mounts lack %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"/home/u/projects", "/var/lib/docker"} {
		if strings.Contains(got, not) {
			t.Errorf("relevant mounts hold %q:\n%s", not, got)
		}
	}
}

// A folder's permissions changed (chmod 0111 or 000 takes listing away from a user
// who is not root): the watcher reports it as a changed tree, so searches walk it and
// see what a full scan sees, instead of listing it from the index.
func TestWatcherReportsAFolderWhosePermissionsChanged(t *testing.T) {
	root := t.TempDir()
	cache, _ := watchTree(t, root)
	if err := os.Chmod(filepath.Join(root, "b"), 0o111); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(root, "b"), 0o755)
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		ch, err := Sync(cache, root, "", time.Second)
		if err == nil {
			for _, d := range ch.Trees {
				if d == "b" {
					return
				}
			}
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("after chmod 0111 of b, the watcher reports %+v (%v) without b as a changed tree", ch, err)
		}
	}
}

// A watcher's answer is for the index it compared with, seen through its mounts: an
// index whose meta.json was rewritten since (a segment dropped or listed twice), or a
// search in another mount namespace, does not take it.
func TestChangesAnswerOnlyTheirIndex(t *testing.T) {
	root := t.TempDir()
	cache, _ := watchTree(t, root)
	ch, err := Sync(cache, root, "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(cache, root)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !ch.Answers(ix) {
		t.Fatalf("the watcher's answer %+v is not taken for its own index (stamp %s, namespace %s)", ch, ix.Stamp, mountNS())
	}
	meta := filepath.Join(Dir(cache, root), "meta.json")
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	m := ix.Meta
	m.Segments = append(m.Segments, m.Segments...)
	edited, _ := json.Marshal(m)
	if err := os.WriteFile(meta, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(meta, b, 0o600)
	ix2, err := Open(cache, root)
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if ch.Answers(ix2) {
		t.Fatal("the answer was taken for an index whose meta.json lists each segment twice")
	}
	other := ch
	other.MountNS = "mnt:[1]"
	if other.Answers(ix) {
		t.Fatal("the answer of a watcher in another mount namespace was taken")
	}
}

// A nested repository's info/exclude is read by the walk but lies in a .git folder no
// watch covers: the watcher stamps it, and an answer after it changed lists the folder
// whose files it now leaves out, never the old state.
func TestWatcherSeesANestedRepositorysExclude(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a/.git/info/exclude": "# nothing yet\n"})
	cache, _ := watchTree(t, root)
	time.Sleep(10 * time.Millisecond) // a change in a later clock tick than the scan
	if err := os.WriteFile(filepath.Join(root, "a", ".git", "info", "exclude"), []byte("x.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantChangedAnswer(t, cache, root, "a", "whose exclude changed")
}

// wantChangedAnswer waits for the watcher's next answer, which must list the folder rel
// (what the test changed there is what); a busy watcher is asked again.
func wantChangedAnswer(t *testing.T, cache, root, rel, what string) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		ch, err := Sync(cache, root, "", time.Second)
		if err == nil {
			if !inTreeOrDirs(rel, ch) {
				t.Fatalf("the watcher answered without the folder %s: %+v", what, ch)
			}
			return
		}
		if time.Since(start) > 15*time.Second {
			t.Fatalf("the watcher never answered after the change: %v", err)
		}
	}
}

func inTreeOrDirs(rel string, ch *Changes) bool {
	for _, d := range append(ch.Dirs, ch.Trees...) {
		if d == rel || d == "" {
			return true
		}
	}
	return false
}

// An ignore file in the tree that is a link to one outside it (dotfiles): editing the
// target raises no event in the tree, so the watcher stamps the target, and an answer
// after the edit lists the folder whose files it now leaves out or lets in.
func TestWatcherSeesALinkedIgnoreFilesTarget(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "dot-ignore")
	if err := os.WriteFile(target, []byte("*.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{"a/y.md": "hay\n"})
	if err := os.Symlink(target, filepath.Join(root, "a", ".ignore")); err != nil {
		t.Fatal(err)
	}
	cache, _ := watchTree(t, root)
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(target, []byte("*.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantChangedAnswer(t, cache, root, "a", "whose linked ignore file changed")
}
