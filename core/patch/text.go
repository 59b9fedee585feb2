package patch

import (
	"bytes"
	"strings"

	"github.com/agentbox/agentbox/core/textfmt"
)

// line is one line of a file and the ending it had, so untouched lines of a file with
// mixed endings are written back byte for byte.
type line struct {
	text string
	eol  string // "\n", "\r\n" or "" (the last line of a file without a final newline)
}

// text is a decoded file.
type text struct {
	bom   bool
	eol   string // the dominant ending, for lines with no neighbour to take one from
	lines []line
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func decode(data []byte) text {
	t := text{eol: "\n"}
	if enc, bomLen := textfmt.Encoding(data); enc == textfmt.UTF8BOM {
		t.bom = true
		data = data[bomLen:]
	}
	s := string(data)
	crlf, lf := 0, 0
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			t.lines = append(t.lines, line{text: s})
			break
		}
		l := line{text: s[:i], eol: "\n"}
		if i > 0 && s[i-1] == '\r' {
			l = line{text: s[:i-1], eol: "\r\n"}
			crlf++
		} else {
			lf++
		}
		t.lines = append(t.lines, l)
		s = s[i+1:]
	}
	if crlf > lf {
		t.eol = "\r\n"
	}
	return t
}

func (t text) encode() []byte {
	n := 0
	for _, l := range t.lines {
		n += len(l.text) + len(l.eol)
	}
	var b bytes.Buffer
	b.Grow(n + 3)
	if t.bom {
		b.Write(utf8BOM)
	}
	for _, l := range t.lines {
		b.WriteString(l.text)
		b.WriteString(l.eol)
	}
	return b.Bytes()
}

// eolBefore is the ending of the nearest line before line i that has one, or the
// file's dominant ending: a line that gains an ending takes its neighbour's.
func (t text) eolBefore(i int) string {
	for i--; i >= 0; i-- {
		if e := t.lines[i].eol; e != "" {
			return e
		}
	}
	return t.eol
}

// finalNewline reports whether the file ends with a line ending (true for an empty file).
func (t text) finalNewline() bool {
	return len(t.lines) == 0 || t.lines[len(t.lines)-1].eol != ""
}

// Matching stages, most exact first.
const (
	StageExact    = "exact"
	StageTrailing = "trailing_whitespace"
	StageLeading  = "leading_whitespace"
	StageUnicode  = "unicode_punctuation"
)

var stages = []string{StageExact, StageTrailing, StageLeading, StageUnicode}

func normalize(stage, s string) string {
	switch stage {
	case StageTrailing:
		return strings.TrimRight(s, " \t\r\f\v")
	case StageLeading:
		return strings.TrimSpace(s)
	case StageUnicode:
		return strings.TrimSpace(foldPunct(s))
	}
	return s
}

// punct maps typographic look-alikes to the ASCII a program would contain.
var punct = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'", "\u2032", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`, "\u2033", `"`,
	"\u00AB", `"`, "\u00BB", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2026", "...",
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
	"\u200B", "", "\uFEFF", "",
)

func foldPunct(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return punct.Replace(s)
		}
	}
	return s
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}
