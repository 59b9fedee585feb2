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
	} {
		_, _, err := Apply(file, []Edit{{Old: "\tx := 1\n\ty := 2\n", New: "\tx := 10\n" + ph + "\n"}})
		if err == nil || !strings.Contains(err.Error(), "placeholder") {
			t.Errorf("%q: %v, want a placeholder refusal", ph, err)
		}
	}
	for _, ok := range []string{"\t// rest of the setup follows below", "\tfmt.Println(\"...\")", "\t// TODO: handle other cases", "\t// keep the existing order", "\t# Loading existing config...", "\tlog.Println(\"using existing cache...\")"} {
		if _, _, err := Apply(file, []Edit{{Old: "\tx := 1\n", New: "\tx := 1\n" + ok + "\n"}}); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	// A placeholder old_string held already is the file's own text.
	f2 := "a\n// ... existing code ...\nb\n"
	if _, _, err := Apply(f2, []Edit{{Old: "a\n// ... existing code ...\n", New: "A\n// ... existing code ...\n"}}); err != nil {
		t.Errorf("a placeholder kept from old_string: %v", err)
	}
}
