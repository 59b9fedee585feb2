package shell

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// corpusLine is one entry of testdata/watchdog: its class (refuse.txt) and the line.
type corpusLine struct{ class, line string }

// ReadCorpus reads a corpus file of testdata/watchdog: one line per entry, "\n" for
// a newline inside it, an optional class before a tab, # comments.
func readCorpus(t testing.TB, name string) []corpusLine {
	t.Helper()
	f, err := os.Open("../../testdata/watchdog/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		class, line, ok := strings.Cut(l, "\t")
		if !ok {
			class, line = "", l
		}
		out = append(out, corpusLine{class, strings.ReplaceAll(line, `\n`, "\n")})
	}
	return out
}

// corpusContext is where the corpora's lines run: a project folder, a home folder,
// an environment without surprises.
func corpusContext() (Context, Config) {
	// CMD, X, SCRIPT, TOOL and DEST hold what a hostile environment might.
	env := map[string]string{"HOME": "/home/agent", "PATH": "/usr/bin:/bin", "USER": "agent", "CMD": "rm",
		"X": "rm -rf /", "SCRIPT": "rm -rf ~", "TOOL": "rm", "DEST": "/home/agent/.bashrc"}
	ctx := Context{Home: "/home/agent", Dir: "/work/proj", Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	return ctx, Config{Home: "/home/agent"}
}

// The corpora (issue 16.6): every line of refuse.txt (at least 300) is refused with a
// rule and a reason; every line of ordinary.txt (at least 200) passes.
func TestWatchdogCorpora(t *testing.T) {
	ctx, cfg := corpusContext()
	refuse := readCorpus(t, "refuse.txt")
	ordinary := readCorpus(t, "ordinary.txt")
	if len(refuse) < 300 || len(ordinary) < 200 {
		t.Fatalf("corpora too small: %d to refuse, %d ordinary", len(refuse), len(ordinary))
	}
	let, refused := 0, 0
	for _, c := range refuse {
		a, _ := AnalyzeIn(c.line, ctx)
		v := Check(a, cfg)
		if v.Action != Deny || v.Rule == "" || v.Reason == "" {
			let++
			t.Errorf("[%s] %q: %s by %q, want refused", c.class, c.line, v.Action, v.Rule)
		}
	}
	for _, c := range ordinary {
		a, _ := AnalyzeIn(c.line, ctx)
		if v := Check(a, cfg); v.Action == Deny {
			refused++
			t.Errorf("ordinary %q refused by %s: %s", c.line, v.Rule, v.Reason)
		}
	}
	t.Logf("refusal corpus: %d lines, %d let through; ordinary corpus: %d lines, %d refused", len(refuse), let, len(ordinary), refused)
}

// BenchmarkWatchdogLongLine analyses and judges a 2,000-character line made of the
// ordinary corpus's one-line commands joined with ; (issue 16.6: under 1 ms).
func BenchmarkWatchdogLongLine(b *testing.B) {
	ctx, cfg := corpusContext()
	var sb strings.Builder
	for _, c := range readCorpus(b, "ordinary.txt") {
		if sb.Len() >= 2000 {
			break
		}
		if !strings.Contains(c.line, "\n") {
			sb.WriteString(c.line + "; ")
		}
	}
	line := sb.String()
	if len(line) > 2000 {
		line = line[:strings.LastIndex(line[:2000], "; ")]
	}
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		a, _ := AnalyzeIn(line, ctx)
		Check(a, cfg)
	}
}
