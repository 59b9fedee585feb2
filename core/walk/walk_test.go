package walk

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core/swaptest"
)

func tree(t *testing.T, files ...string) string {
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func collect(t *testing.T, root string, opt Options) ([]string, Stats) {
	var mu sync.Mutex
	var got []string
	st, err := Walk(context.Background(), root, opt, func(e *Entry) error {
		mu.Lock()
		got = append(got, e.Rel)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got, st
}

func TestFilters(t *testing.T) {
	dir := tree(t, "a.go", ".hidden", ".dot/x.go", "node_modules/m.js", "build/out.o", "pkg.egg-info/PKG",
		"src/b.go", "src/ignored.tmp", "src/gen/z.go", ".gitignore", ".git/config")
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.tmp\n/src/gen/\n"), 0o644)
	// build/ is not on the default skip list (it is a real source folder too often);
	// a .gitignore that names it hides it.
	got, _ := collect(t, dir, Options{})
	if want := "a.go build/out.o src/b.go"; strings.Join(got, " ") != want {
		t.Errorf("default walk: %q, want %q", got, want)
	}
	got, _ = collect(t, dir, Options{IncludeHidden: true, NoIgnore: true, SkipDirs: VCSDirs})
	want := ".dot/x.go .gitignore .hidden a.go build/out.o node_modules/m.js pkg.egg-info/PKG src/b.go src/gen/z.go src/ignored.tmp"
	if strings.Join(got, " ") != want {
		t.Errorf("everything walk: %q\nwant %q", got, want)
	}
	got, _ = collect(t, dir, Options{Explicit: []string{"node_modules"}})
	if strings.Join(got, " ") != "a.go build/out.o node_modules/m.js src/b.go" {
		t.Errorf("explicit node_modules: %q", got)
	}
	got, _ = collect(t, dir, Options{SkipDirs: ParseSkipDirs("+build")})
	if strings.Join(got, " ") != "a.go src/b.go" {
		t.Errorf("skip list extended with build: %q", got)
	}
	// Rooted in a subfolder: the parent .gitignore's anchored rule still applies.
	got, _ = collect(t, filepath.Join(dir, "src"), Options{})
	if strings.Join(got, " ") != "b.go" {
		t.Errorf("walk from src: %q", got)
	}
}

func TestParseSkipDirs(t *testing.T) {
	for in, want := range map[string]string{
		"":            strings.Join(DefaultSkipDirs, ","),
		"none":        "",
		"build, dist": "build,dist",
		"+build":      strings.Join(DefaultSkipDirs, ",") + ",build",
	} {
		got := ParseSkipDirs(in)
		if got == nil {
			got = DefaultSkipDirs
		}
		if strings.Join(got, ",") != want {
			t.Errorf("ParseSkipDirs(%q) = %q, want %q", in, got, want)
		}
	}
	if ParseSkipDirs("none") == nil {
		t.Error(`ParseSkipDirs("none") is nil, which means the default list, not an empty one`)
	}
}

func TestSymlinks(t *testing.T) {
	dir := tree(t, "d/f.go")
	os.Symlink(filepath.Join(dir, "d"), filepath.Join(dir, "d", "loop"))
	os.Symlink(filepath.Join(dir, "d", "f.go"), filepath.Join(dir, "link.go"))
	got, _ := collect(t, dir, Options{})
	if strings.Join(got, " ") != "d/f.go d/loop link.go" {
		t.Errorf("no-follow walk: %q (links are reported, not followed)", got)
	}
	got, _ = collect(t, dir, Options{Follow: true})
	if len(got) == 0 || len(got) > 4 {
		t.Errorf("follow walk with a loop: %q", got)
	}
	// Confinement: a followed link whose target is refused is left out.
	out := tree(t, "secret.txt")
	os.Symlink(out, filepath.Join(dir, "escape"))
	got, _ = collect(t, dir, Options{Follow: true, Confine: func(target string) bool { return strings.HasPrefix(target, dir) }})
	if strings.Contains(strings.Join(got, " "), "secret") {
		t.Errorf("a link out of the confined tree was followed: %q", got)
	}
	got, _ = collect(t, dir, Options{Follow: true})
	if !strings.Contains(strings.Join(got, " "), "escape/secret.txt") {
		t.Errorf("without Confine the link should be followed: %q", got)
	}
}

func TestBudgetAndCancel(t *testing.T) {
	var files []string
	for i := 0; i < 3000; i++ {
		files = append(files, filepath.Join("d"+string(rune('a'+i%20)), "f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+".go"))
	}
	dir := tree(t, files...)
	_, st := collect(t, dir, Options{Budget: time.Nanosecond})
	if !st.Truncated || !strings.Contains(st.Reason, "time budget") {
		t.Errorf("budget: %+v", st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st, err := Walk(ctx, dir, Options{}, func(*Entry) error { return nil })
	if err != nil || !st.Truncated || st.Reason != "cancelled" {
		t.Errorf("cancel: %+v %v", st, err)
	}
	n := 0
	var mu sync.Mutex
	st, err = Walk(context.Background(), dir, Options{Workers: 1}, func(*Entry) error {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 10 {
			return ErrStop
		}
		return nil
	})
	if err != nil || n > 12 {
		t.Errorf("ErrStop: n=%d err=%v", n, err)
	}
}

func TestMissingRoot(t *testing.T) {
	if _, err := Walk(context.Background(), filepath.Join(t.TempDir(), "nope"), Options{}, func(*Entry) error { return nil }); err == nil {
		t.Fatal("walking a missing root succeeded")
	}
}

// Denied sees where a path really is: a followed link to a refused file or folder,
// what lies below a followed folder link, and a root that is itself a link are left
// out and counted, since the rules name real paths.
func TestDeniedDecidesRealPaths(t *testing.T) {
	dir := tree(t, "sec/key.txt", "sec/sub/pw.txt", "src/a.txt")
	dir, _ = filepath.EvalSymlinks(dir)
	os.Symlink("../sec/key.txt", filepath.Join(dir, "src", "sl.txt"))
	os.Symlink("../sec", filepath.Join(dir, "src", "sldir"))
	os.Symlink("sub", filepath.Join(dir, "sec", "inner"))
	sec := filepath.Join(dir, "sec")
	denied := func(abs string, _ bool) bool { return abs == sec || strings.HasPrefix(abs, sec+"/") }

	got, st := collect(t, filepath.Join(dir, "src"), Options{Follow: true, Denied: denied})
	if strings.Join(got, ",") != "a.txt" || st.Denied != 2 {
		t.Fatalf("following links: got %v, denied %d; want [a.txt], denied 2", got, st.Denied)
	}
	got, st = collect(t, filepath.Join(dir, "src", "sldir"), Options{Denied: denied})
	if len(got) != 0 || st.Denied != 1 {
		t.Fatalf("a root that is a link: got %v, denied %d; want nothing, denied 1", got, st.Denied)
	}
	// Below a root reached through a link, a path is decided where it really is.
	open := func(abs string, _ bool) bool { return strings.HasPrefix(abs, filepath.Join(sec, "sub")+"/") }
	got, st = collect(t, filepath.Join(dir, "src", "sldir"), Options{Follow: true, Denied: open})
	if strings.Join(got, ",") != "key.txt" || st.Denied != 2 {
		t.Fatalf("below a linked root: got %v, denied %d; want [key.txt], denied 2 (sub/pw.txt, inner/pw.txt)", got, st.Denied)
	}
}

func TestUnlistableKeepsTheFirstPathsAndCountsAll(t *testing.T) {
	var a, b Unlistable
	denied := &fs.PathError{Op: "open", Path: "/t/x", Err: syscall.EACCES}
	for i := range MaxUnlistablePaths + 5 {
		a.Add(fmt.Sprintf("/t/a-%02d", MaxUnlistablePaths+5-i), denied)
	}
	b.Add("/t/a/x", &fs.PathError{Op: "open", Path: "/t/a/x", Err: syscall.ENAMETOOLONG})
	b.Merge(a)
	if b.Count != MaxUnlistablePaths+6 || len(b.Paths) != MaxUnlistablePaths {
		t.Fatalf("count %d, paths %d; want %d and %d", b.Count, len(b.Paths), MaxUnlistablePaths+6, MaxUnlistablePaths)
	}
	// Path order is a walk's: /t/a/x (inside /t/a) before /t/a-01, as ripgrep sorts.
	want := []string{"/t/a/x"}
	for i := range MaxUnlistablePaths - 1 {
		want = append(want, fmt.Sprintf("/t/a-%02d", i+1))
	}
	if !slices.Equal(b.Paths, want) {
		t.Fatalf("paths %v, want the first in path order %v", b.Paths, want)
	}
	if !slices.Equal(b.Why, []string{"file name too long", "permission denied"}) {
		t.Fatalf("reasons %q", b.Why)
	}
}

// A folder swapped for a link to a folder outside the tree while the tree is walked
// is never listed, nor is an entry's Info taken from outside: every folder is opened
// beneath the root (tree.go). A path-based walker lists the outside folder's names.
func TestSwappedFolderIsNotFollowed(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, f := range []string{filepath.Join(root, "d", "in.txt"), filepath.Join(outside, "d", "OUTSIDE.txt")} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte("x\n"), 0o644)
	}
	if err := os.Symlink(filepath.Join(outside, "d"), filepath.Join(root, "alt")); err != nil {
		t.Fatal(err)
	}
	defer swaptest.Loop(t, filepath.Join(root, "d"), filepath.Join(root, "alt"))()
	leaks := 0
	for range 400 {
		_, err := Walk(context.Background(), root, Options{Dirs: true}, func(e *Entry) error {
			if e.Name == "OUTSIDE.txt" {
				leaks++
			}
			if fi, err := e.D.Info(); err == nil && fi.Name() == "OUTSIDE.txt" {
				leaks++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if leaks > 0 {
		t.Fatalf("the walk listed the folder outside %d times", leaks)
	}
}
