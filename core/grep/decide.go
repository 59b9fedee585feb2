package grep

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// A decider settles, from the bytes right around a literal hit, whether the line
// matches there, for a pattern that is one literal with at most one simple condition on
// each side: `\w+Error\b`, `^func \w+`, `\bmain\b`, `Error\w*`. On a source tree most
// hits of such a pattern are decided without the regexp, which otherwise costs more
// than finding the literal. Only what a byte decides is decided: a non-ASCII neighbour
// of a class is left to the regexp.
type decider struct{ before, after edge }

// edge is the condition on one side of the literal.
type edge struct {
	kind  edgeKind
	class []rune // edgeSome: sorted lo, hi pairs
}

type edgeKind uint8

const (
	edgeNone      edgeKind = iota // nothing: the literal is at the pattern's end
	edgeAny                       // a class repeated zero or more times: always met
	edgeSome                      // a class repeated one or more times: one neighbour in it
	edgeBoundary                  // \b (ASCII word characters, as Go's regexp)
	edgeNoBound                   // \B
	edgeLineStart                 // ^ (the line is the text)
	edgeLineEnd                   // $
	// edgeNotWord: the line's edge or a character that is not an ASCII word character,
	// what word mode's (?:^|\W) and (?:\W|$) ask around the pattern. A byte from 0x80
	// up ends or starts a non-ASCII rune (or an invalid byte), which \W matches.
	edgeNotWord
)

type verdict uint8

const (
	unsure verdict = iota
	noMatch
	isMatch
)

// newDecider returns the decider for re when re (simplified) is a concatenation of at
// most one side condition, the literal lit, and at most one side condition; nil
// otherwise.
func newDecider(re *syntax.Regexp, lit string) *decider {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat || len(re.Sub) > 3 {
		return nil
	}
	at := -1
	for i, sub := range re.Sub {
		if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 && string(sub.Rune) == lit {
			at = i
			break
		}
	}
	if at < 0 || at > 1 || len(re.Sub)-at > 2 {
		return nil
	}
	d := &decider{}
	ok := true
	if at == 1 {
		d.before, ok = edgeOf(re.Sub[0], true)
	}
	if ok && at+1 < len(re.Sub) {
		d.after, ok = edgeOf(re.Sub[at+1], false)
	}
	if !ok {
		return nil
	}
	return d
}

// edgeOf turns one side's node into its condition; ok is false when it is not one.
func edgeOf(re *syntax.Regexp, before bool) (edge, bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpWordBoundary:
		return edge{kind: edgeBoundary}, true
	case syntax.OpNoWordBoundary:
		return edge{kind: edgeNoBound}, true
	case syntax.OpBeginLine, syntax.OpBeginText:
		return edge{kind: edgeLineStart}, before
	case syntax.OpEndLine, syntax.OpEndText:
		return edge{kind: edgeLineEnd}, !before
	case syntax.OpStar:
		if _, ok := classOf(re.Sub[0]); ok {
			return edge{kind: edgeAny}, true
		}
	case syntax.OpPlus:
		if c, ok := classOf(re.Sub[0]); ok {
			return edge{kind: edgeSome, class: c}, true
		}
	case syntax.OpRepeat:
		if c, ok := classOf(re.Sub[0]); ok && re.Max == -1 && re.Min <= 1 {
			if re.Min == 0 {
				return edge{kind: edgeAny}, true
			}
			return edge{kind: edgeSome, class: c}, true
		}
	}
	return edge{}, false
}

// classOf returns the characters one node matches when it is a single-character class.
func classOf(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpCharClass:
		return re.Rune, true
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}, true
	case syntax.OpAnyChar:
		return []rune{0, unicode.MaxRune}, true
	}
	return nil, false
}

// decide says whether the line holding the literal hit buf[s:e] matches at that hit.
// Lines end at '\n' and a chunk starts at a line start, as for neighboursOK.
func (d *decider) decide(buf []byte, s, e int) verdict {
	prev, next := -1, -1 // -1: the line's edge
	if s > 0 && buf[s-1] != '\n' {
		prev = int(buf[s-1])
	}
	if e < len(buf) && buf[e] != '\n' {
		next = int(buf[e])
	}
	a := d.before.check(prev, buf[s])
	if a == noMatch {
		return noMatch
	}
	b := d.after.check(next, buf[e-1])
	if b == noMatch {
		return noMatch
	}
	if a == unsure || b == unsure {
		return unsure
	}
	return isMatch
}

// check tests the condition against the neighbour byte (-1: the line's edge) of the
// literal's edge byte inner.
func (g edge) check(neighbour int, inner byte) verdict {
	switch g.kind {
	case edgeNone, edgeAny:
		return isMatch
	case edgeSome:
		if neighbour < 0 {
			return noMatch
		}
		if neighbour >= utf8.RuneSelf {
			return unsure
		}
		return isOrNot(inClass(g.class, byte(neighbour)))
	case edgeBoundary, edgeNoBound:
		// Go's \b counts ASCII word characters only; any other rune, and the line's
		// edge, is a non-word neighbour.
		across := (neighbour >= 0 && isWordByte(byte(neighbour))) != isWordByte(inner)
		return isOrNot(across == (g.kind == edgeBoundary))
	case edgeLineStart, edgeLineEnd:
		return isOrNot(neighbour < 0)
	case edgeNotWord:
		return isOrNot(neighbour < 0 || !isWordByte(byte(neighbour)))
	}
	return unsure
}

func isOrNot(b bool) verdict {
	if b {
		return isMatch
	}
	return noMatch
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
