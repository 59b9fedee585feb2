package textedit

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func TestDecodeEncodeRoundTrip(t *testing.T) {
	for _, raw := range []string{"", "a\nb\n", "a\r\nb\r\n", "a\r\nb\n", "\xef\xbb\xbfx\r\ny", "no newline", "bad utf8 \xc3\xff\xfe"} {
		text, f := Decode([]byte(raw))
		if got := string(f.Encode(text)); got != raw {
			t.Errorf("round trip of %q gave %q", raw, got)
		}
	}
	text, f := Decode([]byte("a\r\nb\r\n"))
	if !f.CRLF || text != "a\nb\n" {
		t.Errorf("CRLF decode: %q %+v", text, f)
	}
	utf16le := []byte{0xFF, 0xFE, 'h', 0, 0xF6, 0, '\r', 0, '\n', 0}
	text, f = Decode(utf16le)
	if text != "hö\n" || f.Encoding != "utf-16le" || !f.CRLF || string(f.Encode(text)) != string(utf16le) {
		t.Errorf("UTF-16LE: %q %+v", text, f)
	}
	utf32be := []byte{0, 0, 0xFE, 0xFF, 0, 0, 0, 'h', 0, 1, 0xF6, 0x00, 0, 0, 0, '\n'}
	text, f = Decode(utf32be)
	if text != "h\U0001F600\n" || f.Encoding != "utf-32be" || string(f.Encode(text)) != string(utf32be) {
		t.Errorf("UTF-32BE: %q %+v", text, f)
	}
	// Code units that are not text do not round-trip, so edit refuses the file rather
	// than rewrite them: a lone surrogate, an odd last byte, a value past U+10FFFF.
	for _, raw := range [][]byte{
		{0xFF, 0xFE, 'a', 0, 0x00, 0xD8, '\n', 0},
		{0xFF, 0xFE, 'a', 0, 'b'},
		{0xFF, 0xFE, 0, 0, 'a', 0, 0x11, 0},
	} {
		if text, f := Decode(raw); string(f.Encode(text)) == string(raw) {
			t.Errorf("%q (%s) round-trips as %q", raw, f.Encoding, text)
		}
	}
	if _, f := Decode([]byte("a\r\nb\n")); f.CRLF {
		t.Error("mixed endings must not be converted")
	}
}

func TestFindStages(t *testing.T) {
	text := "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
	ms, err := Find(text, "\t\treturn 1", Options{})
	if err != nil || ms[0].Stage != StageExact || ms[0].Line != 3 {
		t.Fatalf("exact: %+v %v", ms, err)
	}
	ms, err = Find(text, "if x {\n    return 1\n}", Options{})
	if err != nil || ms[0].Stage != StageWhitespace || ms[0].Line != 2 {
		t.Fatalf("whitespace: %+v %v", ms, err)
	}
	if got := ms[0].Replacement("if x {\n    return 2\n}"); got != "\tif x {\n\t\treturn 2\n\t}" {
		t.Errorf("re-indented replacement = %q", got)
	}
	// Whitespace matching never matches inside a word.
	if _, err := Find("foobar baz", "bar baz", Options{}); err == nil {
		t.Log("exact substring is fine") // "bar baz" is an exact substring: allowed
	}
	if _, err := Find("foo  barbaz", "foo bar", Options{}); err == nil {
		t.Error("whitespace stage matched a word prefix")
	}
	_, err = Find(text, "retrun 1", Options{})
	var f *Failure
	if !errors.As(err, &f) || f.Kind != "no_match" || f.Nearest == nil || f.Nearest.StartLine != 3 {
		t.Fatalf("no match: %+v", err)
	}
	ms, err = Find(text, "retrun 1", Options{Fuzzy: true})
	if err != nil || ms[0].Stage != StageFuzzy || ms[0].Similarity < 0.7 {
		t.Fatalf("fuzzy: %+v %v", ms, err)
	}
	if _, err := Find(text, "completely different", Options{Fuzzy: true}); err == nil {
		t.Error("fuzzy accepted a match below the threshold")
	}
}

func TestAmbiguousAndReplaceAll(t *testing.T) {
	text := "a = 1\nb = 2\na = 1\n"
	_, err := Find(text, "a = 1", Options{})
	var f *Failure
	if !errors.As(err, &f) || f.Kind != "ambiguous" || fmt.Sprint(f.Lines) != "[1 3]" {
		t.Fatalf("ambiguous: %v", err)
	}
	out, applied, err := Apply(text, []Edit{{Old: "a = 1", New: "a = 0", ReplaceAll: true}})
	if err != nil || out != "a = 0\nb = 2\na = 0\n" || applied[0].Replacements != 2 {
		t.Fatalf("replace all: %q %+v %v", out, applied, err)
	}
}

func TestApplyAtomicity(t *testing.T) {
	text := "one\ntwo\nthree\n"
	out, _, err := Apply(text, []Edit{{Old: "one", New: "1"}, {Old: "three", New: "3"}})
	if err != nil || out != "1\ntwo\n3\n" {
		t.Fatalf("apply: %q %v", out, err)
	}
	_, _, err = Apply(text, []Edit{{Old: "one", New: "1"}, {Old: "four", New: "4"}})
	var ee *EditError
	if !errors.As(err, &ee) || ee.Index != 1 {
		t.Fatalf("want edit 1 to fail: %v", err)
	}
	_, _, err = Apply(text, []Edit{{Old: "one\ntwo", New: "x"}, {Old: "two\nthree", New: "y"}})
	if err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("overlap: %v", err)
	}
	_, _, err = Apply(text, []Edit{{Old: "one", New: "one"}})
	if err == nil || !strings.Contains(err.Error(), "changes nothing") {
		t.Fatalf("no-op: %v", err)
	}
	many := make([]Edit, MaxEdits+1)
	if _, _, err := Apply(text, many); err == nil {
		t.Fatal("more than MaxEdits accepted")
	}
}

func TestBoundedLevenshtein(t *testing.T) {
	cases := []struct {
		a, b    string
		k, want int
	}{
		{"kitten", "sitting", 5, 3}, {"", "abc", 5, 3}, {"abc", "abc", 0, 0}, {"abcdef", "ghijkl", 3, 4}, {"flaw", "lawn", 2, 2},
	}
	for _, c := range cases {
		if got := boundedLevenshtein([]rune(c.a), []rune(c.b), c.k); got != c.want {
			t.Errorf("d(%q,%q,k=%d) = %d, want %d", c.a, c.b, c.k, got, c.want)
		}
	}
}

// FuzzFind checks that matching never panics, that an exact occurrence is always found
// by the exact stage, and that every reported match lies inside the text.
func FuzzFind(f *testing.F) {
	f.Add("hello world\nfoo bar\n", "foo bar", false)
	f.Add("\ta\r\n\tb\r\n", "a\nb", true)
	f.Add("x x x", "x", false)
	f.Add("", "z", true)
	f.Add("ünïcode\t \n", "ünï", true)
	f.Add("a\n    x\n", "  x", false)
	f.Fuzz(func(t *testing.T, text, needle string, fuzzy bool) {
		ms, err := Find(text, needle, Options{ReplaceAll: true, Fuzzy: fuzzy})
		// An indented needle does not match the end of a deeper line's indentation.
		whole := needle != "" && strings.Contains(text, needle) && !(strings.IndexAny(needle[:1], " \t") == 0 && !strings.HasPrefix(text, needle) && !strings.Contains(text, "\n"+needle))
		if whole {
			if err != nil || ms[0].Stage != StageExact {
				t.Fatalf("exact occurrence of %q in %q not found: %v", needle, text, err)
			}
		}
		for _, m := range ms {
			if m.Start < 0 || m.End > len(text) || m.Start > m.End {
				t.Fatalf("match %+v outside text of length %d", m, len(text))
			}
		}
	})
}

func bigText(lines int) string {
	r := rand.New(rand.NewSource(1))
	words := []string{"func", "return", "if", "err", "nil", "value", "ctx", "x", "y", "for", "range", ":=", "{", "}", "(", ")"}
	var b strings.Builder
	for i := 0; i < lines; i++ {
		b.WriteString(strings.Repeat("\t", r.Intn(4)))
		for w := 0; w < 3+r.Intn(6); w++ {
			b.WriteString(words[r.Intn(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "// line %d\n", i)
	}
	return b.String()
}

// BenchmarkFuzzy30LinesIn10MB: a 30-line needle with a few typos in a ~10 MB file.
func BenchmarkFuzzy30LinesIn10MB(b *testing.B) {
	text := bigText(300000)
	lines := strings.Split(text, "\n")
	needleLines := append([]string(nil), lines[150000:150030]...)
	needleLines[3] = strings.Replace(needleLines[3], "e", "3", 1)
	needleLines[17] = strings.Replace(needleLines[17], "line", "lnie", 1)
	needleLines[25] += " extra"
	needle := strings.Join(needleLines, "\n")
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ms, err := Find(text, needle, Options{Fuzzy: true})
		if err != nil || ms[0].Line != 150001 {
			b.Fatalf("fuzzy match failed: %v %+v", err, ms)
		}
	}
}

// The whitespace stage changes only the intended lines, and relative indentation is
// kept (issue 18.1, 18.2): each case is the file, the edit, and the file after it, or
// "" for a refusal.
func TestWholeLineEdits(t *testing.T) {
	for _, c := range []struct{ name, file, old, new, want string }{
		{"trailing newline in both", "    a\n    b\n    c\n", "a\nb\n", "x\ny\n", "    x\n    y\n    c\n"},
		{"leading newline in both", "function oldFunc() {}\nx\n", "\nfunction oldFunc() {}", "\nfunction newFunc() {}", "function newFunc() {}\nx\n"},
		{"trailing blanks the file lacks", "foo(1)\nbar(2)\nbaz\n", "foo(1) \nbar(2)\n", "foo(3) \nbar(4)\n", "foo(3)\nbar(4)\nbaz\n"},
		{"deletion leaves no indent-only line", "    a\n    b\n    c\n", "b\n", "", "    a\n    c\n"},
		{"deletion of a block without its line break", "a\n  b\n  c\nd\n", "b\n  c", "", "a\nd\n"},
		{"file without a final newline", "    a\n    b\n    c", "c\n", "d\n", "    a\n    b\n    d"},
		{"no match ending inside a line", "This is a sample text.\nnext\n", "This is a sample text\n", "Replaced\n", ""},
		{"exact one-line old_string gains lines", "    x = 1\n    y = 2\n", "x = 1\n", "x = 1\nz = 3\n", "    x = 1\n    z = 3\n    y = 2\n"},
		{"later lines already at the file's indentation", "    x = 1\n", "x = 1", "x = 1\n    z = 3", "    x = 1\n    z = 3\n"},
		{"bare first line, body re-indented under it", "    if a:\n        b()\n    c\n", "if a:\n    b()\n", "if x:\n    if y:\n        b()\n", "    if x:\n        if y:\n            b()\n    c\n"},
		{"indented old_string is not the end of a deeper indentation", "x\n  y\n        y\n", "  y", "  z", "x\n  z\n        y\n"},
		{"overlapping readings are ambiguous", "a\na\na\n", "a\na", "b", ""},
		{"spaces for tabs", "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", "    if x {\n        return 1\n    }", "    if x {\n        return 2\n    }", "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n"},
	} {
		got, _, err := Apply(c.file, []Edit{{Old: c.old, New: c.new}})
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s: applied as %q, want a refusal", c.name, got)
		case c.want != "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && got != c.want:
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestUnchangedLinesKept: cases a red-team helper found, where a tolerant match wrote
// old_string's copy of lines new_string keeps, and so changed lines nobody meant to
// touch. Lines new_string keeps are written as the file has them; non-ASCII spaces are
// text, never tolerance; a new_string copied with the indentation an exact match started
// after is not indented twice.
func TestUnchangedLinesKept(t *testing.T) {
	for _, c := range []struct{ name, file, old, new, want string }{
		{"wrong indentation of a kept line", "def f():\n    a()\n    b()\n    c()\n", "    a()\n        b()\n    c()", "    a()\n        b()\n    d()", ""},
		{"bare first line, kept lines not shifted", "def f():\n    x = 1\n    if x:\n        y()\n    z()\n", "x = 1\n    if x:\n        y()\nz()", "x = 2\n    if x:\n        y()\nz()", ""},
		{"yaml: added line beside its kept neighbour", "a:\n  b:\n    c: 1\n  d: 2\n", "b:\n    c: 1\nd: 2", "b:\n    c: 1\n    e: 3\nd: 2", ""},
		// Blank lines are lines: old_string without the file's is no match.
		{"blank lines between kept lines", "def f():\n    x = 1\n\n\n    y = 2\n", "x = 1\ny = 2", "x = 1\ny = 3", ""},
		{"one blank line", "a\n\nb\nc\n", "a\nb", "a\nB", ""},
		{"blank lines between kept lines stay", "def f():\n    x = 1\n\n\n    y = 2\n", "x = 1\n\n\ny = 2", "x = 1\n\n\ny = 3", "def f():\n    x = 1\n\n\n    y = 3\n"},
		{"inner spacing of a kept line", "s = 'a  b'\nt\n", "s = 'a b'\nt", "s = 'a b'\nu", "s = 'a  b'\nu\n"},
		{"a tab inside a kept line", "s = 'a\tb'\nt = 1\n", "s = 'a    b'\nt = 1", "s = 'a    b'\nt = 2", "s = 'a\tb'\nt = 2\n"},
		{"markdown hard break on a kept line", "line one  \nline two\nline three\n", "line one\nline two", "line one\nline 2", "line one  \nline 2\nline three\n"},
		{"NBSP indentation is not whitespace", "def f():\n\u00a0\u00a0\u00a0\u00a0return 1\n", "    return 1", "    return 2", ""},
		{"NBSP inside a line is not a space", "x = 'a\u00a0b'\ny\n", "x = 'a b'", "x = 'a c'", ""},
		{"exact match after indentation, new_string indented", "def f():\n    if x:\n        a()\n    b()\n", "if x:\n        a()", "    if y:\n        a()", "def f():\n    if y:\n        a()\n    b()\n"},
		{"one-line exact match, new_string indented", "    x = 1\n", "x = 1", "    x = 2", "    x = 2\n"},
		{"4-space steps written for a 2-space file", "a:\n  b:\n    c: 1\n  d: 2\n", "    b:\n        c: 1", "    b:\n        c: 1\n        f:\n            g: 2", "a:\n  b:\n    c: 1\n    f:\n      g: 2\n  d: 2\n"},
		{"a TSV row changed in place keeps its tabs", "name\tage\nbob\t30\n", "name age\nbob 30", "name age\nbob 31", "name\tage\nbob\t31\n"},
		{"a changed line with new spacing is written as given", "a\tb\nc\n", "a b\nc", "a  b  x\nc", "a  b  x\nc\n"},
	} {
		got, _, err := Apply(c.file, []Edit{{Old: c.old, New: c.new}})
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s: applied as %q, want a refusal", c.name, got)
		case c.want != "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && got != c.want:
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// Hints are true (issue 18.5): no "set replace_all" when it is set or cannot help.
func TestAmbiguousHints(t *testing.T) {
	_, _, err := Apply("a\na\na\n", []Edit{{Old: "a\na", New: "b", ReplaceAll: false}})
	if err == nil || !strings.Contains(err.Error(), "at lines 1, 2") || !strings.Contains(err.Error(), "set replace_all") {
		t.Errorf("overlapping exact: %v", err)
	}
	_, _, err = Apply("a a a\n", []Edit{{Old: "a  a", New: "b", ReplaceAll: true}})
	if err == nil || strings.Contains(err.Error(), "set replace_all") || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping whitespace matches with replace_all: %v", err)
	}
	text := "f(1)\nf(2)\nf(3)\n"
	_, _, err = Apply(text, []Edit{{Old: "f(9)", New: "g", Fuzzy: true, ReplaceAll: true}})
	if err == nil || strings.Contains(err.Error(), "set replace_all") || !strings.Contains(err.Error(), "matches 3 places (fuzzy match) at lines 1, 2, 3") {
		t.Errorf("fuzzy ambiguity: %v", err)
	}
}

// An over-escaped old_string (gemini's editCorrector cases) is refused with a hint that
// says so; nothing is applied unescaped.
func TestOverEscapedHint(t *testing.T) {
	_, _, err := Apply("This is a test string to find \"me\".", []Edit{{Old: `find \"me\"`, New: "replace with this"}})
	if err == nil || !strings.Contains(err.Error(), "escaped one time too many") {
		t.Errorf("over-escaped quotes: %v", err)
	}
	_, _, err = Apply("a\nb\n", []Edit{{Old: `a\nb`, New: "x"}})
	if err == nil || !strings.Contains(err.Error(), "escaped one time too many") {
		t.Errorf("over-escaped newline: %v", err)
	}
	_, _, err = Apply("nothing here", []Edit{{Old: `find \"me\"`, New: "x"}})
	if err == nil || strings.Contains(err.Error(), "escaped one time too many") {
		t.Errorf("a hint where unescaping does not help either: %v", err)
	}
}

// TestCROnlyFile: a file whose lines end in a lone CR (classic Mac OS) keeps them: a
// new_string's line breaks are written as CR, not LF (a red-team helper's case).
func TestCROnlyFile(t *testing.T) {
	text, f := Decode([]byte("a\rb\rc\r"))
	if f.LineEnding != "cr" || text != "a\nb\nc\n" || !f.FinalNewline {
		t.Fatalf("decoded %q as %+v", text, f)
	}
	out, _, err := Apply(text, []Edit{{Old: f.Normalize("b"), New: f.Normalize("x\ny")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(f.Encode(out)); got != "a\rx\ry\rc\r" {
		t.Errorf("got %q, want %q", got, "a\rx\ry\rc\r")
	}
	if _, f := Decode([]byte("50%\r100%\nnext\n")); f.CR || f.LineEnding != "lf" {
		t.Errorf("a CR inside an LF file made it a CR file: %+v", f)
	}
}

// TestAdjacentDeletions: two edits deleting neighbouring lines, the last of a file
// without a final newline among them, are not refused as overlapping (a red-team
// helper's case), and the file still ends without a newline.
func TestAdjacentDeletions(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"a = 1\nb = 2\nc = 3", "a = 1"},
		{"a = 1\nb = 2\nc = 3\n", "a = 1\n"},
	} {
		got, _, err := Apply(c.file, []Edit{{Old: "b = 2", New: ""}, {Old: "c = 3", New: ""}})
		if err != nil || got != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.file, got, err, c.want)
		}
	}
	// Deletions that really overlap are still refused.
	if _, _, err := Apply("a b c\n", []Edit{{Old: "a b", New: "x"}, {Old: "b c", New: ""}}); err == nil {
		t.Error("overlapping edits were applied")
	}
}
