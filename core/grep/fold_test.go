package grep

import (
	"strings"
	"testing"
)

// foldRef is the reference foldLit.index must equal: strings.Index over an
// ASCII-lowercased copy (what the engine searched before foldLit).
func foldRef(hay, lit string, pos int) int {
	b := []byte(hay)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	low := string(b)
	if k := strings.Index(low[pos:], lit); k >= 0 {
		return pos + k
	}
	return -1
}

// foldAll returns every hit of f in hay the way searchChunk asks for them: one scan
// state, each call from just after the previous hit.
func foldAll(f *foldLit, hay []byte) []int {
	var out []int
	next := [2]int{-1, -1}
	for pos := 0; pos <= len(hay); {
		p := f.index(hay, pos, &next)
		if p < 0 {
			break
		}
		out = append(out, p)
		pos = p + 1
	}
	return out
}

func foldAllRef(hay, lit string) []int {
	var out []int
	for pos := 0; pos <= len(hay); {
		p := foldRef(hay, lit, pos)
		if p < 0 {
			break
		}
		out = append(out, p)
		pos = p + 1
	}
	return out
}

func TestFoldLit(t *testing.T) {
	for _, c := range []struct {
		lit, hay string
		at       int   // expected rare-byte offset (-1: do not check)
		want     []int // hits, each searched from just after the previous one
	}{
		{"func main", "Func Main\nfunc main()\nFUNC MAIN\nfunc  main", 5, []int{0, 10, 22}},
		{"func main", "FuNc MaIn", -1, []int{0}},                 // the whole buffer
		{"func main", "x\nfunc MAIN", -1, []int{2}},              // ends the buffer
		{"func main", "func mai", -1, nil},                       // cut by the end
		{"func main", "", -1, nil},                               //
		{"aa", "aAaAa", -1, []int{0, 1, 2, 3}},                   // overlapping, both cases
		{"q", "QqxQ", 0, []int{0, 1, 3}},                         // one byte
		{"qee", "eqeeQEE qEe qe", 0, []int{1, 4, 8}},             // rare byte first
		{"eeq", "eeeqEEQ eEq e", 2, []int{1, 4, 8}},              // rare byte last
		{"lock()", "mu.Lock()\nLOCK()\nlock(", -1, []int{3, 10}}, // rare: non-letter
		{"_x_", "_X_x_X__x_", -1, []int{0, 2, 4, 7}},             //
		{"ab", "aBAbab", -1, []int{0, 2, 4}},                     //
		{"[@`]", "[@`][@`]{@`}", -1, []int{0, 4}},                // '@' and '`' are not letters
		{"func main", strings.Repeat("m", 100) + "FUNC MAIN", 5, []int{100}},
	} {
		f := newFoldLit([]byte(c.lit))
		if c.at >= 0 && f.at != c.at {
			t.Errorf("%q: rare byte at %d (%q), want %d", c.lit, f.at, c.lit[f.at], c.at)
		}
		got := foldAll(&f, []byte(c.hay))
		if ref := foldAllRef(c.hay, c.lit); !equalInts(ref, c.want) {
			t.Fatalf("%q in %q: the reference finds %v; the test expects %v", c.lit, c.hay, ref, c.want)
		}
		if !equalInts(got, c.want) {
			t.Errorf("%q in %q: hits %v, want %v", c.lit, c.hay, got, c.want)
		}
		// Jumps (searchChunk resumes after a matched line) and fresh state give the same.
		for pos := 0; pos <= len(c.hay); pos++ {
			next := [2]int{-1, -1}
			if got, want := f.index([]byte(c.hay), pos, &next), foldRef(c.hay, c.lit, pos); got != want {
				t.Errorf("%q in %q from %d: %d, want %d", c.lit, c.hay, pos, got, want)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFoldLitUnsafe: literals with 'k', 's' or non-ASCII letters are cut to their
// fold-safe part as before, so matches spelled with KELVIN SIGN or LONG S are found.
func TestFoldLitUnsafe(t *testing.T) {
	for _, c := range []struct {
		pat, lit, text string
		lines          int
	}{
		{"kelvin", "elvin", "\u212Aelvin\nKELVIN\nkelvin\nelvin\n", 3},
		{"classes", "cla", "cla\u017F\u017Fe\u017F\nCLASSES\n", 2},
		{"größe", "gr", "GRÖSSE\ngröße\nGRÖẞE\n", 2},
		{"func main", "func main", "FUNC MAIN\n", 1},
	} {
		m, err := Compile(Options{Pattern: c.pat, IgnoreCase: true, Mode: Count})
		if err != nil {
			t.Fatal(err)
		}
		if lits, _ := m.Literals(); len(lits) != 1 || lits[0] != c.lit {
			t.Errorf("%q: literals %q, want [%q]", c.pat, lits, c.lit)
		}
		if len(m.folds) != len(m.lits) {
			t.Errorf("%q: %d folded finders for %d literals", c.pat, len(m.folds), len(m.lits))
		}
		for _, f := range m.folds {
			if !foldSafe(string(f.lit)) {
				t.Errorf("%q: finder for %q, which is not fold-safe", c.pat, f.lit)
			}
		}
		st := m.newFileState(0)
		m.searchChunk(&worker{}, st, []byte(c.text), 0, true)
		if st.file.Matches != c.lines {
			t.Errorf("%q in %q: %d lines, want %d", c.pat, c.text, st.file.Matches, c.lines)
		}
	}
}

// FuzzFoldLit checks foldLit.index against strings.Index over an ASCII-lowercased copy,
// from every offset with fresh state and in one pass with shared state.
func FuzzFoldLit(f *testing.F) {
	f.Add("func main", "func main() {\nFUNC MAIN fUnC mAiN\n}")
	f.Add("aa", "aAaAAa")
	f.Add("qee", "QEEqeeqEe")
	f.Add("x(", "x(X(x( ")
	f.Fuzz(func(t *testing.T, lit, hay string) {
		lit = foldPiece(lit) // what Compile hands to newFoldLit
		if lit == "" || len(hay) > 4096 {
			return
		}
		fl := newFoldLit([]byte(lit))
		if got, want := foldAll(&fl, []byte(hay)), foldAllRef(hay, lit); !equalInts(got, want) {
			t.Fatalf("%q in %q: hits %v, want %v", lit, hay, got, want)
		}
		for pos := 0; pos <= len(hay); pos++ {
			next := [2]int{-1, -1}
			if got, want := fl.index([]byte(hay), pos, &next), foldRef(hay, lit, pos); got != want {
				t.Fatalf("%q in %q from %d: %d, want %d", lit, hay, pos, got, want)
			}
		}
	})
}
