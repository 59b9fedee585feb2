package textedit

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// A fuzzy match replaces a window of file lines that old_string's lines stand for one
// for one (lineCorrespondence pairs them by position, each near its own). What the
// replacement drops of the file is the lines old_string's changed and deleted lines
// stand for, so those pairs must be clear: a line near its file line only by the 0.5
// the window needs was another line (fifth red team, N1, N2: "import json" lost and
// "import sys" written twice when old_string had the two swapped; save(data) deleted for
// a print(data) the file lacks). And a changed line is old_string's copy changed, so
// the change is made to the file's line, not to the copy (N3: a typo, a stale version
// carried into the file).

const (
	// changedNear: how similar a line new_string changes must be to its file line (the
	// change is then merged onto the file's line, which refuses overlapping changes).
	changedNear = 0.75
	// deletedNear: the same for a line new_string deletes, which has no such check.
	deletedNear = 0.85
	// sourceNear: a new line at least this similar to an old line is that line changed.
	sourceNear = 0.5
)

// fuzzyPlan checks a fuzzy match's replacement (new_string's core lines; keep from
// keptLines) and returns, for each changed new line whose old line differs from its file
// line, the line's text with the change made to the file's line (no indentation), or a
// description of why the edit is unclear.
func (f *fitting) fuzzyPlan(newLines []string, keep []*kept) (merged map[int]string, problem string) {
	keptOld := map[int]bool{}
	for _, kp := range keep {
		if kp != nil {
			keptOld[kp.j] = true
		}
	}
	paired := func(j int) (int, bool) {
		fi, ok := f.pairs[j]
		return fi, ok && !isBlank(f.oldLines[j]) && !isBlank(f.fileLines[fi])
	}
	differs := func(j, fi int) bool { return strings.TrimSpace(f.oldLines[j]) != strings.TrimSpace(f.fileLines[fi]) }
	// Each new line new_string does not keep comes from the old line most like it, if any
	// is like it: that line changed. One new_string drops is looked for first; a copy of
	// a kept line changed is looked for among the others (a typo then is in two lines).
	// Where new_string replaces a run of old_string's lines by as many lines, between
	// lines it keeps, they are the same lines changed, one for one ("prepair()" ->
	// "setup()").
	source := map[int]int{}
	changed := map[int]bool{}
	pj, pk := -1, -1
	for k := 0; k <= len(newLines); k++ {
		j := len(f.oldLines)
		if k < len(newLines) {
			if keep[k] == nil {
				continue
			}
			j = keep[k].j
		}
		var olds, news []int
		for x := pj + 1; x < j; x++ {
			if !isBlank(f.oldLines[x]) {
				olds = append(olds, x)
			}
		}
		for x := pk + 1; x < k; x++ {
			if !isBlank(newLines[x]) {
				news = append(news, x)
			}
		}
		if len(olds) == len(news) {
			for x := range olds {
				if _, ok := paired(olds[x]); ok {
					source[news[x]], changed[olds[x]] = olds[x], true
				}
			}
		}
		pj, pk = j, k
	}
	for k, l := range newLines {
		if _, ok := source[k]; ok || isBlank(l) || keep[k] != nil {
			continue
		}
		best, bestSim, tie := -1, sourceNear, false
		for pass := 0; pass < 2 && best < 0; pass++ {
			for j := range f.oldLines {
				if _, ok := paired(j); !ok || keptOld[j] != (pass == 1) {
					continue
				}
				switch s := lineSimilarity(l, f.oldLines[j]); {
				case s > bestSim || best < 0 && s == bestSim:
					best, bestSim, tie = j, s, false
				case s == bestSim && strings.TrimSpace(f.oldLines[j]) != strings.TrimSpace(f.oldLines[best]):
					tie = true
				}
			}
		}
		if best < 0 {
			continue
		}
		if fi, _ := paired(best); tie && differs(best, fi) {
			return nil, fmt.Sprintf("new_string's line %q is as like two lines of old_string, and one of them differs from the file's line it stands for, so which the change is made to cannot be told", clipLine(strings.TrimSpace(l)))
		}
		source[k] = best
		if !keptOld[best] {
			changed[best] = true
		}
	}
	// bestOther is the window line other than fi most like old line j, if any is more
	// like it than fi is.
	bestOther := func(j, fi int) (int, bool) {
		s0 := lineSimilarity(f.oldLines[j], f.fileLines[fi])
		if s0 == 1 {
			return 0, false
		}
		at, found := -1, false
		for i, fl := range f.fileLines {
			if i == fi || isBlank(fl) {
				continue
			}
			if s := lineSimilarity(f.oldLines[j], fl); s > s0 {
				at, s0, found = i, s, true
			}
		}
		return at, found
	}
	dropped := map[int]bool{} // file lines a changed or deleted old line stands for
	for j := range f.oldLines {
		if fi, ok := paired(j); ok && !keptOld[j] {
			dropped[fi] = true
		}
	}
	lineNo := func(fi int) string { return fmt.Sprintf("%q", clipLine(strings.TrimSpace(f.fileLines[fi]))) }
	for j, l := range f.oldLines {
		if isBlank(l) || keptOld[j] {
			continue
		}
		fi, ok := paired(j)
		if !ok {
			continue // a wrap's line, or one old_string has and the window lacks: as before
		}
		what, least := "deletes", deletedNear
		if changed[j] {
			what, least = "changes", changedNear
		}
		// One line is the whole match, which the search found near enough already.
		if len(f.pairs) > 1 && lineSimilarity(l, f.fileLines[fi]) < least {
			return nil, fmt.Sprintf("old_string's line %q, which new_string %s, stands in the near match for the file's line %s, which differs from it too much to tell that it is the line meant", clipLine(strings.TrimSpace(l)), what, lineNo(fi))
		}
		if other, ok := bestOther(j, fi); ok {
			return nil, fmt.Sprintf("old_string's line %q, which new_string %s, stands in the near match for the file's line %s, but the file's line %s is more like it: old_string's lines are in another order than the file's, or one is missing", clipLine(strings.TrimSpace(l)), what, lineNo(fi), lineNo(other))
		}
	}
	// A line new_string keeps is written as the file has the line at its place. Where
	// old_string has lines in another order than the file (a kept line more like another
	// file line), that is right only if no line the file loses is that other line, and
	// no line new_string adds or changes falls among the lines out of order: where it
	// was meant to go cannot be told.
	lo, hi := -1, -1
	for k, kp := range keep {
		if kp == nil {
			continue
		}
		other, ok := bestOther(kp.j, kp.fi)
		if !ok {
			continue
		}
		if dropped[other] {
			return nil, fmt.Sprintf("old_string's line %q, which new_string keeps, stands in the near match for the file's line %s, but the file's line %s, which the edit replaces, is more like it: old_string's lines are in another order than the file's, or one is missing", clipLine(strings.TrimSpace(f.oldLines[kp.j])), lineNo(kp.fi), lineNo(other))
		}
		if lo < 0 {
			lo = k
		}
		hi = k
	}
	for k := lo + 1; lo >= 0 && k < hi; k++ {
		if keep[k] == nil && !isBlank(newLines[k]) {
			return nil, fmt.Sprintf("old_string has lines in another order than the file, and new_string's line %q falls among them, so where it goes cannot be told", clipLine(strings.TrimSpace(newLines[k])))
		}
	}
	// An old line that differs from its file line in more than spacing may only be kept
	// (it is then written as the file has it) or changed in place, one line for one: a
	// line deleted for it may be another line (enable_feature for the file's
	// disable_feature), and a line split, joined, moved or copied carries old_string's
	// text, not the file's (the sixth red team: a typo, written into the file).
	uses := map[int]int{} // new lines close enough to an old line to carry its text
	for k, j := range source {
		if lineSimilarity(newLines[k], f.oldLines[j]) >= changedNear {
			uses[j]++
		}
	}
	for j, l := range f.oldLines {
		fi, ok := paired(j)
		if !ok || !differsText(l, f.fileLines[fi]) {
			continue
		}
		// A line old_string misquotes may only be a line new_string keeps as it is (it is
		// then written as the file has it), misquoted by a typo, and the typo may not
		// reach the file on another line. A change, split, copy or deletion of it, a
		// difference in an operator or a word that is no typo of the file's (> for <,
		// enable for disable, prod for staging), would be made to a line the model did
		// not see (the sixth and seventh red teams: merges beside the difference, a
		// kept line of opposite sense anchoring the change, a typo on a new line).
		// The new line that stands for it: the one that keeps it (re-indented too), or
		// the one that changes it in place.
		at, same := -1, 0
		for k, nl := range newLines {
			if strings.TrimSpace(nl) == strings.TrimSpace(l) {
				at, same = k, same+1
			}
		}
		kept := keptOld[j] && uses[j] == 0 || same == 1 && uses[j] <= 1
		if !kept && changed[j] && uses[j] <= 1 {
			at = -1
			for k, sj := range source {
				if sj == j {
					at = k
				}
			}
		}
		switch {
		case !kept && !(changed[j] && uses[j] <= 1):
			return nil, fmt.Sprintf("old_string's line %q differs from the file's line it stands for, %s, and new_string deletes, splits, joins, moves or copies it, so what the file would get cannot be told; copy that line exactly as the file has it", clipLine(strings.TrimSpace(l)), lineNo(fi))
		case kept && !typoClose(l, f.fileLines[fi]):
			return nil, fmt.Sprintf("old_string's line %q differs from the file's line it stands for, %s, by more than a typo (a value, an operator, a word of another sense), so the edit may rest on a line the file does not have; copy that line exactly as the file has it", clipLine(strings.TrimSpace(l)), lineNo(fi))
		}
		if typo := wordsOnlyIn(l, f.fileLines[fi]); len(typo) > 0 {
			for k, nl := range newLines {
				if k != at && keep[k] == nil && hasAnyWord(nl, typo) {
					return nil, fmt.Sprintf("new_string's line %q uses a word of old_string's line %q that the file has otherwise (%s), so the file would get a word it does not have; copy that line exactly as the file has it", clipLine(strings.TrimSpace(nl)), clipLine(strings.TrimSpace(l)), lineNo(fi))
				}
			}
		}
	}
	// A changed line whose old line differs from the file's (a typo, a stale value): the
	// change is made to the file's line where the two differences lie apart.
	ks := make([]int, 0, len(source))
	for k := range source {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	for _, k := range ks {
		j := source[k]
		fi, _ := paired(j)
		if !differs(j, fi) {
			continue
		}
		text, ok := merge3(strings.TrimSpace(f.oldLines[j]), strings.TrimSpace(newLines[k]), strings.TrimSpace(f.fileLines[fi]))
		if !ok {
			return nil, fmt.Sprintf("new_string's line %q changes old_string's %q, which the file has as %s, and the change touches where the two differ, so it cannot be made to the file's line", clipLine(strings.TrimSpace(newLines[k])), clipLine(strings.TrimSpace(f.oldLines[j])), lineNo(fi))
		}
		// Words of the file's line the merge drops while other new lines carry old_string's
		// words it dropped: the line was split or moved, and the file's words (beta in
		// compute(alpha, beta, gamma)) would be lost with it (the seventh red team).
		if lost := wordsOnlyIn(f.fileLines[fi], text); len(lost) > 0 {
			moved := wordsOnlyIn(f.oldLines[j], text)
			for k2, nl := range newLines {
				if k2 != k && keep[k2] == nil && hasAnyWord(nl, moved) {
					return nil, fmt.Sprintf("new_string splits or moves old_string's line %q, which the file has as %s, so the file's words it lacks would be lost; copy that line exactly as the file has it", clipLine(strings.TrimSpace(f.oldLines[j])), lineNo(fi))
				}
			}
		}
		if merged == nil {
			merged = map[int]string{}
		}
		merged[k] = text
	}
	return merged, ""
}

// FuzzyUnclear describes why a fuzzy match's edit cannot be made safely (see
// fuzzyPlan), or returns "".
func (m Match) FuzzyUnclear(text, newText string) string {
	f := m.fit
	if f == nil || f.pairs == nil || m.Stage != StageFuzzy {
		return ""
	}
	// An old line the file has as it is, somewhere, stands for that line, not for the
	// other one the near match pairs it with: old_string left out a block among alike
	// ones and the window slid onto the next (the sixth red team: step(2) changed for
	// the model's step(1)).
	fileHas := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		fileHas[strings.Join(strings.Fields(l), " ")] = true
	}
	for j, fi := range f.pairs {
		o := strings.Join(strings.Fields(f.oldLines[j]), " ")
		if o != "" && !isBlank(f.fileLines[fi]) && differsText(f.oldLines[j], f.fileLines[fi]) && fileHas[o] {
			return fmt.Sprintf("old_string's line %q is in the file as it is, but the near match pairs it with the file's line %q: old_string leaves out or reorders lines there, so which lines are meant cannot be told", clipLine(strings.TrimSpace(f.oldLines[j])), clipLine(strings.TrimSpace(f.fileLines[fi])))
		}
	}
	var newLines []string
	if core := shapeOf(newText).core; core != "" {
		newLines = strings.Split(core, "\n")
	}
	_, problem := f.fuzzyPlan(newLines, f.keptLines(newLines, f.oldToFile()))
	return problem
}

// hunk replaces tokens [a, b) of a line with repl.
type hunk struct {
	a, b int
	repl []string
}

// merge3 makes the change from old to new to file, token by token (words, blank runs,
// other characters): it fails where the two changes overlap or touch, but for a change
// of the model's that takes in the whole of the file's difference: "item" -> "item,
// scale=1" over the file's "items" is "items, scale=1" or "items, scale=1s".
func merge3(old, new, file string) (string, bool) {
	if old == new {
		return file, true // only moved or re-indented: the file's line
	}
	o, n, fl := lineTokens(old), lineTokens(new), lineTokens(file)
	typoFix := typoClose(old, file)
	hn, ok1 := tokenHunks(o, n)
	hf, ok2 := tokenHunks(o, fl)
	if !ok1 || !ok2 {
		return "", false
	}
	all := append([]hunk(nil), hn...)
	for _, y := range hf {
		covered := false
		for _, x := range hn {
			if x.a > y.b || y.a > x.b {
				continue // apart
			}
			// The model rewrote the whole part of the line that differs (the same
			// change, or "gama" -> "delta" over the file's "gamma"): its text wins.
			// Anything else that touches is two edits of one place.
			same := x.a == y.a && x.b == y.b && slices.Equal(x.repl, y.repl)
			inside := x.a < x.b && x.a <= y.a && y.b <= x.b && (y.a < y.b || x.a < y.a && y.b < x.b)
			// The file adds text where the model's change ends or starts, and the
			// model's text already holds it ("true" -> "false," over the file's "true,":
			// gemini-cli's fuzzy cases).
			holds := y.a == y.b && len(y.repl) > 0 && (y.a == x.b && hasSuffix(x.repl, y.repl) || y.a == x.a && hasPrefix(x.repl, y.repl))
			// The file differs only in blanks there ("myFunc( a, b )"): spacing, which
			// the model's own text replaces.
			if !same && !inside && !holds {
				return "", false
			}
			covered = true
		}
		if !covered {
			if !allBlankTokens(y.repl) || !allBlankTokens(o[y.a:y.b]) {
				if !typoFix {
					// The file's line differs in more than a typo beside the model's
					// change: merged, the two make a line nobody wrote ("if not
					// options.verbose:", "/ 30": the sixth red team). Refused.
					return "", false
				}
			}
			all = append(all, y) // the file's spelling and spacing, where the model kept old_string's
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].a < all[j].a })
	var b strings.Builder
	at := 0
	for _, h := range all {
		b.WriteString(strings.Join(o[at:h.a], ""))
		b.WriteString(strings.Join(h.repl, ""))
		at = h.b
	}
	b.WriteString(strings.Join(o[at:], ""))
	return b.String(), true
}

// typoClose reports lines that differ, blanks aside, only in words each a typo of the
// other: one or two letters off (one for words shorter than 8), the same kind of token.
func typoClose(a, b string) bool {
	ta, tb := nonBlankTokens(lineTokens(a)), nonBlankTokens(lineTokens(b))
	hs, ok := tokenHunks(ta, tb)
	if !ok {
		return false
	}
	for _, h := range hs {
		if h.b-h.a != 1 || len(h.repl) != 1 {
			return false
		}
		x, y := ta[h.a], h.repl[0]
		if !isWordToken(x) || !isWordToken(y) {
			return false
		}
		limit := 1
		if min(len(x), len(y)) >= 8 {
			limit = 2
		}
		if min(len(x), len(y)) < 4 || editDistance(x, y) > limit {
			return false
		}
	}
	return true
}

func nonBlankTokens(ts []string) []string {
	out := ts[:0:0]
	for _, t := range ts {
		if strings.TrimSpace(t) != "" {
			out = append(out, t)
		}
	}
	return out
}

func isWordToken(t string) bool { return len(lineWords(t)) == 1 && lineWords(t)[0] == t }

// editDistance is the Damerau-Levenshtein distance (optimal string alignment) of a and
// b in bytes.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// wordsOnlyIn are the words (letters, digits, _) of a that b lacks.
func wordsOnlyIn(a, b string) map[string]bool {
	in := map[string]bool{}
	for _, w := range lineWords(b) {
		in[w] = true
	}
	out := map[string]bool{}
	for _, w := range lineWords(a) {
		if !in[w] {
			out[w] = true
		}
	}
	return out
}

func hasAnyWord(line string, words map[string]bool) bool {
	for _, w := range lineWords(line) {
		if words[w] {
			return true
		}
	}
	return false
}

func lineWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127)
	})
}

// differsText reports lines that differ in more than blanks.
func differsText(a, b string) bool {
	return strings.Join(strings.Fields(a), "") != strings.Join(strings.Fields(b), "")
}

func allBlankTokens(ts []string) bool {
	for _, t := range ts {
		if strings.TrimSpace(t) != "" {
			return false
		}
	}
	return true
}

func hasSuffix(s, suffix []string) bool {
	return len(s) >= len(suffix) && slices.Equal(s[len(s)-len(suffix):], suffix)
}

func hasPrefix(s, prefix []string) bool {
	return len(s) >= len(prefix) && slices.Equal(s[:len(prefix)], prefix)
}

// tokenHunks is the change from a to b as hunks over a (a longest common subsequence).
func tokenHunks(a, b []string) ([]hunk, bool) {
	if len(a) == 0 || len(b) == 0 {
		return []hunk{{0, len(a), b}}, true
	}
	pairs := lcsPairs(len(a), len(b), func(i, j int) bool { return a[i] == b[j] })
	if pairs == nil {
		return nil, false
	}
	is := make([]int, 0, len(pairs))
	for i := range pairs {
		is = append(is, i)
	}
	sort.Ints(is)
	var hs []hunk
	pi, pj := 0, 0
	for _, i := range append(is, len(a)) {
		j := len(b)
		if i < len(a) {
			j = pairs[i]
		}
		if i > pi || j > pj {
			hs = append(hs, hunk{pi, i, b[pj:j]})
		}
		pi, pj = i+1, j+1
	}
	return hs, true
}

// lineTokens splits a line into words, runs of blanks, and single other characters.
func lineTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		switch {
		case c == ' ' || c == '\t':
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
		case isWordByte(c):
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}
