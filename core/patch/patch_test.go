package patch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// memFS is an in-memory FS; failAt makes the n-th WriteFile/Remove call fail (1-based).
type memFS struct {
	files  map[string]string
	modes  map[string]fs.FileMode
	calls  int
	failAt int
}

func newMem(files map[string]string) *memFS {
	m := &memFS{files: map[string]string{}, modes: map[string]fs.FileMode{}}
	for k, v := range files {
		m.files[k] = v
		m.modes[k] = 0o644
	}
	return m
}

func (m *memFS) ReadFile(name string) ([]byte, fs.FileMode, error) {
	s, ok := m.files[name]
	if !ok {
		return nil, 0, fs.ErrNotExist
	}
	return []byte(s), m.modes[name], nil
}

func (m *memFS) step() error {
	m.calls++
	if m.calls == m.failAt {
		return errors.New("disk full")
	}
	return nil
}

func (m *memFS) WriteFile(name string, data []byte, mode fs.FileMode) error {
	if err := m.step(); err != nil {
		return err
	}
	m.files[name] = string(data)
	m.modes[name] = mode
	return nil
}

func (m *memFS) Remove(name string) error {
	if err := m.step(); err != nil {
		return err
	}
	if _, ok := m.files[name]; !ok {
		return fs.ErrNotExist
	}
	delete(m.files, name)
	return nil
}

func (m *memFS) snapshot() string {
	var keys []string
	for k := range m.files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "== %s\n%s", k, m.files[k])
	}
	return b.String()
}

func apply(t *testing.T, files map[string]string, patchText string) (*memFS, *Result, error) {
	t.Helper()
	m := newMem(files)
	p, err := Parse(patchText)
	if err != nil {
		return m, nil, err
	}
	r, err := Prepare(p, m)
	if err != nil {
		return m, nil, err
	}
	return m, r, r.Commit(m, CommitOptions{})
}

func mustApply(t *testing.T, files map[string]string, patchText string) (*memFS, *Result) {
	t.Helper()
	m, r, err := apply(t, files, patchText)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return m, r
}

func TestApplyPatchFormat(t *testing.T) {
	files := map[string]string{
		"a.go":     "package a\n\nfunc One() int {\n\treturn 1\n}\n\nfunc Two() int {\n\treturn 1\n}\n",
		"old.txt":  "x\ny\n",
		"gone.txt": "bye\n",
	}
	patchText := `*** Begin Patch
*** Update File: a.go
@@ func Two() int {
-	return 1
+	return 2
*** Add File: dir/new.txt
+hello
+world
*** Delete File: gone.txt
*** Update File: old.txt
*** Move to: moved.txt
 x
-y
+z
*** End Patch
`
	m, r := mustApply(t, files, patchText)
	want := map[string]string{
		"a.go":        "package a\n\nfunc One() int {\n\treturn 1\n}\n\nfunc Two() int {\n\treturn 2\n}\n",
		"dir/new.txt": "hello\nworld\n",
		"moved.txt":   "x\nz\n",
	}
	if got, w := m.snapshot(), newMem(want).snapshot(); got != w {
		t.Fatalf("got\n%s\nwant\n%s", got, w)
	}
	counts := []string{}
	for _, f := range r.Files {
		counts = append(counts, f.Summary())
	}
	wantCounts := "M a.go (+1 -1)|A dir/new.txt (+2 -0)|D gone.txt (+0 -1)|R old.txt -> moved.txt (+1 -1)"
	if got := strings.Join(counts, "|"); got != wantCounts {
		t.Errorf("summaries = %s, want %s", got, wantCounts)
	}
	if r.Files[0].Hunks[0].Line != 8 || r.Files[0].Hunks[0].Stage != StageExact {
		t.Errorf("hunk result = %+v, want line 8 exact", r.Files[0].Hunks[0])
	}
}

func TestAmbiguousWithoutContextHeader(t *testing.T) {
	files := map[string]string{"a.go": "func One() int {\n\treturn 1\n}\n\nfunc Two() int {\n\treturn 1\n}\n"}
	_, _, err := apply(t, files, "*** Begin Patch\n*** Update File: a.go\n@@\n-\treturn 1\n+\treturn 2\n*** End Patch\n")
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindAmbiguous {
		t.Fatalf("err = %v, want ambiguous", err)
	}
	if fmt.Sprint(pe.Candidates) != "[2 6]" || pe.Hunk != 1 {
		t.Errorf("candidates %v hunk %d", pe.Candidates, pe.Hunk)
	}
}

func TestStages(t *testing.T) {
	cases := []struct {
		name, file, old, add, want, stage string
	}{
		{"exact", "a\n  b\nc\n", " a\n-  b\n", "+  B", "a\n  B\nc\n", StageExact},
		{"trailing", "a  \nb\n", " a\n-b\n", "+B", "a  \nB\n", StageTrailing},
		{"leading", "\t\tif x {\n\t\t\ty()\n\t\t}\n", " if x {\n-\ty()\n", "+\tz()", "\t\tif x {\n\t\t\tz()\n\t\t}\n", StageLeading},
		{"unicode", "say(“hi” – now)\nnext\n", "-say(\"hi\" - now)\n", "+say(\"bye\")", "say(\"bye\")\nnext\n", StageUnicode},
		{"nbsp", "x\u00a0= 1\n", "-x = 1\n", "+x = 2", "x = 2\n", StageUnicode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, r := mustApply(t, map[string]string{"f": c.file},
				"*** Begin Patch\n*** Update File: f\n@@\n"+c.old+c.add+"\n*** End Patch")
			if m.files["f"] != c.want {
				t.Errorf("got %q want %q", m.files["f"], c.want)
			}
			if s := r.Files[0].Hunks[0].Stage; s != c.stage {
				t.Errorf("stage %s want %s", s, c.stage)
			}
		})
	}
}

func TestNoMatchReportsNearest(t *testing.T) {
	files := map[string]string{"f.txt": "one\ntwo\nthree\nfour\n"}
	_, _, err := apply(t, files, "*** Begin Patch\n*** Update File: f.txt\n@@\n two\n-THREE\n+3\n four\n*** End Patch")
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindNoMatch {
		t.Fatalf("err = %v", err)
	}
	if pe.Path != "f.txt" || pe.Hunk != 1 || pe.Nearest == nil || pe.Nearest.StartLine != 2 || pe.Nearest.Matching != 2 {
		t.Fatalf("error = %+v nearest %+v", pe, pe.Nearest)
	}
	if !strings.Contains(err.Error(), "     3\tthree") {
		t.Errorf("message lacks the nearest lines: %s", err)
	}
}

func TestAllOrNothingAcrossFiles(t *testing.T) {
	files := map[string]string{"a": "1\n", "b": "2\n"}
	m, _, err := apply(t, files, "*** Begin Patch\n*** Update File: a\n-1\n+one\n*** Update File: b\n-nope\n+two\n*** End Patch")
	if err == nil {
		t.Fatal("want an error")
	}
	if m.files["a"] != "1\n" || m.calls != 0 {
		t.Fatalf("a was written although b failed: %q (%d writes)", m.files["a"], m.calls)
	}
}

func TestRollbackOnWriteFailure(t *testing.T) {
	files := map[string]string{"a": "1\n", "b": "2\n", "c": "3\n"}
	text := "*** Begin Patch\n*** Update File: a\n-1\n+one\n*** Add File: n\n+new\n*** Update File: b\n-2\n+two\n*** Delete File: c\n*** End Patch"
	for failAt := 1; failAt <= 4; failAt++ {
		m := newMem(files)
		before := m.snapshot()
		p, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Prepare(p, m)
		if err != nil {
			t.Fatal(err)
		}
		m.failAt = failAt
		err = r.Commit(m, CommitOptions{Journal: filepath.Join(t.TempDir(), "j")})
		var pe *Error
		if !errors.As(err, &pe) || pe.Kind != KindIO {
			t.Fatalf("failAt %d: err = %v", failAt, err)
		}
		if got := m.snapshot(); got != before {
			t.Errorf("failAt %d: not rolled back:\n%s", failAt, got)
		}
	}
}

func TestConflictBetweenPrepareAndCommit(t *testing.T) {
	m := newMem(map[string]string{"a": "1\n"})
	p, _ := Parse("*** Begin Patch\n*** Update File: a\n-1\n+2\n*** End Patch")
	r, err := Prepare(p, m)
	if err != nil {
		t.Fatal(err)
	}
	m.files["a"] = "someone else\n"
	var pe *Error
	if err := r.Commit(m, CommitOptions{}); !errors.As(err, &pe) || pe.Kind != KindConflict {
		t.Fatalf("err = %v", err)
	}
	if m.files["a"] != "someone else\n" {
		t.Fatal("overwrote a concurrent change")
	}
}

func TestLineEndingsAndBOM(t *testing.T) {
	files := map[string]string{"w": "\ufeffa\r\nb\r\nc\r\n"}
	m, _ := mustApply(t, files, "*** Begin Patch\n*** Update File: w\n a\n-b\n+B\n+B2\n*** End Patch\n")
	if want := "\ufeffa\r\nB\r\nB2\r\nc\r\n"; m.files["w"] != want {
		t.Fatalf("got %q want %q", m.files["w"], want)
	}
	// A CRLF patch against an LF file keeps LF.
	m, _ = mustApply(t, map[string]string{"u": "a\nb\n"}, "*** Begin Patch\r\n*** Update File: u\r\n a\r\n-b\r\n+c\r\n*** End Patch\r\n")
	if m.files["u"] != "a\nc\n" {
		t.Fatalf("got %q", m.files["u"])
	}
	// No final newline stays absent.
	m, _ = mustApply(t, map[string]string{"n": "a\nb"}, "*** Begin Patch\n*** Update File: n\n a\n-b\n+c\n*** End Patch\n")
	if m.files["n"] != "a\nc" {
		t.Fatalf("got %q", m.files["n"])
	}
}

func TestEndOfFileAnchor(t *testing.T) {
	files := map[string]string{"f": "x\nend\nx\nend\n"}
	m, r := mustApply(t, files, "*** Begin Patch\n*** Update File: f\n@@\n x\n-end\n+END\n*** End of File\n*** End Patch")
	if m.files["f"] != "x\nend\nx\nEND\n" || r.Files[0].Hunks[0].Line != 3 {
		t.Fatalf("got %q %+v", m.files["f"], r.Files[0].Hunks)
	}
}

func TestUnifiedGitDiff(t *testing.T) {
	files := map[string]string{
		"a.txt":     "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
		"old name":  "keep\nme\n",
		"del.txt":   "d1\nd2\n",
		"noeol.txt": "p\nq",
	}
	diff := `diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
-1
+one
 2
 3
@@ -7,3 +7,4 @@ section
 7
 8
 9
+10
diff --git "a/old name" "b/new name"
similarity index 80%
rename from old name
rename to new name
--- "a/old name"
+++ "b/new name"
@@ -1,2 +1,2 @@
 keep
-me
+you
diff --git a/del.txt b/del.txt
deleted file mode 100644
index 3333333..0000000
--- a/del.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-d1
-d2
diff --git a/new.sh b/new.sh
new file mode 100755
index 0000000..4444444
--- /dev/null
+++ b/new.sh
@@ -0,0 +1,2 @@
+#!/bin/sh
+echo hi
\ No newline at end of file
diff --git a/noeol.txt b/noeol.txt
--- a/noeol.txt
+++ b/noeol.txt
@@ -1,2 +1,2 @@
 p
-q
\ No newline at end of file
+q
`
	m, r := mustApply(t, files, diff)
	want := map[string]string{
		"a.txt":     "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
		"new name":  "keep\nyou\n",
		"new.sh":    "#!/bin/sh\necho hi",
		"noeol.txt": "p\nq\n",
	}
	if got, w := m.snapshot(), newMem(want).snapshot(); got != w {
		t.Fatalf("got\n%s\nwant\n%s", got, w)
	}
	if m.modes["new.sh"] != 0o755 {
		t.Errorf("new.sh mode %v", m.modes["new.sh"])
	}
	if len(r.Files) != 5 || r.Files[2].Op != OpDelete || r.Files[2].Removed != 2 {
		t.Errorf("files %+v", r.Files)
	}
}

func TestUnifiedHintDisambiguates(t *testing.T) {
	files := map[string]string{"f": "a\nx\nb\na\nx\nb\n"}
	m, _ := mustApply(t, files, "--- f\n+++ f\n@@ -4,3 +4,3 @@\n a\n-x\n+y\n b\n")
	if m.files["f"] != "a\nx\nb\na\ny\nb\n" {
		t.Fatalf("got %q", m.files["f"])
	}
	// Without the hint at a matching place it is ambiguous.
	_, _, err := apply(t, files, "--- f\n+++ f\n@@ -9,3 +9,3 @@\n a\n-x\n+y\n b\n")
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindAmbiguous {
		t.Fatalf("err = %v", err)
	}
}

func TestParseErrorsNameLines(t *testing.T) {
	cases := map[string]string{
		"*** Begin Patch\n*** Update File: a\nbogus\n*** End Patch": "patch line 3",
		"*** Begin Patch\n*** Frobnicate: a\n":                      "patch line 2",
		"--- a\n+++ a\n@@ -1,2 +1,2 @@\n a\n":                       "ends early",
		"hello":                                                     "not a patch",
		"":                                                          "empty",
	}
	for in, want := range cases {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestAddExistingAndMissingFiles(t *testing.T) {
	var pe *Error
	_, _, err := apply(t, map[string]string{"a": "x\n"}, "*** Begin Patch\n*** Add File: a\n+y\n*** End Patch")
	if !errors.As(err, &pe) || pe.Kind != KindExists {
		t.Errorf("add existing: %v", err)
	}
	_, _, err = apply(t, nil, "*** Begin Patch\n*** Delete File: a\n*** End Patch")
	if !errors.As(err, &pe) || pe.Kind != KindNotFound {
		t.Errorf("delete missing: %v", err)
	}
}

func TestSequentialSectionsOnOneFile(t *testing.T) {
	m, _ := mustApply(t, map[string]string{"a": "1\n2\n"}, "*** Begin Patch\n*** Update File: a\n-1\n+one\n*** Update File: a\n-2\n+two\n*** End Patch")
	if m.files["a"] != "one\ntwo\n" {
		t.Fatalf("got %q", m.files["a"])
	}
}

func TestOSFSAndJournalRecovery(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fsys := OSFS{Dir: dir}
	p, _ := Parse("*** Begin Patch\n*** Update File: a\n-1\n+2\n*** Add File: sub/b\n+b\n*** End Patch")
	r, err := Prepare(p, fsys)
	if err != nil {
		t.Fatal(err)
	}
	// Simulate a crash after the journal and the first write: write the journal and file
	// "a" by hand, as Commit would have, then recover.
	journalPath := filepath.Join(dir, "state", "journal.json")
	if err := writeJournal(journalPath, r.writes); err != nil {
		t.Fatal(err)
	}
	if err := fsys.WriteFile("a", []byte("2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := Recover(journalPath, fsys)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "a"))
	if string(got) != "1\n" || len(rec.Restored) != 1 {
		t.Fatalf("a = %q, recovery %+v", got, rec)
	}
	fi, _ := os.Stat(filepath.Join(dir, "a"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if _, err := os.Stat(journalPath); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("journal left behind: %v", err)
	}
	// And the real commit works and removes its journal.
	if err := r.Commit(fsys, CommitOptions{Journal: journalPath}); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(filepath.Join(dir, "sub", "b"))
	if string(got) != "b\n" {
		t.Fatalf("b = %q", got)
	}
	if _, err := os.Stat(journalPath); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("journal left behind: %v", err)
	}
}

func TestRecoverLeavesForeignEdits(t *testing.T) {
	dir := t.TempDir()
	fsys := OSFS{Dir: dir}
	os.WriteFile(filepath.Join(dir, "a"), []byte("1\n"), 0o644)
	p, _ := Parse("*** Begin Patch\n*** Update File: a\n-1\n+2\n*** End Patch")
	r, _ := Prepare(p, fsys)
	j := filepath.Join(dir, "j")
	if err := writeJournal(j, r.writes); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a"), []byte("hand edit\n"), 0o644)
	rec, err := Recover(j, fsys)
	if err != nil || len(rec.Kept) != 1 {
		t.Fatalf("rec %+v err %v", rec, err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "a"))
	if string(got) != "hand edit\n" {
		t.Fatalf("a = %q", got)
	}
}

// canonFS names every file by its cleaned absolute form, like the applet's workspace FS.
type canonFS struct{ *memFS }

func (c canonFS) Canonical(name string) (string, error) {
	return "/w/" + strings.TrimPrefix(filepath.Clean("/"+name), "/"), nil
}

func TestCanonicalNamesMergeAliases(t *testing.T) {
	m := newMem(map[string]string{"/w/a": "1\n2\n"})
	p, _ := Parse("*** Begin Patch\n*** Update File: ./a\n-1\n+one\n*** Update File: a\n-2\n+two\n*** End Patch")
	r, err := Prepare(p, canonFS{m})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(canonFS{m}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if m.files["/w/a"] != "one\ntwo\n" || len(m.files) != 1 {
		t.Fatalf("files %v", m.files)
	}
}

// sweepFS records what Recover asks it to sweep.
type sweepFS struct {
	*memFS
	swept []string
}

func (s *sweepFS) SweepTemp(name string) error {
	s.swept = append(s.swept, name)
	return nil
}

// A kill in the middle of a commit can leave the temporary file of the write it was
// doing; Recover has the FS sweep the temporary files of every file of the commit,
// whether it restored the file, found it untouched or left it alone.
func TestRecoverSweepsTemporaryFiles(t *testing.T) {
	m := &sweepFS{memFS: newMem(map[string]string{"a": "1\n", "b": "1\n"})}
	p, _ := Parse("*** Begin Patch\n*** Update File: a\n-1\n+2\n*** Update File: b\n-1\n+2\n*** Add File: c\n+new\n*** End Patch")
	r, err := Prepare(p, m)
	if err != nil {
		t.Fatal(err)
	}
	j := filepath.Join(t.TempDir(), "j")
	if err := writeJournal(j, r.writes); err != nil {
		t.Fatal(err)
	}
	m.files["a"] = "2\n" // written before the kill; b and c were not
	if _, err := Recover(j, m); err != nil {
		t.Fatal(err)
	}
	slices.Sort(m.swept)
	if strings.Join(m.swept, ",") != "a,b,c" {
		t.Fatalf("swept %v, want a, b and c", m.swept)
	}
	if m.files["a"] != "1\n" {
		t.Fatalf("a = %q, want it restored", m.files["a"])
	}
}

// Diff paths (issue 17): a lone b/ (or a/) beside /dev/null is git's prefix even without
// a diff --git line, as git apply reads it; strip N is patch -pN.
func TestDiffPathStrip(t *testing.T) {
	cases := []struct {
		text  string
		strip int
		want  string
	}{
		{"--- /dev/null\n+++ b/new1.txt\n@@ -0,0 +1 @@\n+x\n", -1, "new1.txt"},
		{"--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n", -1, "gone.txt"},
		{"diff --git a/d/x.txt b/d/x.txt\n--- a/d/x.txt\n+++ b/d/x.txt\n@@ -1 +1 @@\n-a\n+b\n", -1, "d/x.txt"},
		{"--- a/d/x.txt\n+++ b/d/x.txt\n@@ -1 +1 @@\n-a\n+b\n", -1, "d/x.txt"},
		{"--- src/a.go\n+++ src/a.go\n@@ -1 +1 @@\n-a\n+b\n", -1, "src/a.go"},
		{"--- src/a.go\n+++ src/a.go\n@@ -1 +1 @@\n-a\n+b\n", 1, "a.go"},
		{"--- x/y/z/a.go\n+++ x/y/z/a.go\n@@ -1 +1 @@\n-a\n+b\n", 2, "z/a.go"},
		{"diff --git a/d/x.txt b/d/x.txt\n--- a/d/x.txt\n+++ b/d/x.txt\n@@ -1 +1 @@\n-a\n+b\n", 2, "x.txt"},
		{"--- /dev/null\n+++ b/new1.txt\n@@ -0,0 +1 @@\n+x\n", 0, "b/new1.txt"},
	}
	for _, c := range cases {
		p, err := ParseStrip(c.text, c.strip)
		if err != nil {
			t.Errorf("strip %d %q: %v", c.strip, c.text, err)
			continue
		}
		if got := p.Files[0].Target(); got != c.want {
			t.Errorf("strip %d %q: %q, want %q", c.strip, c.text, got, c.want)
		}
	}
}

// TestLeadingStageKeepsNesting: the stages that ignore leading whitespace accept the
// hunk's lines only at one uniform change of indentation (context lines included), so
// a hunk that nests a line differently from the file is no match, not an edit of
// another line.
func TestLeadingStageKeepsNesting(t *testing.T) {
	cases := []struct {
		name, file, hunk, want string // want "" for no match, the file untouched
	}{
		{"line the hunk puts inside the if", "if a:\n    x()\ny()\n", " if a:\n     x()\n-    y()\n+    z()", ""},
		{"line the hunk puts outside the if", "if a:\n    x()\n    y()\n", " if a:\n     x()\n-y()\n+z()", ""},
		{"nesting inverted", "def f():\n    if a:\n        x()\n", "         if a:\n-    x()\n+    y()", ""},
		{"uniform shift", "def f():\n    if a:\n        x()\n", " if a:\n-    x()\n+    y()", "def f():\n    if a:\n        y()\n"},
		{"spaces for tabs", "func f() {\n\tif a {\n\t\tx()\n\t}\n}\n", "     if a {\n-        x()\n+        y()", "func f() {\n\tif a {\n\t\ty()\n\t}\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _, err := apply(t, map[string]string{"f": c.file},
				"*** Begin Patch\n*** Update File: f\n@@\n"+c.hunk+"\n*** End Patch")
			switch {
			case c.want == "":
				var pe *Error
				if !errors.As(err, &pe) || pe.Kind != KindNoMatch {
					t.Fatalf("want no match, got %v", err)
				}
				if m.files["f"] != c.file {
					t.Errorf("file changed to %q", m.files["f"])
				}
			case err != nil:
				t.Fatal(err)
			case m.files["f"] != c.want:
				t.Errorf("got %q want %q", m.files["f"], c.want)
			}
		})
	}
}

// A `@@ -0,0` hunk describes an empty file: on a file with lines it is refused, as git
// apply refuses it, instead of putting its lines in front of the file's. With other
// hunks beside it (diff -U0) it is lines put before the first, and an empty file takes it.
func TestHunkForAnEmptyFile(t *testing.T) {
	files := map[string]string{"f": "1\n2\n3\n"}
	m, _, err := apply(t, files, "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+new1\n+new2\n")
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindConflict || !strings.Contains(pe.Msg, "3 lines") {
		t.Fatalf("err = %v", err)
	}
	if m.files["f"] != files["f"] {
		t.Fatalf("the file changed: %q", m.files["f"])
	}
	m, _ = mustApply(t, files, "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+top\n@@ -2 +3 @@\n-2\n+two\n")
	if m.files["f"] != "top\n1\ntwo\n3\n" {
		t.Fatalf("-U0 diff: got %q", m.files["f"])
	}
	m, _ = mustApply(t, map[string]string{"f": ""}, "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+new1\n+new2\n")
	if m.files["f"] != "new1\nnew2\n" {
		t.Fatalf("empty file: got %q", m.files["f"])
	}
}

// Hunks written out of order apply by their line numbers, as git apply takes them; a
// patch that applies as written is not reordered by wrong line numbers.
func TestHunksOutOfOrder(t *testing.T) {
	files := map[string]string{"f": "a\nb\nc\nd\ne\nf\ng\nh\n"}
	m, r := mustApply(t, files, "--- a/f\n+++ b/f\n@@ -6,3 +6,3 @@\n f\n-g\n+G\n h\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
	if m.files["f"] != "a\nB\nc\nd\ne\nf\nG\nh\n" {
		t.Fatalf("got %q", m.files["f"])
	}
	if h := r.Files[0].Hunks; len(h) != 2 || h[0].Line != 6 || h[1].Line != 1 {
		t.Fatalf("hunk results %+v, want them in the patch's order", h)
	}
	// Wrong numbers, right order: applied as written.
	m, _ = mustApply(t, files, "--- a/f\n+++ b/f\n@@ -7,3 +7,3 @@\n a\n-b\n+B\n c\n@@ -1,3 +1,3 @@\n f\n-g\n+G\n h\n")
	if m.files["f"] != "a\nB\nc\nd\ne\nf\nG\nh\n" {
		t.Fatalf("got %q", m.files["f"])
	}
	// Overlapping hunks apply in neither order.
	_, _, err := apply(t, files, "--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n c\n-d\n+D\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n")
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != KindNoMatch || pe.Hunk != 2 {
		t.Fatalf("overlap: err = %v", err)
	}
}

// reachFS is an OSFS that reaches only the files under its folder (one workspace).
type reachFS struct{ OSFS }

func (r reachFS) Reaches(path string) bool {
	return strings.HasPrefix(r.abs(path), r.Dir+string(filepath.Separator))
}

// A journal of a patch killed in another workspace (the journals are shared) is left
// for a call there: a call here neither fails on it nor rolls back half of it (red team:
// every write in every other workspace failed until someone wrote in the first).
func TestRecoverLeavesOtherWorkspacesJournals(t *testing.T) {
	here, there := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(there, "a"), []byte("1\n"), 0o644)
	p, _ := Parse("*** Begin Patch\n*** Update File: a\n-1\n+2\n*** End Patch")
	r, err := Prepare(p, OSFS{Dir: there})
	if err != nil {
		t.Fatal(err)
	}
	j := Journals{Dir: t.TempDir()}
	journalPath := filepath.Join(j.Dir, "x"+journalSuffix)
	for i := range r.writes {
		r.writes[i].path = filepath.Join(there, r.writes[i].path)
	}
	if err := writeJournal(journalPath, r.writes); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(there, "a"), []byte("2\n"), 0o644) // killed after the write
	rec, err := j.RecoverAll(context.Background(), reachFS{OSFS{Dir: here}})
	if err != nil || !rec.Elsewhere || len(rec.Restored) != 0 {
		t.Fatalf("recovery from another workspace: %+v, %v", rec, err)
	}
	if _, err := os.Stat(journalPath); err != nil {
		t.Fatalf("the other workspace's journal was removed: %v", err)
	}
	rec, err = j.RecoverAll(context.Background(), reachFS{OSFS{Dir: there}})
	if got, _ := os.ReadFile(filepath.Join(there, "a")); err != nil || string(got) != "1\n" || len(rec.Restored) != 1 {
		t.Fatalf("recovery in its own workspace: %+v, %v, a = %q", rec, err, got)
	}
}

// A journal's temporary file a killed commit left half-written is removed by the next
// recovery; other files in the folder stay (red team: killed patches left 74 MB).
func TestRecoverRemovesHalfWrittenJournals(t *testing.T) {
	j := Journals{Dir: t.TempDir()}
	temp := filepath.Join(j.Dir, ".20261127T120144-0011223344556677"+journalSuffix+"2955093532336366171")
	other := filepath.Join(j.Dir, ".keep"+journalSuffix+"x1")
	for _, f := range []string{temp, other} {
		if err := os.WriteFile(f, []byte(`{"half":`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := j.RecoverAll(context.Background(), OSFS{Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(temp); err == nil {
		t.Error("the half-written journal is still there")
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another file was removed: %v", err)
	}
}
