package grep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// contentLines flattens a result into path:line entries, in the result's order.
func contentLines(r *Result) []string {
	var out []string
	for _, f := range r.Files {
		for _, l := range f.Lines {
			out = append(out, fmt.Sprintf("%s:%d", f.Rel, l.Num))
		}
	}
	return out
}

// TestLineCapKeepsTheFirstLines: a search over the cap keeps the first MaxLines lines in
// the result's order, the same ones every time, however the parallel walk finishes the
// files (an agent paging with offset, or repeating the call, must not get a different
// sample), with every match still counted; with context and newest-first order too.
func TestLineCapKeepsTheFirstLines(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := 0; i < 120; i++ {
		body := ""
		for j := 0; j < 1+(i*7)%23; j++ {
			body += fmt.Sprintf("needle %d %d\nplain\n", i, j)
		}
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%5), fmt.Sprintf("f%03d.txt", (i*37)%120))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old.Add(time.Duration((i*53)%120)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"by path", Options{Pattern: "needle", Mode: Content}},
		{"with context", Options{Pattern: "needle", Mode: Content, After: 1}},
		{"newest first", Options{Pattern: "needle", Mode: Content, SortModified: true}},
	} {
		all := search(t, c.opt, dir)
		full := contentLines(all)
		matches := 0
		for _, f := range all.Files {
			matches += f.Matches
		}
		for _, max := range []int{1, 17, 100, 333, len(full) - 1} {
			for round := 0; round < 8; round++ {
				opt := c.opt
				opt.MaxLines = max
				got := search(t, opt, dir)
				lines := contentLines(got)
				n := 0
				for _, f := range got.Files {
					n += f.Matches
				}
				if fmt.Sprint(lines) != fmt.Sprint(full[:max]) || n != matches || len(got.Files) != len(all.Files) || !got.Truncated {
					t.Fatalf("%s, MaxLines %d, round %d: kept %d lines %v..., %d matches in %d files, truncated %v;\nwant the first %d of %d lines %v..., %d matches in %d files, truncated",
						c.name, max, round, len(lines), head(lines), n, len(got.Files), got.Truncated, max, len(full), head(full[:max]), matches, len(all.Files))
				}
			}
		}
		opt := c.opt
		opt.MaxLines = len(full)
		if got := search(t, opt, dir); got.Truncated || len(contentLines(got)) != len(full) {
			t.Errorf("%s: MaxLines equal to the lines found: truncated %v, %d lines; want all %d, not truncated", c.name, got.Truncated, len(contentLines(got)), len(full))
		}
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

func search(t *testing.T, opt Options, dir string) *Result {
	t.Helper()
	m, err := Compile(opt)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Search(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOnlyMatchingSeesTheWholeLine: grep -o finds matches past the 500-byte cut of a
// long line and cuts a long match with its count of bytes left out (each part was
// taken from the cut line: matches past byte 500 vanished, and a long one was cut
// with no marker).
func TestOnlyMatchingSeesTheWholeLine(t *testing.T) {
	dir := t.TempDir()
	a := strings.Repeat("a", 600)
	text := a + " NEEDLE\nNEEDLE " + a + " NEEDLE\n" + strings.Repeat("a", 700) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := func(pattern string) []string {
		r := search(t, Options{Pattern: pattern, Mode: Content, OnlyMatching: true, LineCap: 500}, dir)
		var out []string
		for _, f := range r.Files {
			for _, l := range f.Lines {
				out = append(out, fmt.Sprintf("%d:%d+%d", l.Num, len(l.Text), l.Cut))
			}
		}
		return out
	}
	if g, want := got("NEEDLE"), "[1:6+0 2:6+0 2:6+0]"; fmt.Sprint(g) != want {
		t.Errorf("NEEDLE: parts %v, want %s (line:bytes+cut)", g, want)
	}
	if g, want := got("a+"), "[1:500+100 2:500+100 3:500+200]"; fmt.Sprint(g) != want {
		t.Errorf("a+: parts %v, want %s (line:bytes+cut)", g, want)
	}
}

// TestLineCutKeepsCharacters: the 500-byte cut backs up to the start of a UTF-8
// sequence it would split, and no further: a run of stray continuation bytes made it
// back up past them all and drop the character before them.
func TestLineCutKeepsCharacters(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		"foo" + strings.Repeat("\x80", 600),            // stray bytes from byte 3 on
		"needle" + strings.Repeat("é", 400),            // 2-byte characters across the cut
		"needle" + strings.Repeat("x", 493) + "€ tail", // a 3-byte character split at 500
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := search(t, Options{Pattern: "foo|needle", Mode: Content, LineCap: 500}, dir)
	want := []string{lines[0][:500], lines[1][:500], lines[2][:499]}
	for i, l := range r.Files[0].Lines {
		if l.Text != want[i] || len(l.Text)+l.Cut != len(lines[i]) {
			t.Errorf("line %d: kept %d bytes (+%d cut), want %d (+%d)", i+1, len(l.Text), l.Cut, len(want[i]), len(lines[i])-len(want[i]))
		}
	}
}

// TestLongLineShowsItsFirstMatch: a matching line over the cap is shown as a window
// that starts a quarter of the cap before its first match (a red team's match at 1 MiB
// into a line was cut away, leaving 500 bytes of x), with the bytes left out on each
// side counted; a match within the first half of the cap keeps the line's start.
func TestLongLineShowsItsFirstMatch(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		strings.Repeat("x", 2000) + "needle" + strings.Repeat("y", 1000), // far in
		strings.Repeat("x", 100) + "needle" + strings.Repeat("y", 1000),  // within the first half
		strings.Repeat("x", 3000) + "needle",                             // at the end
		strings.Repeat("é", 1000) + "needle" + strings.Repeat("y", 1000), // the window starts on a character
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := search(t, Options{Pattern: "needle", Mode: Content, LineCap: 500}, dir)
	if len(r.Files) != 1 || len(r.Files[0].Lines) != len(lines) {
		t.Fatalf("result %+v", r)
	}
	wantSkip := []int{2000 - 125, 0, 3006 - 500, 2000 - 126}
	for i, l := range r.Files[0].Lines {
		if !strings.Contains(l.Text, "needle") {
			t.Errorf("line %d: the match is not in what is shown (skip %d, cut %d)", i+1, l.Skip, l.Cut)
		}
		if l.Skip+len(l.Text)+l.Cut != len(lines[i]) || l.Skip != wantSkip[i] || !utf8.ValidString(l.Text) {
			t.Errorf("line %d: skip %d + %d shown + cut %d, want skip %d of %d bytes (valid UTF-8: %v)", i+1, l.Skip, len(l.Text), l.Cut, wantSkip[i], len(lines[i]), utf8.ValidString(l.Text))
		}
	}
}
