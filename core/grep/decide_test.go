package grep

import (
	"bytes"
	"testing"
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
