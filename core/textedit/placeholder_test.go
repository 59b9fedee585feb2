package textedit

import (
	"strings"
	"testing"
)

// Omission placeholders that replace real code are refused (issue 18.3); ordinary
// comments, and placeholders old_string already held, pass.
func TestPlaceholderRefused(t *testing.T) {
	file := "func a() {\n\tx := 1\n\ty := 2\n\treturn x + y\n}\n"
	for _, ph := range []string{
		"\t// ... existing code ...", "\t// ...existing code...", "    (rest of methods ...)", "# rest unchanged",
		"\t/* ... rest of the function ... */", "<!-- ... remaining content ... -->", "\t// … other cases …",
		"// rest of the file is unchanged", "-- ... previous code ...",
		// a red-team helper's list: all once deleted the code they stood for
		"\t// [existing code]", "\t// Existing code here", "\t// ... snip ...", "\t// ... (rest unchanged)", "\t//...",
		"\t/* ... */", "\t...", "\t// ... y and z unchanged ...", "\t// rest of the function unchanged", "# ...", "# ... (unchanged)",
	} {
		_, _, err := Apply(file, []Edit{{Old: "\tx := 1\n\ty := 2\n", New: "\tx := 10\n" + ph + "\n"}})
		if err == nil || !strings.Contains(err.Error(), "placeholder") {
			t.Errorf("%q: %v, want a placeholder refusal", ph, err)
		}
	}
	// Python's "..." in place of one line is code (a second red team's stub body was
	// refused); in place of several it is the omission it looks like.
	stub := "class P(Protocol):\n    def f(self) -> int:\n        return 2\n"
	if _, _, err := Apply(stub, []Edit{{Old: "        return 2", New: "        ..."}}); err != nil {
		t.Errorf("a stub body: %v", err)
	}
	if _, _, err := Apply(file, []Edit{{Old: "\tx := 1\n\ty := 2\n", New: "\t...\n"}}); err == nil || !strings.Contains(err.Error(), "placeholder") {
		t.Errorf("... for two lines: %v", err)
	}
	// A bare comment leader is a character, or an empty comment, not an omission (a red
	// team's "@" -> "#" in a string was refused).
	for _, c := range []struct{ text, old, new string }{{"a = \"@\"\n", "@", "#"}, {"fmt = \"x%d\"\n", "%d", "%"}, {"x = 1 // note\n", "// note", "//"}} {
		if _, _, err := Apply(c.text, []Edit{{Old: c.old, New: c.new}}); err != nil {
			t.Errorf("%q -> %q: %v", c.old, c.new, err)
		}
	}
	for _, ok := range []string{"\t// rest of the setup follows below", "\tfmt.Println(\"...\")", "\t// TODO: handle other cases", "\t// keep the existing order", "\t# Loading existing config...", "\tlog.Println(\"using existing cache...\")"} {
		if _, _, err := Apply(file, []Edit{{Old: "\tx := 1\n", New: "\tx := 1\n" + ok + "\n"}}); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	// Comments while code is deleted: only placeholders are refused.
	for _, ok := range []string{"\t// TODO: handle other cases", "\t# Loading existing config...", "\t// y is computed below now", "\t// see the rest of the docs"} {
		if _, _, err := Apply(file, []Edit{{Old: "\tx := 1\n\ty := 2\n", New: "\tx := 10\n" + ok + "\n"}}); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	// The looser forms pass where nothing is deleted; the unmistakable ones never do
	// (gemini-cli refuses a placeholder new_string adds, deleting or not).
	for _, ok := range []string{"\t// Existing code here", "\t...", "\t// ... y and z unchanged ..."} {
		if _, _, err := Apply(file, []Edit{{Old: "\tx := 1\n", New: ok + "\n\tx := 1\n"}}); err != nil {
			t.Errorf("%q with nothing deleted refused: %v", ok, err)
		}
	}
	if _, _, err := Apply(file, []Edit{{Old: "\tx := 1\n", New: "\t// ... existing code ...\n\tx := 1\n"}}); err == nil {
		t.Error("an unmistakable placeholder added with nothing deleted was applied")
	}
	// A placeholder old_string held already is the file's own text.
	f2 := "a\n// ... existing code ...\nb\n"
	if _, _, err := Apply(f2, []Edit{{Old: "a\n// ... existing code ...\n", New: "A\n// ... existing code ...\n"}}); err != nil {
		t.Errorf("a placeholder kept from old_string: %v", err)
	}
}
