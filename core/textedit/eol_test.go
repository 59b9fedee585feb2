package textedit

import "testing"

// In a file of mixed line endings nothing is converted, so the line breaks new_string
// brings in must take the endings of the lines they replace or are inserted into, and
// every other line keeps its own ending byte for byte. Pure LF and pure CRLF files are
// pinned too: they are converted as a whole and must come out as before.
func TestMixedEndingsEdits(t *testing.T) {
	cases := []struct {
		name, file string
		edits      []Edit
		want       string
	}{
		{name: "whitespace match ending before a CR: one CR kept, not two", file: "l1\r\nl2\nl3\r\n",
			edits: []Edit{{Old: "l1\nl2\nl3", New: "l1\nA\nl3"}}, want: "l1\r\nA\nl3\r\n"},
		{name: "line split inside a CRLF line", file: "l0\r\nl1\r\nl2\r\nlf\n",
			edits: []Edit{{Old: "l1", New: "l1\nNEW"}}, want: "l0\r\nl1\r\nNEW\r\nl2\r\nlf\n"},
		{name: "same through edits", file: "l0\r\nl1\r\nl2\r\nlf\n",
			edits: []Edit{{Old: "l1", New: "l1\nNEW"}, {Old: "lf", New: "lf\nNEW2"}},
			want:  "l0\r\nl1\r\nNEW\r\nl2\r\nlf\nNEW2\n"},
		{name: "line split inside an LF line", file: "c0\r\nlf\nc1\r\n",
			edits: []Edit{{Old: "lf", New: "lf\nNEW"}}, want: "c0\r\nlf\nNEW\nc1\r\n"},
		{name: "each replaced line keeps its ending", file: "a\r\nb\nc\r\nd\ne\r\n",
			edits: []Edit{{Old: "b\nc\r\nd\n", New: "B\nC\nD\n"}}, want: "a\r\nB\nC\r\nD\ne\r\n"},
		{name: "lines added after replaced ones", file: "a\nb\r\nc\n",
			edits: []Edit{{Old: "b\r\n", New: "B\nB2\nB3\n"}}, want: "a\nB\r\nB2\r\nB3\r\nc\n"},
		{name: "repeated lines keep their own endings", file: "a\r\nb\nc\r\n",
			edits: []Edit{{Old: "a\r\nb\n", New: "a\nX\nb\n"}}, want: "a\r\nX\r\nb\nc\r\n"},
		{name: "a line deleted from a mixed region", file: "a\r\nb\nc\r\n",
			edits: []Edit{{Old: "a\r\nb\nc\r\n", New: "a\nc\n"}}, want: "a\r\nc\r\n"},
		{name: "old_string starting at the LF of a CRLF", file: "x\r\nfoo\nz\n",
			edits: []Edit{{Old: "\nfoo", New: "\nbar\nbaz"}}, want: "x\r\nbar\nbaz\nz\n"},
		{name: "lines joined across a CRLF", file: "x\r\nfoo\nz\n",
			edits: []Edit{{Old: "\nfoo", New: " foo"}}, want: "x foo\nz\n"},
		{name: "last line without a final newline", file: "a\r\nb\nc",
			edits: []Edit{{Old: "c", New: "c\nd"}}, want: "a\r\nb\nc\nd"},
		{name: "whitespace stage", file: "if x:\r\n\tfoo()  \r\nend\n",
			edits: []Edit{{Old: "if x:\n    foo()\n", New: "if x:\n    foo()\n    bar()\n    baz()\n"}},
			want:  "if x:\r\n\tfoo()  \r\n\tbar()\r\n\tbaz()\r\nend\n"},
		{name: "whitespace stage, LF lines", file: "c\r\nif x:\n\tfoo()  \nend\r\n",
			edits: []Edit{{Old: "if x:\n    foo()\n", New: "if x:\n    foo()\n    bar()\n"}},
			want:  "c\r\nif x:\n\tfoo()  \n\tbar()\nend\r\n"},
		{name: "replace_all", file: "k\r\nk\n",
			edits: []Edit{{Old: "k", New: "k\nv", ReplaceAll: true}}, want: "k\r\nv\r\nk\nv\n"},
		{name: "CRLF the model wrote is kept", file: "a\r\nb\n",
			edits: []Edit{{Old: "b", New: "b\r\nc"}}, want: "a\r\nb\r\nc\n"},
		{name: "pure LF", file: "a\nb\n", edits: []Edit{{Old: "a", New: "a\nx"}}, want: "a\nx\nb\n"},
		{name: "pure CRLF", file: "a\r\nb\r\n", edits: []Edit{{Old: "a", New: "a\nx"}}, want: "a\r\nx\r\nb\r\n"},
		{name: "pure CRLF, CRLF in new_string", file: "a\r\nb\r\n",
			edits: []Edit{{Old: "a\r\n", New: "a\r\nx\r\n"}}, want: "a\r\nx\r\nb\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, f := Decode([]byte(c.file))
			edits := make([]Edit, len(c.edits))
			for i, e := range c.edits {
				e.Old, e.New = f.Normalize(e.Old), f.Normalize(e.New)
				edits[i] = e
			}
			out, _, err := Apply(text, edits)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(f.Encode(out)); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}
