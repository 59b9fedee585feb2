package ignore

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	cases := []struct {
		line                      string
		ok                        bool
		pat                       string
		negate, dirOnly, basename bool
	}{
		{"# comment", false, "", false, false, false},
		{"", false, "", false, false, false},
		{"   ", false, "", false, false, false},
		{`\#hash`, true, `\#hash`, false, false, true},
		{"!keep.go", true, "keep.go", true, false, true},
		{`\!bang`, true, `\!bang`, false, false, true},
		{"build/", true, "build", false, true, true},
		{"/root.txt", true, "root.txt", false, false, false},
		{"a/b", true, "a/b", false, false, false},
		{"trail   ", true, "trail", false, false, true},
		{`space\ `, true, `space\ `, false, false, true},
		{"x/**", true, "x/**/*", false, false, false},
		{"{a,b}", true, `\{a\,b\}`, false, false, true},
		{"[]x]", true, `[\]x]`, false, false, true},
	}
	for _, c := range cases {
		r, ok := ParseLine(c.line)
		if ok != c.ok {
			t.Errorf("%q: ok=%v", c.line, ok)
			continue
		}
		if ok && (r.Pattern != c.pat || r.Negate != c.negate || r.DirOnly != c.dirOnly || r.Basename != c.basename) {
			t.Errorf("%q: got %+v", c.line, r)
		}
	}
}

func TestStackPrecedence(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	write(t, dir, ".gitignore", "*.log\n!keep.log\n/top-only\n")
	write(t, dir, "sub/.gitignore", "!*.log\n")
	write(t, dir, "sub/.ignore", "secret.log\n")
	s := ForRoot(dir, Options{NoGlobal: true})
	sub := s.Child(filepath.Join(dir, "sub"), "sub", Options{NoGlobal: true})
	for _, c := range []struct {
		st   *Stack
		rel  string
		want bool
	}{
		{s, "a.log", true}, {s, "keep.log", false}, {s, "top-only", true}, {s, "x/top-only", false},
		{sub, "sub/a.log", false}, {sub, "sub/secret.log", true},
	} {
		name := c.rel[strings.LastIndexByte(c.rel, '/')+1:]
		if got := c.st.Ignored(c.rel, name, false); got != c.want {
			t.Errorf("%s: ignored=%v want %v", c.rel, got, c.want)
		}
	}
}

func TestRootRelative(t *testing.T) {
	// A folder named build above the root, and a global rule "build": the root itself is
	// never tested, so nothing below it is hidden by its own name.
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	write(t, dir, ".gitignore", "build\n/src/gen/*.go\n")
	write(t, dir, "build/src/gen/x.go", "")
	root := filepath.Join(dir, "build")
	s := ForRoot(root, Options{NoGlobal: true})
	if s.Ignored("src/main.go", "main.go", false) {
		t.Fatal("a rule naming the root's own folder hid a file below the root")
	}
	// Parent .gitignore slash patterns apply below the root (ripgrep misses these).
	s2 := ForRoot(filepath.Join(dir, "src"), Options{NoGlobal: true})
	if !s2.Ignored("gen/x.go", "x.go", false) {
		t.Fatal("the parent .gitignore's anchored pattern /src/gen/*.go did not apply in src/ (git applies it)")
	}
}

func TestGlobalExcludes(t *testing.T) {
	home := t.TempDir()
	write(t, home, ".gitconfig", "[user]\n\tname = x\n[core]\n\texcludesFile = ~/my-excludes # mine\n")
	write(t, home, "my-excludes", "*.swp\n")
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	write(t, repo, ".git/info/exclude", "local-only\n")
	s := ForRoot(repo, Options{Home: home, ConfigHome: filepath.Join(home, "nocfg")})
	if !s.Ignored("a.swp", "a.swp", false) || !s.Ignored("local-only", "local-only", false) {
		t.Fatal("global excludes or info/exclude not applied")
	}
	// XDG default when no core.excludesFile.
	home2 := t.TempDir()
	write(t, home2, "cfg/git/ignore", "*.tmp\n")
	s = ForRoot(repo, Options{Home: home2, ConfigHome: filepath.Join(home2, "cfg")})
	if !s.Ignored("x.tmp", "x.tmp", false) {
		t.Fatal("$XDG_CONFIG_HOME/git/ignore not applied")
	}
	// Outside a repository git sources do not count (as in ripgrep and fd).
	plain := t.TempDir()
	write(t, plain, ".gitignore", "*.go\n")
	write(t, plain, ".ignore", "*.txt\n")
	s = ForRoot(plain, Options{Home: home})
	if s.Ignored("a.go", "a.go", false) || !s.Ignored("a.txt", "a.txt", false) {
		t.Fatal("outside git: .gitignore must not apply, .ignore must")
	}
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// trickyTree is the differential test's input: ignore files and the paths they judge.
var trickyIgnores = map[string]string{
	".gitignore": "# comment\n*.log\n!important.log\n/anchored.txt\ndoc/*.html\nbuild/\n**/tmp/**\n" +
		"*.o\n!keep/*.o\nfoo/**/bar\n\\#hash\n\\!bang\ntrailing.txt   \nspace\\ \n[abc].dat\n[!x]y.z\n" +
		"*\n!*/\n!*.go\n!*.md\n!*.txt\n!*.dat\n!*.z\n!*.o\n!*.log\n!*.html\n!#hash\n!!bang\n!space \n!*.c\n" +
		"deep/**/*.c\nonlydir/\n**/nested/x.go\na/**/b.go\nq?.go\n",
	"sub/.gitignore":       "!*.log\n/local.go\nrel/path.go\n*.md\n!README.md\n/*.c\n[[:digit:]]*.txt\n",
	"sub/inner/.gitignore": "*\n!.gitignore\n!keep.go\n",
	"whitelist/.gitignore": "*\n!*/\n!*.go\n",
	".ignore":              "",
}

var trickyFiles = []string{
	"a.log", "important.log", "sub/a.log", "anchored.txt", "x/anchored.txt", "doc/a.html", "doc/sub/a.html",
	"build/out.go", "src/build/out.go", "build.go", "t/tmp/x.go", "tmp/y.go", "tmp.go",
	"a.o", "keep/a.o", "keep/sub/a.o", "foo/bar", "foo/x/y/bar", "foo/barx", "#hash", "!bang", "trailing.txt",
	"space ", "a.dat", "d.dat", "ay.z", "xy.z", "main.go", "README.md", "other.bin", "noext",
	"deep/a.c", "deep/x/y/a.c", "top.c", "onlydir/x.go", "nested/x.go", "p/nested/x.go", "a/b.go", "a/x/y/b.go",
	"q1.go", "q12.go", "sub/local.go", "sub/x/local.go", "sub/rel/path.go", "sub/x/rel/path.go", "sub/doc.md",
	"sub/README.md", "sub/inner/a.go", "sub/inner/keep.go", "sub/inner/d/keep.go", "whitelist/a.go", "whitelist/a.txt",
	"whitelist/d/e/f.go", "whitelist/d/e/f.txt", "onlydir2/onlydir", "x/onlydir",
	"sub/a.c", "sub/deep/b.c", "sub/1x.txt", "sub/ax.txt", "sub/deep/2.txt",
}

// TestDifferentialGit checks the engine's verdict for every file of a tricky tree
// against git: `git ls-files --others --exclude-standard` lists exactly the files git
// does not ignore. git, not ripgrep, is the reference (ripgrep started in a subdirectory
// misses a parent .gitignore's slash patterns).
func TestDifferentialGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the differential ignore test compares against git ls-files")
	}
	dir := t.TempDir()
	for f, c := range trickyIgnores {
		write(t, dir, f, c)
	}
	for _, f := range trickyFiles {
		write(t, dir, f, "x\n")
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir+"/nocfg", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	git("init", "-q")
	for _, root := range []string{".", "sub", "whitelist", "doc", "keep"} {
		// git's truth: untracked, not ignored, below root.
		var want []string
		for _, l := range strings.Split(git("ls-files", "--others", "--exclude-standard", "-z", "--", root), "\x00") {
			if l != "" {
				want = append(want, l)
			}
		}
		got := walkNotIgnored(t, dir, root)
		t.Logf("root %s: git keeps %d files", root, len(want))
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("root %s:\nagentbox: %q\ngit:      %q", root, got, want)
		}
	}
}

// walkNotIgnored is a minimal sequential walker over the Stack API (core/walk has the
// parallel one): it prunes ignored directories like git does.
func walkNotIgnored(t *testing.T, top, root string) []string {
	return walkWith(top, root, Options{NoGlobal: true})
}

func FuzzParse(f *testing.F) {
	for _, c := range trickyIgnores {
		f.Add(c, "a/b/c.go")
	}
	f.Add("**/x/**\n!y", "x/y")
	f.Add("[", "[")
	f.Add("\\", "\\")
	f.Add("a\\ \\ ", "a  ")
	f.Fuzz(func(t *testing.T, data, path string) {
		rules := Parse([]byte(data))
		name := path[strings.LastIndexByte(path, '/')+1:]
		for i := range rules {
			r := &rules[i]
			r.Match(path, name, true)
			r.Match(path, name, false)
			if r.Basename && strings.Contains(r.Pattern, "/") && !strings.Contains(r.Pattern, `\/`) {
				t.Fatalf("basename rule with a slash: %+v", r)
			}
		}
		f := &File{Rules: rules}
		f.decide(path, name, false)
	})
}

// TestNestedRepositoriesFollowGit walks a folder that is not a repository and holds
// repositories (one nested in another, one whose .git is a file, as a submodule's or
// a linked worktree's is) and checks every verdict against git run in the repository
// holding the file: a repository's files are decided by its own .gitignore files,
// info/exclude and the global excludes, never by the git files of the repository
// around it (ripgrep agrees); .ignore files hold across, and outside every repository
// a .gitignore is not read.
func TestNestedRepositoriesFollowGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the nested-repository test compares against git ls-files")
	}
	top := t.TempDir()
	home := t.TempDir()
	write(t, home, ".gitconfig", "[core]\n\texcludesFile = "+filepath.Join(home, "global")+"\n")
	write(t, home, "global", "*.swp\n")
	files := map[string]string{
		".ignore":          "*.tmp\n",
		"plain/.gitignore": "*.md\n", // outside a repository: not read
		"plain/r.md":       "", "plain/n.tmp": "", "plain/e.swp": "",
		"a/.gitignore": "*.log\n/build/\n",
		"a/x.log":      "", "a/x.txt": "", "a/build/o.txt": "", "a/sub/y.log": "", "a/secret.txt": "",
		"a/n.tmp": "", "a/e.swp": "",
		"a/inner/.gitignore": "*.txt\n",
		"a/inner/x.log":      "", "a/inner/k.txt": "", "a/inner/build/o.go": "", "a/inner/secret.go": "",
		"a/inner/n.tmp": "", "a/inner/e.swp": "",
		"b/x.log": "", "b/hidden.go": "", "b/kept.go": "",
	}
	for f, c := range files {
		write(t, top, f, c)
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/nocfg", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
		}
		return string(out)
	}
	// A .git link to nothing is no repository: a's rules decide a/dang's files.
	write(t, top, "a/dang/x.log", "")
	write(t, top, "a/dang/k.txt", "")
	if err := os.Symlink(filepath.Join(top, "nowhere"), filepath.Join(top, "a", "dang", ".git")); err != nil {
		t.Fatal(err)
	}
	git(filepath.Join(top, "a"), "init", "-q")
	write(t, top, "a/.git/info/exclude", "secret*\n")
	git(filepath.Join(top, "a", "inner"), "init", "-q")
	// b's .git is a file naming a git folder elsewhere; its info/exclude is there.
	git(top, "init", "-q", "--separate-git-dir", filepath.Join(home, "b.git"), filepath.Join(top, "b"))
	write(t, home, "b.git/info/exclude", "hidden.go\n")

	// git's truth: in each repository, the untracked files it does not ignore, a
	// nested repository's own files left to that repository.
	var want []string
	for _, repo := range []string{"a", "a/inner", "b"} {
		for _, l := range strings.Split(git(filepath.Join(top, repo), "ls-files", "--others", "--exclude-standard", "-z"), "\x00") {
			if l != "" && !strings.HasSuffix(l, "/") {
				want = append(want, repo+"/"+l)
			}
		}
	}
	// Outside the repositories only .ignore counts: plain/ keeps all but n.tmp.
	want = append(want, ".ignore", "plain/.gitignore", "plain/e.swp", "plain/r.md")
	sort.Strings(want)
	// git does not read .ignore: the repositories' .tmp files are left out by hand.
	kept := want[:0]
	for _, f := range want {
		if !strings.HasSuffix(f, ".tmp") {
			kept = append(kept, f)
		}
	}
	want = kept
	opt := Options{Home: home, ConfigHome: filepath.Join(home, "nocfg")}
	got := walkWith(top, ".", opt)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("agentbox keeps:\n%s\ngit keeps:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, must := range []string{"a/inner/x.log", "a/inner/build/o.go", "a/inner/secret.go", "b/x.log"} {
		if !slices.Contains(want, must) {
			t.Errorf("git ignores %s; the test's tree no longer tests a nested repository", must)
		}
	}
	// A walk from inside a repository (or below its top) decides its files as the
	// walk from the folder above does, the .ignore above the repository included.
	for _, root := range []string{"a", "a/inner", "b", "a/sub", "plain"} {
		var sub []string
		for _, f := range got {
			if strings.HasPrefix(f, root+"/") {
				sub = append(sub, f)
			}
		}
		if from := walkWith(top, root, opt); strings.Join(from, "\n") != strings.Join(sub, "\n") {
			t.Errorf("from %s: %q, from the top: %q", root, from, sub)
		}
	}
	if _, err := exec.LookPath("rg"); err == nil {
		cmd := exec.Command("rg", "--files", "--hidden", "--glob", "!.git")
		cmd.Dir = top
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/nocfg")
		out, _ := cmd.Output()
		rg := strings.Fields(string(out))
		sort.Strings(rg)
		// This rg does not read the info/exclude of a repository whose .git is a file
		// (b/hidden.go); on everything else it agrees with git.
		rg = slices.DeleteFunc(rg, func(f string) bool { return f == "b/hidden.go" })
		if strings.Join(rg, "\n") != strings.Join(want, "\n") {
			t.Errorf("rg --files keeps %q; git keeps %q", rg, want)
		}
	}
}

// walkWith is walkNotIgnored with the options given.
func walkWith(top, root string, opt Options) []string {
	absRoot := filepath.Join(top, root)
	var out []string
	var rec func(dir, rel string, s *Stack)
	rec = func(dir, rel string, s *Stack) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Name() == ".git" {
				continue
			}
			r := e.Name()
			if rel != "" {
				r = rel + "/" + r
			}
			if s.Ignored(r, e.Name(), e.IsDir()) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				rec(p, r, s.Child(p, r, opt))
				continue
			}
			full := r
			if root != "." {
				full = root + "/" + r
			}
			out = append(out, full)
		}
	}
	rec(absRoot, "", ForRoot(absRoot, opt))
	sort.Strings(out)
	return out
}
