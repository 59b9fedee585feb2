package grep

import "strings"

// Unicode versions of Perl classes, as ripgrep (Rust's regex) defines them. Go's \w, \d
// and \s are ASCII-only; rewriting them keeps agentbox's answers equal to ripgrep's on
// text like `package α`. \b stays ASCII (Go has no Unicode word boundary).
const (
	uWord  = `\p{L}\p{M}\p{Nd}\p{Pc}`
	uDigit = `\p{Nd}`
	uSpace = `\t\n\v\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`
)

// unicodeClasses rewrites \w \W \d \D \s \S outside character classes, and \w \d \s
// inside them, to their Unicode meaning.
func unicodeClasses(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			n := p[i+1]
			i++
			if n == 'Q' { // \Q...\E is literal text
				end := strings.Index(p[i+1:], `\E`)
				if end < 0 {
					b.WriteString(p[i-1:])
					return b.String()
				}
				b.WriteString(p[i-1 : i+1+end+2])
				i += end + 2
				continue
			}
			var in, out string
			switch n {
			case 'w':
				in, out = uWord, "["+uWord+"]"
			case 'W':
				out = "[^" + uWord + "]"
			case 'd':
				in, out = uDigit, uDigit
			case 'D':
				out = `\P{Nd}`
			case 's':
				in, out = uSpace, "["+uSpace+"]"
			case 'S':
				out = "[^" + uSpace + "]"
			}
			switch {
			case inClass && in != "":
				b.WriteString(in)
			case !inClass && out != "":
				b.WriteString(out)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			continue
		}
		switch {
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' first in the class (after an optional '^') is a member.
			if i+1 < len(p) && p[i+1] == '^' {
				i++
				b.WriteByte('^')
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
				b.WriteByte(']')
			}
			continue
		case c == '[' && inClass && i+1 < len(p) && p[i+1] == ':':
			// [:alpha:] inside a class
			if end := strings.Index(p[i:], ":]"); end > 0 {
				b.WriteString(p[i : i+end+2])
				i += end + 1
				continue
			}
		case c == ']' && inClass:
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}
