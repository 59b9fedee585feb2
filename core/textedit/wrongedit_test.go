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
			if c.fail == "refused" {
				if err == nil {
					t.Fatalf("applied as %q, want a refusal", got)
				}
				return
			}
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

// Session 37's red team of edits: a one-line old_string whose new_string goes on at the
// file's own indentation (a YAML item, a sibling method, an else) was re-indented line
// by line, some lines by the matched line's indentation and some not; and a
// whitespace-tolerant match left the blanks old_string ended with in place.
func TestEditRedTeamSession37(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "yaml item after the last line", text: "items:\n  - name: a\n    value: 1\n",
			edit: Edit{Old: "value: 1", New: "value: 1\n  - name: b\n    value: 2"},
			want: "items:\n  - name: a\n    value: 1\n  - name: b\n    value: 2\n"},
		{name: "sibling method", text: "class A:\n    def f(self):\n        return 1\n",
			edit: Edit{Old: "return 1", New: "return 1\n\n    def g(self):\n        return 2"},
			want: "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"},
		{name: "else branch", text: "def f():\n    if a:\n        b()\n    return 1\n",
			edit: Edit{Old: "b()", New: "b()\n    else:\n        c()"},
			want: "def f():\n    if a:\n        b()\n    else:\n        c()\n    return 1\n"},
		// Written from column 0: the lines follow old_string's indentation, as before.
		{name: "lines written from column 0", text: "def f():\n        return 1\n",
			edit: Edit{Old: "return 1", New: "x = 2\nreturn x"},
			want: "def f():\n        x = 2\n        return x\n"},
		{name: "a block it opens", text: "def f():\n    pass\n",
			edit: Edit{Old: "pass", New: "if x:\n    y()"},
			want: "def f():\n    if x:\n        y()\n"},
		{name: "call opened over lines", text: "def f():\n    foo()\n",
			edit: Edit{Old: "foo()", New: "foo(\n    a,\n)"},
			want: "def f():\n    foo(\n        a,\n    )\n"},
		// Blanks old_string ends with, inside a line or into the next line's indentation.
		{name: "trailing blank for a tab", text: "foo(a,\tb)\n", edit: Edit{Old: "foo(a, ", New: "foo("}, want: "foo(b)\n"},
		{name: "trailing blank, deeper line", text: "def f():\n        call(first, second)\n",
			edit: Edit{Old: "    call(first, ", New: "    call("}, want: "def f():\n        call(second)\n"},
		{name: "trailing blank, two-space copy", text: "    x = dict(a=1, b=2)\n",
			edit: Edit{Old: "  x = dict(a=1, ", New: "  x = dict("}, want: "    x = dict(b=2)\n"},
		{name: "new_string keeps its blank", text: "a\tb\tc\n", edit: Edit{Old: "a b ", New: "a "}, want: "a\tc\n"},
		{name: "lines joined", text: "    a = [1,\n         2]\n",
			edit: Edit{Old: "  a = [1,\n         ", New: "  a = ["}, want: "    a = [2]\n"},
		{name: "line break kept", text: "    a = [1,\n         2]\n",
			edit: Edit{Old: "  a = [1,\n         ", New: "  a = [0,\n         "}, want: "    a = [0,\n         2]\n"},
	})
}

// A fuzzy match replaces a window only where its lines are old_string's line for line
// (red team: a window one line longer, near as a whole, lost the line old_string left
// out; another paired old_string's lines with the wrong ones).
func TestFuzzyWindowLineForLine(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "a skipped line is not deleted", text: "class Config:\n    name = \"app\"\n    debug = False\n    port = 8080\n    host = \"localhost\"\n",
			edit: Edit{Old: "    name = \"app\"\n    debug = False\n    host = \"localhost\"", New: "    name = \"app\"\n    debug = True\n    host = \"localhost\"", Fuzzy: true},
			fail: "no_match"},
		{name: "a skipped call is not deleted", text: "def main():\n    args = parse()\n    run(args)\n    log()\n    return 0\n",
			edit: Edit{Old: "    args = parse()\n    run(args)\n    return 0", New: "    args = parse()\n    run(args)\n    return 1", Fuzzy: true},
			fail: "no_match"},
		{name: "lines paired with the wrong ones", text: "name alpha self(x)\n        else total delta:\nvalue self result for\nappend while data\nself item value else(x)\n    item name()\nwhile item name = 1\n        print self:\n",
			edit: Edit{Old: "self item zalue else(x)\nwhile item name = 1", New: "NEW", Fuzzy: true},
			fail: "no_match"},
		// What fuzzy matching is for: typos line for line, a blank line more or less,
		// a line wrapped in two.
		{name: "typos", text: "def f():\n    total = compute(a, b)\n    return total\n",
			edit: Edit{Old: "    totl = compute(a, b)\n    retrun total", New: "    total = compute(a, c)\n    return total", Fuzzy: true},
			want: "def f():\n    total = compute(a, c)\n    return total\n"},
		{name: "a blank line more in the file", text: "a = compute_first()\n\nb = compute_second()\nc = 3\n",
			edit: Edit{Old: "a = compute_frist()\nb = compute_second()", New: "a = 1\nb = 2", Fuzzy: true},
			want: "a = 1\nb = 2\nc = 3\n"},
		{name: "a line wrapped in the file", text: "result = some_function(first_argument,\n    second_argument)\nnext_line()\n",
			edit: Edit{Old: "result = some_function(first_argument, second_argumnt)", New: "result = some_function(first_argument, third)", Fuzzy: true},
			want: "result = some_function(first_argument, third)\nnext_line()\n"},
	})
}

// The second red team of edits in session 37: the one reading of a one-line
// old_string's later lines is the one that nests plausibly (a block written from column
// 0 after the line, a dedented line, a tab-indented file written with spaces).
func TestOneLineReadingsRoundTwo(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "python if block after the line", text: "def f():\n    x = 1\n    return x\n",
			edit: Edit{Old: "x = 1", New: "x = 1\nif y:\n    z()"}, want: "def f():\n    x = 1\n    if y:\n        z()\n    return x\n"},
		{name: "python for loop after the line", text: "def f():\n    a = 1\n",
			edit: Edit{Old: "a = 1", New: "a = 1\nfor i in r:\n    a += i"}, want: "def f():\n    a = 1\n    for i in r:\n        a += i\n"},
		{name: "go block after the line", text: "func f() {\n\tb()\n}\n",
			edit: Edit{Old: "b()", New: "b()\nif c {\n\td()\n}"}, want: "func f() {\n\tb()\n\tif c {\n\t\td()\n\t}\n}\n"},
		{name: "yaml mapping after the line", text: "root:\n  a: 1\n  b: 2\n",
			edit: Edit{Old: "a: 1", New: "a: 1\nc:\n  d: 3"}, want: "root:\n  a: 1\n  c:\n    d: 3\n  b: 2\n"},
		{name: "a dedented line", text: "def f():\n    if a:\n        b()\n    c()\n",
			edit: Edit{Old: "b()", New: "b()\n    d()"}, want: "def f():\n    if a:\n        b()\n    d()\n    c()\n"},
		{name: "yaml dedented key", text: "a:\n  b:\n    c: 1\nd: 2\n",
			edit: Edit{Old: "c: 1", New: "c: 1\n  e: 3"}, want: "a:\n  b:\n    c: 1\n  e: 3\nd: 2\n"},
		{name: "spaces for a tab file", text: "def f():\n\tif a:\n\t\tb()\n\treturn 1\n",
			edit: Edit{Old: "b()", New: "b()\n        c()"}, want: "def f():\n\tif a:\n\t\tb()\n\t\tc()\n\treturn 1\n"},
		{name: "spaces for a tab file, else", text: "def f():\n\tif a:\n\t\tb()\n\treturn 1\n",
			edit: Edit{Old: "b()", New: "b()\n    else:\n        c()"}, want: "def f():\n\tif a:\n\t\tb()\n\telse:\n\t\tc()\n\treturn 1\n"},
	})
}

// A fuzzy window's odd line counts as a wrapped line's end only where it brings the
// rest of the line (second red team of edits: a "}" and a call of their own were taken
// for wrapped ends and deleted, or code was put into the wrong block).
func TestFuzzyOddLineIsAWrapOnlyWhenItIs(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "a closing brace", text: "if (x) {\n  foo(alpha, beta, gamma);\n}\nbar();\n",
			edit: Edit{Old: "if (x) {\n  foo(alpha, beta, gama);\nbar();", New: "if (x) {\n  foo(alpha, beta, delta);\nbar();", Fuzzy: true}, fail: "no_match"},
		{name: "a return", text: "def f():\n    result = some_long_function_name(argument_one, argument_two, argument_three)\n    return result\n\ndef g():\n    pass\n",
			edit: Edit{Old: "    result = some_long_function_name(argument_one, argument_two, argument_thre)\n\ndef g():", New: "    result = some_long_function_name(argument_one, argument_two, argument_four)\n\ndef g():", Fuzzy: true}, fail: "no_match"},
		{name: "into the wrong block", text: "if (x) {\n  if (y) {\n    foo(alpha, beta, gamma, delta);\n  }\n}\nbar();\n",
			edit: Edit{Old: "if (x) {\n  if (y) {\n    foo(alpha, beta, gamma, delt);\nbar();", New: "if (x) {\n  if (y) {\n    foo(alpha, beta, gamma, epsilon);\nbar();", Fuzzy: true}, fail: "no_match"},
	})
}

// Lines joined by a whitespace-tolerant match keep new_string's own blank between
// them (second red team of edits: "return (not " made "(notvalue)").
func TestJoinedLinesKeepNewStringsBlank(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "python", text: "def f():\n    return (\n        value)\n", edit: Edit{Old: "return ( \n        ", New: "return (not "}, want: "def f():\n    return (not value)\n"},
		{name: "sql", text: "SELECT *\n  FROM t\n", edit: Edit{Old: "SELECT * \n  ", New: "SELECT DISTINCT "}, want: "SELECT DISTINCT FROM t\n"},
		{name: "no blank asked", text: "foo(a,\n    b)\n", edit: Edit{Old: "foo(a, \n    ", New: "foo(x,"}, want: "foo(x,b)\n"},
	})
}

// A line new_string keeps as old_string had it keeps the file's text (tabs, alignment,
// a Markdown line break) wherever it moved to in new_string.
func TestKeptLinesKeepTheirSpacingAfterAnInsertion(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "tsv row removed before", text: "id\tname\n1\talice\n2\tbob\n", edit: Edit{Old: "1 alice\n2 bob", New: "2 bob"}, want: "id\tname\n2\tbob\n"},
		{name: "tsv row added before", text: "h\tx\n1\ta\n2\tb\n3\tc\n", edit: Edit{Old: "1 a\n2 b\n3 c", New: "0\tz\n1 a\n2 b\n3 c"}, want: "h\tx\n0\tz\n1\ta\n2\tb\n3\tc\n"},
		{name: "markdown line break", text: "line one  \nline two  \nline three\n", edit: Edit{Old: "line one\nline two\nline three", New: "line zero\nline one\nline two\nline three"}, want: "line zero\nline one  \nline two  \nline three\n"},
	})
}

// The third red team of edits: where no rule tells which reading new_string's later
// lines were written in, the edit is refused rather than guessed; text that must stay
// at column 0 stays; more openers are read (a trailing comment, YAML's |, keywords).
func TestOneLineReadingsRoundThree(t *testing.T) {
	runWrongEditCases(t, []wrongEditCase{
		{name: "here-document end stays at column 0", text: "main() {\n    x=1\n}\n",
			edit: Edit{Old: "x=1", New: "cat > f <<EOF\nhello\nEOF"}, want: "main() {\n    cat > f <<EOF\nhello\nEOF\n}\n"},
		{name: "raw string content as written", text: "func TestX(t *testing.T) {\n\tin := 1\n}\n",
			edit: Edit{Old: "in := 1", New: "in := `\na:\n  b: 1\n`"}, want: "func TestX(t *testing.T) {\n\tin := `\na:\n  b: 1\n`\n}\n"},
		{name: "makefile target", text: "all:\n\tgcc a.c\n",
			edit: Edit{Old: "gcc a.c", New: "gcc a.c\n\nclean:\n\trm -f a"}, want: "all:\n\tgcc a.c\n\nclean:\n\trm -f a\n"},
		{name: "yaml block scalar", text: "a:\n  key: value\n  other: 1\n",
			edit: Edit{Old: "key: value", New: "key: |\n  line1\n  line2"}, want: "a:\n  key: |\n    line1\n    line2\n  other: 1\n"},
		{name: "opener with a comment", text: "def f():\n    x = 1\n    return x\n",
			edit: Edit{Old: "x = 1", New: "if a:  # why\n    x = 1"}, want: "def f():\n    if a:  # why\n        x = 1\n    return x\n"},
		{name: "ruby unless", text: "class A\n  def m\n    x = 1\n  end\nend\n",
			edit: Edit{Old: "x = 1", New: "unless done\n  x = 1\nend"}, want: "class A\n  def m\n    unless done\n      x = 1\n    end\n  end\nend\n"},
		{name: "sql then", text: "CREATE PROCEDURE p()\nBEGIN\n    SELECT 1;\nEND\n",
			edit: Edit{Old: "SELECT 1;", New: "IF x THEN\n    SELECT 1;\nEND IF;"}, want: "CREATE PROCEDURE p()\nBEGIN\n    IF x THEN\n        SELECT 1;\n    END IF;\nEND\n"},
		// Words that only start like a keyword open nothing: done, download().
		{name: "a call that starts like do", text: "def f():\n    x = 1\n",
			edit: Edit{Old: "x = 1", New: "download()\n    y = 2"}, want: "def f():\n    download()\n    y = 2\n"},
		{name: "a top-level def or a nested one", text: "def f():\n    return 1\n",
			edit: Edit{Old: "return 1", New: "return 1\n\n\ndef g():\n    return 2"}, fail: "refused"},
		{name: "a yaml item's next key from column 0", text: "items:\n  - name: x\n    val: 1\n",
			edit: Edit{Old: "name: x", New: "name: y\nval: 2"}, fail: "refused"},
		{name: "replace_all at two depths", text: "def f():\n    x = 1\nx = 1\n",
			edit: Edit{Old: "x = 1", New: "x = 1\n    y = 2", ReplaceAll: true}, fail: "refused"},
	})
}
