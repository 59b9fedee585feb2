package patch

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Added lines take the endings of the lines they replace, paired in order as GNU patch
// keeps them; added lines beyond those take the ending of the nearest replaced or
// context line. Pure LF and pure CRLF files are pinned: they come out as before.
func TestMixedEndingsPatch(t *testing.T) {
	cases := []struct{ name, file, patch, want string }{
		{name: "replaced lines keep their endings", file: "a\r\nb\nc\r\nd\ne\r\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n-b\n-c\n-d\n+B\n+C\n+D\n e\n",
			want:  "a\r\nB\nC\r\nD\ne\r\n"},
		{name: "same in apply_patch format", file: "a\r\nb\nc\r\nd\ne\r\n",
			patch: "*** Begin Patch\n*** Update File: f\n a\n-b\n-c\n-d\n+B\n+C\n+D\n e\n*** End Patch\n",
			want:  "a\r\nB\nC\r\nD\ne\r\n"},
		{name: "more added than removed", file: "a\nb\r\nc\n",
			patch: "*** Begin Patch\n*** Update File: f\n a\n-b\n+B\n+B2\n c\n*** End Patch\n",
			want:  "a\nB\r\nB2\r\nc\n"},
		{name: "fewer added than removed", file: "a\nb\r\nc\nd\r\n",
			patch: "*** Begin Patch\n*** Update File: f\n a\n-b\n-c\n+B\n d\n*** End Patch\n",
			want:  "a\nB\r\nd\r\n"},
		{name: "added only: the line above", file: "a\r\nb\nc\n",
			patch: "*** Begin Patch\n*** Update File: f\n a\n+X\n b\n*** End Patch\n",
			want:  "a\r\nX\r\nb\nc\n"},
		{name: "added at the top: the line below", file: "a\r\nb\nc\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n+X\n a\n b\n",
			want:  "X\r\na\r\nb\nc\n"},
		{name: "two runs in one hunk", file: "a\nb\r\nc\nd\r\ne\n",
			patch: "*** Begin Patch\n*** Update File: f\n a\n-b\n+B\n c\n-d\n+D\n e\n*** End Patch\n",
			want:  "a\nB\r\nc\nD\r\ne\n"},
		{name: "last line without an ending replaced by two", file: "a\r\nb\nc",
			patch: "*** Begin Patch\n*** Update File: f\n b\n-c\n+C\n+D\n*** End Patch\n",
			want:  "a\r\nb\nC\nD"},
		{name: "last line gains an ending", file: "a\r\nb\r\nc\nd",
			patch: "--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n c\n-d\n\\ No newline at end of file\n+d\n",
			want:  "a\r\nb\r\nc\nd\n"},
		{name: "lines after a last line without an ending", file: "a\r\nb\nc",
			patch: "--- a/f\n+++ b/f\n@@ -2,2 +2,3 @@\n b\n-c\n\\ No newline at end of file\n+c\n+d\n",
			want:  "a\r\nb\nc\nd\n"},
		{name: "pure LF", file: "a\nb\nc\n",
			patch: "*** Begin Patch\n*** Update File: f\n a\n-b\n+B\n+B2\n c\n*** End Patch\n",
			want:  "a\nB\nB2\nc\n"},
		{name: "pure CRLF", file: "a\r\nb\r\nc",
			patch: "*** Begin Patch\n*** Update File: f\n a\n-b\n+B\n+B2\n c\n*** End Patch\n",
			want:  "a\r\nB\r\nB2\r\nc"},
		{name: "pure CRLF, gaining a final ending", file: "a\r\nb",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
			want:  "a\r\nb\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := mustApply(t, map[string]string{"f": c.file}, c.patch)
			if got := m.files["f"]; got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestMixedEndingsGNUPatch edits files of mixed endings at random the way GNU patch keeps
// endings (a replacing line takes the ending of the line it replaces, in order; a line
// beyond those takes the nearest one's), takes `diff -u` of the edit, and applies it
// with GNU patch and with this package, both of which must give the edited file. GNU
// patch applies the diff's bytes as they are; this package drops a patch's CRs (models
// write LF) and must put them back from the file.
func TestMixedEndingsGNUPatch(t *testing.T) {
	for _, tool := range []string{"diff", "patch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; skipping the comparison with GNU patch", tool)
		}
	}
	if out, _ := exec.Command("patch", "--version").Output(); !bytes.Contains(out, []byte("GNU patch")) {
		t.Skip("patch is not GNU patch; skipping the comparison with it")
	}
	dir := t.TempDir()
	for seed := range 30 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		type ln struct{ text, eol string }
		var old []ln
		for i := range 8 + r.IntN(20) {
			eol := "\n"
			if r.IntN(2) == 0 {
				eol = "\r\n"
			}
			old = append(old, ln{fmt.Sprintf("o%d", i), eol})
		}
		var edited []ln
		added := 0
		for i := 0; i < len(old); {
			if r.IntN(4) != 0 || i == 0 { // keep a line (and the first, so a run has a line above)
				edited = append(edited, old[i])
				i++
				continue
			}
			rm := min(r.IntN(4), len(old)-i)
			n := r.IntN(4)
			if rm == 0 && n == 0 {
				n = 1
			}
			for j := range n {
				e := old[i-1].eol // only added: the line above
				switch {
				case j < rm:
					e = old[i+j].eol
				case rm > 0:
					e = old[i+rm-1].eol
				}
				edited = append(edited, ln{fmt.Sprintf("n%d", added), e})
				added++
			}
			i += rm
			if i < len(old) { // a kept line between runs, so each run is one
				edited = append(edited, old[i])
				i++
			}
		}
		join := func(ls []ln) string {
			var b strings.Builder
			for _, l := range ls {
				b.WriteString(l.text + l.eol)
			}
			return b.String()
		}
		before, after := join(old), join(edited)
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		if err := os.WriteFile(a, []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b, []byte(after), 0o644); err != nil {
			t.Fatal(err)
		}
		diff, _ := exec.Command("diff", "-u", "--label", "a/f", "--label", "b/f", a, b).Output()
		if len(diff) == 0 {
			continue
		}
		cmd := exec.Command("patch", "-s", "-o", "-", a)
		cmd.Stdin = bytes.NewReader(diff)
		gnu, err := cmd.Output()
		if err != nil {
			t.Fatalf("seed %d: GNU patch: %v", seed, err)
		}
		m, _ := mustApply(t, map[string]string{"f": before}, string(diff))
		if string(gnu) != after || m.files["f"] != after {
			t.Errorf("seed %d: diff\n%s\nGNU patch %q\nagentbox  %q\nwant      %q", seed, diff, gnu, m.files["f"], after)
		}
	}
}
