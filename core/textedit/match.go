package textedit

import (
	"fmt"
	"hash/maphash"
	"sort"
	"strings"
	"unicode"
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
}

// Match is one located region of the text.
type Match struct {
	Start, End int     // byte offsets in the text
	Line       int     // 1-based line of Start
	Stage      string  // exact, whitespace, fuzzy
	Similarity float64 // 1 exact, 0.95 whitespace, the score for fuzzy
	// Indent re-indents the replacement for whitespace matches: the needle's base
	// indentation is replaced by the text's.
	indents   map[string]string // needle indentation → text indentation
	trimFirst bool
}

// Failure explains why a search did not produce a usable match.
type Failure struct {
	Kind    string // no_match or ambiguous
	Lines   []int  // ambiguous: the line of every match
	Stage   string
	Nearest *Region
}

// Region is the part of the text closest to a needle that did not match.
type Region struct {
	StartLine  int     `json:"start_line"`
	EndLine    int     `json:"end_line"`
	Similarity float64 `json:"similarity"`
	Excerpt    string  `json:"excerpt"` // with whitespace made visible
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
	if ms := findExact(text, needle); len(ms) > 0 {
		return unique(ms, opts, StageExact)
	}
	if ms := findWhitespace(text, needle); len(ms) > 0 {
		return unique(ms, opts, StageWhitespace)
	}
	th := opts.Threshold
	if th <= 0 {
		th = DefaultThreshold
	}
	best, second := findFuzzy(text, needle, 1-th)
	if opts.Fuzzy && best != nil && best.Similarity >= th {
		if second != nil && second.Similarity >= best.Similarity-0.02 && !overlaps(*best, *second) {
			return nil, &Failure{Kind: "ambiguous", Stage: StageFuzzy, Lines: []int{best.Line, second.Line}}
		}
		return []Match{*best}, nil
	}
	return nil, &Failure{Kind: "no_match", Nearest: nearest(text, needle, best)}
}

func overlaps(a, b Match) bool { return a.Start < b.End && b.Start < a.End }

func unique(ms []Match, opts Options, stage string) ([]Match, error) {
	if len(ms) == 1 || opts.ReplaceAll {
		return ms, nil
	}
	f := &Failure{Kind: "ambiguous", Stage: stage}
	for _, m := range ms {
		f.Lines = append(f.Lines, m.Line)
	}
	return nil, f
}

func findExact(text, needle string) []Match {
	var ms []Match
	line, lineAt := 1, 0
	for from := 0; from <= len(text); {
		i := strings.Index(text[from:], needle)
		if i < 0 {
			break
		}
		start := from + i
		line += strings.Count(text[lineAt:start], "\n")
		lineAt = start
		ms = append(ms, Match{Start: start, End: start + len(needle), Line: line, Stage: StageExact, Similarity: 1})
		from = start + len(needle)
	}
	return ms
}

// collapse returns s with every run of whitespace turned into one space and trimmed, and
// for each byte of the result the offset of the byte it came from.
func collapse(s string) (string, []int32) {
	var b strings.Builder
	b.Grow(len(s))
	offs := make([]int32, 0, len(s))
	inSpace := true // trims leading space
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // ASCII fast path
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
				if !inSpace {
					b.WriteByte(' ')
					offs = append(offs, int32(i))
					inSpace = true
				}
			} else {
				inSpace = false
				b.WriteByte(c)
				offs = append(offs, int32(i))
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
				offs = append(offs, int32(i))
				inSpace = true
			}
			i += size
			continue
		}
		inSpace = false
		b.WriteString(s[i : i+size])
		for k := 0; k < size; k++ {
			offs = append(offs, int32(i+k))
		}
		i += size
	}
	out := b.String()
	if strings.HasSuffix(out, " ") {
		out = out[:len(out)-1]
		offs = offs[:len(offs)-1]
	}
	return out, offs
}

func findWhitespace(text, needle string) []Match {
	cn, _ := collapse(needle)
	if cn == "" {
		return nil
	}
	// Collapsing keeps every run of non-blank characters verbatim, so the needle's
	// longest runs must already occur in the raw text; checking them first skips the
	// collapse of a large file in the common no-match case.
	tokens := strings.Fields(needle)
	sort.Slice(tokens, func(a, b int) bool { return len(tokens[a]) > len(tokens[b]) })
	for _, t := range tokens[:min(3, len(tokens))] {
		if !strings.Contains(text, t) {
			return nil
		}
	}
	ct, offs := collapse(text)
	var ms []Match
	for from := 0; from <= len(ct); {
		i := strings.Index(ct[from:], cn)
		if i < 0 {
			break
		}
		s, e := from+i, from+i+len(cn)
		// Only whole tokens: a collapsed match must not start or end inside a word.
		if (s == 0 || ct[s-1] == ' ' || !isWordByte(ct[s-1]) || !isWordByte(ct[s])) &&
			(e == len(ct) || ct[e] == ' ' || !isWordByte(ct[e]) || !isWordByte(ct[e-1])) {
			start := int(offs[s])
			last := int(offs[e-1])
			_, size := utf8.DecodeRuneInString(text[last:])
			end := last + size
			m := Match{Start: start, End: end, Line: 1 + strings.Count(text[:start], "\n"), Stage: StageWhitespace, Similarity: 0.95}
			m.indents = indentMap(needle, text, start, end)
			m.trimFirst = true
			ms = append(ms, m)
		}
		from = e
	}
	return ms
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func firstNonBlankLine(s string) int {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		line := s[i:]
		if j >= 0 {
			line = s[i : i+j]
		}
		if strings.TrimSpace(line) != "" {
			return i + len(line) - len(strings.TrimLeft(line, " \t"))
		}
		if j < 0 {
			break
		}
		i += j + 1
	}
	return 0
}

// indentOf returns the leading blanks of the line that contains offset at.
func indentOf(s string, at int) string {
	ls := strings.LastIndexByte(s[:at], '\n') + 1
	rest := s[ls:]
	return rest[:len(rest)-len(strings.TrimLeft(rest, " \t"))]
}

// indentMap pairs the indentation of each needle line with that of the matched text
// line in the same position, so a replacement written with the needle's indentation
// (spaces, say) is re-indented to the file's (tabs).
func indentMap(needle, text string, start, end int) map[string]string {
	m := map[string]string{indentOf(needle, firstNonBlankLine(needle)): indentOf(text, start)}
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	nl := strings.Split(strings.Trim(needle, "\n"), "\n")
	tl := strings.Split(text[ls:end], "\n")
	if len(nl) != len(tl) {
		return m
	}
	for i := range nl {
		if strings.TrimSpace(nl[i]) == "" {
			continue
		}
		from, to := leading(nl[i]), leading(tl[i])
		if _, seen := m[from]; !seen {
			m[from] = to
		}
	}
	return m
}

func leading(l string) string { return l[:len(l)-len(strings.TrimLeft(l, " \t"))] }

// Replacement returns the text that replaces m: for a whitespace match, new is
// re-indented from the needle's indentation to the matched region's.
func (m Match) Replacement(newText string) string {
	if m.Stage == StageExact {
		return newText
	}
	lines := strings.Split(newText, "\n")
	for i, l := range lines {
		if i == 0 && m.trimFirst {
			lines[i] = strings.TrimLeft(l, " \t")
			continue
		}
		ind := leading(l)
		best := ""
		found := false
		for from := range m.indents {
			if strings.HasPrefix(ind, from) && (!found || len(from) > len(best)) {
				best, found = from, true
			}
		}
		if found {
			lines[i] = m.indents[best] + l[len(best):]
		}
	}
	return strings.Join(lines, "\n")
}

var seed = maphash.MakeSeed()

func lineHash(l string) uint64 { return maphash.String(seed, strings.TrimSpace(l)) }

// lineStarts returns the byte offset of every line start, plus len(text).
func lineStarts(text string) []int {
	starts := []int{0}
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

// findFuzzy returns the best and second-best line windows by similarity. maxDist is the
// largest distance (as a fraction of the needle's length) worth computing exactly.
func findFuzzy(text, needle string, maxDist float64) (best, second *Match) {
	needle = strings.TrimSuffix(needle, "\n")
	nl := strings.Split(needle, "\n")
	n := len(nl)
	starts := lineStarts(text)
	total := len(starts) - 1
	if total < 1 {
		return nil, nil
	}
	if n > total {
		n = total
	}
	// Candidate windows: slide a window of n lines and count lines whose hash occurs in
	// the needle; keep the windows with the highest counts.
	want := map[uint64]int{}
	for _, l := range nl {
		if strings.TrimSpace(l) != "" {
			want[lineHash(l)]++
		}
	}
	hits := make([]bool, total)
	for i := 0; i < total; i++ {
		hits[i] = want[lineHash(text[starts[i]:starts[i+1]])] > 0
	}
	type cand struct{ line, count int }
	var cands []cand
	count := 0
	for i := 0; i < total; i++ {
		if hits[i] {
			count++
		}
		if i >= n && hits[i-n] {
			count--
		}
		if i >= n-1 && count > 0 {
			cands = append(cands, cand{i - n + 1, count})
		}
	}
	if len(cands) == 0 {
		// No line survives intact (short needles, or typos everywhere): every window is a
		// candidate, and the banded check's bound keeps that affordable.
		for i := 0; i+n <= total; i++ {
			cands = append(cands, cand{i, 0})
		}
	} else {
		sort.SliceStable(cands, func(a, b int) bool { return cands[a].count > cands[b].count })
		top := cands[0].count
		cut := len(cands)
		for i, c := range cands {
			if c.count < top/2 || i >= 64 {
				cut = i
				break
			}
		}
		cands = cands[:cut]
	}
	// Compare lines without their indentation: a model's indentation is the least
	// reliable part of what it copies, and the replacement is re-indented anyway.
	nr := []rune(trimLines(nl))
	bound := int(maxDist*float64(len(nr))) + 1
	// Only a window within a whisker of the best can matter (as the match, or as a rival
	// that makes it ambiguous), so the bound tightens as better windows are found.
	slack := len(nr)/50 + 1
	var scored []Match
	for _, c := range cands {
		for _, size := range []int{n, n - 1, n + 1} {
			if size < 1 || c.line+size > total {
				continue
			}
			s, e := starts[c.line], starts[c.line+size]
			w := strings.TrimSuffix(text[s:e], "\n")
			wr := []rune(trimLines(strings.Split(w, "\n")))
			if abs(len(wr)-len(nr)) > bound {
				continue
			}
			d := boundedLevenshtein(wr, nr, bound)
			if d > bound {
				continue
			}
			bound = min(bound, d+slack)
			sim := 1 - float64(d)/float64(max(len(wr), len(nr), 1))
			m := Match{Start: s, End: s + len(w), Line: c.line + 1, Stage: StageFuzzy, Similarity: sim}
			m.indents = indentMap(needle, text, s, s+len(w))
			scored = append(scored, m)
		}
	}
	sort.SliceStable(scored, func(a, b int) bool { return scored[a].Similarity > scored[b].Similarity })
	if len(scored) == 0 {
		return nil, nil
	}
	best = &scored[0]
	for i := 1; i < len(scored); i++ {
		if !overlaps(scored[i], *best) {
			second = &scored[i]
			break
		}
	}
	return best, second
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
		for j := range cur {
			cur[j] = inf
		}
		if i <= k {
			cur[0] = i
		}
		rowMin := cur[0]
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

// nearest describes the region closest to needle for a no_match report.
func nearest(text, needle string, best *Match) *Region {
	if best == nil {
		// Fall back to the line most like the needle's first non-blank line.
		first := strings.TrimSpace(strings.SplitN(strings.TrimLeft(needle, " \t\n"), "\n", 2)[0])
		if first == "" {
			return nil
		}
		fr := []rune(first)
		bestLine, bestSim := 0, 0.0
		starts := lineStarts(text)
		for i := 0; i+1 < len(starts) && i < 200000; i++ {
			l := []rune(strings.TrimSpace(text[starts[i]:starts[i+1]]))
			bound := len(fr) / 2
			d := boundedLevenshtein(l, fr, bound)
			if d > bound {
				continue
			}
			if sim := 1 - float64(d)/float64(max(len(l), len(fr), 1)); sim > bestSim {
				bestLine, bestSim = i, sim
			}
		}
		if bestSim == 0 {
			return nil
		}
		n := strings.Count(strings.TrimSuffix(needle, "\n"), "\n") + 1
		end := min(bestLine+n, len(starts)-1)
		return &Region{StartLine: bestLine + 1, EndLine: end, Similarity: bestSim, Excerpt: Visible(text[starts[bestLine]:starts[end]])}
	}
	startLine := best.Line
	endLine := startLine + strings.Count(text[best.Start:best.End], "\n")
	return &Region{StartLine: startLine, EndLine: endLine, Similarity: best.Similarity, Excerpt: Visible(text[best.Start:best.End])}
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

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

func trimLines(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(l)
	}
	return strings.Join(out, "\n")
}
