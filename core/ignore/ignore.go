// Package ignore decides which paths a search leaves out because an ignore file says so,
// with git's semantics: `git check-ignore` is the reference, not ripgrep.
//
// Sources, from highest precedence to lowest: for each directory from the deepest up,
// its `.ignore` then its `.gitignore`; then `.git/info/exclude`; then the user's global
// excludes file (core.excludesFile in ~/.gitconfig, else $XDG_CONFIG_HOME/git/ignore).
// Like ripgrep and fd, the git sources apply only inside a git repository; `.ignore`
// applies everywhere. Within one file the last matching rule wins; the first file (in
// precedence order) with a matching rule decides.
//
// Rules are matched against the path relative to the directory holding the ignore file,
// so the `.gitignore` files between the repository top and the search root apply with
// their anchored and slash patterns (where ripgrep started in a subdirectory misses them;
// git is right). The search root itself and its ancestors are never tested: a folder
// named `build` above the root cannot hide everything, and a search the caller aimed at
// an ignored folder searches it.
//
// Patterns are translated once to doublestar syntax (braces escaped, `x/**` made to need
// at least one more component, `[]...]` classes escaped) and matched with
// doublestar.MatchUnvalidated, with fast paths for plain names and `*.ext`. A measured
// prototype of this design had no wrong verdict against `git ls-files` on a 92k-file tree.
package ignore

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Rule is one parsed ignore pattern.
type Rule struct {
	Pattern  string // doublestar pattern, relative to the ignore file's directory
	Negate   bool   // a `!` rule: re-includes
	DirOnly  bool   // a trailing `/`: matches directories only
	Basename bool   // no slash: matches the last path component at any depth
	literal  string // set when Pattern has no wildcard: compare directly
	suffix   string // set for `*<literal>`: a suffix test
}

// Parse reads the rules of one ignore file (gitignore syntax). It never fails: a line
// git would not understand becomes a rule that cannot match, as in git.
func Parse(data []byte) []Rule {
	var rules []Rule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if r, ok := ParseLine(sc.Text()); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

// ParseLine parses one line of an ignore file; ok is false for blanks and comments.
func ParseLine(line string) (r Rule, ok bool) {
	if strings.HasPrefix(line, "#") {
		return r, false
	}
	line = trimTrailingSpaces(line)
	if line == "" {
		return r, false
	}
	if line[0] == '!' {
		r.Negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.DirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return r, false
	}
	if strings.Contains(line, "/") {
		line = strings.TrimPrefix(line, "/")
	} else {
		r.Basename = true
	}
	r.Pattern = translate(line)
	if !hasMeta(r.Pattern) {
		r.literal = unescape(r.Pattern)
	} else if r.Basename && strings.HasPrefix(r.Pattern, "*") && !hasMeta(r.Pattern[1:]) {
		// (only a name rule: "/*.md", anchored, is "*.md" against the whole path, where
		// "*" stops at a slash: top.md, not src/z.md)
		r.suffix = unescape(r.Pattern[1:])
	}
	return r, true
}

// trimTrailingSpaces drops unescaped trailing spaces, as git does ("\ " keeps one).
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		// Count the backslashes before this space: an odd number escapes it.
		n := 0
		for i := end - 2; i >= 0 && s[i] == '\\'; i-- {
			n++
		}
		if n%2 == 1 {
			break
		}
		end--
	}
	return s[:end]
}

// translate turns a gitignore pattern into a doublestar pattern with the same meaning.
func translate(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\\':
			b.WriteByte(c)
			if i+1 < len(p) {
				i++
				b.WriteByte(p[i])
			}
		case '{', '}', ',':
			// Literal in git; alternation syntax in doublestar.
			b.WriteByte('\\')
			b.WriteByte(c)
		case '[':
			b.WriteByte(c)
			// A ']' right after '[' (or '[!', '[^') is a member of the class in git.
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				b.WriteByte(p[j])
				j++
			}
			if j < len(p) && p[j] == ']' {
				b.WriteString(`\]`)
				j++
			}
			// POSIX classes ([[:digit:]]) spelled out as the ranges they stand for,
			// which doublestar knows; the class's own ']' is left to the loop.
			for j < len(p) && p[j] != ']' {
				if name, ok := posixClassAt(p, j); ok {
					b.WriteString(posixClasses[name])
					j += len(name) + 4
					continue
				}
				if p[j] == '\\' && j+1 < len(p) {
					b.WriteString(p[j : j+2])
					j += 2
					continue
				}
				if p[j] == '{' || p[j] == '}' || p[j] == ',' {
					b.WriteByte('\\')
				}
				b.WriteByte(p[j])
				j++
			}
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	// git: "abc/**" matches everything inside abc, but not abc itself.
	if out == "**" {
		return out
	}
	if strings.HasSuffix(out, "/**") && !strings.HasSuffix(out, `\/**`) {
		out += "/*"
	}
	return out
}

// posixClasses are the POSIX character classes git's wildmatch knows, as ranges.
var posixClasses = map[string]string{
	"alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "lower": "a-z", "upper": "A-Z",
	"xdigit": "0-9A-Fa-f", "blank": " \t", "space": " \t\n\r\v\f",
}

// posixClassAt reports the POSIX class named at p[j:] ("[:digit:]"), if any.
func posixClassAt(p string, j int) (string, bool) {
	if !strings.HasPrefix(p[j:], "[:") {
		return "", false
	}
	end := strings.Index(p[j+2:], ":]")
	if end < 0 {
		return "", false
	}
	name := p[j+2 : j+2+end]
	_, ok := posixClasses[name]
	return name, ok
}

func hasMeta(p string) bool {
	return strings.ContainsAny(p, `*?[\`)
}

func unescape(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// Match reports whether the rule matches rel (slash-separated, relative to the ignore
// file's directory; name is its last component).
func (r *Rule) Match(rel, name string, isDir bool) bool {
	if r.DirOnly && !isDir {
		return false
	}
	target := rel
	if r.Basename {
		target = name
	}
	switch {
	case r.literal != "":
		return target == r.literal
	case r.suffix != "":
		return strings.HasSuffix(target, r.suffix)
	}
	return doublestar.MatchUnvalidated(r.Pattern, target)
}

// File is the rules of one ignore file and the directory they are relative to.
type File struct {
	Base  string // slash path of the file's directory relative to the stack's top; "" at the top
	Rules []Rule
	// Git: a git source (a .gitignore, info/exclude, the global excludes), which holds
	// only inside its own repository; a .ignore holds across repositories.
	Git bool
}

// decide returns (matched, ignored) for top-relative path p.
func (f *File) decide(p, name string, isDir bool) (bool, bool) {
	rel := p
	if f.Base != "" {
		if len(p) <= len(f.Base) || p[len(f.Base)] != '/' || p[:len(f.Base)] != f.Base {
			return false, false
		}
		rel = p[len(f.Base)+1:]
	}
	for i := len(f.Rules) - 1; i >= 0; i-- {
		if f.Rules[i].Match(rel, name, isDir) {
			return true, !f.Rules[i].Negate
		}
	}
	return false, false
}

// Stack is the set of ignore files that apply inside one directory: that directory's own
// files plus everything inherited. Stacks are immutable and shared by child directories,
// so concurrent walkers may use them freely.
type Stack struct {
	parent *Stack
	files  []*File // this level's files, highest precedence first
	// Prefix is the search root's path relative to the top ("" when they coincide);
	// walkers give paths relative to the root and Stack prepends this.
	prefix string
	inGit  bool
	// repo marks the level of a folder holding .git below the top: a repository of
	// its own (nested, a submodule, one of the projects in a folder that is not a
	// repository), whose files git decides by its rules alone, so the git files of
	// the levels above do not apply below it.
	repo bool
}

// Options say which sources a Stack reads.
type Options struct {
	NoGit       bool // ignore .gitignore, .git/info/exclude and the global excludes
	NoDotIgnore bool // ignore .ignore files
	NoGlobal    bool // ignore the user's global excludes file
	// NoRequireGit makes .gitignore files count outside a git repository too.
	NoRequireGit bool
	Home         string // the user's home (for ~/.gitconfig); "" = $HOME
	ConfigHome   string // $XDG_CONFIG_HOME; "" = $XDG_CONFIG_HOME or ~/.config
}

// Files that Child reads in each directory, highest precedence first.
const (
	DotIgnore = ".ignore"
	GitIgnore = ".gitignore"
)

// ForRoot builds the stack for a search rooted at root (an absolute directory): it finds
// the enclosing git repository and reads, from its top down to root itself, every
// folder's ignore files, with the repository's info/exclude and the global excludes
// at its top. The .ignore files of the folders above the top apply too, as in ripgrep
// (its regression 829: /a/b in the parent's .ignore holds for a search of a/), so a
// search from inside a repository leaves out what the search from the folder above
// it does; a parent repository's git files do not (git decides a nested repository's
// files by its own rules, see Child).
func ForRoot(root string, opt Options) *Stack {
	root = filepath.Clean(root)
	gitTop := findGitTop(root)
	top := root
	if gitTop != "" {
		top = gitTop
	}
	// Outside a repository, with NoRequireGit, the .gitignore files above count too.
	gitAbove := gitTop == "" && !opt.NoGit && opt.NoRequireGit
	for d := filepath.Dir(top); ; d = filepath.Dir(d) {
		if hasIgnoreFile(d, gitAbove, !opt.NoDotIgnore) {
			top = d
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	s := &Stack{}
	if rel, err := filepath.Rel(top, root); err == nil && rel != "." {
		s.prefix = filepath.ToSlash(rel)
	}
	// Every directory from top down to root, inclusive.
	dirs := []string{top}
	if s.prefix != "" {
		d := top
		for _, part := range strings.Split(s.prefix, "/") {
			d = filepath.Join(d, part)
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		base := ""
		if rel, err := filepath.Rel(top, d); err == nil && rel != "." {
			base = filepath.ToSlash(rel)
		}
		if d == gitTop {
			s = s.repoTop(d, base, opt)
			continue
		}
		s = s.withDir(d, base, !opt.NoGit && (s.inGit || opt.NoRequireGit), !opt.NoDotIgnore)
	}
	return s
}

func hasIgnoreFile(dir string, git, dot bool) bool {
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	return dot && exists(DotIgnore) || git && exists(GitIgnore)
}

// repoFiles are the repository-wide git sources of the repository at top (whose
// top-relative path is base), highest precedence first: its info/exclude, then the
// user's global excludes.
func repoFiles(top, base string, opt Options) []*File {
	var files []*File
	if f := loadFile(RepoExclude(top), base); f != nil {
		files = append(files, f)
	}
	if !opt.NoGlobal {
		if f := loadFile(globalExcludesPath(opt), base); f != nil {
			files = append(files, f)
		}
	}
	for _, f := range files {
		f.Git = true
	}
	return files
}

// withDir returns s extended by the ignore files in dir (whose top-relative path is base).
func (s *Stack) withDir(dir, base string, git, dot bool) *Stack {
	files := dirFiles(dir, base, git, dot)
	if len(files) == 0 {
		return s
	}
	return &Stack{parent: s, files: files, prefix: s.prefix, inGit: s.inGit}
}

// dirFiles are dir's own ignore files, highest precedence first.
func dirFiles(dir, base string, git, dot bool) []*File {
	var files []*File
	if dot {
		if f := loadFile(filepath.Join(dir, DotIgnore), base); f != nil {
			files = append(files, f)
		}
	}
	if git {
		if f := loadFile(filepath.Join(dir, GitIgnore), base); f != nil {
			f.Git = true
			files = append(files, f)
		}
	}
	return files
}

// repoTop returns s extended by the repository whose top is dir (top-relative path
// base): dir's own ignore files, then the repository's info/exclude and the global
// excludes.
func (s *Stack) repoTop(dir, base string, opt Options) *Stack {
	var files []*File
	if !opt.NoGit {
		files = append(dirFiles(dir, base, true, !opt.NoDotIgnore), repoFiles(dir, base, opt)...)
	} else {
		files = dirFiles(dir, base, false, !opt.NoDotIgnore)
	}
	return &Stack{parent: s, files: files, prefix: s.prefix, inGit: true, repo: true}
}

// Child returns the stack for directory dir (absolute), whose path relative to the
// search root is rel (slash-separated). It reads dir's own ignore files, if any. A
// dir holding .git starts a repository: below it, its own .gitignore files,
// info/exclude and the global excludes apply, and the git files above it do not, as
// in git run there (and ripgrep); .ignore files above it still do.
func (s *Stack) Child(dir, rel string, opt Options) *Stack {
	base := rel
	if s.prefix != "" {
		base = s.prefix + "/" + rel
	}
	if !opt.NoGit {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			// (Stat: a .git link to nothing is not a repository, as for git and rg)
			return s.repoTop(dir, base, opt)
		}
	}
	return s.withDir(dir, base, !opt.NoGit && (s.inGit || opt.NoRequireGit), !opt.NoDotIgnore)
}

// Empty reports whether no ignore file applies (matching can be skipped).
func (s *Stack) Empty() bool { return s == nil || (s.parent == nil && len(s.files) == 0) }

// Ignored reports whether the entry at rel (slash path relative to the search root; name
// is its last component) is ignored. Only the entry itself is tested: a walker that
// prunes ignored directories gets git's "nothing inside an excluded directory comes back".
func (s *Stack) Ignored(rel, name string, isDir bool) bool {
	m, ign := s.Decide(rel, name, isDir)
	return m && ign
}

// Decide reports whether any rule matches the entry and, if so, whether the deciding
// rule ignores it (false: a "!" rule re-includes it, which, as in ripgrep, also keeps a
// hidden entry a walk would skip).
func (s *Stack) Decide(rel, name string, isDir bool) (matched, ignored bool) {
	if s == nil {
		return false, false
	}
	p := rel
	if s.prefix != "" {
		p = s.prefix + "/" + rel
	}
	above := false // past a repository's own level: git files of another repository
	for l := s; l != nil; l = l.parent {
		for _, f := range l.files {
			if above && f.Git {
				continue
			}
			if m, ign := f.decide(p, name, isDir); m {
				return true, ign
			}
		}
		above = above || l.repo
	}
	return false, false
}

func loadFile(path, base string) *File {
	if path == "" {
		return nil
	}
	data, err := readSmall(path)
	if err != nil {
		return nil
	}
	rules := Parse(data)
	if len(rules) == 0 {
		return nil
	}
	return &File{Base: base, Rules: rules}
}

// findGitTop returns the nearest directory at or above dir holding .git, or "".
func findGitTop(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// RepoExclude is the info/exclude file of the repository at top (a folder holding
// .git): a walk reads it for a repository below its root too.
func RepoExclude(top string) string { return filepath.Join(gitDir(top), "info", "exclude") }

// gitDir resolves top/.git, following a "gitdir: ..." file (worktrees, submodules).
func gitDir(top string) string {
	g := filepath.Join(top, ".git")
	fi, err := os.Stat(g)
	if err != nil || fi.IsDir() {
		return g
	}
	data, err := readSmall(g)
	if err != nil {
		return g
	}
	line := strings.TrimSpace(string(data))
	if d, ok := strings.CutPrefix(line, "gitdir:"); ok {
		d = strings.TrimSpace(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(top, d)
		}
		// A linked worktree's info/exclude lives in the common dir.
		if c, err := readSmall(filepath.Join(d, "commondir")); err == nil {
			cd := strings.TrimSpace(string(c))
			if !filepath.IsAbs(cd) {
				cd = filepath.Join(d, cd)
			}
			return filepath.Clean(cd)
		}
		return d
	}
	return g
}

// homes are the user's home and configuration folders the options name, else the
// environment's.
func (opt Options) homes() (home, cfgHome string) {
	home = opt.Home
	if home == "" {
		home = os.Getenv("HOME")
	}
	cfgHome = opt.ConfigHome
	if cfgHome == "" {
		cfgHome = os.Getenv("XDG_CONFIG_HOME")
	}
	if cfgHome == "" && home != "" {
		cfgHome = filepath.Join(home, ".config")
	}
	return home, cfgHome
}

// globalExcludesPath finds the user's global excludes file the way git does:
// core.excludesFile from ~/.gitconfig (or $XDG_CONFIG_HOME/git/config), else
// $XDG_CONFIG_HOME/git/ignore (default ~/.config/git/ignore).
func globalExcludesPath(opt Options) string {
	home, cfgHome := opt.homes()
	var found string
	for _, cfg := range []string{filepath.Join(cfgHome, "git", "config"), filepath.Join(home, ".gitconfig")} {
		if cfgHome == "" && home == "" {
			break
		}
		if v := excludesFileFrom(cfg); v != "" {
			found = v // ~/.gitconfig is read after the XDG file and wins
		}
	}
	if found != "" {
		if strings.HasPrefix(found, "~/") && home != "" {
			found = filepath.Join(home, found[2:])
		}
		return found
	}
	if cfgHome == "" {
		return ""
	}
	return filepath.Join(cfgHome, "git", "ignore")
}

// excludesFileFrom reads core.excludesFile from a git config file (a small subset of
// git's config syntax: sections, key = value, quotes, comments).
func excludesFileFrom(path string) string {
	data, err := readSmall(path)
	if err != nil {
		return ""
	}
	section := ""
	var val string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if section != "core" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "excludesfile") {
			continue
		}
		v = strings.TrimSpace(v)
		if i := strings.IndexAny(v, "#;"); i >= 0 && !strings.HasPrefix(v, `"`) {
			v = strings.TrimSpace(v[:i])
		}
		val = strings.Trim(v, `"`)
	}
	return val
}

// maxIgnoreBytes bounds an ignore or git file read while walking.
const maxIgnoreBytes = 4 << 20

// readSmall reads a regular file of at most maxIgnoreBytes: a repository's .gitignore
// may be a link to /dev/zero or a FIFO, which must not stall or exhaust a walk.
func readSmall(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxIgnoreBytes))
}

// Sources lists the files outside root whose contents or existence decide what a walk
// of root leaves out: every ancestor's .git, .ignore and .gitignore (ForRoot looks up
// to the file system's root), the enclosing repository's info/exclude, the git
// configuration files that may name a global excludes file, and that file. Something
// that keeps a walk's result (grep's index watcher) stamps them to notice a change.
func Sources(root string, opt Options) []string {
	root = filepath.Clean(root)
	var out []string
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		out = append(out, filepath.Join(d, ".git"), filepath.Join(d, DotIgnore), filepath.Join(d, GitIgnore))
		if d == filepath.Dir(d) {
			break
		}
	}
	if top := findGitTop(root); top != "" {
		out = append(out, filepath.Join(gitDir(top), "info", "exclude"))
	}
	home, cfgHome := opt.homes()
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	if cfgHome != "" {
		out = append(out, filepath.Join(cfgHome, "git", "config"))
	}
	if g := globalExcludesPath(opt); g != "" {
		out = append(out, g)
	}
	return out
}
