package textedit

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// MaxEdits bounds one multi-edit (reference 000).
const MaxEdits = 50

// Edit is one find-and-replace.
type Edit struct {
	Old, New   string
	ReplaceAll bool
	Fuzzy      bool
	Threshold  float64
}

// lineIndentAt is the indentation of the line that holds offset i.
func lineIndentAt(text string, i int) string {
	ls := strings.LastIndexByte(text[:i], '\n') + 1
	return leading(text[ls:])
}

// Applied reports how one edit matched.
type Applied struct {
	Index        int     `json:"index"`
	Stage        string  `json:"stage"`
	Similarity   float64 `json:"similarity"`
	Replacements int     `json:"replacements"`
	Line         int     `json:"line"`
}

// EditError says which edit of a multi-edit failed and why. Failure is set for match
// failures (no_match, ambiguous); otherwise Message alone explains.
type EditError struct {
	Index   int
	Failure *Failure
	Message string
}

func (e *EditError) Error() string { return e.Message }

type span struct {
	start, end int
	repl       string
	index      int
}

// Apply validates every edit against the original text, rejects overlapping regions,
// and only then applies them all (from the end backwards, so offsets stay valid).
// Nothing is applied unless everything matched.
func Apply(text string, edits []Edit) (string, []Applied, error) {
	if len(edits) == 0 {
		return "", nil, &EditError{Index: -1, Message: "no edits given"}
	}
	if len(edits) > MaxEdits {
		return "", nil, &EditError{Index: -1, Message: fmt.Sprintf("%d edits given; at most %d fit in one call, so split them", len(edits), MaxEdits)}
	}
	var spans []span
	applied := make([]Applied, 0, len(edits))
	// Only text of mixed endings keeps a CR (Decode converts all-CRLF text to LF).
	mixed := strings.Contains(text, "\r\n")
	splits, sure := splitChecker(text)
	maybeSplits := splits
	if !sure {
		splits = nil // the file may be 8-bit text: matched as such, and checked below
	}
	for i, e := range edits {
		if e.Old == e.New {
			return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d changes nothing: old_string and new_string are identical", i)}
		}
		if e.Old == "" {
			return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d has an empty old_string; an empty old_string only creates a missing file", i)}
		}
		if p := Placeholder(e.Old, e.New); p != "" {
			return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: new_string holds the placeholder %q where old_string had real code; applied, it would delete that code. Write the code out in full, or make old_string cover only the lines you change", i, clipLine(p))}
		}
		// Line breaks new_string shares with the ends of old_string are kept either way;
		// what is left of a new_string of line breaks alone is a deletion.
		keepLead := 0
		if o, lead, ok := sharedBreaks(e.Old, e.New); ok {
			e.Old, e.New, keepLead = o, "", lead
		}
		ms, err := Find(text, e.Old, Options{ReplaceAll: e.ReplaceAll, Fuzzy: e.Fuzzy, Threshold: e.Threshold, Splits: splits})
		if err != nil {
			var f *Failure
			errors.As(err, &f)
			msg := describe(i, e, f)
			if f != nil && f.Kind == "no_match" {
				if strings.Contains(e.Old, "\uFFFD") && !utf8.ValidString(text) {
					msg += " old_string holds \uFFFD, which read shows for each byte of the file that is not UTF-8; such a byte is not that character and cannot be matched. Start and end old_string at the text around those bytes, or pass fuzzy_match: true."
				}
				if u := unescapeOnce(e.Old); u != e.Old && strings.Contains(text, u) {
					msg += " old_string looks escaped one time too many: the file has it with those backslashes removed. Send the text exactly as the file has it (a quote as \", a line break as a line break), and new_string the same way."
				}
			}
			return "", nil, &EditError{Index: i, Failure: f, Message: msg}
		}
		if maybeSplits != nil && !sure {
			for _, m := range ms {
				if maybeSplits(m.Start) || maybeSplits(m.End) {
					return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: the file is not UTF-8, and its bytes read as well as Latin-1 or cp1252 as they do as Shift-JIS or GBK, where the match on line %d would cut a two-byte character in two (its first byte just before the match's start or end). Which encoding it is decides whether the edit is right, and the bytes do not say; the file was left as it was. Convert it to UTF-8 first (iconv -f SHIFT_JIS -t UTF-8, or -f LATIN1), or make old_string start and end at ASCII text away from the file's non-ASCII bytes", i, m.Line)}
				}
			}
		}
		changes := false
		if len(ms) > 1 && strings.Contains(strings.TrimRight(e.New, "\r\n"), "\n") {
			// replace_all of a multi-line new_string over places at different depths:
			// its lines were written for one of them.
			for _, m := range ms[1:] {
				if m.Stage == StageExact && lineIndentAt(text, m.Start) != lineIndentAt(text, ms[0].Start) {
					return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: replace_all puts a multi-line new_string at lines %d and %d, which are indented differently; its lines can be right for one depth only, so nothing was written. Replace each place on its own, old_string starting at the line's start", i, ms[0].Line, m.Line)}
				}
			}
		}
		for _, m := range ms {
			if m.IndentAmbiguous(text, e.New) {
				return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: old_string starts after line %d's indentation, and new_string's later lines read as well at the file's indentation as one level in from that line; which you meant cannot be told, so nothing was written. Start old_string at the line's start, with its indentation, and write new_string's lines as they should stand in the file", i, m.Line)}
			}
			if m.LeavesBlock(text, e.New) {
				return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: old_string starts after line %d's indentation, and new_string has a later line at column 0, where its first line was written: laid out as written, that line would leave its block for the file's margin, and whether you meant the margin or the first line's column cannot be told, so nothing was written. Start old_string at the line's start, with its indentation, and write new_string's lines as they should stand in the file", i, m.Line)}
			}
			if m.ScaleAmbiguous(e.New) {
				return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: old_string is one line indented otherwise than line %d, so its indentation step is unknown, and new_string's later lines are laid out differently by a shift of columns than by a scale of steps; which you meant cannot be told, so nothing was written. Copy old_string with the line's indentation exactly, or add the lines around it", i, m.Line)}
			}
			if m.KeepsWrapped(e.New) {
				return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: the near match at line %d has a line wrapped otherwise than old_string's copy of it, and new_string keeps that line unchanged: written as the file has it, it is not one line, and written as old_string has it, it would change lines the edit leaves alone, so nothing was written. Copy the lines from line %d exactly as the file has them", i, m.Line, m.Line)}
			}
			if m.LayoutUnclear(e.New) {
				return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: old_string's first line is indented otherwise than its later lines relative to the file at line %d (copied from its first word on, the later lines a continuation or at other columns), and new_string has a line at an indentation old_string's later lines do not show, which the first line's indentation and the later lines' place differently; which you meant cannot be told, so nothing was written. Copy old_string's lines with their indentation exactly as the file has them (the first line too), and write new_string the same way", i, m.Line)}
			}
			if m.GluesWord(text, e.Old, e.New) {
				return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: old_string ends inside a word on line %d, and new_string adds lines after it: the rest of that word would be glued onto new_string's last line. End old_string at the end of the word or line (copy the line whole), and write new_string to match", i, m.Line+strings.Count(text[m.Start:m.End], "\n"))}
			}
			if p := m.FuzzyUnclear(text, e.New); p != "" {
				return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: the near match at line %d (%.0f%% similar) is not clear enough to edit: %s; nothing was written. Read those lines again and copy them into old_string exactly as the file has them", i, m.Line, m.Similarity*100, p)}
			}
			if m.Stage == StageExact {
				m.Start += keepLead // the kept breaks; a tolerant match starts after them
			}
			start, end, repl := m.Span(text, e.New)
			if m.fit != nil && mixesIndent(repl) && !mixesIndent(e.New) && !mixesIndent(text[start:end]) && tabIndented(text[start:end]) {
				return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d: the lines at line %d are indented with tabs, and new_string's indentation, mapped to them, would give a line tabs and then spaces, which the file does not have there; nothing was written. Copy old_string with the file's tabs and write new_string's lines with tabs", i, m.Line)}
			}
			if mixed && !strings.Contains(e.New, "\r") {
				start, repl = fitEndings(text, start, end, repl)
			}
			changes = changes || repl != text[start:end]
			spans = append(spans, span{start, end, repl, i})
		}
		if !changes {
			// Laid out in the file's frame, new_string is what the file has: reporting
			// success would tell the model a change was made.
			return "", nil, &EditError{Index: i, Message: fmt.Sprintf("edit %d changes nothing: old_string matched line %d (%s match), and new_string, laid out at the file's indentation, is what the file already has there. If you meant another indentation, copy old_string with the line's indentation exactly and write new_string as the line should read", i, ms[0].Line, ms[0].Stage)}
		}
		applied = append(applied, Applied{Index: i, Stage: ms[0].Stage, Similarity: ms[0].Similarity, Replacements: len(ms), Line: ms[0].Line})
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	for k := 1; k < len(spans); k++ {
		if a, b := spans[k-1], spans[k]; b.start < a.end && a.repl == "" && b.repl == "" && strings.Trim(text[b.start:min(a.end, b.end)], "\r\n") == "" && max(a.end, b.end) == len(text) && !strings.HasSuffix(text, "\n") {
			// Two deletions that share only a line break, deleting the last two lines
			// of a file without a final newline: deleting both is deleting their
			// union, and the file still ends without one. Elsewhere (or sharing
			// text) they overlap: their union would leave a stray line break.
			merged := span{a.start, max(a.end, b.end), "", a.index}
			if merged.end == len(text) && !strings.HasSuffix(text, "\n") && merged.start > 0 && text[merged.start-1] == '\n' {
				merged.start--
			}
			spans = append(append(spans[:k-1], merged), spans[k+1:]...)
			k--
			continue
		}
		if spans[k].start < spans[k-1].end {
			a, b := spans[k-1], spans[k]
			return "", nil, &EditError{Index: b.index, Message: fmt.Sprintf("edits %d and %d overlap (both touch line %d); merge them into one edit", a.index, b.index, 1+strings.Count(text[:b.start], "\n"))}
		}
	}
	var out strings.Builder
	out.Grow(len(text))
	prev := 0
	for _, s := range spans {
		out.WriteString(text[prev:s.start])
		out.WriteString(s.repl)
		prev = s.end
	}
	out.WriteString(text[prev:])
	return out.String(), applied, nil
}

func describe(i int, e Edit, f *Failure) string {
	what := fmt.Sprintf("edit %d: ", i)
	if f == nil {
		return what + "no match"
	}
	if f.Kind == "ambiguous" {
		msg := what + fmt.Sprintf("old_string matches %d places (%s match) at lines %s; add surrounding lines to old_string to make it unique", len(f.Lines), f.Stage, joinInts(f.Lines))
		switch {
		case f.Stage == StageFuzzy:
			return msg + ", or copy the intended lines exactly (a near match must be the one best region, even with replace_all)"
		case e.ReplaceAll:
			return msg + " (the matches overlap, so replace_all cannot take them all)"
		}
		return msg + ", or set replace_all to change every one"
	}
	msg := what + fmt.Sprintf("old_string was not found (searched for %q)", clip(e.Old, 50))
	if f.Split > 0 {
		return msg + fmt.Sprintf(": its bytes occur %d time(s), but only inside characters: the file is not UTF-8, and its bytes pair up as a two-byte encoding (Shift-JIS, GBK, Big5), in which the second byte of a character can be an ASCII letter or a backslash. Make old_string start and end at whole characters (a space, a line start or end), or convert the file to UTF-8 first (iconv -f SHIFT-JIS -t UTF-8, or -f GBK)", f.Split)
	}
	if r := f.Nearest; r != nil {
		msg += fmt.Sprintf(". The nearest text is lines %d-%d (%.0f%% similar; → is a tab, · a trailing space, ␍ a carriage return):\n%s\n", r.StartLine, r.EndLine, r.Similarity*100, r.Excerpt)
		if r.Nesting {
			msg += "These are old_string's lines indented otherwise: they nest differently (a line inside a block in one, after it in the other), so no stage takes them. Copy the lines with their indentation exactly as the file has them."
		} else if !e.Fuzzy && r.Similarity >= DefaultThreshold {
			msg += "Read those lines again and copy them exactly, or pass fuzzy_match: true to accept the near match."
		} else {
			msg += "Read the file again and copy the text to replace exactly."
		}
	} else {
		msg += "; nothing similar is in the file. Read the file again and copy the text to replace exactly."
	}
	return msg
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func clipLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// sharedBreaks reads a new_string of line breaks alone as a deletion. The breaks are
// matched to old_string's first (old "\nfoo\n", new "\n": delete "foo\n" after a line
// break): those stay in old_string for the search, since they say the match starts a
// line, and are kept (lead) when it is applied. The rest come off old_string's end
// (old "foo\n\n", new "\n": delete "foo\n").
func sharedBreaks(old, newText string) (trimmed string, lead int, ok bool) {
	n := len(newText)
	if n == 0 || strings.Trim(newText, "\n") != "" || strings.TrimSpace(old) == "" {
		return "", 0, false
	}
	lead = min(n, len(old)-len(strings.TrimLeft(old, "\n")))
	trail := n - lead
	if len(old)-len(strings.TrimRight(old, "\n")) < trail {
		return "", 0, false
	}
	return old[:len(old)-trail], lead, true
}

// overEscaped are the escapes a model adds by escaping its string one time too many.
var overEscaped = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\"`, `"`, `\'`, `'`, "\\`", "`")

// unescapeOnce removes one level of escaping, to recognise an over-escaped old_string.
// It is only used for a hint: nothing is applied unescaped.
func unescapeOnce(s string) string { return overEscaped.Replace(s) }

// fitEndings gives the line breaks of a replacement written with LF the endings of the
// lines it replaces, since text of mixed endings is not converted and a bare LF among
// CRLF lines (or the reverse) is a wrong edit. Breaks that already are CRLF came from
// the file's own lines (a tolerant match keeps them) and stay. Lines the replacement
// repeats at the start or end of the region keep their own endings; the other breaks
// pair in order with the region's remaining ones. Breaks beyond those take the ending of the last of those
// lines, or, where the replacement only adds lines, of the line it splits (old "x", new
// "x\ny" in a CRLF line) or else of the line above. A region that starts between the
// CR and LF of a CRLF is moved back over the CR, so the pair is replaced whole.
func fitEndings(text string, start, end int, repl string) (int, string) {
	if start > 0 && start < len(text) && text[start-1] == '\r' && text[start] == '\n' {
		start--
	}
	if !strings.Contains(repl, "\n") {
		return start, repl
	}
	old := strings.Split(text[start:end], "\n")
	oldEnds := make([]string, len(old)-1)
	for i := range oldEnds {
		oldEnds[i] = "\n"
		if s, ok := strings.CutSuffix(old[i], "\r"); ok {
			old[i], oldEnds[i] = s, "\r\n"
		}
	}
	lines := strings.Split(repl, "\n")
	ends := make([]string, len(lines)-1)
	for i := range ends {
		if s, ok := strings.CutSuffix(lines[i], "\r"); ok {
			lines[i], ends[i] = s, "\r\n"
		}
	}
	set := func(i int, eol string) {
		if ends[i] == "" {
			ends[i] = eol
		}
	}
	p, pos := 0, start // pos: where the lines after the kept first ones start
	for p < len(oldEnds) && p < len(ends) && old[p] == lines[p] {
		set(p, oldEnds[p])
		pos += len(old[p]) + len(oldEnds[p])
		p++
	}
	q := 0
	for p+q < len(oldEnds) && p+q < len(ends) && old[len(oldEnds)-1-q] == lines[len(ends)-1-q] {
		set(len(ends)-1-q, oldEnds[len(oldEnds)-1-q])
		q++
	}
	midOld, mid := oldEnds[p:len(oldEnds)-q], len(ends)-q-p
	for i := range min(mid, len(midOld)) {
		set(p+i, midOld[i])
	}
	if mid > len(midOld) {
		var near string
		switch {
		case len(midOld) > 0:
			near = midOld[len(midOld)-1]
		case q > 0 || old[len(old)-1] == "": // lines added between lines: the one above
			if pos > 0 && text[pos-1] == '\n' {
				near = eolAt(text, pos-1)
			}
		}
		if near == "" {
			near = endingAfter(text, pos) // the line the new breaks split
		}
		if near == "" {
			near = endingBefore(text, pos)
		}
		for i := len(midOld); i < mid; i++ {
			set(p+i, near)
		}
	}
	var b strings.Builder
	b.Grow(len(repl) + len(ends))
	for i, l := range lines {
		b.WriteString(l)
		if i < len(ends) {
			b.WriteString(ends[i])
		}
	}
	return start, b.String()
}

// endingAfter is the ending of the line that holds text[i], "" when that line is the
// last and has none.
func endingAfter(text string, i int) string {
	j := strings.IndexByte(text[i:], '\n')
	if j < 0 {
		return ""
	}
	return eolAt(text, i+j)
}

// endingBefore is the ending of the line before the one that holds text[i], "\n" when
// there is none.
func endingBefore(text string, i int) string {
	j := strings.LastIndexByte(text[:i], '\n')
	if j < 0 {
		return "\n"
	}
	return eolAt(text, j)
}

// eolAt names the line break whose LF is text[j].
func eolAt(text string, j int) string {
	if j > 0 && text[j-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// mixesIndent reports a line of s indented with a tab and then a space (fifth red team,
// N6: 2-space nesting under a bare copy of tab-indented lines came out as tabs and two
// spaces). Apply refuses a replacement that has one where neither the replaced lines
// nor new_string do (a Makefile recipe's tab and spaces, written so, stay).
func mixesIndent(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		if !isBlank(l) && strings.Contains(leading(l), "\t ") {
			return true
		}
	}
	return false
}

// tabIndented reports text whose indented lines are indented with tabs alone.
func tabIndented(s string) bool {
	any := false
	for _, l := range strings.Split(s, "\n") {
		if ind := leading(l); !isBlank(l) && ind != "" {
			if strings.Trim(ind, "\t") != "" {
				return false
			}
			any = true
		}
	}
	return any
}
