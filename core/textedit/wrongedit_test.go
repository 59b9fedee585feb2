package textedit

import (
	"errors"
	"strings"
	"testing"
)

// wrongEditCase is one edit and what it must do: the file's new bytes, or a failure of
// the given kind (no_match, ambiguous) that leaves the file as it was.
type wrongEditCase struct {
	name, text string
	edit       Edit
	want       string // the text after the edit, when fail is ""
	fail       string
	replaced   int // replacements expected, when not 0
}

func runWrongEditCases(t *testing.T, cases []wrongEditCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, applied, err := Apply(c.text, []Edit{c.edit})
			if c.fail != "" {
				var ee *EditError
				if !errors.As(err, &ee) || ee.Failure == nil || ee.Failure.Kind != c.fail {
					t.Fatalf("want a %s failure, got %q, %v", c.fail, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v", err)
			}
			if got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			if c.replaced != 0 && applied[0].Replacements != c.replaced {
				t.Errorf("replacements = %d, want %d", applied[0].Replacements, c.replaced)
			}
		})
	}
}

// A needle of whitespace alone is counted at every place it occurs exactly, inside
// indentation too: one place is a match, several are ambiguous or, with replace_all,
// all replaced.
func TestWhitespaceOnlyNeedleCounted(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "indent to tabs", text: "def f():\n    if x:\n        return 1\n",
			edit: Edit{Old: "    ", New: "\t", ReplaceAll: true},
			want: "def f():\n\tif x:\n\t\treturn 1\n", replaced: 3},
		{name: "space in indentation", text: "    x\n", edit: Edit{Old: " ", New: "\t"}, fail: "ambiguous"},
		{name: "tab in indentation", text: "\t\tfoo()\n", edit: Edit{Old: "\t", New: "    "}, fail: "ambiguous"},
		{name: "space in blank line", text: "a\n   \nb\n", edit: Edit{Old: " ", New: "x"}, fail: "ambiguous"},
		{name: "two spaces", text: "    x\n", edit: Edit{Old: "  ", New: "\t"}, fail: "ambiguous"},
		{name: "two spaces replace_all", text: "    x\n", edit: Edit{Old: "  ", New: "\t", ReplaceAll: true}, want: "\t\tx\n", replaced: 2},
		{name: "tabs replace_all", text: "\t\tfoo()\n\tbar()\n", edit: Edit{Old: "\t", New: "  ", ReplaceAll: true}, want: "    foo()\n  bar()\n", replaced: 3},
		{name: "one place", text: "a  b\n", edit: Edit{Old: "  ", New: " "}, want: "a b\n"},
	})
}

// The whitespace stage tolerates indentation, trailing blanks, runs of blanks within a
// line and CRLF for LF, but a line break in the file only ever matches a line break in
// old_string, and blank lines count: lines are never joined, split, added or dropped.
func TestWhitespaceStageKeepsLines(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "space for a line break", text: "rm -rf build\necho done\n",
			edit: Edit{Old: "rm -rf build echo done", New: "rm -rf build/tmp echo done"}, fail: "no_match"},
		{name: "space for a line break 2", text: "x = 1\ny = 2\n",
			edit: Edit{Old: "x = 1 y = 2", New: "x = 2 y = 2"}, fail: "no_match"},
		{name: "line break for a space", text: "x = 1 y = 2\n",
			edit: Edit{Old: "x = 1\ny = 2", New: "x = 2\ny = 2"}, fail: "no_match"},
		{name: "fewer blank lines", text: "a\n\n\nb\n",
			edit: Edit{Old: "a\nb", New: "a\nc\nb"}, fail: "no_match"},
		{name: "more blank lines", text: "x = 1\ny = 2\n",
			edit: Edit{Old: "x = 1\n\ny = 2", New: "x = 1\n\nz = 3\n\ny = 2"}, fail: "no_match"},
		{name: "indentation and trailing blanks", text: "if x:\n\tfoo()  \n\tbar()\n",
			edit: Edit{Old: "if x:\n    foo()\n    bar()", New: "if x:\n    foo()\n    baz()"},
			want: "if x:\n\tfoo()  \n\tbaz()\n"},
		{name: "blank lines as written", text: "x = 1   \n\ny = 2\n",
			edit: Edit{Old: "x = 1\n\ny = 2", New: "x = 1\n\nz = 3\n\ny = 2"},
			want: "x = 1   \n\nz = 3\n\ny = 2\n"},
		{name: "blank line with indentation", text: "def f():\n    a()\n    \n    b()\n",
			edit: Edit{Old: "a()\n\nb()", New: "a()\n\nc()\nb()"},
			want: "def f():\n    a()\n    \n    c()\n    b()\n"},
		{name: "runs of blanks in a line", text: "a  =  1\n",
			edit: Edit{Old: "a = 1", New: "a = 2"}, want: "a  =  2\n"},
		{name: "CRLF for LF", text: "a\r\nb\n",
			edit: Edit{Old: "a\nb", New: "a\nc"}, want: "a\r\nc\n"},
	})
}

// The whitespace stage forgives one change of indentation made to every line of
// old_string (a shift, tabs for spaces), never a line nested differently from the file.
func TestWhitespaceStageUniformIndent(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "line moved into a block", text: "if a:\n    x()\ny()\n",
			edit: Edit{Old: "if a:\n    x()\n    y()", New: "if a:\n    x()\n    z()"}, fail: "no_match"},
		{name: "line moved out of a block", text: "if a:\n    x()\n    y()\n",
			edit: Edit{Old: "if a:\n    x()\ny()", New: "if a:\n    x()\nz()"}, fail: "no_match"},
		{name: "nesting flattened", text: "def f():\n    if a:\n        x()\n",
			edit: Edit{Old: "    if a:\n    x()", New: "    if a:\n    y()"}, fail: "no_match"},
		{name: "uniform shift", text: "def f():\n    if a:\n        x()\n",
			edit: Edit{Old: "if a:\n    x()", New: "if a:\n    y()"}, want: "def f():\n    if a:\n        y()\n"},
		{name: "tabs for spaces", text: "func f() {\n\tif a {\n\t\tx()\n\t}\n}\n",
			edit: Edit{Old: "    if a {\n        x()\n    }", New: "    if a {\n        y()\n    }"},
			want: "func f() {\n\tif a {\n\t\ty()\n\t}\n}\n"},
		{name: "first line copied from its first word", text: "def f():\n    if a:\n        x()\n",
			edit: Edit{Old: "if a:\n        x()", New: "if a:\n        y()"}, want: "def f():\n    if a:\n        y()\n"},
	})
}

// TestFuzzyKeepsNesting: fuzzy matching compares lines without their indentation, so
// the same lines nested otherwise were a 100% near match that fuzzy_match applied (the
// no_match hint even suggested it): y() moved into the if. A window of old_string's
// line count must be nested alike, and the hint says what differs.
func TestFuzzyKeepsNesting(t *testing.T) {
	text := "if a:\n    x()\ny()\n"
	for _, fuzzy := range []bool{false, true} {
		got, _, err := Apply(text, []Edit{{Old: "if a:\n    x()\n    y()", New: "if a:\n    x()\n    z()", Fuzzy: fuzzy}})
		var ee *EditError
		if !errors.As(err, &ee) || ee.Failure == nil || ee.Failure.Kind != "no_match" || ee.Failure.Nearest == nil || !ee.Failure.Nearest.Nesting {
			t.Fatalf("fuzzy %v: got %q, %v; want no_match naming the nesting", fuzzy, got, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "nest differently") || strings.Contains(msg, "fuzzy_match: true") {
			t.Errorf("fuzzy %v: hint %q; want it to name the nesting, not to suggest fuzzy_match", fuzzy, msg)
		}
	}
	// Nested alike but a word off: fuzzy still takes it, re-indented.
	got, _, err := Apply("if a:\n    x()\n    y()\n", []Edit{{Old: "if a:\n  x()\n  yy()", New: "if a:\n  x()\n  z()", Fuzzy: true}})
	if err != nil || got != "if a:\n    x()\n    z()\n" {
		t.Errorf("a near match nested alike: %q, %v", got, err)
	}
}

// TestFuzzyKeepsTheRestOfTheLine: a fuzzy match takes whole lines, so an old_string
// that is nearly a part of a line replaced the whole line and dropped the rest of it
// ("abc = " of abc = compute(...)). Such a match is no match.
func TestFuzzyKeepsTheRestOfTheLine(t *testing.T) {
	text := "abc = compute(alpha, beta, gamma)\nnext()\n"
	got, _, err := Apply(text, []Edit{{Old: "compute(alpha, beta, gama)", New: "compute(alpha, beta, delta)", Fuzzy: true}})
	var ee *EditError
	if !errors.As(err, &ee) || ee.Failure == nil || ee.Failure.Kind != "no_match" {
		t.Errorf("got %q, %v; want no_match, the line kept whole", got, err)
	}
	// A near copy of the whole line is still taken.
	got, _, err = Apply(text, []Edit{{Old: "abc = compute(alpha, beta, gama)", New: "abc = compute(alpha, beta, delta)", Fuzzy: true}})
	if err != nil || got != "abc = compute(alpha, beta, delta)\nnext()\n" {
		t.Errorf("a near copy of the whole line: %q, %v", got, err)
	}
}

// TestFuzzyDoesNotDuplicateALine: old_string's lines nested otherwise than the file's
// are no region for fuzzy_match in any window size: a window a line shorter took the
// region, and new_string's last line, kept, then stood twice.
func TestFuzzyDoesNotDuplicateALine(t *testing.T) {
	text := "def g():\n    if a:\n        x = 1\n        y = 2\n    z = 3\n"
	got, _, err := Apply(text, []Edit{{Old: "if a:\n    x = 1\ny = 2\nz = 3", New: "if a:\n    x = 1\ny = 5\nz = 3", Fuzzy: true}})
	var ee *EditError
	if !errors.As(err, &ee) || ee.Failure == nil || ee.Failure.Kind != "no_match" {
		t.Errorf("got %q, %v; want no_match", got, err)
	}
}
