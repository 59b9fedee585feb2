package glob

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core/walk"
	"github.com/bmatcuk/doublestar/v4"
)

func mk(t testing.TB, files ...string) string {
	dir := t.TempDir()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range files {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
		os.Chtimes(p, base, base.Add(time.Duration(i%5)*time.Hour))
	}
	return dir
}

var files = []string{"main.go", "main_test.go", "a/b/c.go", "a/b/c_test.go", "a/x.txt", "doc/{weird}.md",
	".github/workflows/ci.yml", ".env", "node_modules/m/index.js", "src/app.ts", "src/app.tsx", "src/.hidden.ts",
	"README.md", "a/b/d/e/f.go", "[x].go"}

func rels(root string, ms []Match) []string {
	var out []string
	for _, m := range ms {
		r, _ := filepath.Rel(root, m.Path)
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

// mtimes cycle through five hours, so the expected orders are newest first, ties by path.
func TestGlob(t *testing.T) {
	dir := mk(t, files...)
	cases := map[string]string{
		"**/*.go":              "[x].go a/b/c_test.go a/b/d/e/f.go a/b/c.go main_test.go main.go",
		"**/*_test.go":         "a/b/c_test.go main_test.go",
		"*.go":                 "[x].go main_test.go main.go",
		"a/**/*.go":            "a/b/c_test.go a/b/d/e/f.go a/b/c.go",
		"src/*.{ts,tsx}":       "src/app.ts src/app.tsx",
		"**/*.ts":              "src/app.ts",
		"src/.*.ts":            "src/.hidden.ts",
		".github/**/*.yml":     ".github/workflows/ci.yml",
		"**/.env":              ".env",
		"node_modules/**/*.js": "node_modules/m/index.js",
		"**/*.js":              "",
		"doc/\\{weird\\}.md":   "doc/{weird}.md",
		"\\[x\\].go":           "[x].go",
		"[!m]*.md":             "README.md",
		"a/b/c.go":             "a/b/c.go",
		"nope/**/*.go":         "",
	}
	for pat, want := range cases {
		r, err := Glob(context.Background(), dir, pat, walk.Options{})
		if err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		got := strings.Join(rels(dir, r.Matches), " ")
		if got != want {
			t.Errorf("%s:\n got %q\nwant %q", pat, got, want)
		}
	}
	if _, err := Glob(context.Background(), dir, "src/[a", walk.Options{}); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Errorf("bad pattern: %v", err)
	}
}

// TestAgainstBruteForce compares with matching every path of a full walk.
func TestAgainstBruteForce(t *testing.T) {
	root := filepath.Join(goroot(t), "src", "net")
	for _, pat := range []string{"**/*.go", "**/*_test.go", "http/**/*.go", "*/*.go", "**/testdata/**", "**/{a,b}*.go", "**/[a-c]?*.go", "http/*/*_test.go"} {
		r, err := Glob(context.Background(), root, pat, walk.Options{NoIgnore: true, SkipDirs: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() && strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			if !d.IsDir() && !strings.HasPrefix(d.Name(), ".") && doublestar.MatchUnvalidated(pat, filepath.ToSlash(rel)) {
				want = append(want, filepath.ToSlash(rel))
			}
			return nil
		})
		got := rels(root, r.Matches)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %d matches, brute force %d", pat, len(got), len(want))
		}
	}
}

func FuzzGlob(f *testing.F) {
	for _, s := range []string{"**/*.go", "a/{b,c}/*", "[!a-z]?", "\\*", "{", "[", "**/", "a/**/b/**"} {
		f.Add(s, "a/b/c.go")
	}
	f.Fuzz(func(t *testing.T, pat, path string) {
		if Validate(pat) != nil || strings.HasPrefix(pat, "/") {
			return
		}
		if path == "" || strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") || strings.Contains(path, "//") {
			return // not a path a walk produces
		}
		if !utf8.ValidString(pat) || !utf8.ValidString(path) {
			return // doublestar equates all invalid bytes (RuneError); the fast paths compare bytes
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		fast := matcher(pat)(path, name)
		slow := doublestar.MatchUnvalidated(pat, path)
		if fast != slow && !strings.ContainsAny(path, "\\") {
			t.Fatalf("pattern %q path %q: fast path %v, doublestar %v", pat, path, fast, slow)
		}
	})
}

func BenchmarkGlobGOROOT(b *testing.B) {
	root := filepath.Join(goroot(b), "src")
	for _, pat := range []string{"**/*.go", "**/*_test.go"} {
		b.Run(strings.ReplaceAll(pat, "/", "_"), func(b *testing.B) {
			for b.Loop() {
				if _, err := Glob(context.Background(), root, pat, walk.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// goroot asks the go command (runtime.GOROOT is deprecated); tests skip without it.
func goroot(tb testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skip("go env GOROOT failed; this test searches GOROOT/src")
	}
	return strings.TrimSpace(string(out))
}
