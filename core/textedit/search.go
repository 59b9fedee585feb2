package textedit

import (
	"container/heap"
	"sort"
	"strings"
	"unicode/utf8"
)

// This file holds the two searches that must stay near-linear on large files: the
// whitespace-normalised stage (anchored on the needle's longest token instead of
// collapsing the whole file) and the choice of candidate windows for fuzzy matching
// (a 3-gram score per line, summed over a sliding window of lines).

// spaceAt reports the length of the whitespace byte at s[i:], or 0. Only ASCII
// whitespace is tolerated: a non-breaking or other Unicode space is part of the text (a
// string literal's, an indentation someone chose), so it must match exactly.
func spaceAt(s string, i int) int {
	if isASCIISpace(s[i]) {
		return 1
	}
	return 0
}

// spaceBefore reports the length of the whitespace byte that ends at s[:i], or 0.
func spaceBefore(s string, i int) int { return spaceAt(s, i-1) }

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// asciiFields splits s around runs of ASCII whitespace (see spaceAt).
func asciiFields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r < utf8.RuneSelf && isASCIISpace(byte(r)) })
}

// findWhitespace finds the places where text equals needle once every run of
// whitespace in both is collapsed to one space (leading and trailing runs dropped),
// never starting or ending inside a word. A run's line breaks are not collapsed: the
// text's run between two words must hold as many as the needle's, so lines are never
// joined or split, nor blank lines added or dropped. It anchors on the needle's longest token,
// which occurs rarely, and walks outwards token by token; should the text be so
// repetitive that this walks more than about twice the text, it falls back to the
// linear collapse of the whole text.
func findWhitespace(text, needle string) []Match {
	tokens := asciiFields(needle)
	if len(tokens) == 0 {
		return nil
	}
	a := 0
	for i, t := range tokens {
		if len(t) > len(tokens[a]) {
			a = i
		}
	}
	last := len(tokens) - 1
	breaks := lineBreaks(needle, len(tokens))
	old := shapeOf(needle)
	oldLines := strings.Split(old.core, "\n")
	budget := 2*len(text) + 4096
	var ms []Match
	line, lineAt, prevEnd := 1, 0, 0
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], tokens[a])
		if i < 0 {
			break
		}
		p := from + i
		from = p + 1
		start, end, work, ok := walkTokens(text, tokens, breaks, a, p)
		if budget -= work + len(tokens[a]); budget < 0 {
			return findWhitespaceCollapse(text, needle)
		}
		if !ok {
			continue
		}
		m, fits := wsMatch(text, old, oldLines, start, end)
		if !fits {
			continue
		}
		line += strings.Count(text[lineAt:m.Start], "\n")
		lineAt, m.Line = m.Start, line
		m.overlapsPrev = m.Start < prevEnd
		prevEnd = max(prevEnd, m.End)
		ms = append(ms, m)
		if last == 0 {
			from = end
		}
	}
	return ms
}

// wsMatch makes a whitespace match of the words at text[r:q], fitted to whole lines.
func wsMatch(text string, old shape, oldLines []string, r, q int) (Match, bool) {
	start, end, fit, ok := fitWhitespace(text, old, oldLines, r, q)
	if !ok || !fit.uniform() {
		return Match{}, false
	}
	return Match{Start: start, End: end, Stage: StageWhitespace, Similarity: 0.95, fit: fit}, true
}

// lineBreaks returns, for each of s's n tokens, how many line breaks the whitespace
// before it holds (none before the first).
func lineBreaks(s string, n int) []int {
	out := make([]int, n)
	tok, inSpace := -1, true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf && isASCIISpace(c) {
			if c == '\n' && tok >= 0 && tok+1 < n {
				out[tok+1]++
			}
			inSpace = true
		} else if inSpace {
			tok, inSpace = tok+1, false
		}
	}
	return out
}

// walkTokens checks whether the tokens, with tokens[a] at text[p:], occur in text
// separated by whitespace holding breaks[i] line breaks before tokens[i], and returns
// the matched region and the bytes examined.
func walkTokens(text string, tokens []string, breaks []int, a, p int) (start, end, work int, ok bool) {
	last := len(tokens) - 1
	// Inner tokens are whole words of the text: whitespace on both sides.
	if a > 0 && (p == 0 || spaceBefore(text, p) == 0) {
		return 0, 0, 1, false
	}
	q := p + len(tokens[a])
	if a < last && (q >= len(text) || spaceAt(text, q) == 0) {
		return 0, 0, 1, false
	}
	for i := a + 1; i <= last; i++ {
		nl := 0
		for q < len(text) {
			n := spaceAt(text, q)
			if n == 0 {
				break
			}
			if text[q] == '\n' {
				nl++
			}
			q += n
			work++
		}
		work += len(tokens[i])
		if nl != breaks[i] || !strings.HasPrefix(text[q:], tokens[i]) {
			return 0, 0, work, false
		}
		q += len(tokens[i])
		if i < last && (q >= len(text) || spaceAt(text, q) == 0) {
			return 0, 0, work, false
		}
	}
	r := p
	for i := a - 1; i >= 0; i-- {
		nl := 0
		for r > 0 {
			n := spaceBefore(text, r)
			if n == 0 {
				break
			}
			if text[r-1] == '\n' {
				nl++
			}
			r -= n
			work++
		}
		work += len(tokens[i])
		if nl != breaks[i+1] || !strings.HasSuffix(text[:r], tokens[i]) {
			return 0, 0, work, false
		}
		r -= len(tokens[i])
		if i > 0 && (r == 0 || spaceBefore(text, r) == 0) {
			return 0, 0, work, false
		}
	}
	// The outer tokens may be parts of text words only where no word is split.
	if !(r == 0 || spaceBefore(text, r) > 0 || !isWordByte(text[r-1]) || !isWordByte(text[r])) {
		return 0, 0, work, false
	}
	if !(q == len(text) || spaceAt(text, q) > 0 || !isWordByte(text[q]) || !isWordByte(text[q-1])) {
		return 0, 0, work, false
	}
	return r, q, work, true
}

// findWhitespaceCollapse is the reference form of findWhitespace: collapse both
// strings and search. Linear, but it copies the whole text.
func findWhitespaceCollapse(text, needle string) []Match {
	cn, _ := collapse(needle)
	if cn == "" {
		return nil
	}
	ct, offs := collapse(text)
	old := shapeOf(needle)
	oldLines := strings.Split(old.core, "\n")
	var ms []Match
	line, lineAt := 1, 0
	for from := 0; from <= len(ct); {
		i := strings.Index(ct[from:], cn)
		if i < 0 {
			break
		}
		s, e := from+i, from+i+len(cn)
		// Only whole tokens: a collapsed match must not start or end inside a word.
		if (s == 0 || ct[s-1] == ' ' || ct[s-1] == '\n' || !isWordByte(ct[s-1]) || !isWordByte(ct[s])) &&
			(e == len(ct) || ct[e] == ' ' || ct[e] == '\n' || !isWordByte(ct[e]) || !isWordByte(ct[e-1])) {
			start := int(offs[s])
			last := int(offs[e-1])
			_, size := utf8.DecodeRuneInString(text[last:])
			end := last + size
			if m, fits := wsMatch(text, old, oldLines, start, end); fits {
				line += strings.Count(text[lineAt:m.Start], "\n")
				lineAt, m.Line = m.Start, line
				m.overlapsPrev = len(ms) > 0 && m.Start < ms[len(ms)-1].End
				ms = append(ms, m)
				from = s + 1
				continue
			}
		}
		from = s + 1
	}
	return ms
}

// gramHash hashes a 3-gram into bits bits. Collisions only blur the ranking of
// candidate windows; the Levenshtein check that follows decides.
func gramHash(a, b, c byte, bits uint) uint32 {
	return (uint32(a) | uint32(b)<<8 | uint32(c)<<16) * 0x9E3779B1 >> (32 - bits)
}

// eachGram calls fn for every 3-gram of the line with its blanks trimmed, padded with
// a NUL on each side so that short lines ("}") have grams too. It returns the count.
func eachGram(line string, bits uint, fn func(h uint32)) int {
	line = strings.TrimSpace(line)
	if line == "" {
		return 0
	}
	p2, p1 := byte(0), line[0]
	for i := 1; i <= len(line); i++ {
		c := byte(0)
		if i < len(line) {
			c = line[i]
		}
		fn(gramHash(p2, p1, c, bits))
		p2, p1 = p1, c
	}
	return len(line)
}

type window struct {
	line  int // 0-based first line
	score uint32
}

type windowHeap []window

func (h windowHeap) Len() int           { return len(h) }
func (h windowHeap) Less(i, j int) bool { return h[i].score < h[j].score }
func (h windowHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *windowHeap) Push(x any)        { *h = append(*h, x.(window)) }
func (h *windowHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// candidateWindows ranks every window of n lines by its 3-gram overlap with the
// needle, counted as multisets (a gram the needle has twice counts at most twice, so a
// file written in the needle's vocabulary does not score as high as the needle's own
// lines), relative to the larger of the two gram counts. The window slides one line at
// a time, adding the new line's grams and removing the old one's, so the whole file
// costs two passes. It returns the best few, best first, keeping at most a handful of
// mutually overlapping windows so that a second, distant region (a rival that makes
// the match ambiguous) is not crowded out.
func candidateWindows(text string, starts []int, needleLines []string, n int) []window {
	nlen := 0
	for _, l := range needleLines {
		nlen += len(l)
	}
	bits := uint(16)
	for bits < 24 && 1<<bits < 8*nlen {
		bits++
	}
	want := make([]int32, 1<<bits) // needle's count per gram; window's overlap bookkeeping below
	ngrams := 0
	for _, l := range needleLines {
		ngrams += eachGram(l, bits, func(h uint32) { want[h]++ })
	}
	total := len(starts) - 1
	if ngrams == 0 || total < n {
		return nil
	}
	have := make([]int32, 1<<bits)
	overlap, wgrams := 0, 0
	// slide adds (d = 1) or removes (d = -1) one line's grams from the window.
	slide := func(i int, d int32) {
		line := strings.TrimSpace(text[starts[i]:starts[i+1]])
		if line == "" {
			return
		}
		wgrams += int(d) * len(line)
		p2, p1 := byte(0), line[0]
		for j := 1; j <= len(line); j++ {
			c := byte(0)
			if j < len(line) {
				c = line[j]
			}
			x := gramHash(p2, p1, c, bits)
			if d > 0 {
				if have[x] < want[x] {
					overlap++
				}
				have[x]++
			} else {
				have[x]--
				if have[x] < want[x] {
					overlap--
				}
			}
			p2, p1 = p1, c
		}
	}
	const keep, pool = 48, 256
	h := make(windowHeap, 0, pool+1)
	for i := 0; i < total; i++ {
		slide(i, 1)
		if i >= n {
			slide(i-n, -1)
		}
		if i < n-1 || overlap == 0 {
			continue
		}
		score := uint32(uint64(overlap) << 20 / uint64(max(wgrams, ngrams)))
		if len(h) == pool && score <= h[0].score {
			continue
		}
		heap.Push(&h, window{i - n + 1, score})
		if len(h) > pool {
			heap.Pop(&h)
		}
	}
	sort.Slice(h, func(a, b int) bool {
		if h[a].score != h[b].score {
			return h[a].score > h[b].score
		}
		return h[a].line < h[b].line
	})
	var out []window
	for _, w := range h {
		near := 0
		for _, k := range out {
			if k.line < w.line+n && w.line < k.line+n {
				near++
			}
		}
		if near < 6 {
			out = append(out, w)
			if len(out) == keep {
				break
			}
		}
	}
	return out
}
