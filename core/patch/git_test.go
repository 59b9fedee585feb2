package patch

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestDifferentialGitApply generates files, edits them at random (changed, inserted and
// deleted lines, new, deleted and renamed files, dropped final newlines, CRLF files,
// files of mixed endings and ones converted from one ending to the other, a BOM, and
// lines that read like patch syntax: what a red team's generator found applied wrongly),
// takes `git diff` of the edit, and applies it to two copies of the originals: one with
// `git apply`, one with this package. Both must equal each other and the edited files.
func TestDifferentialGitApply(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; skipping the differential test against git apply")
	}
	rounds := 40
	switch {
	case testing.Short():
		rounds = 8
	case os.Getenv("AGENTBOX_LONG_TESTS") != "":
		rounds = 400 // CI: 3,000 passed when the generator gained its hazards
	}
	for seed := range rounds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { differentialRound(t, uint64(seed)) })
	}
}

var words = strings.Fields("alpha beta gamma delta return if else for func x y z { } ( ) := 0 1 2 nil err")

// patchLike are lines a file may hold that read like patch syntax.
var patchLike = []string{"*** End Patch", "*** End of File", "*** Update File: x", "--- a/x", "+++ b/x", "@@ -1 +1 @@", `\ No newline at end of file`, "-- ", "diff --git a/x b/x"}

func genLine(r *rand.Rand) string {
	switch r.IntN(16) {
	case 0, 1:
		return ""
	case 2:
		return patchLike[r.IntN(len(patchLike))]
	}
	n := 1 + r.IntN(6)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[r.IntN(len(words))]
	}
	return strings.Repeat("\t", r.IntN(3)) + strings.Join(parts, " ")
}

func genFile(r *rand.Rand) string {
	n := r.IntN(60)
	eol := "\n"
	if r.IntN(6) == 0 {
		eol = "\r\n"
	}
	mixed := r.IntN(8) == 0
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteString("\ufeff")
	}
	for i := range n {
		b.WriteString(genLine(r))
		if i < n-1 || r.IntN(5) != 0 {
			if mixed && r.IntN(2) == 0 {
				b.WriteString("\r\n")
			} else {
				b.WriteString(eol)
			}
		}
	}
	return b.String()
}

func editFile(r *rand.Rand, s string) string {
	switch r.IntN(12) {
	case 0:
		return strings.ReplaceAll(s, "\r\n", "\n") // converted to LF
	case 1:
		return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n") // to CRLF
	case 2:
		if b, ok := strings.CutPrefix(s, "\ufeff"); ok {
			return b // the BOM removed
		}
		return "\ufeff" + s
	}
	eol := "\n"
	if strings.Contains(s, "\r\n") && !strings.Contains(strings.ReplaceAll(s, "\r\n", ""), "\n") {
		eol = "\r\n"
	}
	final := strings.HasSuffix(s, "\n")
	lines := strings.Split(strings.TrimSuffix(s, eol), eol)
	if s == "" {
		lines = nil
	}
	for range 1 + r.IntN(5) {
		switch op := r.IntN(3); {
		case op == 0 && len(lines) > 0:
			i := r.IntN(len(lines))
			lines[i] = genLine(r) + " edited"
		case op == 1:
			i := r.IntN(len(lines) + 1)
			ins := []string{genLine(r), genLine(r) + " new"}[:1+r.IntN(2)]
			lines = append(lines[:i], append(ins, lines[i:]...)...)
		case len(lines) > 0:
			i := r.IntN(len(lines))
			j := min(len(lines), i+1+r.IntN(3))
			lines = append(lines[:i], lines[j:]...)
		}
	}
	if r.IntN(8) == 0 {
		final = !final
	}
	out := strings.Join(lines, eol)
	if final && len(lines) > 0 {
		out += eol
	}
	return out
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func treeString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "== %s\n%q\n", k, m[k])
	}
	return b.String()
}

func differentialRound(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	orig := map[string]string{}
	for i := range 2 + r.IntN(5) {
		orig[fmt.Sprintf("dir%d/file%d.txt", i%2, i)] = genFile(r)
	}
	edited := map[string]string{}
	for name, content := range orig {
		switch r.IntN(7) {
		case 0: // deleted
		case 1: // renamed with a small edit (similar enough for rename detection)
			c := content
			if len(c) > 40 && r.IntN(2) == 0 {
				c = editFile(r, c)
			}
			edited[strings.Replace(name, "file", "renamed", 1)] = c
		case 2: // unchanged
			edited[name] = content
		default:
			edited[name] = editFile(r, content)
		}
	}
	if r.IntN(2) == 0 {
		edited["added/new.txt"] = genFile(r)
	}

	repo := t.TempDir()
	git(t, repo, "init", "-q")
	git(t, repo, "config", "core.autocrlf", "false")
	writeTree(t, repo, orig)
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "orig")
	for name := range orig {
		os.Remove(filepath.Join(repo, name))
	}
	writeTree(t, repo, edited)
	git(t, repo, "add", "-A")
	diff := git(t, repo, "diff", "--cached", "-M", "--no-color", "--no-ext-diff")
	if diff == "" {
		return
	}

	if r.IntN(3) == 0 {
		// Hunks pasted out of order: git apply takes them by their line numbers.
		diff = shuffleHunks(r, diff)
	}
	viaGit := t.TempDir()
	writeTree(t, viaGit, orig)
	pf := filepath.Join(t.TempDir(), "p.diff")
	os.WriteFile(pf, []byte(diff), 0o644)
	git(t, viaGit, "apply", pf)

	viaUs := t.TempDir()
	writeTree(t, viaUs, orig)
	p, err := Parse(diff)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, diff)
	}
	res, err := Prepare(p, OSFS{Dir: viaUs})
	if err != nil {
		t.Fatalf("prepare: %v\n%s", err, diff)
	}
	if err := res.Commit(OSFS{Dir: viaUs}, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	removeEmptyDirs(viaUs)

	g, u, e := treeString(readTree(t, viaGit)), treeString(readTree(t, viaUs)), treeString(edited)
	if g != e {
		t.Fatalf("git apply differs from the edit (test bug?)\n%s\nvs\n%s", g, e)
	}
	if u != g {
		t.Fatalf("core/patch differs from git apply\ndiff:\n%s\nours:\n%s\ngit:\n%s", diff, u, g)
	}
	// Added/removed counts agree with git's numstat.
	numstat := git(t, repo, "diff", "--cached", "-M", "--numstat")
	var added, removed int
	for _, l := range strings.Split(strings.TrimSpace(numstat), "\n") {
		var a, d int
		fmt.Sscanf(l, "%d\t%d", &a, &d)
		added, removed = added+a, removed+d
	}
	for _, f := range res.Files {
		t.Log(f.Summary())
	}
	var ourA, ourR int
	for _, f := range res.Files {
		ourA, ourR = ourA+f.Added, ourR+f.Removed
	}
	if ourA != added || ourR != removed {
		t.Errorf("counts +%d -%d, git numstat +%d -%d", ourA, ourR, added, removed)
	}
}

func removeEmptyDirs(root string) {
	var dirs []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != root {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i])
	}
}

// shuffleHunks puts the hunks of each file of a git diff in a random order.
func shuffleHunks(r *rand.Rand, diff string) string {
	var out, hunk []string
	var hunks [][]string
	flush := func() {
		if hunk != nil {
			hunks = append(hunks, hunk)
			hunk = nil
		}
		r.Shuffle(len(hunks), func(i, j int) { hunks[i], hunks[j] = hunks[j], hunks[i] })
		for _, h := range hunks {
			out = append(out, h...)
		}
		hunks = nil
	}
	for _, l := range strings.SplitAfter(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			flush()
			out = append(out, l)
		case strings.HasPrefix(l, "@@ "):
			if hunk != nil {
				hunks = append(hunks, hunk)
			}
			hunk = []string{l}
		case hunk != nil:
			hunk = append(hunk, l)
		default:
			out = append(out, l)
		}
	}
	flush()
	return strings.Join(out, "")
}
