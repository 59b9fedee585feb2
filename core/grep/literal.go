package grep

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits that keep literal analysis small: a set larger than this, or strings longer,
// is not worth a prefilter (and cross products would explode).
const (
	maxSetSize = 16
	maxLitLen  = 256
)

// litInfo describes what one regexp node can match, as literals.
type litInfo struct {
	// exact, when non-nil, is a finite set of strings every match of the node is one of.
	exact []string
	// complete: every occurrence of an exact string is a match (no assertions, no
	// case folding the set does not spell out).
	complete bool
	// required: every match contains at least one of these (nil: nothing known).
	required []string
	fold     bool // some literal came from a case-folded node
	// sensitive: some literal with letters is case-sensitive, so a case-folded search
	// for the set is only a prefilter, never the whole answer.
	sensitive bool
}

func hasCase(s string) bool {
	for _, r := range s {
		if unicode.SimpleFold(r) != r {
			return true
		}
	}
	return false
}

// score rates a set as a prefilter: the length of its shortest string (longer literals
// mean fewer false candidates); 0 means useless.
func score(set []string) int {
	if len(set) == 0 {
		return 0
	}
	m := maxLitLen + 1
	for _, s := range set {
		m = min(m, len(s))
	}
	return m
}

func better(a, b []string) bool {
	sa, sb := score(a), score(b)
	if sa != sb {
		return sa > sb
	}
	return len(a) > 0 && len(a) < len(b)
}

func cross(a, b []string) []string {
	if len(a)*len(b) > maxSetSize {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if len(x)+len(y) > maxLitLen {
				return nil
			}
			out = append(out, x+y)
		}
	}
	return dedup(out)
}

func dedup(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// analyze derives literal facts from a parsed (simplified) regexp.
func analyze(re *syntax.Regexp) litInfo {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		fold := re.Flags&syntax.FoldCase != 0
		if len(s) > maxLitLen {
			return litInfo{}
		}
		return litInfo{exact: []string{s}, complete: true, required: []string{s}, fold: fold, sensitive: !fold && hasCase(s)}
	case syntax.OpEmptyMatch:
		return litInfo{exact: []string{""}, complete: true}
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return litInfo{exact: []string{""}, complete: false}
	case syntax.OpCharClass:
		return analyzeClass(re)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		return repeated(analyze(re.Sub[0]))
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return repeated(analyze(re.Sub[0]))
		}
		return litInfo{}
	case syntax.OpAlternate:
		return analyzeAlternate(re)
	case syntax.OpConcat:
		return analyzeConcat(re)
	}
	return litInfo{}
}

// analyzeClass: a small class is a small set of one-character strings.
func analyzeClass(re *syntax.Regexp) litInfo {
	n := 0
	for i := 0; i < len(re.Rune); i += 2 {
		n += int(re.Rune[i+1]-re.Rune[i]) + 1
		if n > 4 {
			return litInfo{}
		}
	}
	var set []string
	for i := 0; i < len(re.Rune); i += 2 {
		for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
			set = append(set, string(r))
		}
	}
	return litInfo{exact: set, complete: true, required: set, sensitive: hasCase(strings.Join(set, ""))}
}

// repeated is what x+ or x{n,} (n >= 1) promises: x's required strings (or its exact
// ones, when better), but no exact set.
func repeated(in litInfo) litInfo {
	req := in.required
	if in.exact != nil && better(in.exact, req) {
		req = in.exact
	}
	return litInfo{required: req, fold: in.fold, sensitive: in.sensitive}
}

// analyzeAlternate: an alternation's exact set is the union of its branches' (when all
// have one); it requires one of its branches' required strings, unless a branch
// promises nothing.
func analyzeAlternate(re *syntax.Regexp) litInfo {
	exact, complete, fold, sensitive := []string{}, true, false, false
	var req []string
	reqOK := true
	for _, sub := range re.Sub {
		in := analyze(sub)
		fold = fold || in.fold
		sensitive = sensitive || in.sensitive
		if exact != nil && in.exact != nil && len(exact)+len(in.exact) <= maxSetSize {
			exact = append(exact, in.exact...)
			complete = complete && in.complete
		} else {
			exact = nil
		}
		r := in.required
		if in.exact != nil && better(in.exact, r) {
			r = in.exact
		}
		if score(r) == 0 || len(req)+len(r) > maxSetSize {
			reqOK = false // one branch promises nothing: neither does the alternation
		} else if reqOK {
			req = append(req, r...)
		}
	}
	if !reqOK {
		req = nil
	}
	if exact != nil {
		exact = dedup(exact)
		if req == nil || better(exact, req) {
			req = exact
		}
	}
	return litInfo{exact: exact, complete: complete, required: dedup(req), fold: fold, sensitive: sensitive}
}

// analyzeConcat: a concatenation's exact set is the cross product of its children's;
// it requires the best run of exact children, or the best child's required strings.
func analyzeConcat(re *syntax.Regexp) litInfo {
	var out litInfo
	out.exact, out.complete = []string{""}, true
	run := []string{""} // cross product of the current run of exact children
	var best []string
	flush := func() {
		if better(run, best) {
			best = run
		}
		run = []string{""}
	}
	for _, sub := range re.Sub {
		in := analyze(sub)
		out.fold = out.fold || in.fold
		out.sensitive = out.sensitive || in.sensitive
		if in.exact != nil {
			if out.exact != nil {
				out.exact = cross(out.exact, in.exact)
				out.complete = out.complete && in.complete
			}
			if r := cross(run, in.exact); r != nil {
				run = r
				continue
			}
			flush()
			run = in.exact
			continue
		}
		out.exact = nil
		flush()
		if better(in.required, best) {
			best = in.required
		}
	}
	flush()
	out.required = best
	if out.exact != nil && better(out.exact, out.required) {
		out.required = out.exact
	}
	return out
}

// foldSafe reports whether an ASCII-lowercased search for s finds every case-insensitive
// match: s must be ASCII without 'k' or 's' (KELVIN SIGN U+212A folds to k, LONG S
// U+017F to s, and those are not ASCII).
func foldSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if s[i] >= utf8.RuneSelf || c == 'k' || c == 's' {
			return false
		}
	}
	return true
}

// foldPiece returns the longest part of s that is fold-safe, lowercased.
func foldPiece(s string) string {
	best, cur := "", strings.Builder{}
	flush := func() {
		if cur.Len() > len(best) {
			best = cur.String()
		}
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		if foldSafe(s[i : i+1]) {
			cur.WriteByte(lowerASCII(s[i]))
		} else {
			flush()
		}
	}
	flush()
	return best
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// neighbours finds, in a concatenation whose prefilter literals come from one run of
// exact children, the character classes of the children just before and after that run
// when they must match at least one character there (a class, or a class repeated at
// least once): `\w+Error\b` → before: \w. Every match then holds a literal occurrence
// with a character of before right in front of it (and of after right behind it), so a
// literal hit without one cannot be where a match is, and the regexp need not run for
// it. nil means no such class.
func neighbours(re *syntax.Regexp, lits []string) (before, after []rune) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat || len(lits) == 0 {
		return nil, nil
	}
	want := map[string]bool{}
	for _, l := range lits {
		want[l] = true
	}
	subs := re.Sub
	for i := range subs {
		// The run of exact children starting at i, grown until it spells lits.
		run := []string{""}
		for j := i; j < len(subs); j++ {
			in := analyze(subs[j])
			if in.exact == nil {
				break
			}
			if run = cross(run, in.exact); run == nil {
				break
			}
			if len(run) != len(want) || !allIn(run, want) {
				continue
			}
			if i > 0 {
				before = edgeClass(subs[i-1], true)
			}
			if j+1 < len(subs) {
				after = edgeClass(subs[j+1], false)
			}
			if before != nil || after != nil {
				return before, after
			}
		}
	}
	return nil, nil
}

func allIn(set []string, want map[string]bool) bool {
	for _, s := range set {
		if !want[s] {
			return false
		}
	}
	return true
}

// edgeClass returns the class the first (last, with last set) character of every match
// of re is in, when re must match at least one character and that character is a
// class; nil otherwise.
func edgeClass(re *syntax.Regexp, last bool) []rune {
	switch re.Op {
	case syntax.OpCharClass:
		return re.Rune
	case syntax.OpPlus, syntax.OpCapture:
		return edgeClass(re.Sub[0], last)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return edgeClass(re.Sub[0], last)
		}
	case syntax.OpConcat:
		if last {
			return edgeClass(re.Sub[len(re.Sub)-1], last)
		}
		return edgeClass(re.Sub[0], last)
	}
	return nil
}

// inClass reports whether ASCII byte c is in the class (sorted lo, hi pairs).
func inClass(class []rune, c byte) bool {
	r := rune(c)
	for i := 0; i < len(class); i += 2 {
		if r < class[i] {
			return false
		}
		if r <= class[i+1] {
			return true
		}
	}
	return false
}
