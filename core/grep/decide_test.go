package grep

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDecider checks which patterns get a decider and that its verdicts agree with Go's
// regexp on lines built to hit each condition's edge: line edges, ASCII neighbours in
// and out of the class, non-ASCII neighbours (left to the regexp for a class, decided
// for \b, which Go counts in ASCII).
func TestDecider(t *testing.T) {
	for _, c := range []struct {
		pat  string
		want bool
	}{
		{`\w+Error\b`, true},
		{`^func \w+`, true},
		{`\bmain\b`, true},
		{`Error\w*`, true},
		{`.+Error`, true},
		{`[a-z]{1,}_test\B`, true},
		{`(\w+)Error`, true},
		{`Error$`, true},
		{`\w{2,}Error`, false}, // two neighbours needed: not one byte's decision
		{`Error^`, false},
		{`\w+Error\w+\b`, false},
		{`(Lock|Unlock)\w+`, false}, // two literals
		{`foo.*bar`, false},
		{`func main`, false}, // exact: no regexp runs anyway
	} {
		m, err := Compile(Options{Pattern: c.pat})
		if err != nil {
			t.Fatal(err)
		}
		if (m.sure != nil) != c.want {
			t.Errorf("%q: decider %v, want %v", c.pat, m.sure != nil, c.want)
		}
	}

	lines := []string{
		"Error", "xError", " Error", "_Error_", "ioError()", "ioErrors", "ErrorCode",
		"éError", "Erroré", "\xffError\xff", "é Error é", "a.Error b", "func main()",
		"func  main", "  func x", "xfunc y", "main", "mainly main", "amain_", "a_test",
		"a_test_", "x_test.go", "Error", "ErrorError", "xErrorError",
	}
	for _, pat := range []string{`\w+Error\b`, `^func \w+`, `\bmain\b`, `Error\w*`, `.+Error`,
		`[a-z]+_test\B`, `Error$`, `\BError`, `[^a-z]+Error`, `(?s:.)+main`} {
		m, err := Compile(Options{Pattern: pat})
		if err != nil {
			t.Fatal(err)
		}
		if m.sure == nil {
			t.Fatalf("%q: no decider", pat)
		}
		lit := m.lits[0]
		decided := 0
		for _, line := range lines {
			buf := []byte("prev\n" + line + "\nnext")
			want := m.re.MatchString(line)
			got, any, hits := false, false, 0 // a line matches when one hit is a match
			for s := 0; ; s++ {
				k := bytes.Index(buf[s:], lit)
				if k < 0 {
					break
				}
				s += k
				hits++
				switch m.sure.decide(buf, s, s+len(lit)) {
				case isMatch:
					got = true
				case unsure:
					any = true
				}
			}
			if got && !want || !got && !any && want {
				t.Errorf("%q on %q: decided %v, regexp says %v", pat, line, got, want)
			}
			if hits > 0 && (got || !any) {
				decided++
			}
		}
		if decided == 0 {
			t.Errorf("%q: no line decided without the regexp", pat)
		}
	}
}

// FuzzWordLiteral compares word mode's decided literal hits (rg -w err) with the
// regexp it stands for, line by line: neighbours that are word bytes, punctuation,
// non-ASCII runes, invalid bytes and line edges, and literals that begin or end in a
// non-word character.
func FuzzWordLiteral(f *testing.F) {
	text := "err\nerror err_x xerr\n(err) errerr err\n\u00e9err\u00e9 \xfferr\xff\nstderr\nerr\r\n-err- foo(err)\n"
	for _, lit := range []string{"err", "foo(", "-err", "\u00e9err", "r e", "e"} {
		f.Add(lit, text)
	}
	f.Fuzz(func(t *testing.T, lit, text string) {
		if lit == "" || strings.ContainsAny(lit, "\n\x00") || strings.ContainsRune(text, 0) || !utf8.ValidString(lit) {
			return
		}
		m, err := Compile(Options{Pattern: lit, FixedStrings: true, Word: true, Mode: Count})
		if err != nil {
			return
		}
		m.re2 = nil
		st := m.newFileState(0)
		m.searchChunk(&worker{}, st, []byte(text), 0, true)
		want := 0
		lines := strings.Split(text, "\n")
		if strings.HasSuffix(text, "\n") || text == "" {
			lines = lines[:len(lines)-1]
		}
		for _, l := range lines {
			if m.re.MatchString(l) {
				want++
			}
		}
		if st.file.Matches != want {
			t.Fatalf("word literal %q: %d matching lines, regexp says %d", lit, st.file.Matches, want)
		}
	})
}

// A literal in word mode is decided by its neighbours alone.
func TestWordLiteralHasDecider(t *testing.T) {
	for pat, want := range map[string]bool{"err": true, "foo bar": true, `err\w`: false, "a|b": false} {
		m, err := Compile(Options{Pattern: pat, Word: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.sure != nil && m.sure.before.kind == edgeNotWord; got != want {
			t.Errorf("%q: word decider %v, want %v", pat, got, want)
		}
	}
}
