package textedit

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// This file decides what a tolerant match replaces and how the replacement is laid out.
// A whitespace or fuzzy match is found by its words; what it replaces is whole lines
// wherever the words begin after a line's indentation and end before its line break, so
// a replacement never leaves a stray indent, a blank line or half a line behind. The
// replacement is then moved from the frame old_string was written in to the file's.

// shape is old_string (or new_string) split into the blank lines before its first word,
// its core lines, and the line breaks after its last word.
type shape struct {
	lead, trail int // line breaks before the core's first line, after its last
	core        string
	// endBlanks: blanks follow the core's last word on its line (old_string copied a
	// line's trailing blanks, so they are its to replace). leadBlanks: blanks come
	// before its first line break (a blank line above the core, copied).
	endBlanks, leadBlanks bool
	// trailBlanks: blanks follow its last line break (the start of a blank line, copied).
	trailBlanks  bool
	endBlankText string // the blanks after the last word, on its line
}

func shapeOf(s string) shape {
	notSpace := func(r rune) bool { return r >= utf8.RuneSelf || !isASCIISpace(byte(r)) }
	first := strings.IndexFunc(s, notSpace)
	if first < 0 {
		return shape{trail: strings.Count(s, "\n")}
	}
	last := strings.LastIndexFunc(s, notSpace)
	_, size := utf8.DecodeRuneInString(s[last:])
	lineStart := strings.LastIndexByte(s[:first], '\n') + 1
	after := s[last+size:]
	return shape{
		lead:         strings.Count(s[:first], "\n"),
		trail:        strings.Count(after, "\n"),
		core:         s[lineStart : last+size],
		endBlanks:    after != "" && after[0] != '\n' && after[0] != '\r',
		leadBlanks:   first > 0 && s[0] != '\n' && s[0] != '\r' && strings.Contains(s[:first], "\n"),
		trailBlanks:  strings.Contains(after, "\n") && strings.TrimRight(after[strings.LastIndexByte(after, '\n')+1:], "\r") != "",
		endBlankText: strings.TrimRight(after[:strings.IndexByte(after+"\n", '\n')], "\r"),
	}
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// fitting is how a whitespace or fuzzy match sits in the text.
type fitting struct {
	lineStart bool     // the match starts at a line start (after any indentation)
	oldLines  []string // old_string's core lines
	fileLines []string // the text lines the core matched, whole
	oldLead   int      // old_string's line breaks before its core
	leadTaken int      // the blank lines above the core the match takes for them
	tailTaken bool     // the blanks of the line after the match are taken too
	oldTrail  int
	breaks    int  // line breaks the match covers after its last word
	noTrail   bool // the matched lines have no trailing blanks: the replacement gets none
	// lastWhole: the match takes the last matched line up to its end (blanks after the
	// last word aside); lastBlanksStay: those blanks are not replaced and stay after it.
	lastWhole, lastBlanksStay bool
	// innerBlanks: old_string ends with blanks, and the matched line goes on after the
	// file's blanks there (their length); nextIndent: old_string ends inside the
	// next line's indentation, and that line goes on (the indentation's length).
	// Span takes them in when new_string drops them, as an exact match would.
	innerBlanks, nextIndent int
	joined                  bool // Span took nextIndent in: new_string's own end blanks join the lines
	// pairs (fuzzy): old_string's line → the file line it stands for, one for one,
	// whatever their text; wrapped: old_string's lines that stand for two lines or
	// share one (lineCorrespondence).
	pairs   map[int]int
	wrapped []int
}

// deletedWords is the deletion of a tolerant match that starts a line and ends inside
// one ("  await " out of "    await fetch(url)"): the words go, and the blanks old_string
// ended with go as the file's blanks there; the line keeps its indentation, which
// old_string copied shallower or deeper.
func (f *fitting) deletedWords(text string, start, end int) (int, int, string) {
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	start = max(start, ls+len(leading(text[ls:])))
	if !f.lastBlanksStay && f.oldTrail == 0 {
		end += len(text[end:]) - len(strings.TrimLeft(text[end:], " \t"))
	}
	return start, end, ""
}

// fitWhitespace widens a match of old's words at text[r:q] to whole lines where only
// blanks lie outside it on its first and last line. It refuses the match (false) where
// old_string starts with a line break or indentation, or ends with a line break, and the
// words do not start or end a line: "sample text\n" does not match inside
// "sample text.\n".
func fitWhitespace(text string, old shape, oldLines []string, r, q int) (start, end int, f *fitting, ok bool) {
	ls := strings.LastIndexByte(text[:r], '\n') + 1
	lineStart := isBlank(text[ls:r])
	if (old.lead > 0 || leading(old.core) != "") && !lineStart {
		return 0, 0, nil, false
	}
	le := len(text)
	if i := strings.IndexByte(text[q:], '\n'); i >= 0 {
		le = q + i
	}
	lineEnd := isBlank(text[q:le])
	if old.trail > 0 && !lineEnd {
		return 0, 0, nil, false
	}
	start, end = r, q
	if lineStart {
		start = ls
	}
	f = &fitting{lineStart: lineStart, oldLines: oldLines, oldLead: old.lead, oldTrail: old.trail, lastWhole: lineEnd, lastBlanksStay: old.trail == 0 && !old.endBlanks}
	if old.trail == 0 && old.endBlanks {
		// old_string ends with the line's trailing blanks: they are replaced too (not
		// a CR that ends the line in a file of mixed endings). Blanks inside the line
		// ("foo(a, " of "foo(a,\tb)") are old_string's too, left to Span.
		if run := len(text[q:le]) - len(strings.TrimLeft(text[q:le], " \t")); lineEnd {
			end = q + run
		} else {
			f.innerBlanks = run
		}
	}
	f.fileLines = strings.Split(text[start:le], "\n")
	if !lineStart {
		f.fileLines = strings.Split(text[ls:le], "\n")
	}
	if old.trail > 0 {
		end = le
		// The line break that ends the last line, then as many blank lines as old_string
		// has further line breaks, where the file has them.
		for end < len(text) && f.breaks < old.trail {
			if f.breaks > 0 {
				nl := strings.IndexByte(text[end:], '\n')
				if nl < 0 || !isBlank(text[end:end+nl]) {
					break
				}
				end += nl
			}
			end++
			f.breaks++
		}
		if old.trailBlanks && f.breaks == old.trail && end < len(text) {
			// old_string ends inside the blank line after them, as an exact match
			// would: its blanks are taken, its line break stays and ends the last
			// replaced line.
			le := len(text)
			if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
				le = end + nl
			}
			if le > end && text[le-1] == '\r' {
				le-- // (the CR of a CR LF stays with its LF)
			}
			if le > end && isBlank(text[end:le]) {
				end, f.tailTaken = le, true
			} else {
				f.nextIndent = len(leading(text[end:le]))
			}
		}
	}
	// Trailing blanks old_string's copy has and the file's lines lack are the copy's
	// noise, which new_string repeats: its lines then get none. Otherwise new_string's
	// trailing blanks are its own (a Markdown line break) and stay.
	f.noTrail = !hasTrailingBlanks(f.fileLines) && (hasTrailingBlanks(oldLines) || old.endBlanks)
	// Blank lines old_string starts with stand for the file's blank lines above the
	// match, which are replaced as its trailing ones are below it. Its first line break
	// is the one that ends the line above, as in an exact match, unless blanks come
	// before it: then that line is a copied blank line too.
	want := old.lead - 1
	if old.leadBlanks {
		want++
	}
	for lineStart && f.leadTaken < want && start > 0 {
		prev := strings.LastIndexByte(text[:start-1], '\n') + 1
		if !isBlank(text[prev : start-1]) {
			break
		}
		start = prev
		f.leadTaken++
	}
	return start, end, f, true
}

// replace lays out newText for a tolerant match: its core re-indented to the file's
// frame, line breaks before and after it kept in the proportion new_string has them
// to old_string.
func (f *fitting) replace(newText string) string {
	ns := shapeOf(newText)
	var b strings.Builder
	b.WriteString(strings.Repeat("\n", max(0, f.leadTaken+ns.lead-f.oldLead)))
	if ns.core != "" {
		newLines := strings.Split(ns.core, "\n")
		// A fuzzy window's lines are laid out by those old_string's stand for: a
		// blank line more or less shifts the rest (fourth red team, F6: the first line
		// indented twice).
		alignedOld, alignedFile := f.aligned()
		lines, rebased := reindent(newLines, alignedOld, alignedFile)
		if !f.lineStart {
			lines[0] = strings.TrimLeft(lines[0], " \t")
		}
		out := f.keepUnchanged(newLines, lines, rebased)
		for i, l := range out {
			if l.verbatim {
				// the file's own line, as it was
			} else if isBlank(l.text) {
				l.text = ""
			} else if f.noTrail {
				l.text = strings.TrimRight(l.text, " \t")
			}
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(l.text)
		}
		if n := len(out); n > 0 && !out[n-1].verbatim && (!f.noTrail || f.joined) {
			// new_string's own blanks after its last word (a Markdown line break),
			// which its core leaves out.
			b.WriteString(ns.endBlankText)
		}
	}
	breaks := f.breaks + ns.trail - f.oldTrail
	blankLine := ns.core == "" && strings.Trim(newText, "\r\n") != "" // new_string of blanks: a blank line
	if (ns.core != "" || blankLine) && f.breaks > 0 && !f.tailTaken {
		// Replaced lines stay lines: a new_string without old_string's final line break
		// does not join the next line onto it, nor takes the file's final one. (With
		// the next line's blanks taken, that line's own break ends this one.)
		breaks = max(breaks, 1)
	}
	b.WriteString(strings.Repeat("\n", max(0, breaks)))
	return b.String()
}

// reindent moves newLines, written in the frame of oldLines, to the frame of the text
// lines oldLines matched:
//   - new_string already at the file's indentation (its first line indented as the
//     matched first line, where old_string's was not) is kept as it is;
//   - where every old line is indented consistently differently from its file line
//     (shifted, or spaces for tabs), each new line is mapped the same way;
//   - old_string copied from its first word on (its first line bare, the later lines
//     consistent with the file among themselves) gives new_string's first line the file's indentation
//     and maps the later lines as old_string's later lines map;
//   - otherwise, or where a new line falls outside what old_string shows, new_string is
//     rebased (reported true): its own nesting kept, its shallowest indentation replaced
//     by that of the first matched line.
func reindent(newLines, oldLines, fileLines []string) ([]string, bool) {
	out, rebased, _ := reindentSure(newLines, oldLines, fileLines)
	return out, rebased
}

// reindentSure is reindent, also reporting (unsure) where the layout is a guess that
// Apply refuses: see the later lines' mapping below.
func reindentSure(newLines, oldLines, fileLines []string) (out []string, rebased, unsure bool) {
	fileInd := indentOfLine(fileLines, 0)
	if leading(newLines[0]) == fileInd && leading(oldLines[0]) != fileInd {
		return append([]string(nil), newLines...), false, false
	}
	if len(oldLines) == len(fileLines) {
		if identicalIndents(oldLines, fileLines) {
			// old_string is indented as the file (it differed in other blanks): new_string
			// is in the file's frame already, whatever its own indentation (a Makefile
			// recipe's tab and spaces, which no column mapping writes back).
			return append([]string(nil), newLines...), false, false
		}
		// After a one-line old_string that lost indentation, a later new line already
		// indented as deep as the matched line was written at the file's indentation.
		keep := func(i int, l string, out []string) bool {
			return i > 0 && len(oldLines) == 1 && len(leading(oldLines[0])) < len(fileInd) && strings.HasPrefix(leading(l), fileInd) && !bodyOf(out[i-1], l)
		}
		for _, m := range consistentMaps(oldLines, fileLines) {
			if out, ok := mapLines(m, newLines, keep); ok {
				return out, false, false
			}
		}
		if out, ok := scaledFromBareFirst(newLines, oldLines, fileLines); ok {
			return out, false, false
		}
		if len(oldLines) >= 2 {
			for _, m := range consistentMaps(oldLines[1:], fileLines[1:]) {
				rest, ok := mapLines(m, newLines[1:], nil)
				if ok && (len(rest) == 0 || minIndent(rest) < 0 || minIndent(rest) >= minIndent(fileLines)) {
					first := newLines[0]
					if o := leading(oldLines[0]); strings.HasPrefix(leading(first), o) {
						first = fileInd + first[len(o):]
					} else {
						first = fileInd + strings.TrimLeft(first, " \t")
					}
					out = append([]string{first}, rest...)
					return out, false, laterGuess(newLines, oldLines, fileLines, out)
				}
			}
		}
	}
	out = append([]string(nil), newLines...)
	base := commonIndent(newLines)
	for i, l := range out {
		if !isBlank(l) {
			out[i] = fileInd + l[len(base):]
		}
	}
	return out, true, false
}

// laterGuess reports a layout by old_string's later lines alone (its first line maps
// otherwise: copied from its first word on, with later lines a continuation deeper than
// one level, or at the model's absolute columns) that places a new line at an
// indentation those later lines do not show, where the first line's frame (its column
// 0 is the file's first-line indentation) places it elsewhere: the later lines' shift
// is only known for their own depth ("y = 1" after "x = foo(\n    a)" went 8 columns in
// under a hanging indent of 12, fifth red team N4; a sibling of "if b:" copied in a
// 2-space view went off the file's grid, N5). Which was meant, no rule tells, unless
// the first line's frame nests implausibly where the later lines' does not (a line
// deeper than one that opens nothing).
func laterGuess(newLines, oldLines, fileLines, laidOut []string) bool {
	fileInd := leading(fileLines[0])
	// The file's grid, where its matched lines are indented in spaces: a line between
	// two of its columns (6 in a file of 4 and 12) is a fault too.
	grid := 0
	for _, l := range fileLines {
		if ind := leading(l); !isBlank(l) && strings.Trim(ind, " ") == "" {
			grid = gcd(grid, len(ind))
		} else if !isBlank(l) {
			grid = -1
			break
		}
	}
	faults := func(lines []string) int {
		n := nestingFaults(lines, false)
		for _, l := range lines {
			if ind := leading(l); grid > 1 && !isBlank(l) && (strings.Trim(ind, " ") != "" || len(ind)%grid != 0) {
				n++
			}
		}
		return n
	}
	shown := map[string]bool{}
	for _, l := range oldLines[1:] {
		if !isBlank(l) {
			shown[leading(l)] = true
		}
	}
	other, differs := slices.Clone(laidOut), false
	for i, l := range newLines {
		if i == 0 || isBlank(l) || shown[leading(l)] {
			continue
		}
		if alt := fileInd + l; leading(laidOut[i]) != leading(alt) {
			other[i], differs = alt, true
		}
	}
	return differs && faults(laidOut) >= faults(other)
}

// LayoutUnclear reports a tolerant match whose new_string's layout in the file is a
// guess (see laterGuess).
func (m Match) LayoutUnclear(newText string) bool {
	f := m.fit
	ns := shapeOf(newText)
	if f == nil || ns.core == "" {
		return false
	}
	alignedOld, alignedFile := f.aligned()
	_, _, unsure := reindentSure(strings.Split(ns.core, "\n"), alignedOld, alignedFile)
	return unsure
}

// scaledFromBareFirst maps new_string for an old_string copied from its first word on
// and re-indented from column 0 in other steps than the file's ("if x:\n  a = 1" for a
// file's 8 and 12 columns): its first line stands at column 0 of old_string's frame, so
// the one mapping that fits every line is the first line's indentation plus the old
// columns scaled (here twice). The later lines' shift alone (+10) put every line at the
// first line's level (an else, a sibling method, a dedented statement) 2 columns too
// deep (fourth red team, F1). Spaces only, a whole ratio of steps (2, 4, 1/2, 1/4), and
// only where the later lines are copied shallower than the first line's indentation:
// deeper, they may be the file's own columns after a first line copied from mid-line.
func scaledFromBareFirst(newLines, oldLines, fileLines []string) ([]string, bool) {
	base := leading(fileLines[0])
	if len(oldLines) < 2 || len(oldLines) != len(fileLines) || leading(oldLines[0]) != "" || base == "" {
		return nil, false
	}
	spaces := func(lines []string) bool {
		for _, l := range lines {
			if !isBlank(l) && strings.Trim(leading(l), " ") != "" {
				return false
			}
		}
		return true
	}
	if !spaces(oldLines) || !spaces(fileLines) || !spaces(newLines) {
		return nil, false
	}
	b := len(base)
	num, den := 0, 0
	for j := 1; j < len(oldLines); j++ {
		if isBlank(oldLines[j]) {
			continue
		}
		o, f := len(leading(oldLines[j])), len(leading(fileLines[j]))
		if o >= b {
			return nil, false
		}
		if o == 0 {
			if f != b {
				return nil, false
			}
			continue
		}
		if den == 0 {
			num, den = f-b, o
		} else if (f-b)*den != num*o {
			return nil, false
		}
	}
	if den == 0 || num <= 0 || num == den {
		return nil, false
	}
	if g := gcd(num, den); g > 1 {
		num, den = num/g, den/g
	}
	if (num != 1 && den != 1) || num > 4 || den > 4 {
		return nil, false
	}
	out := make([]string, len(newLines))
	for i, l := range newLines {
		if isBlank(l) {
			out[i] = l
			continue
		}
		c := len(leading(l))
		if c*num%den != 0 {
			return nil, false
		}
		out[i] = strings.Repeat(" ", b+c*num/den) + l[c:]
	}
	return out, true
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// identicalIndents reports whether every non-blank old line is indented exactly as
// the file line beside it.
func identicalIndents(old, file []string) bool {
	for i := range old {
		if !isBlank(old[i]) && leading(old[i]) != leading(file[i]) {
			return false
		}
	}
	return true
}

// UniformIndent reports whether lines written by a model (old) are the file's lines at
// the same index but for one change of indentation made to all of them (a shift, tabs
// for spaces, one indentation step for another; see consistentMap). Blank lines are not
// compared, and a single non-blank line always is uniform. Tolerating any other
// difference would ignore nesting: old "if a:\n    x()\n    y()" must not match a file
// whose y() is outside the if.
func UniformIndent(old, file []string) bool {
	if len(old) != len(file) {
		return false
	}
	n := 0
	for _, l := range old {
		if !isBlank(l) {
			n++
		}
	}
	if n <= 1 {
		return true
	}
	_, ok := consistentMap(old, file)
	return ok
}

// ShiftIndent re-indents line by the one change of indentation that turns old's lines
// into file's (see UniformIndent), or reports false where there is none or it does not
// apply to line.
func ShiftIndent(old, file []string, line string) (string, bool) {
	if isBlank(line) {
		return line, true
	}
	m, ok := consistentMap(old, file)
	if !ok {
		return "", false
	}
	return m.apply(line)
}

// uniform reports whether a whitespace match's lines are indented uniformly (see
// UniformIndent). A first line the match takes from mid-line, or that old_string gives
// without indentation (copied from its first word on, whatever the shift of the rest),
// says nothing of its column and is left out.
func (f *fitting) uniform() bool {
	old, file := f.oldLines, f.fileLines
	if len(old) != len(file) {
		return false
	}
	if !f.lineStart || leading(old[0]) == "" {
		old, file = old[1:], file[1:]
	}
	return UniformIndent(old, file)
}

// mapLines re-indents every non-blank line by m (lines keep(i, line) says are kept as
// they are), or reports false when a line's indentation cannot be mapped.
func mapLines(m indentMapping, lines []string, keep func(i int, l string, out []string) bool) ([]string, bool) {
	if m.den == 0 && m.tab != 0 && m.shift < 0 {
		// Lines the shift takes to the margin or past it all land at the margin: fine
		// for one depth, but two depths there would be flattened into one (new_string
		// written from column 0 under an old_string copied deeper than the file: a
		// method's body moved out of its class, red team). No mapping then.
		depths := map[int]bool{}
		for _, l := range lines {
			if isBlank(l) {
				continue
			}
			if c := columns(leading(l), m.tab); c+m.shift <= 0 {
				depths[c] = true
			}
		}
		if len(depths) > 1 {
			return nil, false
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if isBlank(l) || keep != nil && keep(i, l, out) {
			out[i] = l
			continue
		}
		mapped, ok := m.apply(l)
		if !ok {
			return nil, false
		}
		out[i] = mapped
	}
	return out, true
}

// bodyOf reports whether line, read as written at the file's indentation, would sit no
// deeper than prev (as laid out) though prev opens a block (ends in ':', '{', '(' or
// '['): "if x:" then "bar()" at the same depth is no Python and no one's braces, so
// line was written in old_string's frame, nested under prev.
func bodyOf(prev, line string) bool {
	p := strings.TrimRight(prev, " \t")
	if p == "" || !strings.ContainsRune(":{([", rune(p[len(p)-1])) {
		return false
	}
	return columns(leading(line), 8) <= columns(leading(prev), 8)
}

func indentOfLine(lines []string, i int) string {
	if i < len(lines) {
		return leading(lines[i])
	}
	return ""
}

// minIndent is the width of the shallowest non-blank line's indentation, or -1.
func minIndent(lines []string) int {
	least := -1
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		if w := len(leading(l)); least < 0 || w < least {
			least = w
		}
	}
	return least
}

// commonIndent is the longest indentation every non-blank line starts with.
func commonIndent(lines []string) string {
	common, seen := "", false
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		ind := leading(l)
		if !seen {
			common, seen = ind, true
			continue
		}
		n := 0
		for n < len(common) && n < len(ind) && common[n] == ind[n] {
			n++
		}
		common = common[:n]
	}
	return common
}

// consistentMap pairs each indentation of old's lines with the file's at the same
// line. It is consistent when one rule turns every old indentation into the file's:
// the same prefix swapped ("" for "    ", "  \t" for "\t"), or one shift in columns
// (four spaces for a tab and so on).
func consistentMap(oldLines, fileLines []string) (indentMapping, bool) {
	if ms := consistentMaps(oldLines, fileLines); len(ms) > 0 {
		return ms[0], true
	}
	return indentMapping{}, false
}

// consistentMaps is every mapping consistentMap could choose, its choice first: the
// old lines may not tell how many columns a tab stands for ("    x()" for "\t\tx()"
// fits 4 with a shift and 2 without), and a new line deeper than they show may fit only
// one (fourth red team, F9: "      y()" took tabs and two spaces).
func consistentMaps(oldLines, fileLines []string) []indentMapping {
	m := map[string]string{}
	for i := range oldLines {
		if isBlank(oldLines[i]) {
			continue
		}
		from, to := leading(oldLines[i]), leading(fileLines[i])
		if prev, seen := m[from]; seen && prev != to {
			return nil
		}
		m[from] = to
	}
	if len(m) == 0 {
		return nil
	}
	// Another tab width is tried only where old_string's spaces stand for the file's
	// tabs in that ratio on every line ("    " for "\t\t": 2), so eight spaces
	// for two tabs never read a 2-space alignment as a level.
	width := 0
	for from, to := range m {
		if from == "" || to == "" || strings.Trim(from, " ") != "" || strings.Trim(to, "\t") != "" || len(from)%len(to) != 0 || width != 0 && width != len(from)/len(to) {
			width = -1
			break
		}
		width = len(from) / len(to)
	}
	var out []indentMapping
	for _, tab := range []int{4, 8, 2} {
		if im, ok := columnMapping(m, tab); ok && (len(out) == 0 || tab == width) {
			out = append(out, im)
		}
	}
	if len(out) > 0 {
		return out
	}
	if isShift(m) {
		return []indentMapping{{pairs: m}}
	}
	if im, ok := scaleMapping(m); ok {
		return []indentMapping{im}
	}
	return nil
}

// scaleMapping finds one ratio that turns every old indentation into the file's, both
// in spaces: old_string written with 4-space steps for a file of 2-space steps.
func scaleMapping(m map[string]string) (indentMapping, bool) {
	im := indentMapping{}
	for from, to := range m {
		if strings.Trim(from, " ") != "" || strings.Trim(to, " ") != "" {
			return indentMapping{}, false
		}
		if len(from) == 0 {
			if len(to) != 0 {
				return indentMapping{}, false
			}
			continue
		}
		if im.den == 0 {
			im.num, im.den = len(to), len(from)
		} else if len(to)*im.den != im.num*len(from) {
			return indentMapping{}, false
		}
	}
	return im, im.den != 0 && im.num != 0
}

// indentMapping turns old_string's indentation into the file's: by the pairs seen (a
// swapped prefix), or, when tab is set, by a shift in columns (a tab counting tab
// columns) written in the file's indentation character.
type indentMapping struct {
	pairs    map[string]string
	tab      int
	shift    int
	fill     byte
	num, den int // a scale: spaces times num/den
}

func (im indentMapping) apply(line string) (string, bool) {
	if im.den != 0 {
		ind := leading(line)
		if strings.Trim(ind, " ") != "" || len(ind)*im.num%im.den != 0 {
			return "", false
		}
		return strings.Repeat(" ", len(ind)*im.num/im.den) + line[len(ind):], true
	}
	if im.tab == 0 {
		return mapIndent(im.pairs, line)
	}
	ind := leading(line)
	// A line shallower than the shift allows goes to the margin: old_string copied
	// deeper than the file, new_string's outermost line outermost in the file too
	// (rebasing it on the first line's indentation pushed it deeper instead).
	col := max(0, columns(ind, im.tab)+im.shift)
	if im.fill == '\t' {
		if col%im.tab != 0 {
			return "", false
		}
		return strings.Repeat("\t", col/im.tab) + line[len(ind):], true
	}
	return strings.Repeat(" ", col) + line[len(ind):], true
}

func columns(ind string, tab int) int {
	return len(ind) + (tab-1)*strings.Count(ind, "\t")
}

// columnMapping finds one shift in columns that turns every old indentation into the
// file's, the file's written in one character.
func columnMapping(m map[string]string, tab int) (indentMapping, bool) {
	im := indentMapping{tab: tab}
	first := true
	for from, to := range m {
		d := columns(to, tab) - columns(from, tab)
		if !first && d != im.shift {
			return indentMapping{}, false
		}
		im.shift, first = d, false
		switch {
		case to == "":
		case strings.Trim(to, "\t") == "" && im.fill != ' ':
			im.fill = '\t'
		case strings.Trim(to, " ") == "" && im.fill != '\t':
			im.fill = ' '
		default:
			return indentMapping{}, false
		}
	}
	// With every file line at column 0 the file's character is unknown: a swapped
	// prefix keeps new_string's own.
	return im, im.fill != 0
}

func isShift(m map[string]string) bool {
	first, q, p := true, "", ""
	for from, to := range m {
		s := 0
		for s < len(from) && s < len(to) && from[len(from)-1-s] == to[len(to)-1-s] {
			s++
		}
		fq, fp := from[:len(from)-s], to[:len(to)-s]
		if first {
			q, p, first = fq, fp, false
		} else if fq != q || fp != p {
			return false
		}
	}
	return true
}

// mapIndent re-indents one line by the longest old indentation it starts with. A line
// shallower than every old indentation takes the shallowest mapping less the
// difference, where the mapped indentation ends as the old one does (a shift).
func mapIndent(m map[string]string, line string) (string, bool) {
	ind := leading(line)
	best, found := "", false
	shallowest := ""
	for from := range m {
		if strings.HasPrefix(ind, from) && (!found || len(from) > len(best)) {
			best, found = from, true
		}
		if shallowest == "" || len(from) < len(shallowest) {
			shallowest = from
		}
	}
	if found {
		return m[best] + convertIndent(best, m[best], ind[len(best):]) + line[len(ind):], true
	}
	to := m[shallowest]
	if cut := shallowest[len(ind):]; strings.HasPrefix(shallowest, ind) && strings.HasSuffix(to, cut) {
		return to[:len(to)-len(cut)] + line[len(ind):], true
	}
	return "", false
}

// convertIndent writes rest, the indentation a line has beyond from, in the style from
// was mapped to: where from is spaces and to is tabs (or the reverse) in a whole
// ratio, so eight more spaces become two more tabs when four spaces made one.
func convertIndent(from, to, rest string) string {
	uniform := func(s string, c byte) bool { return s != "" && strings.Count(s, string(c)) == len(s) }
	switch {
	case uniform(from, ' ') && uniform(to, '\t') && len(from)%len(to) == 0 && uniform(rest, ' '):
		if per := len(from) / len(to); len(rest)%per == 0 {
			return strings.Repeat("\t", len(rest)/per)
		}
	case uniform(from, '\t') && uniform(to, ' ') && len(to)%len(from) == 0 && uniform(rest, '\t'):
		return strings.Repeat(" ", len(rest)*len(to)/len(from))
	}
	return rest
}

// fuzzyFit lays out a fuzzy match: a window of whole lines, without its final line
// break.
func fuzzyFit(needle, window string) *fitting {
	old := shapeOf(needle)
	f := &fitting{lineStart: true, oldLines: strings.Split(old.core, "\n"), fileLines: strings.Split(window, "\n"), oldLead: old.lead, oldTrail: old.trail, lastWhole: true}
	f.noTrail = !hasTrailingBlanks(f.fileLines) && (hasTrailingBlanks(f.oldLines) || old.endBlanks)
	f.pairs, f.wrapped, _ = lineCorrespondence(f.oldLines, f.fileLines)
	return f
}

// ScaleAmbiguous reports a whitespace match of a one-line old_string indented in
// spaces half or twice as deep as its file line ("    b()" for 8 columns), whose
// new_string has a later line shallower than it that a shift of columns and a scale
// of steps lay out differently ("  else:" at 6 or at 4; a deeper line keeps the shift,
// as before): one indented line does not tell the model's
// indentation step, so no rule tells which was meant (fourth red team, F1 addendum:
// the shift put an else at column 6).
func (m Match) ScaleAmbiguous(newText string) bool {
	f := m.fit
	if f == nil || m.Stage != StageWhitespace || len(f.oldLines) != 1 || len(f.fileLines) != 1 {
		return false
	}
	o, fi := leading(f.oldLines[0]), leading(f.fileLines[0])
	if o == "" || strings.Trim(o, " ") != "" || strings.Trim(fi, " ") != "" || len(fi) != 2*len(o) && 2*len(fi) != len(o) {
		return false
	}
	lines := strings.Split(shapeOf(newText).core, "\n")
	for _, l := range lines[1:] {
		c := leading(l)
		if isBlank(l) || strings.Trim(c, " ") != "" {
			continue
		}
		if len(c) < len(o) && max(0, len(fi)+len(c)-len(o)) != len(c)*len(fi)/len(o) {
			return true
		}
	}
	return false
}

// aligned is old_string's lines and the file lines they stand for, side by side (a
// fuzzy window's blank line old_string lacks, or lacks in the file, left out), for
// laying out indentation; a wrap's first line stands for the wrap.
func (f *fitting) aligned() (old, file []string) {
	if f.pairs == nil || len(f.oldLines) == len(f.fileLines) {
		return f.oldLines, f.fileLines
	}
	for j, l := range f.oldLines {
		fi, ok := f.pairs[j]
		if !ok && len(f.wrapped) > 0 && j == f.wrapped[0] {
			fi, ok = j, true
		}
		if ok {
			old, file = append(old, l), append(file, f.fileLines[fi])
		}
	}
	return old, file
}

// KeepsWrapped reports a fuzzy match whose new_string keeps, unchanged, a line of
// old_string that stands for a line wrapped in two (or two lines joined in one): the
// file's text for it is not one line, and writing old_string's copy would rewrite
// lines the edit leaves alone.
func (m Match) KeepsWrapped(newText string) bool {
	if m.fit == nil || len(m.fit.wrapped) == 0 {
		return false
	}
	for _, l := range strings.Split(newText, "\n") {
		for _, j := range m.fit.wrapped {
			if strings.TrimSpace(l) == strings.TrimSpace(m.fit.oldLines[j]) {
				return true
			}
		}
	}
	return false
}

func hasTrailingBlanks(lines []string) bool {
	for _, l := range lines {
		if l != strings.TrimRight(l, " \t") {
			return true
		}
	}
	return false
}

// outLine is a line of a tolerant match's replacement; verbatim lines are the file's own.
type outLine struct {
	text     string
	verbatim bool
}

// keepUnchanged keeps the file's own text of every line new_string leaves unchanged. A
// tolerant match forgives old_string's whitespace, so old_string's copy of a line may
// differ from the file's in indentation, inner spacing (a tab in a TSV row, two spaces
// in a string) or trailing blanks (a Markdown line break); new_string repeats that copy
// for the lines it keeps, and writing the copy would change lines the caller never meant
// to touch. So new lines equal to old lines (a longest common subsequence of the two)
// whose old line matched a file line (word for word; in a fuzzy match, the line it
// stands for, whatever its words) are written as the file has them,
// and so are the file's blank lines between two such lines that new_string keeps
// together. Changed and added lines are laid out as reindent placed them.
//
// Where reindent had to rebase new_string (old_string's indentation matches the file's
// in no consistent way), an added line is placed relative to the nearest kept line
// above it instead: as much deeper than that line's file indentation as new_string
// writes it deeper than old_string's copy of it.
func (f *fitting) keepUnchanged(newLines, laidOut []string, rebased bool) []outLine {
	oldToFile := f.oldToFile()
	keep := f.keptLines(newLines, oldToFile)
	var merged map[int]string
	if f.pairs != nil {
		merged, _ = f.fuzzyPlan(newLines, keep) // Apply refused the edit if it found a fault
	}
	// anchor is the old and file line new line k stands in for, for the blank lines
	// around it: a kept line's own; a changed line's, where new_string replaces old_string
	// line for line, or where it stands as far from the kept line other as its old line.
	anchor := func(k, other int) *kept {
		if keep[k] != nil {
			return keep[k]
		}
		j := -1
		switch {
		case len(newLines) == len(f.oldLines):
			j = k
		case keep[other] != nil:
			j = keep[other].j + k - other
		}
		if j < 0 || j >= len(f.oldLines) || isBlank(f.oldLines[j]) {
			return nil
		}
		if fi, ok := oldToFile[j]; ok {
			return &kept{j, fi}
		}
		return nil
	}
	out := make([]outLine, 0, len(newLines))
	prev := -1      // the last non-blank new line
	var above *kept // the last kept line
	for k, l := range newLines {
		if isBlank(l) {
			continue // written with the gap before the next non-blank line
		}
		gap := false
		if prev >= 0 {
			p, c := anchor(prev, k), anchor(k, prev)
			if p != nil && c != nil && c.j > p.j && c.fi > p.fi && k-prev == c.j-p.j && allBlank(f.oldLines[p.j+1:c.j]) && allBlank(f.fileLines[p.fi+1:c.fi]) {
				for _, fl := range f.fileLines[p.fi+1 : c.fi] {
					out = append(out, outLine{text: fl, verbatim: true})
				}
				gap = true
			}
		}
		if !gap {
			for g := prev + 1; g < k; g++ {
				out = append(out, outLine{text: laidOut[g]})
			}
		}
		switch {
		case keep[k] != nil:
			out = append(out, outLine{text: f.fileText(keep[k].fi), verbatim: true})
			above = keep[k]
		case rebased && above != nil && strings.HasPrefix(leading(l), leading(f.oldLines[above.j])):
			deeper := leading(l)[len(leading(f.oldLines[above.j])):]
			out = append(out, outLine{text: leading(f.fileLines[above.fi]) + deeper + strings.TrimLeft(l, " \t")})
		case len(newLines) == len(f.oldLines):
			// A line changed in place keeps the spacing inside it that the file has and
			// old_string's copy lost (a TSV row's tabs), where new_string keeps the copy's.
			text := laidOut[k]
			if fi, ok := oldToFile[k]; ok {
				text = keepSpacing(text, f.oldLines[k], f.fileLines[fi])
			}
			out = append(out, outLine{text: text})
		default:
			out = append(out, outLine{text: laidOut[k]})
		}
		if text, ok := merged[k]; ok {
			// A fuzzy match's changed line: the model's change made to the file's line,
			// not to old_string's wrong copy of it, at the indentation laid out.
			last := &out[len(out)-1]
			last.text = leading(last.text) + text
		}
		prev = k
	}
	for g := prev + 1; g < len(newLines); g++ {
		out = append(out, outLine{text: laidOut[g]})
	}
	return out
}

// kept is the old line and the file line a new line keeps.
type kept struct{ j, fi int }

// keptLines is, for each of new_string's lines, the old_string line it keeps unchanged
// and the file line written for it, or nil: new lines equal to old lines (a longest
// common subsequence) whose old line matched a file line (see keepUnchanged).
func (f *fitting) keptLines(newLines []string, oldToFile map[int]int) []*kept {
	// A first line pairs only with a first line: old_string's first line is often copied
	// from its first word on, so its text says nothing of its column, while a later
	// line's does; but lines at column 0 in old_string and in the file have no column to
	// lose (second red team of edits: "1 a\n2 b" -> "2 b" lost a TSV row's tab).
	atZero := func(j int) bool { // old line j and its file line start at column 0
		fi, ok := oldToFile[j]
		return ok && leading(f.oldLines[j]) == "" && leading(f.fileLines[fi]) == ""
	}
	newToOld := lcsPairs(len(newLines), len(f.oldLines), func(k, j int) bool {
		return newLines[k] == f.oldLines[j] && ((k == 0) == (j == 0) || atZero(j))
	})
	keep := make([]*kept, len(newLines))
	keptFile := f.keptFile(oldToFile)
	for k, l := range newLines {
		if j, ok := newToOld[k]; ok && !isBlank(l) {
			if fi, ok := keptFile[j]; ok {
				keep[k] = &kept{j, fi}
			}
		}
	}
	return keep
}

// fileText is matched file line i as the replacement must write it: the last line
// without the blanks that stay after the match.
func (f *fitting) fileText(i int) string {
	if i == len(f.fileLines)-1 && f.lastBlanksStay {
		return strings.TrimRight(f.fileLines[i], " \t")
	}
	return f.fileLines[i]
}

// keptFile is the file line each old_string line that new_string keeps is written as:
// the one it matched (oldToFile), or in a fuzzy match the one it stands for.
func (f *fitting) keptFile(oldToFile map[int]int) map[int]int {
	if f.pairs != nil {
		// A fuzzy match: old_string's line stands for its file line whatever its text,
		// so a line new_string keeps is written as the file has it, not as the model
		// misremembered it (fourth red team, F4, F7: a typo, a stale value, two lines
		// swapped were written over the file's).
		out := map[int]int{}
		for j, fi := range f.pairs {
			if !isBlank(f.oldLines[j]) && !isBlank(f.fileLines[fi]) {
				out[j] = fi
			}
		}
		return out
	}
	return oldToFile
}

// oldToFile pairs old_string's lines with the file lines they matched: the same words
// in the same order (a longest common subsequence of the non-blank lines). A first or
// last file line the match takes only part of is left out: it is not the replacement's
// to write.
func (f *fitting) oldToFile() map[int]int {
	words := func(s string) string { return strings.Join(asciiFields(strings.ToValidUTF8(s, "\uFFFD")), " ") }
	var oldIdx, fileIdx []int
	var oldW, fileW []string
	for j, l := range f.oldLines {
		if !isBlank(l) {
			oldIdx, oldW = append(oldIdx, j), append(oldW, words(l))
		}
	}
	for i, l := range f.fileLines {
		if isBlank(l) || i == 0 && !f.lineStart || i == len(f.fileLines)-1 && !f.lastWhole {
			continue
		}
		fileIdx, fileW = append(fileIdx, i), append(fileW, words(l))
	}
	out := map[int]int{}
	for a, b := range lcsPairs(len(oldW), len(fileW), func(a, b int) bool { return oldW[a] == fileW[b] }) {
		out[oldIdx[a]] = fileIdx[b]
	}
	return out
}

// lcsPairs pairs the elements of a longest common subsequence of two sequences of
// lengths n and m, eq(i, j) comparing their elements (index in the first → index in the
// second); nil when the table would be too large to be worth it.
func lcsPairs(n, m int, eq func(i, j int) bool) map[int]int {
	if n == 0 || m == 0 || n*m > 1<<22 {
		return nil
	}
	// dp[i][j] is the LCS length of a[i:] and b[j:].
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if eq(i, j) {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	pairs := map[int]int{}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case eq(i, j) && dp[i][j] == dp[i+1][j+1]+1:
			pairs[i] = j
			i, j = i+1, j+1
		case dp[i+1][j] >= dp[i][j+1]:
			i++
		default:
			j++
		}
	}
	return pairs
}

func allBlank(lines []string) bool {
	for _, l := range lines {
		if !isBlank(l) {
			return false
		}
	}
	return true
}

// keepSpacing gives line (new_string's, laid out) the whitespace runs between words that
// file has where old has others, run by run where line keeps old's run beside a
// character it keeps too: "bob 31" written over old "bob 30" for the file's "bob\t30"
// becomes "bob\t31", 'msg = "hello world"  # hi' over the file's "hello  world" keeps
// its two spaces. A run between characters new_string changed on both sides is the
// model's own (fourth red team, F5: "print('c d')" over the file's 'a  b' took two
// spaces), and so is one it added or wrote otherwise than old_string.
func keepSpacing(line, old, file string) string {
	ow, or := innerRuns(old)
	fw, fr := innerRuns(file)
	if !slices.Equal(ow, fw) || slices.Equal(or, fr) {
		return line
	}
	core := strings.TrimRight(strings.TrimLeft(line, " \t"), " \t")
	oc := strings.TrimRight(strings.TrimLeft(old, " \t"), " \t")
	pairs := lcsPairs(len(core), len(oc), func(i, j int) bool { return core[i] == oc[j] })
	if pairs == nil {
		return line
	}
	blank := func(c byte) bool { return c == ' ' || c == '\t' }
	runOf := make([]int, len(oc)) // the old run a byte of oc is in, or -1
	var runStart, runEnd []int
	for j := 0; j < len(oc); j++ {
		runOf[j] = -1
		if !blank(oc[j]) {
			continue
		}
		if j == 0 || !blank(oc[j-1]) {
			runStart, runEnd = append(runStart, j), append(runEnd, j)
		}
		runOf[j] = len(runStart) - 1
		runEnd[len(runEnd)-1] = j + 1
	}
	var b strings.Builder
	b.WriteString(leading(line))
	for i := 0; i < len(core); {
		if !blank(core[i]) {
			b.WriteByte(core[i])
			i++
			continue
		}
		e := i
		for e < len(core) && blank(core[e]) {
			e++
		}
		r := -1
		for k := i; k < e && r < 0; k++ {
			if j, ok := pairs[k]; ok {
				r = runOf[j]
			}
		}
		before, after := false, false
		if r >= 0 {
			p, ok := pairs[i-1]
			before = ok && p == runStart[r]-1
			p, ok = pairs[e]
			after = ok && p == runEnd[r]
		}
		if (before || after) && core[i:e] == oc[runStart[r]:runEnd[r]] {
			b.WriteString(fr[r])
		} else {
			b.WriteString(core[i:e])
		}
		i = e
	}
	b.WriteString(line[len(leading(line))+len(core):])
	return b.String()
}

// innerRuns splits a line, without its indentation and trailing blanks, into its words
// and the whitespace runs between them.
func innerRuns(s string) (words, runs []string) {
	s = strings.TrimRight(strings.TrimLeft(s, " \t"), " \t")
	for s != "" {
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			words = append(words, s)
			break
		}
		words = append(words, s[:i])
		j := i
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		runs = append(runs, s[i:j])
		s = s[j:]
	}
	return words, runs
}
