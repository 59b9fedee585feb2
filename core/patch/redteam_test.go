package patch

import (
	"strings"
	"testing"
)

// TestRedTeamPatchesApplyAsGitOrNotAtAll holds the cases a red team found applying
// wrongly (a generator of random files and diffs, each applied by agentbox and by git
// apply or GNU patch): every one now gives git's bytes or a refusal that leaves the
// files as they were. want "" expects a refusal; "<absent>" a deleted file.
func TestRedTeamPatchesApplyAsGitOrNotAtAll(t *testing.T) {
	const bom = "\ufeff"
	cases := []struct {
		name, file, patch, want, errHas string
		mode                            uint32
	}{
		{name: "a file of lone CR line endings is refused, saying why (no hunk could match its one LF line)",
			file:   "a\rb\rc\r",
			patch:  "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n*** End Patch\n",
			errHas: "lone CR"},
		// Session 36's red team: a hunk whose both sides claim no final newline, on a
		// file that has one, dropped it. The hunk does not change the ending (git
		// refuses it for its wrong claim): the file keeps it.
		{name: "both sides without a final newline, on a file with one: the newline stays",
			file:  "1\n2\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n 1\n-2\n\\ No newline at end of file\n+3\n\\ No newline at end of file\n",
			want:  "1\n3\n"},
		{name: "a hunk that removes the final newline removes it",
			file:  "1\n2\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n 1\n-2\n+3\n\\ No newline at end of file\n",
			want:  "1\n3"},
		{name: "a hunk without markers on a file without a final newline keeps it without",
			file:  "1\n2",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n 1\n-2\n+3\n",
			want:  "1\n3"},
		{name: "a hunk that adds the final newline adds it",
			file:  "1\n2",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n 1\n-2\n\\ No newline at end of file\n+3\n",
			want:  "1\n3\n"},
		{name: "a context line reading *** End Patch is a line, not the end",
			file:  "one\n*** End Patch\ntwo\nthree\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-one\n+ONE\n *** End Patch\n two\n-three\n+THREE\n*** End Patch\n",
			want:  "ONE\n*** End Patch\ntwo\nTHREE\n"},
		{name: "nor is one reading *** End of File",
			file:  "a\n*** End of File\nb\nc\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n a\n *** End of File\n b\n-c\n+C\n*** End Patch\n",
			want:  "a\n*** End of File\nb\nC\n"},
		{name: "an indented end marker as the last line still ends the patch",
			file:  "a\nb\n",
			patch: "*** Begin Patch\n*** Update File: f\n-a\n+A\n *** End Patch\n",
			want:  "A\nb\n"},
		{name: "lines past a hunk's counts are refused, not dropped",
			file:   "a\nb\nc\nd\n",
			patch:  "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n-c\n+C\n d\n",
			errHas: "more lines than its header"},
		{name: "a git diff's BOM on line 1 is the line's: changed once, not twice",
			file:  bom + "    x = 1;\nb\n",
			patch: "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n-" + bom + "    x = 1;\n+" + bom + "    x = 2;\n b\n+c\n",
			want:  bom + "    x = 2;\nb\nc\n"},
		{name: "a git diff that removes the BOM removes it",
			file:  bom + "a\nb\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-" + bom + "a\n+a\n b\n",
			want:  "a\nb\n"},
		{name: "a line inserted above line 1 of a BOM file takes the BOM's place, as git",
			file:  bom + "a\nb\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n+top\n " + bom + "a\n b\n",
			want:  "top\n" + bom + "a\nb\n"},
		{name: "a model's hunk without the BOM keeps it in front",
			file:  bom + "a\nb\n",
			patch: "*** Begin Patch\n*** Update File: f\n-a\n+A\n b\n*** End Patch\n",
			want:  bom + "A\nb\n"},
		{name: "a diff converting CRLF to LF converts it",
			file:  "a\r\nb\r\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\r\n-b\r\n+a\n+b\n",
			want:  "a\nb\n"},
		{name: "a model's LF hunk on a CRLF file keeps CRLF",
			file:  "a\r\nb\r\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n",
			want:  "A\r\nb\r\n"},
		{name: "a patch sent with CRLF endings says nothing of the file's",
			file:  "a\nb\n",
			patch: "--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n-a\r\n+A\r\n b\r\n",
			want:  "A\nb\n"},
		{name: "an old side without a final newline is the file's end",
			file:  "x\nx",
			patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n",
			want:  "x\ny"},
		{name: "a hunk with no trailing context goes at the end where it also matches there",
			file:  "a\nb\nc\nX\na\nb\nc\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n b\n c\n+END\n",
			want:  "a\nb\nc\nX\na\nb\nc\nEND\n"},
		{name: "a git deletion of an empty file does not delete a full one",
			file:   "important\n",
			patch:  "diff --git a/f b/f\ndeleted file mode 100644\nindex e69de29..0000000\n",
			errHas: "as an empty one"},
		{name: "diff -N's epoch-dated side deletes the file",
			file:  "x\ny\n",
			patch: "--- a/f\t2026-11-27 00:46:18.457730391 +0000\n+++ b/f\t1970-01-01 00:00:00.000000000 +0000\n@@ -1,2 +0,0 @@\n-x\n-y\n",
			want:  "<absent>"},
		{name: "deleting the last line of a file without a final newline keeps the blank line above",
			file:  "a\n\nb",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n a\n \n-b\n*** End of File\n*** End Patch\n",
			want:  "a\n\n"},
		{name: "removing a file's last lines leaves it without a final newline, as it was",
			file:  "a\nb\nc",
			patch: "*** Begin Patch\n*** Update File: f\n a\n-b\n-c\n*** End of File\n*** End Patch\n",
			want:  "a"},
		{name: "a CRLF diff applied to a copy converted to LF keeps the copy's LF",
			file:  "a\nb\nc\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n",
			want:  "a\nB\nc\n"},
		{name: "an @@ header keeps its indentation: the nested line it names, not the first",
			file:  "if a:\n    x = 1\ndef f():\n    if a:\n        x = 1\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@     if a:\n-        x = 1\n+        x = 2\n*** End Patch\n",
			want:  "if a:\n    x = 1\ndef f():\n    if a:\n        x = 2\n"},
		{name: "removing a CRLF file's last lines keeps the ending of the line left last",
			file:  "a\r\nb\r\nc",
			patch: "--- a/f\n+++ b/f\n@@ -2,2 +1,0 @@\n-b\r\n-c\n\\ No newline at end of file\n",
			want:  "a\r\n"},
		{name: "a context line left last keeps its own ending in a file of mixed endings",
			file:  "x\ny\na\r\nb",
			patch: "--- a/f\n+++ b/f\n@@ -3,2 +3 @@\n a\n-b\n\\ No newline at end of file\n",
			want:  "x\ny\na\r\n"},
		{name: "a no-newline marker in the middle of a hunk is refused",
			file:   "a\nb\nc\n",
			patch:  "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n\\ No newline at end of file\n c\n",
			errHas: "middle of a hunk"},
		{name: "a hunk whose new side has no final newline goes only at the end",
			file:   "a\nb\nc\nd\n",
			patch:  "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\\ No newline at end of file\n",
			errHas: "not in the file"},
		{name: "a CRLF file's diff sent with CRLF keeps one CR per line",
			file:  "a\r\nb\r\n",
			patch: "--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n a\r\r\n-b\r\r\n+B\r\r\n",
			want:  "a\r\nB\r\n"},
		{name: "a hunk written flat over lines of several depths that adds lines is refused: their depth would be a guess",
			file:   "def f(x):\n    if x:\n        return 1\n    return 0\n",
			patch:  "*** Begin Patch\n*** Update File: f\n@@\n if x:\n-return 1\n+return 2\n return 0\n*** End Patch\n",
			errHas: "different depths"},
		{name: "one that only removes is applied",
			file:  "def f(x):\n    if x:\n        return 1\n    return 0\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n if x:\n-return 1\n return 0\n*** End Patch\n",
			want:  "def f(x):\n    if x:\n    return 0\n"},
		{name: "a git mode change is made",
			file:  "a\n",
			patch: "diff --git a/f b/f\nold mode 100644\nnew mode 100755\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n",
			want:  "b\n", mode: 0o755},
		{name: "a mode change alone is made",
			file:  "a\n",
			patch: "diff --git a/f b/f\nold mode 100644\nnew mode 100755\n",
			want:  "a\n", mode: 0o755},
		{name: "a symbolic link is refused, not written as a file",
			file:   "a\n",
			patch:  "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+f\n\\ No newline at end of file\n",
			errHas: "symbolic link"},
		{name: "a punctuation match keeps the added lines' indentation as written",
			file:  "func f() {\n\tfmt.Println(\u201chi\u201d)\n\treturn\n}\n",
			patch: "--- a/f\n+++ b/f\n@@ -2,2 +2,3 @@\n \tfmt.Println(\"hi\")\n+    // aligned\n \treturn\n",
			want:  "func f() {\n\tfmt.Println(\u201chi\u201d)\n    // aligned\n\treturn\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _, err := apply(t, map[string]string{"f": c.file}, c.patch)
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("got %v, want an error saying %q", err, c.errHas)
				}
				if m.files["f"] != c.file {
					t.Fatalf("a refused patch changed the file: %q", m.files["f"])
				}
				return
			}
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			got, ok := m.files["f"]
			if !ok {
				got = "<absent>"
			}
			if got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
			if c.mode != 0 && uint32(m.modes["f"].Perm()) != c.mode {
				t.Fatalf("mode %o, want %o", m.modes["f"].Perm(), c.mode)
			}
		})
	}
}

// TestHunkOfReplacementCharactersIsExplained: a hunk copied from read's view of a line
// with bytes that are not UTF-8 (each shown as U+FFFD) cannot match, and the error says
// why instead of only "re-read the file" (a second red team).
func TestHunkOfReplacementCharactersIsExplained(t *testing.T) {
	_, _, err := apply(t, map[string]string{"f": "int x;\nHerr M\xfcller sagt\n"}, "*** Begin Patch\n*** Update File: f\n@@\n-Herr M\uFFFDller sagt\n+Herr Mueller sagt\n*** End Patch\n")
	if err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Fatalf("got %v; want an error that explains U+FFFD", err)
	}
}
