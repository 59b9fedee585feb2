package textedit

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// spans lists the matches that do not overlap the one before, and whether any did.
func spans(ms []Match) string {
	var b strings.Builder
	overlap := false
	for _, m := range ms {
		if m.overlapsPrev {
			overlap = true
			continue
		}
		fmt.Fprintf(&b, "[%d,%d)@%d ", m.Start, m.End, m.Line)
	}
	if overlap {
		b.WriteString("+overlap")
	}
	return b.String()
}

func TestWhitespaceAnchoredEqualsCollapse(t *testing.T) {
	cases := []struct{ text, needle string }{
		{"func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", "if x {\n    return 1\n}"},
		{"a  b\na b\n a\tb ", "a b"},
		{"foo  barbaz foo bar", "foo bar"},
		{"x(a,  b) y(a, b)", "(a, b)"},
		{"aaa aaa aaa aaa b", "aaa aaa b"},
		{"trailing   \nspace\t\n", "trailing\nspace"},
		{"ü  ö\u00a0ä", "ü ö ä"},
		{"\xff \xfe  \xff", "\xfe \xff"},
		{"one\r\ntwo\r\n", "one\ntwo"},
		{"", "x"},
		{"x y", "   "},
	}
	for _, c := range cases {
		got, want := spans(findWhitespace(c.text, c.needle)), spans(findWhitespaceCollapse(c.text, c.needle))
		if got != want {
			t.Errorf("findWhitespace(%q, %q) = %s, the collapsed reference says %s", c.text, c.needle, got, want)
		}
	}
}

// A repetitive text would make the anchored walk quadratic; past its budget it must
// hand over to the linear collapse and still give the same answer.
func TestWhitespaceBudgetFallback(t *testing.T) {
	text := strings.Repeat("a ", 20000) + "b"
	needle := strings.Repeat("a  ", 500) + "b"
	got := findWhitespace(text, needle)
	if len(got) != 1 || spans(got) != spans(findWhitespaceCollapse(text, needle)) {
		t.Fatalf("got %s", spans(got))
	}
	if got[0].End != len(text) || got[0].Start != len(text)-1001 {
		t.Errorf("region [%d,%d) of %d", got[0].Start, got[0].End, len(text))
	}
}

// FuzzWhitespace holds the anchored search to the collapsed reference.
func FuzzWhitespace(f *testing.F) {
	f.Add("a  b\na b", "a b")
	f.Add("if x {\n\treturn\n}", "if x { return }")
	f.Add("ab ab  ab", "b ab")
	f.Add("\u2028x\u00a0y", "x y")
	f.Fuzz(func(t *testing.T, text, needle string) {
		got, want := spans(findWhitespace(text, needle)), spans(findWhitespaceCollapse(text, needle))
		if got != want {
			t.Fatalf("findWhitespace(%q, %q) = %s, reference %s", text, needle, got, want)
		}
	})
}

func typoEveryLine(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Replace(l, "line", "lnie", 1)
	}
	return strings.Join(out, "\n")
}

// With a typo on every line no line of the needle occurs intact, which is the case a
// line-hash filter alone cannot find.
func TestFuzzyEveryLineChanged(t *testing.T) {
	text := bigText(20000)
	lines := strings.Split(text, "\n")
	needle := typoEveryLine(lines[12000:12030])
	ms, err := Find(text, needle, Options{Fuzzy: true})
	if err != nil || ms[0].Line != 12001 || ms[0].Stage != StageFuzzy || ms[0].Similarity < 0.9 {
		t.Fatalf("fuzzy: %+v %v", ms, err)
	}
	if got := ms[0].End - ms[0].Start; got != len(strings.Join(lines[12000:12030], "\n")) {
		t.Errorf("matched %d bytes, want the 30 lines", got)
	}
	_, err = Find(text, needle, Options{})
	var f *Failure
	if !errors.As(err, &f) || f.Kind != "no_match" || f.Nearest == nil || f.Nearest.StartLine != 12001 || f.Nearest.EndLine != 12030 {
		t.Fatalf("without fuzzy the nearest region must be lines 12001-12030: %+v", err)
	}
}

func TestNoMatchNearestWithoutCloseRegion(t *testing.T) {
	text := bigText(5000)
	needle := strings.Repeat("zzz qqq www\n", 3)
	_, err := Find(text, needle, Options{Fuzzy: true})
	var f *Failure
	if !errors.As(err, &f) || f.Kind != "no_match" {
		t.Fatalf("want no_match: %v", err)
	}
	if f.Nearest != nil && f.Nearest.Similarity >= DefaultThreshold {
		t.Errorf("nothing in the text is like the needle, yet nearest says %+v", f.Nearest)
	}
}

func TestFuzzyAmbiguousNamesEveryRegion(t *testing.T) {
	block := "func load(path string) error {\n\tdata, err := os.ReadFile(path)\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn parse(data)\n}\n"
	text := "package x\n\n" + block + "\nvar a = 1\n\n" + block + "\nvar b = 2\n\n" + block
	needle := strings.Replace(block, "ReadFile", "ReadFlie", 1)
	_, err := Find(text, needle, Options{Fuzzy: true})
	var f *Failure
	if !errors.As(err, &f) || f.Kind != "ambiguous" || fmt.Sprint(f.Lines) != "[3 13 23]" {
		t.Fatalf("want ambiguous at lines 3, 13 and 23: %v", err)
	}
}

func TestFormatFields(t *testing.T) {
	for _, c := range []struct {
		raw, ending string
		final       bool
	}{
		{"a\nb\n", "lf", true}, {"a\r\nb", "crlf", false}, {"a\r\nb\n", "mixed", true}, {"abc", "none", false}, {"", "none", false},
		{"\xff\xfeA\x00\r\x00\n\x00", "crlf", true},
	} {
		text, f := Decode([]byte(c.raw))
		if f.LineEnding != c.ending || f.FinalNewline != c.final {
			t.Errorf("Decode(%q): ending %q final %v, want %q %v", c.raw, f.LineEnding, f.FinalNewline, c.ending, c.final)
		}
		if string(f.Encode(text)) != c.raw {
			t.Errorf("round trip of %q", c.raw)
		}
	}
}

func TestMixedEndingsKeepRegionCRLF(t *testing.T) {
	text, f := Decode([]byte("a\r\nb\r\nc\nd\n"))
	out, applied, err := Apply(text, []Edit{{Old: "a\nb", New: "x\ny"}, {Old: "c\nd", New: "z\nw"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(f.Encode(out)); got != "x\r\ny\r\nz\nw\n" {
		t.Errorf("mixed file became %q (%+v)", got, applied)
	}
}

func TestNearestExcerptIsClipped(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "\tvalue_%d := compute(%d)  \n", i, i)
	}
	text := b.String()
	needle := strings.ReplaceAll(text, "compute", "cmopute")
	_, err := Find(text, needle, Options{})
	var f *Failure
	if !errors.As(err, &f) || f.Nearest == nil {
		t.Fatalf("want a nearest region: %v", err)
	}
	ex := f.Nearest.Excerpt
	if strings.Count(ex, "\n") > 41 || !strings.HasSuffix(ex, "…") || !strings.HasPrefix(ex, "→value_0") || !strings.Contains(ex, ")··\n") {
		t.Errorf("excerpt not clipped or not made visible:\n%s", ex)
	}
	if f.Nearest.StartLine != 1 || f.Nearest.EndLine != 100 {
		t.Errorf("nearest lines %d-%d, want 1-100", f.Nearest.StartLine, f.Nearest.EndLine)
	}
}

// BenchmarkFuzzyEveryLineTyped: no needle line occurs intact in the 10 MB text.
func BenchmarkFuzzyEveryLineTyped(b *testing.B) {
	text := bigText(300000)
	needle := typoEveryLine(strings.Split(text, "\n")[150000:150030])
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if ms, err := Find(text, needle, Options{Fuzzy: true}); err != nil || ms[0].Line != 150001 {
			b.Fatalf("%v %+v", err, ms)
		}
	}
}

// BenchmarkNoMatch10MB: the error path (nearest region) of a needle absent from 10 MB.
func BenchmarkNoMatch10MB(b *testing.B) {
	text := bigText(300000)
	needle := strings.Repeat("zzz qqq www\n", 30)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Find(text, needle, Options{}); err == nil {
			b.Fatal("matched")
		}
	}
}

func plainLevenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j-1]+cost, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

// The banded computation resets only the band's edges; hold it to the full table.
func TestBoundedLevenshteinAgreesWithFullTable(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for range 3000 {
		a := []rune(randWord(r, r.Intn(30)))
		b := []rune(randWord(r, r.Intn(30)))
		k := r.Intn(20)
		want := plainLevenshtein(a, b)
		got := boundedLevenshtein(a, b, k)
		if (want <= k && got != want) || (want > k && got != k+1) {
			t.Fatalf("d(%q,%q) k=%d: got %d, full table says %d", string(a), string(b), k, got, want)
		}
	}
}

func randWord(r *rand.Rand, n int) string {
	const alphabet = "abc \n"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.Intn(len(alphabet))]
	}
	return string(b)
}

// A long needle (400 lines, every one with a typo) in a repetitive text: the multiset
// gram score must still rank the true region first.
func TestFuzzyLongNeedleEveryLineChanged(t *testing.T) {
	text := bigText(20000)
	lines := strings.Split(text, "\n")
	needle := typoEveryLine(lines[1000:1400])
	ms, err := Find(text, needle, Options{Fuzzy: true})
	if err != nil || ms[0].Line != 1001 {
		t.Fatalf("want the match at line 1001: %+v %v", ms, err)
	}
}
