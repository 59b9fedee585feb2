package patch

import (
	"fmt"
	"strings"
	"testing"
)

// summary renders a parsed patch compactly, for comparing with codex's expected hunks.
func summary(p *Patch) string {
	var parts []string
	for _, f := range p.Files {
		s := f.Op.String() + " " + f.Path
		if f.NewPath != "" {
			s += " -> " + f.NewPath
		}
		for _, h := range f.Hunks {
			s += fmt.Sprintf(" | ctx%q eof=%v old%q new%q", h.Context, h.AtEOF, h.Old(), h.New())
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// TestCodexParserCases ports the cases of codex's apply-patch parser tests
// (codex-rs/apply-patch/src/parser.rs: test_parse_patch, test_parse_patch_lenient,
// test_parse_one_hunk, test_update_file_chunk): the same patch text parses to the same
// files and hunks, or is refused. want "" means a refusal; where agentbox deliberately
// differs the case says why (also in testdata/peers/README.md).
func TestCodexParserCases(t *testing.T) {
	for _, c := range []struct{ name, in, want, differs string }{
		{"first line must be Begin Patch", "bad", "", ""},
		{"last line must be End Patch", "*** Begin Patch\nbad", "", ""},
		{"markers padded with spaces", "*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch", `add foo | ctx[] eof=false old[] new["hi"]`, ""},
		{"update hunk is empty", "*** Begin Patch\n*** Update File: test.py\n*** End Patch", "", ""},
		{"no hunks at all", "*** Begin Patch\n*** End Patch", "", "codex accepts a patch that changes nothing; agentbox refuses it, since a model that sends one meant to change something"},
		{"add, delete, update with move",
			"*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch",
			`add path/add.py | ctx[] eof=false old[] new["abc" "def"]; delete path/delete.py; update path/update.py -> path/update2.py | ctx["def f():"] eof=false old["    pass"] new["    return 123"]`, ""},
		{"update hunk followed by another file", "*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content\n*** End Patch",
			`update file.py | ctx[] eof=false old[] new["line"]; add other.py | ctx[] eof=false old[] new["content"]`, ""},
		{"first chunk without @@", "*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch",
			`update file2.py | ctx[] eof=false old["import foo"] new["import foo" "bar"]`, ""},
		{"heredoc wrapper", "<<EOF\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch\nEOF\n",
			`update file2.py | ctx[] eof=false old["import foo"] new["import foo" "bar"]`, ""},
		{"single-quoted heredoc wrapper", "<<'EOF'\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch\nEOF\n",
			`update file2.py | ctx[] eof=false old["import foo"] new["import foo" "bar"]`, ""},
		{"double-quoted heredoc wrapper", "<<\"EOF\"\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch\nEOF\n",
			`update file2.py | ctx[] eof=false old["import foo"] new["import foo" "bar"]`, ""},
		{"heredoc with mismatched quotes", "<<\"EOF'\n*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch\nEOF\n",
			`update file2.py | ctx[] eof=false old["import foo"] new["import foo" "bar"]`,
			"codex refuses the whole patch over the wrapper's quotes; agentbox strips any heredoc wrapper, since the patch inside is whole and checked as usual"},
		{"heredoc without End Patch", "<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n", "", ""},
		{"not a hunk header", "*** Begin Patch\nbad\n*** End Patch", "", ""},
		{"@@ without lines", "*** Begin Patch\n*** Update File: a\n@@\n*** End Patch", "", ""},
		{"unexpected line in hunk", "*** Begin Patch\n*** Update File: a\n@@\nbad\n*** End Patch", "", ""},
		{"End of File without lines", "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch", "", ""},
		{"context, empty line, remove, add",
			"*** Begin Patch\n*** Update File: a\n@@ change_context\n\n context\n-remove\n+add\n context2\n*** End Patch",
			`update a | ctx["change_context"] eof=false old["" "context" "remove" "context2"] new["" "context" "add" "context2"]`, ""},
		{"added line at End of File", "*** Begin Patch\n*** Update File: a\n@@\n+line\n*** End of File\n*** End Patch",
			`update a | ctx[] eof=true old[] new["line"]`, ""},
	} {
		p, err := Parse(c.in)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s: parsed as %s, want a refusal", c.name, summary(p))
		case c.want != "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && summary(p) != c.want:
			t.Errorf("%s:\n got %s\nwant %s", c.name, summary(p), c.want)
		}
	}
}

// TestCodexSeekCases ports codex's seek_sequence tests (exact, then trailing whitespace
// ignored, then both ends trimmed; a hunk longer than the file cannot match) as patches.
func TestCodexSeekCases(t *testing.T) {
	for _, c := range []struct{ name, file, patch, want string }{
		{"exact match finds sequence", "foo\nbar\nbaz\n", "*** Begin Patch\n*** Update File: f\n@@\n bar\n-baz\n+BAZ\n*** End Patch", "foo\nbar\nBAZ\n"},
		{"rstrip match ignores trailing whitespace", "foo   \nbar\t\t\n", "*** Begin Patch\n*** Update File: f\n@@\n foo\n-bar\n+BAR\n*** End Patch", "foo   \nBAR\n"},
		// codex checks only where the hunk lands and would write "BAR" as given; agentbox
		// re-indents added lines of a whitespace-tolerant match to the matched lines,
		// and refuses a hunk written flat over lines of two depths (foo's and bar's),
		// where BAR's depth would be a guess. Over lines of one depth it applies.
		{"trim match ignores leading and trailing whitespace", "    foo   \n   bar\t\n", "*** Begin Patch\n*** Update File: f\n@@\n foo\n-bar\n+BAR\n*** End Patch", ""},
		{"trim match over lines of one depth", "    foo   \n    bar\t\n", "*** Begin Patch\n*** Update File: f\n@@\n foo\n-bar\n+BAR\n*** End Patch", "    foo   \n    BAR\n"},
		{"pattern longer than input", "just one line\n", "*** Begin Patch\n*** Update File: f\n@@\n too\n many\n-lines\n*** End Patch", ""},
	} {
		m, _, err := apply(t, map[string]string{"f": c.file}, c.patch)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s: applied as %q, want a refusal", c.name, m.files["f"])
		case c.want == "" && m.files["f"] != c.file:
			t.Errorf("%s: a refused patch changed the file to %q", c.name, m.files["f"])
		case c.want != "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && m.files["f"] != c.want:
			t.Errorf("%s:\n got %q\nwant %q", c.name, m.files["f"], c.want)
		}
	}
}
