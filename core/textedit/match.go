package textedit

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Stages of matching, in the order they are tried.
const (
	StageExact      = "exact"
	StageWhitespace = "whitespace"
	StageFuzzy      = "fuzzy"
)

// DefaultThreshold is the fuzzy similarity a match needs by default (reference 000).
const DefaultThreshold = 0.7

// Options control one search.
type Options struct {
	ReplaceAll bool
	Fuzzy      bool
	Threshold  float64 // 0 means DefaultThreshold
	// Splits, if set, reports the offsets inside a character of the file's legacy
	// encoding (splitChecker): a match that starts or ends at one is not in the text.
	Splits func(int) bool
}

// Match is one located region of the text.
type Match struct {
	Start, End int      // byte offsets in the text
	Line       int      // 1-based line of Start
	Stage      string   // exact, whitespace, fuzzy
	Similarity float64  // 1 exact, 0.95 whitespace, the score for fuzzy
	fit        *fitting // whitespace and fuzzy: how the replacement is laid out
	// overlapsPrev: this match overlaps the one before it in the text
	overlapsPrev bool
	// exact: the indentation a one-line old_string left out, which new_string's later
	// lines take too (the match then starts at the line start)
	lineIndent string
	// nests: the file's next line is deeper than the matched one, so lines nested
	// under it in a new_string that keeps it as its first line are no fault, whatever
	// it ends with ("B" over "  C": fourth red team, F3)
	nests  bool
	needle string
}

// Failure explains why a search did not produce a usable match.
type Failure struct {
	Kind    string // no_match or ambiguous
	Lines   []int  // ambiguous: the line of every match
	Stage   string
	Nearest *Region
	// Split counts the places old_string occurs only as bytes inside characters of the
	// file's legacy multi-byte encoding (Options.Splits), which were not taken.
	Split int
}

// Region is the part of the text closest to a needle that did not match.
type Region struct {
	StartLine  int     `json:"start_line"`
	EndLine    int     `json:"end_line"`
	Similarity float64 `json:"similarity"`
	Excerpt    string  `json:"excerpt"` // with whitespace made visible
	// Nesting: the region's lines are old_string's indented otherwise (nested
	// differently), which no stage takes.
	Nesting bool `json:"nesting,omitempty"`
}

func (f *Failure) Error() string {
	if f.Kind == "ambiguous" {
		return fmt.Sprintf("%d matches (%s) at lines %s", len(f.Lines), f.Stage, joinInts(f.Lines))
	}
	return "no match"
}

// Find locates needle in text. It returns every match when opts.ReplaceAll, else exactly
// one, or a *Failure.
func Find(text, needle string, opts Options) ([]Match, error) {
	if needle == "" {
		return nil, &Failure{Kind: "no_match"}
	}
	split := map[int]bool{} // where old_string's bytes occur only inside characters
	whole := func(ms []Match) []Match {
		if opts.Splits == nil {
			return ms
		}
		kept := ms[:0]
		for _, m := range ms {
			if opts.Splits(m.Start) || opts.Splits(m.End) {
				split[m.Start] = true // once, though several stages find it
				continue
			}
			kept = append(kept, m)
		}
		return kept
	}
	if ms := whole(findExact(text, needle, opts.ReplaceAll)); len(ms) > 0 {
		return unique(ms, opts, StageExact)
	}
	if ms := whole(findExactAcrossEndings(text, needle, opts.ReplaceAll)); len(ms) > 0 {
		return unique(ms, opts, StageExact)
	}
	if ms := whole(findWhitespace(text, needle)); len(ms) > 0 {
		return unique(ms, opts, StageWhitespace)
	}
	th := opts.Threshold
	if th <= 0 {
		th = DefaultThreshold
	}
	scored, top := findFuzzy(text, needle, 1-th)
	scored = whole(scored)
	var best *Match
	if len(scored) > 0 {
		best = &scored[0]
	}
	if opts.Fuzzy && best != nil && best.Similarity >= th {
		// A unique best is required: any other region about as similar makes it a guess.
		lines := []int{best.Line}
		taken := []Match{*best}
		for _, s := range scored[1:] {
			if s.Similarity < best.Similarity-0.02 {
				break
			}
			if !overlapsAny(s, taken) {
				taken = append(taken, s)
				lines = append(lines, s.Line)
			}
		}
		if len(lines) > 1 {
			sort.Ints(lines)
			return nil, &Failure{Kind: "ambiguous", Stage: StageFuzzy, Lines: lines}
		}
		return []Match{*best}, nil
	}
	return nil, &Failure{Kind: "no_match", Nearest: nearest(text, needle, best, top), Split: len(split)}
}

func overlapsAny(m Match, ms []Match) bool {
	for _, o := range ms {
		if overlaps(m, o) {
			return true
		}
	}
	return false
}

func overlaps(a, b Match) bool { return a.Start < b.End && b.Start < a.End }

// unique keeps every match for replace_all, else demands exactly one. A match that
// overlaps the one before it (old "a\na" in "a\na\na") is another reading of the same
// text: it makes a single match ambiguous, and replace_all takes the matches left to
// right, as a search and replace does, except in the whitespace stage, where which
// lines an overlap takes is a guess.
func unique(ms []Match, opts Options, stage string) ([]Match, error) {
	separate := ms[:0:0]
	for _, m := range ms {
		if !m.overlapsPrev {
			separate = append(separate, m)
		}
	}
	switch {
	case len(ms) == 1:
		return ms, nil
	case opts.ReplaceAll && (stage == StageExact || len(separate) == len(ms)):
		return separate, nil
	}
	f := &Failure{Kind: "ambiguous", Stage: stage}
	for _, m := range ms {
		f.Lines = append(f.Lines, m.Line)
	}
	return nil, f
}

// literal: every occurrence counts, also one inside a deeper line's indentation
// (replace_all is a search and replace; a single edit must not guess there).
func findExact(text, needle string, literal bool) []Match {
	var ms []Match
	// A needle of whitespace alone is counted at every place it occurs: it has no
	// first word for the indentation rules below to be about.
	blank := isBlank(needle)
	oneLine := !blank && !strings.Contains(strings.TrimSuffix(needle, "\n"), "\n")
	indented := !blank && (needle[0] == ' ' || needle[0] == '\t')
	line, lineAt := 1, 0
	for from := 0; from <= len(text); {
		i := strings.Index(text[from:], needle)
		if i < 0 {
			break
		}
		start := from + i
		line += strings.Count(text[lineAt:start], "\n")
		lineAt = start
		m := Match{Start: start, End: start + len(needle), Line: line, Stage: StageExact, Similarity: 1}
		ls := strings.LastIndexByte(text[:start], '\n') + 1
		if inIndent := ls < start && isBlank(text[ls:start]); inIndent && indented && !literal {
			// old_string's indentation is only the end of this line's: the model copied
			// a shallower line, not this one.
			from = start + 1
			continue
		} else if inIndent && oneLine && !indented {
			m.Start, m.lineIndent = ls, text[ls:start]
			m.nests, m.needle = nextDeeper(text, start, m.lineIndent), needle
		}
		ms = append(ms, m)
		from = start + len(needle)
		// Another occurrence that overlaps this one is only looked for up to its end,
		// so a text of a million "a"s costs no more than one pass.
		if j := strings.Index(text[start+1:min(len(text), start+2*len(needle)-1)], needle); j >= 0 {
			o := start + 1 + j
			ms = append(ms, Match{Start: o, End: o + len(needle), Line: line + strings.Count(text[start:o], "\n"), Stage: StageExact, Similarity: 1, overlapsPrev: true})
		}
	}
	return ms
}

// findExactAcrossEndings is findExact for text of mixed line endings (only such text
// keeps a CR: Decode converts all-CRLF text to LF): old_string matches whatever ending
// each line has, as it does in an LF or a CRLF file, instead of falling to the
// whitespace stage, which lays out new_string by its own rules. A match that ends
// before a line's CR LF ends before the CR.
func findExactAcrossEndings(text, needle string, literal bool) []Match {
	if !strings.Contains(text, "\r\n") {
		return nil
	}
	var b strings.Builder
	b.Grow(len(text))
	at := make([]int32, 0, len(text)+1) // at[i]: the offset in text of byte i of b
	for i := 0; i < len(text); i++ {
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			continue
		}
		b.WriteByte(text[i])
		at = append(at, int32(i))
	}
	at = append(at, int32(len(text)))
	norm := b.String()
	ms := findExact(norm, strings.ReplaceAll(needle, "\r\n", "\n"), literal)
	for i := range ms {
		m := &ms[i]
		end := int(at[m.End])
		if m.End < len(norm) && norm[m.End] == '\n' && end > 0 && text[end-1] == '\r' {
			end-- // the CR of the line's CR LF is not the match's
		}
		m.Start, m.End = int(at[m.Start]), end
	}
	return ms
}

// collapse returns s with every run of whitespace turned into one space, or into its
// line breaks where it holds any, and trimmed, and for each byte of the result the
// offset of the byte it came from.
func collapse(s string) (string, []int32) {
	var b strings.Builder
	b.Grow(len(s))
	offs := make([]int32, 0, len(s))
	runAt, breaks := -1, []int32(nil) // the run of whitespace being read, if any
	word := func(i int) {
		if runAt >= 0 && b.Len() > 0 { // a leading run is trimmed
			if len(breaks) == 0 {
				b.WriteByte(' ')
				offs = append(offs, int32(runAt))
			}
			for _, o := range breaks {
				b.WriteByte('\n')
				offs = append(offs, o)
			}
		}
		runAt, breaks = -1, breaks[:0]
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII fast path
			if isASCIISpace(c) {
				if runAt < 0 {
					runAt = i
				}
				if c == '\n' {
					breaks = append(breaks, int32(i))
				}
			} else {
				word(i)
				b.WriteByte(c)
				offs = append(offs, int32(i))
			}
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		word(i)
		b.WriteString(s[i : i+size])
		for k := 0; k < size; k++ {
			offs = append(offs, int32(i+k))
		}
		i += size
	}
	return b.String(), offs
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func leading(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " \t"))] }

// Span returns the region of text that newText replaces and what replaces it. An exact
// match that starts after a line's indentation takes that indentation in when old_string
// is one line (new_string's lines are indented by it, as the file's line was, unless a
// later line already starts with it). An empty new_string deletes whole lines whole.
func (m Match) Span(text, newText string) (start, end int, repl string) {
	if newText == "" || m.fit != nil && strings.Trim(newText, "\r\n") == "" && strings.Count(newText, "\n") <= m.fit.oldTrail {
		// Deleting: a tolerant match's new_string of line breaks alone, no more than
		// old_string ended with, says the same. (One of blanks is a line of blanks.)
		// The indentation an exact match took in is the line's, not old_string's: it
		// goes only with the whole line ("await " out of "    await g()" keeps "    ").
		if m.fit != nil && m.fit.lineStart && !m.fit.lastWhole {
			return m.fit.deletedWords(text, m.Start, m.End)
		}
		return deletedLines(text, m.Start+len(m.lineIndent), m.End)
	}
	if m.fit != nil && m.fit.lineStart && !m.fit.lastWhole && isBlank(newText) && !strings.Contains(newText, "\n") {
		// Blanks for a line's first words, both copied at old_string's indentation:
		// the words go, and the line keeps its own indentation.
		return m.fit.deletedWords(text, m.Start, m.End)
	}
	if m.fit == nil {
		// An exact match that starts after a line's indentation, with a new_string
		// already written at that indentation (copied with it, where old_string was
		// copied from its first word): the indentation is not written twice.
		ls := strings.LastIndexByte(text[:m.Start], '\n') + 1
		indented := m.End > m.Start && (text[m.Start] == ' ' || text[m.Start] == '\t') // old_string brought its own
		if ind := text[ls:m.Start]; ind != "" && !indented && isBlank(ind) && strings.HasPrefix(newText, ind) && !isBlank(newText[:min(len(newText), strings.IndexByte(newText+"\n", '\n'))]) {
			newText = newText[len(ind):]
		}
	}
	if f := m.fit; f != nil && (f.innerBlanks > 0 || f.nextIndent > 0 && !f.tailTaken) {
		// old_string ended with blanks, or inside the next line's indentation, where
		// the file goes on after them: a new_string without them drops them ("foo(a, "
		// -> "foo(" makes "foo(a,\tb)" "foo(b)"; a line break dropped joins the lines),
		// as an exact match would; one that keeps them keeps the file's.
		switch ns := shapeOf(newText); {
		case f.innerBlanks > 0 && ns.core != "" && !ns.endBlanks && ns.trail == 0:
			m.End += f.innerBlanks
		case f.nextIndent > 0 && ns.core != "" && ns.trail < f.oldTrail:
			taken := *f
			taken.tailTaken, taken.joined = true, true
			m.fit, m.End = &taken, m.End+f.nextIndent
		}
	}
	repl = m.Replacement(newText)
	if m.fit != nil && m.End < len(text) && text[m.End] == '\r' && strings.HasSuffix(repl, "\r") {
		// The last line kept as the file's own carried its CR, which the file still has
		// after the region: one CR, not two.
		repl = repl[:len(repl)-1]
	}
	return m.Start, m.End, repl
}

// deletedLines widens a deletion of whole lines (only blanks around it on its first and
// last line) to the lines and their line break, so deleting a block leaves neither an
// indent-only line nor an empty one.
func deletedLines(text string, start, end int) (int, int, string) {
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	if !isBlank(text[ls:start]) {
		return start, end, ""
	}
	if end > start && text[end-1] == '\n' {
		return ls, end, ""
	}
	le := len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		le = end + i
	}
	if !isBlank(text[end:le]) {
		return start, end, ""
	}
	switch {
	case le < len(text):
		le++
	case ls > 0:
		ls-- // the last line of a file without a final newline: take the break before it
	}
	return ls, le, ""
}

// Replacement returns the text that replaces m.
func (m Match) Replacement(newText string) string {
	if m.fit != nil {
		return m.fit.replace(newText)
	}
	if m.lineIndent == "" {
		return newText
	}
	if !strings.Contains(newText, "\n") && isBlank(newText) {
		// Blanks in place of the line's first words, which the rest of the line follows:
		// the line keeps its indentation, as a literal replacement would.
		return m.lineIndent + newText
	}
	lines, _ := m.oneLineReading(newText)
	return strings.Join(lines, "\n")
}

// oneLineReading lays out new_string for an exact match of a one-line old_string that
// starts after its line's indentation. Its later lines were written either at the
// file's indentation (as the file shows them: a sibling method, an else, a list item
// may come out shallower than the matched line) or at old_string's, from column 0 (an
// if block after the line); one reading holds for all of them, never a mix (red teams:
// a per-line mix broke a YAML item and an else; "x = 1\nif y:\n    z()" read as written
// put the if at column 0). The reading that nests plausibly wins (no line deeper than
// one that opens nothing, no block left empty). sure is false when both readings nest
// as plausibly and lay the lines out differently: then no rule knows which was meant (a
// Makefile target or a here-document's end at column 0, a Python statement after a
// block), and Apply refuses the edit rather than guess.
func (m Match) oneLineReading(newText string) (lines []string, sure bool) {
	lines = strings.Split(newText, "\n")
	if columnZeroShape(lines) != "kept" {
		lines = tabsLike(lines, m.lineIndent) // (a string's content stays as written)
	}
	asFile, asOld := slices.Clone(lines), slices.Clone(lines)
	later, atZero := false, false
	for i, l := range lines {
		switch deep := strings.HasPrefix(leading(l), m.lineIndent); {
		case isBlank(l):
		case i == 0:
			if !deep { // the first line goes where old_string began, unless written there
				asFile[0], asOld[0] = m.lineIndent+l, m.lineIndent+l
			}
		default:
			asOld[i] = m.lineIndent + l
			later = true
			atZero = atZero || leading(l) == ""
		}
	}
	if !later {
		return asOld, true
	}
	nests := m.nests && strings.TrimSpace(lines[0]) == strings.TrimSpace(m.needle)
	switch fileBad, oldBad := nestingFaults(asFile, nests), nestingFaults(asOld, nests); {
	case fileBad < oldBad:
		// Lines written at column 0, the column old_string's first line was written
		// at, land left of it read at the file's indentation: the model wrote them
		// beside that line ("stop)" before "start)", a Lua function before another),
		// which that reading breaks and the other nests implausibly (fourth red team,
		// F2: the re-stated line left its block). No rule tells then.
		return asFile, !atZero || columnZeroShape(lines) == "kept"
	case oldBad < fileBad:
		return asOld, true
	}
	if !atZero {
		// Lines indented on their own: written at the file's indentation where one is
		// deeper than the matched line, or shallower, as neither reading is otherwise
		// (fourth red team, F3: "- b\n  - b1" under "  - b" read as well as a sibling
		// as a sub-item). No rule tells where all are as deep as the matched line or
		// deeper and the shallowest is exactly as deep.
		deep, shallowest := false, -1
		for _, l := range lines[1:] {
			if isBlank(l) {
				continue
			}
			if w := len(leading(l)); shallowest < 0 || w < shallowest {
				shallowest = w
			}
			deep = deep || strings.HasPrefix(leading(l), m.lineIndent)
		}
		if deep && shallowest != len(m.lineIndent) {
			return asFile, true
		}
		return asOld, false
	}
	// Lines written from column 0: old_string's indentation, unless the text must stay
	// at column 0 (a here-document's end, a multi-line string's content, a Makefile
	// target over its tab-indented recipe), or may mean to (a definition, a
	// preprocessor line: top level or nested, no rule tells).
	switch columnZeroShape(lines) {
	case "kept":
		return asFile, true
	case "either":
		return asOld, false
	}
	return asOld, true
}

// columnZeroShape tells whether new_string's lines written from column 0 must stay
// there ("kept"), may be meant at the top level ("either"), or are statements that
// follow the matched line ("").
func columnZeroShape(lines []string) string {
	text := strings.Join(lines, "\n")
	if strings.Count(text, `"""`)+strings.Count(text, "'''") > 0 || strings.Count(text, "`")%2 == 1 || strings.Count(text, "`") >= 2 && strings.Contains(text[strings.Index(text, "`"):strings.LastIndex(text, "`")], "\n") {
		return "kept" // a string across lines: its content is as written
	}
	if i := strings.Index(lines[0], "<<"); i >= 0 {
		delim := strings.Trim(strings.Fields(lines[0][i+2:] + " x")[0], `'"-`)
		for _, l := range lines[1:] {
			if strings.TrimRight(l, "\r") == delim {
				return "kept" // a here-document ends at column 0
			}
		}
	}
	for i, l := range lines[1:] {
		if leading(l) != "" || isBlank(l) {
			continue
		}
		t := strings.TrimSpace(l)
		if i+2 < len(lines) && strings.HasPrefix(lines[i+2], "\t") && makeTarget().MatchString(t) {
			return "kept"
		}
		for _, k := range []string{"def ", "class ", "func ", "fn ", "function ", "package ", "import ", "export ", "pub ", "#if", "#endif", "#else", "#define", "#include", "@"} {
			if strings.HasPrefix(t, k) {
				return "either"
			}
		}
	}
	return ""
}

// nextDeeper reports whether the first non-blank line after the one holding text[i]
// is indented deeper than indent, which it starts with.
func nextDeeper(text string, i int, indent string) bool {
	for {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return false
		}
		i += nl + 1
		end := len(text)
		if e := strings.IndexByte(text[i:], '\n'); e >= 0 {
			end = i + e
		}
		if l := text[i:end]; !isBlank(l) {
			ind := leading(l)
			return len(ind) > len(indent) && strings.HasPrefix(ind, indent)
		}
	}
}

// makeTarget matches a Makefile rule's first line.
var makeTarget = lazyRegexp(`^[\w.%/$(){}-]+(?:\s+[\w.%/$(){}-]+)*\s*::?(?:\s|$)`)

// IndentAmbiguous reports an exact match of a one-line old_string, after its line's
// indentation, whose new_string's later lines read as plausibly at the file's
// indentation as at the matched line's (see oneLineReading).
// A match inside a line (after other text on an indented line) with later lines
// written from column 0 is ambiguous too: as written they leave the line's block (a
// YAML item's next key at column 0), and no rule tells how deep they were meant.
func (m Match) IndentAmbiguous(text, newText string) bool {
	if m.fit != nil || !strings.Contains(strings.TrimRight(newText, "\r\n"), "\n") {
		return false
	}
	if m.lineIndent == "" {
		ls := strings.LastIndexByte(text[:m.Start], '\n') + 1
		if before := text[ls:m.Start]; isBlank(before) || leading(before) == "" {
			return false
		}
		lines := strings.Split(newText, "\n")
		for _, l := range lines[1:] {
			if !isBlank(l) && leading(l) == "" {
				return columnZeroShape(lines) != "kept"
			}
		}
		return false
	}
	_, sure := m.oneLineReading(newText)
	return !sure
}

// LeavesBlock reports an exact match of a multi-line old_string that starts after its
// line's indentation, whose later lines are all indented, with a new_string that has a
// later line at column 0: the column its first line was written at, but, laid out as
// written, the file's margin, so a line restated or added beside the first one would
// leave its block ("y = 1\nif x:" put the if at the top level: fourth red team, F8).
// Whether the margin or the first line's column was meant, no rule tells.
func (m Match) LeavesBlock(text, newText string) bool {
	if m.fit != nil || m.lineIndent != "" || m.Start >= m.End || isBlank(text[m.Start:m.Start+1]) {
		return false
	}
	ls := strings.LastIndexByte(text[:m.Start], '\n') + 1
	if before := text[ls:m.Start]; before == "" || !isBlank(before) {
		return false
	}
	old := strings.Split(text[m.Start:m.End], "\n")
	if len(old) < 2 {
		return false
	}
	for _, l := range old[1:] {
		if !isBlank(l) && leading(l) == "" {
			return false // old_string shows the margin itself
		}
	}
	lines := strings.Split(newText, "\n")
	for _, l := range lines[1:] {
		if !isBlank(l) && leading(l) == "" {
			return columnZeroShape(lines) != "kept"
		}
	}
	return false
}

// GluesWord reports a match that ends after a word character, inside a word or before
// more words on its line, whose new_string adds line breaks and ends with another line
// than old_string's last: the rest of the line would go on new_string's last line
// ("import sy" + "\nimport json" made "import jsons", "import" + "\nimport json" made
// "import json sys": fifth red team, N8). A new_string that ends with old_string's last
// line still finishes it.
func (m Match) GluesWord(text, oldText, newText string) bool {
	if m.Stage == StageFuzzy || m.End <= m.Start || m.End >= len(text) || !isWordByte(text[m.End-1]) {
		return false
	}
	rest := text[m.End:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	if rest == "" || !isWordByte(rest[0]) && (rest[0] != ' ' && rest[0] != '\t' || isBlank(rest)) {
		return false
	}
	last := func(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }
	return strings.Count(newText, "\n") > strings.Count(oldText, "\n") && last(newText) != last(oldText)
}

// tabsLike writes the later lines' space indentation in tabs where the file's line is
// indented with tabs and every such line is indented in steps of 4 (else 2) spaces: a
// model writes spaces for a tab-indented file's tabs.
func tabsLike(lines []string, fileIndent string) []string {
	if fileIndent == "" || strings.Trim(fileIndent, "\t") != "" {
		return lines
	}
	step := 0
	for _, want := range []int{4, 2} {
		ok, any := true, false
		for _, l := range lines[1:] {
			ind := leading(l)
			if isBlank(l) || ind == "" {
				continue
			}
			if strings.Trim(ind, " ") != "" || len(ind)%want != 0 {
				ok = false
				break
			}
			any = true
		}
		if ok && any {
			step = want
			break
		}
	}
	if step == 0 {
		return lines
	}
	out := slices.Clone(lines)
	for i, l := range out[1:] {
		if ind := leading(l); ind != "" && !isBlank(l) {
			out[i+1] = strings.Repeat("\t", len(ind)/step) + l[len(ind):]
		}
	}
	return out
}

// nestingFaults counts what nests implausibly in lines laid out in a file: a line
// deeper than the line before it where that line opens nothing, and a block opened (a
// line ending with :, {, (, [, a YAML block scalar's | or >, =, a keyword such as then,
// do or BEGIN, or starting with if, while, unless ...) whose next line is no deeper.
// firstOpens: the file nests lines under the first line, whatever it ends with.
func nestingFaults(lines []string, firstOpens bool) int {
	faults, prev, first := 0, "", true
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		if prev != "" {
			depth, was := columns(leading(l), 4), columns(leading(prev), 4)
			switch {
			case depth > was && !opensLines(prev) && !(first && firstOpens):
				faults++
			case depth <= was && opensBlock(prev):
				faults++
			}
			first = false
		}
		prev = l
	}
	return faults
}

// codeOf is a line without its indentation and a trailing # or // comment.
func codeOf(l string) string {
	t := strings.TrimSpace(l)
	for _, c := range []string{" #", "\t#", " //", "\t//"} {
		if i := strings.Index(t, c); i > 0 && strings.Count(t[:i], "\"")%2 == 0 && strings.Count(t[:i], "'")%2 == 0 {
			t = strings.TrimSpace(t[:i])
		}
	}
	return t
}

// blockKeywords start a line that opens a block in languages without braces or colons
// (as whole words: "done" and "download()" do not).
var blockKeywords = []string{"if", "unless", "while", "until", "for", "foreach", "case", "begin", "def", "class", "module", "else", "elif", "elsif", "do", "BEGIN", "LOOP", "WHILE", "IF"}

// startsWithWord reports whether t starts with the word k, not a longer one.
func startsWithWord(t, k string) bool {
	if !strings.HasPrefix(t, k) {
		return false
	}
	rest := t[len(k):]
	return rest == "" || !isWordByte(rest[0])
}

// opensBlock reports a line after which a deeper one must come.
func opensBlock(l string) bool {
	t := codeOf(l)
	if t == "" {
		return false
	}
	switch t[len(t)-1] {
	case ':', '{', '(', '[', '|', '=':
		return !strings.HasSuffix(t, "==") && !strings.HasSuffix(t, "!=") && !strings.HasSuffix(t, "||")
	case '>':
		return strings.HasSuffix(t, "|>") || strings.HasPrefix(t, "<") && !strings.HasPrefix(t, "</") && !strings.HasSuffix(t, "/>")
	}
	for _, w := range []string{" do", " then", " THEN", " of", " where", "BEGIN", " LOOP"} {
		if strings.HasSuffix(t, w) {
			return true
		}
	}
	for _, k := range blockKeywords {
		if startsWithWord(t, k) && !strings.HasSuffix(t, ";") && !strings.HasSuffix(t, "}") && !strings.Contains(t, " end") {
			return true
		}
	}
	return false
}

// opensLines reports a line after which a deeper one may come: one that opens a block,
// or goes on (a trailing comma, operator or backslash), or a YAML list item.
func opensLines(l string) bool {
	t := codeOf(l)
	if strings.HasPrefix(t, "- ") || t == "-" || opensBlock(l) {
		return true
	}
	if t == "" {
		return false
	}
	switch t[len(t)-1] {
	case ',', '\\', '+', '-', '*', '/', '&', '.', '>', '?', '%':
		return true
	}
	for _, w := range []string{" or", " and", "=>", "->", " in", " else"} {
		if strings.HasSuffix(t, w) {
			return true
		}
	}
	return false
}

// lineStarts returns the byte offset of every line start, plus len(text).
func lineStarts(text string) []int {
	starts := make([]int, 1, strings.Count(text, "\n")+2)
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	if starts[len(starts)-1] != len(text) {
		starts = append(starts, len(text))
	}
	return starts
}

// findFuzzy scores the candidate windows (of the needle's line count, one less and one
// more) by Levenshtein similarity of their lines without indentation, and returns those
// within maxDist (a fraction of the needle's length), best first, plus the best-ranked
// candidate window whatever its distance, for a no_match report.
func findFuzzy(text, original string, maxDist float64) (scored []Match, top *Match) {
	needle := strings.TrimSuffix(original, "\n")
	nl := strings.Split(needle, "\n")
	n := len(nl)
	starts := lineStarts(text)
	total := len(starts) - 1
	if total < 1 {
		return nil, nil
	}
	n = min(n, total)
	cands := candidateWindows(text, starts, nl, n)
	if len(cands) == 0 {
		return nil, nil
	}
	s, e := starts[cands[0].line], starts[cands[0].line+n]
	top = &Match{Start: s, End: s + len(strings.TrimSuffix(text[s:e], "\n")), Line: cands[0].line + 1, Stage: StageFuzzy}
	// Compare lines without their indentation: a model's indentation is the least
	// reliable part of what it copies, and the replacement is re-indented anyway.
	nr := []rune(trimLines(nl))
	bound := int(maxDist*float64(len(nr))) + 1
	// Only a window within a whisker of the best can matter (as the match, or as a rival
	// that makes it ambiguous), so the bound tightens as better windows are found.
	slack := len(nr)/50 + 1
	// The banded check costs about len × (2·bound+1) cells. Past a budget (a few hundred
	// ms) the remaining, lower-ranked candidates are left unchecked; the best-ranked one
	// is always checked.
	const budget = 300_000_000
	spent := 0
candidates:
	for _, c := range cands {
		if c.line+n <= total {
			// The same lines nested otherwise: not this region in any size (a window a
			// line shorter would replace it and duplicate the line it leaves out).
			s, e := starts[c.line], starts[c.line+n]
			if wl := strings.Split(strings.TrimSuffix(text[s:e], "\n"), "\n"); trimLines(wl) == trimLines(nl) && !nestedAlike(nl, wl) {
				continue
			}
		}
		for _, size := range []int{n, n - 1, n + 1} {
			if size < 1 || c.line+size > total {
				continue
			}
			s, e := starts[c.line], starts[c.line+size]
			w := strings.TrimSuffix(text[s:e], "\n")
			wl := strings.Split(w, "\n")
			if size == n && !nestedAlike(nl, wl) {
				continue // the same lines nested otherwise: y() inside the if is another program
			}
			wr := []rune(trimLines(wl))
			if abs(len(wr)-len(nr)) > bound {
				continue
			}
			// Until a first match sets a tight bound, start small and widen: most good
			// matches are far closer than the threshold allows.
			k := bound
			if len(scored) == 0 {
				k = min(bound, len(nr)/16+1)
			}
			cost := len(wr) * (2*k + 1)
			if spent > 0 && spent+cost > budget {
				break candidates
			}
			spent += cost
			d := boundedLevenshtein(wr, nr, k)
			for d > k && k < bound {
				k = min(bound, 2*k)
				spent += len(wr) * (2*k + 1)
				d = boundedLevenshtein(wr, nr, k)
			}
			if d > bound {
				continue
			}
			if n == 1 && size == 1 && len(wr) > len(nr) && len(wr) <= 4000 && substringDistance(nr, wr)+2 <= d {
				// old_string is nearly a part of the line, not the line: replacing the
				// whole line would drop the rest of it (abc = compute(...) losing "abc = ").
				continue
			}
			if !linesCorrespond(nl, wl) {
				// Near as a whole but not line for line: replacing it would drop a line
				// old_string does not show, or put one of its lines over another.
				continue
			}
			bound = min(bound, d+slack)
			sim := 1 - float64(d)/float64(max(len(wr), len(nr), 1))
			m := Match{Start: s, End: s + len(w), Line: c.line + 1, Stage: StageFuzzy, Similarity: sim}
			m.fit = fuzzyFit(original, text[s:s+len(w)])
			scored = append(scored, m)
		}
	}
	sort.SliceStable(scored, func(a, b int) bool { return scored[a].Similarity > scored[b].Similarity })
	return scored, top
}

// linesCorrespond reports whether a fuzzy window's lines are old_string's, line for
// line, each near its own (lineNear): the same count; or one more or one less, where
// the odd line is blank or is two lines of the other side wrapped into one. A window
// near old_string as a whole can still hold a line old_string leaves out (a model
// that skipped "port = 8080" would have it deleted) or pair a line with another (red
// team: 14% of random fuzzy edits replaced the wrong span).
func linesCorrespond(needle, window []string) bool {
	_, _, ok := lineCorrespondence(needle, window)
	return ok
}

// lineCorrespondence pairs needle's lines with the window's they stand for (see
// linesCorrespond): pairs maps a needle line to its window line, one for one; wrapped
// lists the needle lines of a wrap (one line on one side for two on the other), which
// pair with no single line.
func lineCorrespondence(needle, window []string) (pairs map[int]int, wrapped []int, ok bool) {
	a, b := needle, window
	swapped := len(a) > len(b)
	if swapped {
		a, b = b, a // b has the odd line, if any
	}
	pairs = map[int]int{}
	// pair records a[i] with b[j], in needle → window terms.
	pair := func(i, j int) {
		if swapped {
			pairs[j] = i
		} else {
			pairs[i] = j
		}
	}
	switch len(b) - len(a) {
	case 0:
		for i := range a {
			if !lineNear(a[i], b[i], 0.5) {
				return nil, nil, false
			}
			pair(i, i)
		}
		return pairs, nil, true
	case 1:
	default:
		return nil, nil, false
	}
	// prefix[i]: a[:i] pairs with b[:i]; suffix[i]: a[i:] pairs with b[i+1:].
	prefix := make([]bool, len(a)+1)
	prefix[0] = true
	for i := range a {
		prefix[i+1] = prefix[i] && lineNear(a[i], b[i], 0.5)
	}
	suffix := make([]bool, len(a)+1)
	suffix[len(a)] = true
	for i := len(a) - 1; i >= 0; i-- {
		suffix[i] = suffix[i+1] && lineNear(a[i], b[i+1], 0.5)
	}
	for j := range b {
		// b[j] is the odd line: blank, or with a neighbour the wrapped form of a[j] or a[j-1].
		if isBlank(b[j]) && prefix[j] && suffix[j] {
			for i := range a {
				if i < j {
					pair(i, i)
				} else {
					pair(i, i+1)
				}
			}
			return pairs, nil, true
		}
		if j+1 < len(b) && j < len(a) && prefix[j] && suffix[j+1] {
			// A wrap: the two lines together are near a[j], and nearer than the first
			// alone, by more than a short line could add by chance (red team: a "}" or a
			// call of its own after a line was taken for its wrapped end, and deleted).
			joined := strings.TrimSpace(b[j]) + " " + strings.TrimSpace(b[j+1])
			if together, first := lineSimilarity(a[j], joined), lineSimilarity(a[j], b[j]); together >= 0.8 && together > first+0.1 {
				for i := range a {
					switch {
					case i < j:
						pair(i, i)
					case i > j:
						pair(i, i+1)
					}
				}
				if swapped {
					wrapped = []int{j, j + 1}
				} else {
					wrapped = []int{j}
				}
				return pairs, wrapped, true
			}
		}
	}
	return nil, nil, false
}

// lineSimilarity is one minus the edit distance of two lines, indentation aside, over
// the longer's length.
func lineSimilarity(x, y string) float64 {
	a, b := []rune(strings.TrimSpace(x)), []rune(strings.TrimSpace(y))
	n := max(len(a), len(b), 1)
	return 1 - float64(boundedLevenshtein(a, b, n))/float64(n)
}

// lineNear reports two lines, indentation aside, within the given similarity (one
// minus their edit distance over the longer's length); lines of two characters or
// fewer are near any such line.
func lineNear(x, y string, least float64) bool {
	a, b := []rune(strings.TrimSpace(x)), []rune(strings.TrimSpace(y))
	if string(a) == string(b) {
		return true
	}
	n := max(len(a), len(b))
	if n <= 2 {
		return true
	}
	k := int((1 - least) * float64(n))
	return boundedLevenshtein(a, b, k) <= k
}

// nestedAlike reports whether needle's lines are indented as the window's but for one
// change to all (UniformIndent), a first line copied without its indentation aside.
func nestedAlike(needle, window []string) bool {
	if len(needle) > 1 && leading(needle[0]) == "" {
		needle, window = needle[1:], window[1:]
	}
	return UniformIndent(needle, window)
}

// substringDistance is the edit distance from needle to the part of line closest to
// it (approximate substring matching: the line's ends cost nothing).
func substringDistance(needle, line []rune) int {
	prev, cur := make([]int, len(line)+1), make([]int, len(line)+1)
	for i := 1; i <= len(needle); i++ {
		cur[0] = i
		for j := 1; j <= len(line); j++ {
			c := prev[j-1]
			if needle[i-1] != line[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return slices.Min(prev)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// boundedLevenshtein computes the edit distance of a and b if it is at most k, and
// returns k+1 otherwise; only a band of width 2k+1 around the diagonal is filled, and it
// stops early once a whole row exceeds k.
func boundedLevenshtein(a, b []rune, k int) int {
	if abs(len(a)-len(b)) > k {
		return k + 1
	}
	const inf = 1 << 30
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		if j <= k {
			prev[j] = j
		} else {
			prev[j] = inf
		}
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		// Only the band is written, so only its edges need resetting: the next row
		// reads this one from lo-1 to hi+1.
		if i <= k {
			cur[0] = i
		} else {
			cur[lo-1] = inf
		}
		if hi < len(b) {
			cur[hi+1] = inf
		}
		rowMin := inf
		if lo == 1 {
			rowMin = cur[0]
		}
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := prev[j-1] + cost
			if prev[j]+1 < v {
				v = prev[j] + 1
			}
			if cur[j-1]+1 < v {
				v = cur[j-1] + 1
			}
			cur[j] = v
			if v < rowMin {
				rowMin = v
			}
		}
		if rowMin > k {
			return k + 1
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > k {
		return k + 1
	}
	return prev[len(b)]
}

// nearest describes the region closest to needle for a no_match report: the best
// fuzzy match if one came within the threshold, else the best-ranked candidate window,
// whose similarity is computed with a bounded amount of work (beyond it, the figure
// reported is an upper bound).
func nearest(text, needle string, best, top *Match) *Region {
	m := best
	if top != nil {
		// The same lines nested otherwise is the region to show, whatever scored best:
		// what differs is the nesting, and the hint says so.
		nl, wl := strings.Split(strings.TrimSuffix(needle, "\n"), "\n"), strings.Split(text[top.Start:top.End], "\n")
		if len(nl) == len(wl) && trimLines(nl) == trimLines(wl) && !nestedAlike(nl, wl) {
			endLine := top.Line + strings.Count(text[top.Start:top.End], "\n")
			return &Region{StartLine: top.Line, EndLine: endLine, Similarity: 1, Excerpt: Visible(clipLines(text[top.Start:top.End], 40, 4000)), Nesting: true}
		}
	}
	if m == nil {
		if top == nil {
			return nil
		}
		m = top
		nr := []rune(trimLines(strings.Split(strings.TrimSuffix(needle, "\n"), "\n")))
		wr := []rune(trimLines(strings.Split(text[m.Start:m.End], "\n")))
		longest := max(len(nr), len(wr), 1)
		k := min(longest, 4_000_000/max(1, len(nr)))
		d := boundedLevenshtein(wr, nr, k)
		m.Similarity = 1 - float64(min(d, longest))/float64(longest)
		if m.Similarity <= 0 {
			return nil
		}
	}
	endLine := m.Line + strings.Count(text[m.Start:m.End], "\n")
	return &Region{StartLine: m.Line, EndLine: endLine, Similarity: m.Similarity, Excerpt: Visible(clipLines(text[m.Start:m.End], 40, 4000))}
}

// clipLines keeps an excerpt readable: at most maxLines lines and maxBytes bytes.
func clipLines(s string, maxLines, maxBytes int) string {
	cut := false
	if len(s) > maxBytes {
		s = strings.ToValidUTF8(s[:maxBytes], "")
		cut = true
	}
	if i := nthIndex(s, '\n', maxLines); i >= 0 {
		s = s[:i]
		cut = true
	}
	if cut {
		s += "\n…"
	}
	return s
}

func nthIndex(s string, c byte, n int) int {
	at := -1
	for range n {
		j := strings.IndexByte(s[at+1:], c)
		if j < 0 {
			return -1
		}
		at += 1 + j
	}
	return at
}

// Visible makes tabs, trailing spaces and carriage returns visible, so a model can see
// why its string did not match: tab → "→", CR → "␍", trailing space → "·".
func Visible(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		trimmed := strings.TrimRight(l, " ")
		l = trimmed + strings.Repeat("·", len(l)-len(trimmed))
		l = strings.ReplaceAll(l, "\t", "→")
		l = strings.ReplaceAll(l, "\r", "␍")
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// joinInts lists line numbers for a message: the first 20, then how many more, so a
// text that matches 200,000 places still gets a short error.
func joinInts(xs []int) string {
	const show = 20
	n := min(len(xs), show)
	parts := make([]string, n)
	for i, x := range xs[:n] {
		parts[i] = fmt.Sprint(x)
	}
	out := strings.Join(parts, ", ")
	if len(xs) > show {
		out += fmt.Sprintf(" and %d more", len(xs)-show)
	}
	return out
}

func trimLines(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(l)
	}
	return strings.Join(out, "\n")
}
