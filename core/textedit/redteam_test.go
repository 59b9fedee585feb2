package textedit

import (
	"strings"
	"testing"
)

// TestRedTeamTolerantEditsAreRight holds what a red team found the whitespace-tolerant
// stage doing wrong (1,500 random edits): each now gives what the edit means, or is
// refused. want "" expects a refusal that names errHas.
func TestRedTeamTolerantEditsAreRight(t *testing.T) {
	cases := []struct {
		name, text string
		edits      []Edit
		want       string
		errHas     string
	}{
		{name: "new_string's own trailing blanks stay (a Markdown line break)",
			text:  "-- minus\nx\n",
			edits: []Edit{{Old: "  -- minus", New: "item 5  \nif (a) {"}},
			want:  "item 5  \nif (a) {\nx\n"},
		{name: "a blank line old_string starts with is the file's blank line, replaced",
			text:  "a\n  \nv2 = 6;\nb\n",
			edits: []Edit{{Old: "   \nv2 = 6; ", New: "v3 = 0;"}},
			want:  "a\nv3 = 0;\nb\n"},
		{name: "a leading line break alone is the line above's end: the blank line stays",
			text:  "a\n\nv2 = 6;\nb\n",
			edits: []Edit{{Old: "\n  v2 = 6;", New: "v3 = 0;"}},
			want:  "a\n\nv3 = 0;\nb\n"},
		{name: "blanks old_string ends with after its last line break are the blank line below's, taken",
			text:  "a\n  x\n  \nb\n",
			edits: []Edit{{Old: "x\n\t", New: "y"}},
			want:  "a\n  y\nb\n"},
		{name: "a new_string of blanks is a blank line, not a deletion",
			text:  "a\nw977281\nb\n",
			edits: []Edit{{Old: "w977281 ", New: "  "}},
			want:  "a\n\nb\n"},
		{name: "so is one replacing a whole line with its break",
			text:  "a\nitem 8  \nb\n",
			edits: []Edit{{Old: "item 8   \n", New: "\t"}},
			want:  "a\n\nb\n"},
		{name: "old_string copied deeper than the file: new_string's outermost line goes to the margin, not deeper",
			text:  "a\n    v3 = 5;\nb = 1;\n",
			edits: []Edit{{Old: "      v3 = 5;\n  b = 1;", New: "}\n    }\nw"}},
			want:  "a\n}\n  }\nw\n"},
		// Session 36's red team: new_string written from column 0 under an old_string
		// copied deeper than the file had two depths shifted past the margin, flattened
		// into one (a method's body moved out of its class).
		{name: "new_string's nesting survives an old_string copied deeper than the file",
			text:  "class A:\n  def f(self):\n    return 1\n",
			edits: []Edit{{Old: "    def f(self):\n      return 1", New: "def g(self):\n  return 2"}},
			want:  "class A:\n  def g(self):\n    return 2\n"},
		{name: "a block and what follows it keep their depths",
			text:  "if ok:\n  run()\n  done()\n",
			edits: []Edit{{Old: "    run()\n    done()", New: "if again:\n  run()\ndone()"}},
			want:  "if ok:\n  if again:\n    run()\n  done()\n"},
		{name: "a nested body is not flattened",
			text:  "def f():\n  if a:\n    b()\n",
			edits: []Edit{{Old: "    if a:\n      b()", New: "if a:\n  b()\n  c()"}},
			want:  "def f():\n  if a:\n    b()\n    c()\n"},
		{name: "three depths keep three depths",
			text:  "  a\n  b\n",
			edits: []Edit{{Old: "    a\n    b", New: "x\n  y\n    z"}},
			want:  "  x\n    y\n      z\n"},
		{name: "old_string's trailing blanks are replaced with the line, its CR kept",
			text:  "w\r\nitem 8  \r\nz\n",
			edits: []Edit{{Old: "w\nitem 8  ", New: "w\nline 8"}},
			want:  "w\r\nline 8\r\nz\n"},
		{name: "in a file of mixed endings an LF old_string matches exactly, as in an LF or CRLF file",
			text:  "a\r\nb\nc\r\nd\r\n",
			edits: []Edit{{Old: "b\nc\n", New: "B\nC\n"}},
			want:  "a\r\nB\nC\r\nd\r\n"},
		{name: "and without its tolerant stage's layout: an exact edit at the end is literal",
			text:  "x\r\ny\n\tcall(0)\n    v5 = 9;\r\n",
			edits: []Edit{{Old: "\tcall(0)\n    v5 = 9;\n", New: "mid"}},
			want:  "x\r\ny\nmid"},
		{name: "deleting the first word of an indented line keeps the indentation",
			text:  "def f():\n    if x:\n        await g()\n",
			edits: []Edit{{Old: "await ", New: ""}},
			want:  "def f():\n    if x:\n        g()\n"},
		{name: "so does replace_all deleting a key's prefix in YAML",
			text:  "a:\n  foo: 1\nb:\n  foo: 2\n",
			edits: []Edit{{Old: "foo", New: "", ReplaceAll: true}},
			want:  "a:\n  : 1\nb:\n  : 2\n"},
		{name: "deleting a whole indented line's text still deletes the line",
			text:  "a\n    await g()\nb\n",
			edits: []Edit{{Old: "await g()", New: ""}},
			want:  "a\nb\n"},
		{name: "replace_all takes an occurrence inside deeper indentation too",
			text:  "def f():\n    return None\n\ndef g():\n    if x:\n        return None\n",
			edits: []Edit{{Old: "    return None", New: "    return 0", ReplaceAll: true}},
			want:  "def f():\n    return 0\n\ndef g():\n    if x:\n        return 0\n"},
		{name: "a Markdown line break new_string ends with is kept though old_string's blanks differ",
			text:  "para\nline  \nnext\n",
			edits: []Edit{{Old: "line   ", New: "LINE  "}},
			want:  "para\nLINE  \nnext\n"},
		{name: "two deletions sharing a line break mid-file overlap",
			text:   "a\nb\nc\n",
			edits:  []Edit{{Old: "a\n"}, {Old: "\nb"}},
			errHas: "overlap"},
		{name: "old_string indented as the file but for trailing blanks keeps new_string's indentation (a Makefile)",
			text:  "all: x\n\tcc -o x x.c\nclean:\n\trm -f x\n",
			edits: []Edit{{Old: "\tcc -o x x.c \nclean: \n\trm -f x", New: "\tcc -o x x.c\n\t  @echo built\nclean:\n\trm -f x"}},
			want:  "all: x\n\tcc -o x x.c\n\t  @echo built\nclean:\n\trm -f x\n"},
		{name: "overlapping deletions are refused, as any overlap",
			text:   "hello world\n",
			edits:  []Edit{{Old: "hello wo"}, {Old: "lo world"}},
			errHas: "overlap"},
		// Red team, session 34: old_string copied shallower than the line, ending inside it.
		{name: "deleting the first words of a line from a shallower copy keeps the line's indentation",
			text:  "async def g():\n    await fetch(url)\n",
			edits: []Edit{{Old: "  await "}},
			want:  "async def g():\n    fetch(url)\n"},
		{name: "without the blanks after them, the blanks stay",
			text:  "       2 bar\n",
			edits: []Edit{{Old: "   2"}},
			want:  "        bar\n"},
		{name: "a rewrite from the same copy is at the line's depth",
			text:  "async def g():\n    await fetch(url)\n",
			edits: []Edit{{Old: "  await ", New: "  return "}},
			want:  "async def g():\n    return fetch(url)\n"},
		{name: "blanks in place of a line's first letters keep its indentation",
			text:  "  baz e ; L0\n",
			edits: []Edit{{Old: "ba", New: "\t"}},
			want:  "  \tz e ; L0\n"},
		// Second red team: a block's body written at the depth of the line that opens it
		// is nested under it, in old_string's frame; blanks for a line's first words
		// from a shallow copy keep the line's indentation; an edit that changes nothing
		// is said to.
		{name: "a one-line shallow copy's new block keeps its nesting (whitespace stage)",
			text:  "def f():\n    foo(a)\n    return 1\n",
			edits: []Edit{{Old: "  foo(a)\n", New: "  if x:\n    bar(b)\n"}},
			want:  "def f():\n    if x:\n      bar(b)\n    return 1\n"},
		{name: "and so does a bare one's (exact stage)",
			text:  "def f():\n    foo(a)\n    return 1\n",
			edits: []Edit{{Old: "foo(a)", New: "if x:\n    bar(b)"}},
			want:  "def f():\n    if x:\n        bar(b)\n    return 1\n"},
		{name: "a body written deeper than the file's line stays where it was written",
			text:  "def f():\n    foo(a)\n    return 1\n",
			edits: []Edit{{Old: "foo(a)", New: "if x:\n        bar(b)"}},
			want:  "def f():\n    if x:\n        bar(b)\n    return 1\n"},
		{name: "blanks for a shallow copy's first words keep the line's indentation",
			text:  "def f():\n    await fetch(url)\n",
			edits: []Edit{{Old: "  await", New: "  "}},
			want:  "def f():\n     fetch(url)\n"},
		{name: "an edit that leaves the file as it is is refused, not reported done",
			text:   "def f():\n    foo(a)\n",
			edits:  []Edit{{Old: "  foo(a)", New: "    foo(a)"}},
			errHas: "changes nothing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := Apply(c.text, c.edits)
			if c.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), c.errHas) {
					t.Fatalf("got %q, %v; want an error saying %q", got, err, c.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestLegacyMultiByteCharactersAreNotSplit: in a file that is not UTF-8, an ASCII
// old_string must not match the second byte of a Shift-JIS, GBK, GB18030 or Big5
// character (a red team's replace_all of "E" turned 界, 8A 45, into 8A 45 52 52), while
// Latin-1 text, whose bytes do not pair up that way, edits as before.
func TestLegacyMultiByteCharactersAreNotSplit(t *testing.T) {
	cases := []struct {
		name, text string
		edit       Edit
		want       string // "" expects a refusal that explains the split
		ambiguous  bool   // expects the refusal of an edit the bytes cannot decide
	}{
		{name: "Shift-JIS: replace_all passes over the E inside 界",
			text: "E = 1\nprint(E)\nmsg = \"\x90\xa2\x8aE\"\n", edit: Edit{Old: "E", New: "ERR", ReplaceAll: true},
			want: "ERR = 1\nprint(ERR)\nmsg = \"\x90\xa2\x8aE\"\n"},
		{name: "Shift-JIS: the backslash inside 表 is not a backslash",
			text: "x = \"\x95\x5c\x8e\xa6\"\npath = a\\b\n", edit: Edit{Old: "\\", New: "/", ReplaceAll: true},
			want: "x = \"\x95\x5c\x8e\xa6\"\npath = a/b\n"},
		{name: "Shift-JIS: an edit that is only inside a character is refused",
			text: "msg = \"\x90\xa2\x8aE\"\n", edit: Edit{Old: "E\"", New: "X\""}},
		{name: "GBK: bytes spanning two characters are refused",
			text: "name = \"\xc8\xd5\xb1\xbe\"\n", edit: Edit{Old: "\xd5\xb1", New: "x"}},
		{name: "GB18030: the digits of a four-byte character are not digits",
			text: "v = \x81\x30\x81\x30 + 0\n", edit: Edit{Old: "0", New: "1", ReplaceAll: true},
			want: "v = \x81\x30\x81\x30 + 1\n"},
		{name: "Big5: a letter after a character's lead byte is its second byte",
			text: "s = \"\xa4\xa4\xa4\x40\" # a@\n", edit: Edit{Old: "@", New: "at", ReplaceAll: true},
			want: "s = \"\xa4\xa4\xa4\x40\" # aat\n"},
		{name: "Latin-1 text is edited right after an accented letter",
			text: "caf\xe9 au lait\nr\xe9el\n", edit: Edit{Old: "el", New: "EL"},
			want: "caf\xe9 au lait\nr\xe9EL\n"},
		// Text whose bytes read as Latin-1 or cp1252 as well as they read as Shift-JIS or
		// GBK: "Z\xfcrich" is Zürich or a character and "ich". A match that starts or
		// ends where a character would be cut is refused, since the bytes cannot say
		// whether it is right (session 36's red team: katakana text, taken for
		// Latin-1, had the backslashes inside its characters replaced).
		{name: "Latin-1 or GBK: replace_all after an accented letter is refused",
			text: "Z\xfcrich, Z\xfcrich und Ulrich\n", edit: Edit{Old: "rich", New: "RICH", ReplaceAll: true}, ambiguous: true},
		{name: "Latin-1 or GBK: a match at a word's start is edited",
			text: "Z\xfcrich, Z\xfcrich und Ulrich\n", edit: Edit{Old: "und", New: "and"},
			want: "Z\xfcrich, Z\xfcrich and Ulrich\n"},
		{name: "cp1252 or Shift-JIS: a match just after a dash is refused",
			text: "a \x96b and\x97c end\n", edit: Edit{Old: "c end", New: "C END"}, ambiguous: true},
		{name: "half-width katakana (Shift-JIS) or a GBK character: refused",
			text: "s = \"\xb1End\";\n", edit: Edit{Old: "End", New: "Fin"}, ambiguous: true},
		{name: "Shift-JIS katakana: the backslashes inside ソ and 表 are not replaced",
			text: "\x83p\x83X = \"C:\\\x83\\\x81[\x83X\x95\\\x8e\xa6\\data\"\n", edit: Edit{Old: "\\", New: "/", ReplaceAll: true}, ambiguous: true},
		{name: "EUC-JP: an ASCII letter after a three-byte character is a letter",
			text: "s = \"\x8f\xb0\xa1End\";\n", edit: Edit{Old: "End", New: "Fin"},
			want: "s = \"\x8f\xb0\xa1Fin\";\n"},
		{name: "EUC: bytes spanning two characters are refused",
			text: "name = \"\xc8\xd5\xb1\xbe\"\n", edit: Edit{Old: "\xd5\xb1", New: "x"}},
		{name: "whole characters are edited",
			text: "msg = \"\x90\xa2\x8aE\" E\n", edit: Edit{Old: " E\n", New: " F\n"},
			want: "msg = \"\x90\xa2\x8aE\" F\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := Apply(c.text, []Edit{c.edit})
			if c.ambiguous {
				if err == nil || !strings.Contains(err.Error(), "the bytes do not say") {
					t.Fatalf("got %q, %v; want a refusal that says the encoding cannot be told", got, err)
				}
				return
			}
			if c.want == "" {
				if err == nil || !strings.Contains(err.Error(), "only inside characters") {
					t.Fatalf("got %q, %v; want a refusal that explains the split", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// FuzzSplitChecker: the legacy-encoding check never panics, never puts a file's ends
// inside a character, and says inside only just after a byte of a multi-byte encoding.
func FuzzSplitChecker(f *testing.F) {
	f.Add([]byte("msg = \"\x90\xa2\x8aE\"\n"))
	f.Add([]byte("v = \x81\x30\x81\x30 + 0\n"))
	f.Add([]byte("caf\xe9 au lait\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		text := string(b)
		inside, _ := splitChecker(text)
		if inside == nil {
			return
		}
		if inside(0) || inside(len(text)) {
			t.Fatal("an end of the text is inside a character")
		}
		for i := 1; i < len(text); i++ {
			if inside(i) && !strings.ContainsFunc(text[max(0, i-3):i], func(r rune) bool { return r >= 0x80 }) {
				t.Fatalf("offset %d is inside a character, but no byte before it is a lead byte: %q", i, text)
			}
		}
	})
}

// TestReplacementCharacterIsExplained: an old_string copied from read's view of bytes
// that are not UTF-8 (each shown as U+FFFD) cannot match, and the error says why and
// what to do instead of only "copy them exactly".
func TestReplacementCharacterIsExplained(t *testing.T) {
	_, _, err := Apply("x \xe9\xe8 y\n", []Edit{{Old: "x \uFFFD\uFFFD y", New: "z"}})
	if err == nil || !strings.Contains(err.Error(), "not UTF-8") || !strings.Contains(err.Error(), "around those bytes") {
		t.Fatalf("got %v; want an error that explains U+FFFD", err)
	}
}
