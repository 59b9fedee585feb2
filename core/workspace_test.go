package core

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func realTemp(t *testing.T) string {
	d := t.TempDir()
	r, err := filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolveConfinement(t *testing.T) {
	base := realTemp(t)
	root := filepath.Join(base, "proj")
	sibling := filepath.Join(base, "proj-secrets")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, sibling, outside, filepath.Join(root, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.WriteFile(filepath.Join(sibling, "key"), []byte("k"), 0o644)
	os.Symlink(outside, filepath.Join(root, "escape"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "secret-link"))
	ws := NewWorkspace(root)
	defer ws.Close()

	inside := []string{"a.txt", "sub/../b.txt", filepath.Join(root, "sub", "c"), "."}
	for _, p := range inside {
		if _, err := ws.Resolve(root, p); err != nil {
			t.Errorf("Resolve(%q) = %v, want inside", p, err)
		}
	}
	lexicallyOutside := []string{"../outside/secret", filepath.Join(sibling, "key"), "/etc/passwd", "sub/../../proj-secrets/key"}
	for _, p := range lexicallyOutside {
		_, err := ws.Resolve(root, p)
		if err == nil || AsError(err).Code != CodeOutsideWorkspace {
			t.Errorf("Resolve(%q) = %v, want outside_workspace", p, err)
		}
	}
	// Symlinks that lead out are outside_workspace at once (issue 15), and os.Root
	// refuses them too should a link change after Resolve.
	for _, p := range []string{"escape/secret", "secret-link", "escape"} {
		if _, err := ws.Resolve(root, p); err == nil || AsError(err).Code != CodeOutsideWorkspace {
			t.Errorf("Resolve(%q) = %v, want outside_workspace", p, err)
		}
		path := Path{Abs: filepath.Join(root, p), Root: root, Rel: p}
		if _, _, err := ws.OpenRegular(path); err == nil || AsError(err).Code != CodeOutsideWorkspace {
			t.Errorf("OpenRegular(%q) = %v, want outside_workspace", p, err)
		}
		if _, err := ws.WriteAtomic(path, []byte("x"), WriteOptions{}); err == nil || AsError(err).Code != CodeOutsideWorkspace {
			t.Errorf("WriteAtomic(%q) = %v, want outside_workspace", p, err)
		}
	}
	// An absolute symlink whose target is inside the root works like a relative one.
	os.WriteFile(filepath.Join(root, "sub", "in.txt"), []byte("in"), 0o644)
	os.Symlink(filepath.Join(root, "sub", "in.txt"), filepath.Join(root, "abs-link"))
	os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "abs-dir"))
	for _, p := range []string{"abs-link", "abs-dir/in.txt"} {
		path, err := ws.Resolve(root, p)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", p, err)
		}
		f, _, err := ws.OpenRegular(path)
		if err != nil {
			t.Errorf("OpenRegular(%q): %v", p, err)
			continue
		}
		f.Close()
		if _, err := ws.WriteAtomic(path, []byte("in2"), WriteOptions{}); err != nil {
			t.Errorf("WriteAtomic(%q): %v", p, err)
		}
	}
	if fi, _ := os.Lstat(filepath.Join(root, "abs-link")); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the absolute link was replaced by a file")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s" {
		t.Fatalf("the file outside the workspace was changed: %q", b)
	}
}

func TestWriteAtomic(t *testing.T) {
	root := realTemp(t)
	ws := NewWorkspace(root)
	defer ws.Close()
	p, _ := ws.Resolve(root, "new/dir/file.txt")
	info, err := ws.WriteAtomic(p, []byte("one"), WriteOptions{CreateDirs: true})
	if err != nil || !info.Created {
		t.Fatalf("create: %+v %v", info, err)
	}
	os.Chmod(p.Abs, 0o750)
	info, err = ws.WriteAtomic(p, []byte("two"), WriteOptions{})
	if err != nil || info.Created {
		t.Fatalf("overwrite: %+v %v", info, err)
	}
	fi, _ := os.Stat(p.Abs)
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, want the existing 0750 kept", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(p.Abs); string(b) != "two" {
		t.Errorf("content = %q", b)
	}
	// A symlink is written through, and stays a symlink.
	os.Symlink("new/dir/file.txt", filepath.Join(root, "link"))
	lp, _ := ws.Resolve(root, "link")
	info, err = ws.WriteAtomic(lp, []byte("three"), WriteOptions{})
	if err != nil || info.Target.Abs != p.Abs {
		t.Fatalf("through link: %+v %v", info, err)
	}
	if fi, _ := os.Lstat(filepath.Join(root, "link")); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(p.Abs); string(b) != "three" {
		t.Errorf("target content = %q", b)
	}
	// Directories are refused; missing parents without CreateDirs are refused.
	dp, _ := ws.Resolve(root, "new")
	if _, err := ws.WriteAtomic(dp, []byte("x"), WriteOptions{}); AsError(err).Code != CodeIsDirectory {
		t.Errorf("directory: %v", err)
	}
	mp, _ := ws.Resolve(root, "missing/x")
	if _, err := ws.WriteAtomic(mp, []byte("x"), WriteOptions{}); AsError(err).Code != CodeNotFound {
		t.Errorf("missing parent: %v", err)
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Join(root, "new", "dir"))
	for _, e := range entries {
		if strings.Contains(e.Name(), TempMarker) {
			t.Errorf("leftover temp file %s", e.Name())
		}
	}
}

func TestOpenRegularRefusesFIFO(t *testing.T) {
	root := realTemp(t)
	fifo := filepath.Join(root, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	ws := NewWorkspace(root)
	defer ws.Close()
	p, _ := ws.Resolve(root, "pipe")
	_, _, err := ws.OpenRegular(p) // must return at once, not block waiting for a writer
	if err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Fatalf("got %v", err)
	}
	dp, _ := ws.Resolve(root, ".")
	if _, _, err := ws.OpenRegular(dp); AsError(err).Code != CodeIsDirectory {
		t.Fatalf("directory: %v", err)
	}
}

// SweepTemp removes the temporary file a killed WriteAtomic of that file left, and
// nothing else.
func TestSweepTemp(t *testing.T) {
	root := realTemp(t)
	ws := NewWorkspace(root)
	defer ws.Close()
	p, _ := ws.Resolve(root, "dir/a.txt")
	if _, err := ws.WriteAtomic(p, []byte("a"), WriteOptions{CreateDirs: true}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "dir")
	for _, name := range []string{tempName("a.txt"), tempName("b.txt")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("left by a killed writer"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := ws.SweepTemp(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, tempName("a.txt"))); !os.IsNotExist(err) {
		t.Errorf("a.txt's temporary file survived the sweep: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, tempName("b.txt"))); err != nil {
		t.Errorf("b.txt's temporary file was swept with a.txt's: %v", err)
	}
	if b, _ := os.ReadFile(p.Abs); string(b) != "a" {
		t.Errorf("a.txt = %q", b)
	}
	missing, _ := ws.Resolve(root, "nowhere/x.txt")
	if err := ws.SweepTemp(missing); err != nil {
		t.Errorf("sweeping in a missing directory: %v", err)
	}
}

// TestFileOnThePathIsNamed: a path through a file ("a.txt/sub") is refused naming the
// file that is in the way, for reads and writes (it was "statat a.txt/sub: not a
// directory", or os.Root's "open …: not a directory").
func TestFileOnThePathIsNamed(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := NewWorkspace(d)
	defer w.Close()
	for _, rel := range []string{"a.txt/sub", "a.txt/sub/deeper"} {
		p, err := w.Resolve(d, filepath.Join(d, rel))
		if err != nil {
			t.Fatal(err)
		}
		_, werr := w.WriteAtomic(p, []byte("y"), WriteOptions{CreateDirs: true})
		_, rerr := w.ReadFile(p)
		for _, err := range []error{werr, rerr} {
			e := AsError(err)
			if e == nil || e.Code != CodeNotFound || !strings.Contains(e.Message, filepath.Join(d, "a.txt")+" is a file, not a folder") {
				t.Errorf("%s: %v", rel, err)
			}
		}
	}
}

// A name whose bytes are not UTF-8 is listed with U+FFFD for each such byte: the path a
// model copies from the listing names that file, folders included; names it cannot
// tell apart are refused, never guessed, also when one of them really holds U+FFFD.
func TestNamesAsShown(t *testing.T) {
	base := realTemp(t)
	root := filepath.Join(base, "proj")
	outside := filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(root, "dir\xff"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"dir\xff/a\xe9.txt", "two\xfe.txt", "two\xff.txt", "lit\ufffd.txt", "lit\xff.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "s\xff"), nil, 0o644)
	w := NewWorkspace(root)
	defer w.Close()
	for _, c := range []struct{ in, want, code string }{
		{"dir\ufffd/a\ufffd.txt", "dir\xff/a\xe9.txt", ""},
		{"lit\ufffd.txt", "", "invalid_params"},      // exists as written, and lit\xff.txt shows alike
		{"new\ufffd.txt", "new\ufffd.txt", ""},       // to be created
		{"dir\ufffd/new.txt", "dir\xff/new.txt", ""}, // created in the shown folder
		{"two\ufffd.txt", "", "invalid_params"},
		{filepath.Join(outside, "s\ufffd"), "", "outside_workspace"},
	} {
		p, err := w.Resolve(root, c.in)
		if c.code != "" {
			if err == nil || string(AsError(err).Code) != c.code {
				t.Errorf("%q: got %+v, %v; want %s", c.in, p, err, c.code)
			}
			continue
		}
		if err != nil || p.Rel != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.in, p.Rel, err, c.want)
		}
	}
}

// An MCP client's roots may narrow pinned roots (a calling agentbox's) but not widen
// them (red team: a nested agentbox mcp, offered roots file:/// by a script the model
// ran, wrote outside the workspace); a file URI naming another host is no local folder.
// ResolveEntry (patch's delete and move) matches the last part as listings show names
// too: names that show alike are refused, one that does is taken (red team: a delete of
// a\ufffd.txt removed the real U+FFFD file beside a\xff.txt).
func TestResolveEntryNamesAsShown(t *testing.T) {
	root := realTemp(t)
	for _, f := range []string{"a\ufffd.txt", "a\xff.txt", "b\xfe.txt"} {
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
	w := NewWorkspace(root)
	defer w.Close()
	if _, _, _, err := w.ResolveEntry(root, "a\ufffd.txt"); err == nil || AsError(err).Code != CodeInvalidParams {
		t.Errorf("two names shown alike: %v", err)
	}
	if p, _, _, err := w.ResolveEntry(root, "b\ufffd.txt"); err != nil || p.Rel != "b\xfe.txt" {
		t.Errorf("one name shown alike: %q %v", p.Rel, err)
	}
}

func TestClientRootsWithinTheHosts(t *testing.T) {
	base := realTemp(t)
	proj, sub, other := filepath.Join(base, "proj"), filepath.Join(base, "proj", "sub"), filepath.Join(base, "other")
	for _, d := range []string{sub, other} {
		os.MkdirAll(d, 0o755)
	}
	host := NewWorkspace(proj).WithExplicitRoots(true)
	if ws := host.Within(WorkspaceFromURIs([]string{"file:///", "file://" + sub})); ws == nil || len(ws.Roots) != 1 || ws.Roots[0] != sub {
		t.Errorf("client roots / and sub within proj: %+v", ws)
	}
	if ws := host.Within(WorkspaceFromURIs([]string{"file:///", "file://" + other})); ws != nil {
		t.Errorf("client roots outside proj widened the workspace: %+v", ws.Roots)
	}
	if ws := NewWorkspace(proj).Within(WorkspaceFromURIs([]string{"file://" + other})); ws == nil || ws.Roots[0] != other {
		t.Errorf("without pinned roots, the client's are the workspace: %+v", ws)
	}
	if ws := WorkspaceFromURIs([]string{"file://evil" + proj}); ws != nil {
		t.Errorf("a file URI of another host was taken as local: %+v", ws.Roots)
	}
	if ws := WorkspaceFromURIs([]string{"file://localhost" + proj}); ws == nil {
		t.Error("file://localhost/... is local")
	}
}
