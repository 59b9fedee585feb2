package patch

import "testing"

// FuzzParse feeds arbitrary text to the parser and, when it parses, applies it to a small
// in-memory tree: nothing may panic, errors must be *ParseError or *Error, and a
// successful Prepare must produce a Result whose files are consistent with the patch.
func FuzzParse(f *testing.F) {
	f.Add(crashPatch, "1\n2\n3\n")
	f.Add("*** Begin Patch\n*** Update File: a\n@@ func x\n context\n-old\n+new\n*** End of File\n*** End Patch\n", "func x\n context\nold\n")
	f.Add("*** Begin Patch\n*** Add File: b\n+x\n*** Delete File: a\n*** End Patch", "a\n")
	f.Add("*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-1\n+2\n*** End Patch", "1\r\n")
	f.Add("diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,2 +1,2 @@\n 1\n-2\n\\ No newline at end of file\n+two\n", "1\n2")
	f.Add("diff --git \"a/x y\" \"b/a\"\nrename from x y\nrename to a\n", "")
	f.Add("--- /dev/null\n+++ b/c\n@@ -0,0 +1 @@\n+c\n", "")
	f.Add("--- a\t2020-01-01\n+++ a\t2020-01-02\n@@ -3 +3,0 @@\n-3\n", "1\n2\n3\n")
	f.Fuzz(func(t *testing.T, text, content string) {
		p, err := Parse(text)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("Parse error of type %T: %v", err, err)
			}
			return
		}
		if len(p.Files) == 0 {
			t.Fatal("Parse succeeded with no files")
		}
		m := newMem(map[string]string{"a": content, "x y": content})
		r, err := Prepare(p, m)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Prepare error of type %T: %v", err, err)
			}
			return
		}
		if len(r.Files) != len(p.Files) {
			t.Fatalf("%d results for %d files", len(r.Files), len(p.Files))
		}
		if err := r.Commit(m, CommitOptions{}); err != nil {
			t.Fatalf("Commit on a memory FS failed: %v", err)
		}
		for _, f := range r.Files {
			if f.Op == OpDelete {
				continue
			}
			// The last section writing a path wins; only check paths written once.
			once := 0
			for _, g := range r.Files {
				if g.Target() == f.Target() || g.Path == f.Target() {
					once++
				}
			}
			if got, ok := m.files[f.Target()]; once == 1 && (!ok || got != string(f.New)) {
				t.Fatalf("%s: committed %q, prepared %q", f.Target(), got, f.New)
			}
		}
	})
}
