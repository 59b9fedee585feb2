package grep

import (
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// fileTypes maps ripgrep's file type names (rg --type-list) to the file-name globs they
// select. The names and globs follow ripgrep's defaults for the languages agents meet.
// Built on first use, as every call's start-up would pay for it.
var fileTypes = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"agda":         {"*.agda", "*.lagda"},
		"asm":          {"*.asm", "*.s", "*.S"},
		"awk":          {"*.awk"},
		"bazel":        {"*.bazel", "*.bzl", "*.BUILD", "*.bazelrc", "BUILD", "MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel"},
		"c":            {"*.[chH]", "*.[chH].in", "*.cats"},
		"clojure":      {"*.clj", "*.cljc", "*.cljs", "*.cljx"},
		"cmake":        {"*.cmake", "CMakeLists.txt"},
		"coffeescript": {"*.coffee"},
		"cpp":          {"*.[ChH]", "*.cc", "*.[ch]pp", "*.[ch]xx", "*.hh", "*.inl", "*.[ChH].in", "*.cc.in", "*.[ch]pp.in", "*.[ch]xx.in", "*.hh.in"},
		"crystal":      {"Projectfile", "*.cr", "*.ecr", "shard.yml"},
		"cs":           {"*.cs"},
		"csharp":       {"*.cs"},
		"css":          {"*.css", "*.scss"},
		"csv":          {"*.csv"},
		"cuda":         {"*.cu", "*.cuh"},
		"d":            {"*.d"},
		"dart":         {"*.dart"},
		"docker":       {"*Dockerfile*"},
		"elixir":       {"*.ex", "*.eex", "*.exs", "*.heex", "*.leex", "*.livemd"},
		"elm":          {"*.elm"},
		"erlang":       {"*.erl", "*.hrl"},
		"fish":         {"*.fish"},
		"fortran":      {"*.f", "*.F", "*.f77", "*.F77", "*.pfo", "*.f90", "*.F90", "*.f95", "*.F95"},
		"fsharp":       {"*.fs", "*.fsx", "*.fsi"},
		"go":           {"*.go"},
		"gradle":       {"*.gradle", "*.gradle.kts"},
		"graphql":      {"*.graphql", "*.graphqls"},
		"groovy":       {"*.groovy", "*.gradle"},
		"h":            {"*.h", "*.hh", "*.hpp"},
		"haskell":      {"*.hs", "*.lhs", "*.cpphs", "*.c2hs", "*.hsc"},
		"html":         {"*.htm", "*.html", "*.ejs"},
		"java":         {"*.java", "*.jsp", "*.jspx", "*.properties"},
		"js":           {"*.js", "*.jsx", "*.vue", "*.cjs", "*.mjs"},
		"json":         {"*.json", "composer.lock", "*.sarif"},
		"jsonl":        {"*.jsonl"},
		"julia":        {"*.jl"},
		"jupyter":      {"*.ipynb", "*.jpynb"},
		"kotlin":       {"*.kt", "*.kts"},
		"less":         {"*.less"},
		"lisp":         {"*.el", "*.jl", "*.lisp", "*.lsp", "*.sc", "*.scm"},
		"lua":          {"*.lua"},
		"make":         {"[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Gg][Nn][Uu]makefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile.am", "[Mm]akefile.in", "*.mk", "*.mak"},
		"markdown":     {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
		"md":           {"*.markdown", "*.md", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"},
		"matlab":       {"*.m"},
		"nim":          {"*.nim", "*.nimf", "*.nimble", "*.nims"},
		"nix":          {"*.nix"},
		"objc":         {"*.h", "*.m"},
		"objcpp":       {"*.h", "*.mm"},
		"ocaml":        {"*.ml", "*.mli", "*.mll", "*.mly"},
		"perl":         {"*.perl", "*.pl", "*.PL", "*.plh", "*.plx", "*.pm", "*.t"},
		"php":          {"*.php", "*.php3", "*.php4", "*.php5", "*.php7", "*.php8", "*.pht", "*.phtml"},
		"powershell":   {"*.ps1", "*.psm1", "*.psd1"},
		"proto":        {"*.proto"},
		"protobuf":     {"*.proto"},
		"ps":           {"*.cdxml", "*.ps1", "*.ps1xml", "*.psd1", "*.psm1"},
		"py":           {"*.py", "*.pyi"},
		"python":       {"*.py", "*.pyi"},
		"r":            {"*.R", "*.r", "*.Rmd", "*.Rnw"},
		"rst":          {"*.rst"},
		"ruby":         {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb", "*.rbw"},
		"rb":           {"Gemfile", "*.gemspec", ".irbrc", "Rakefile", "*.rb", "*.rbw"},
		"rust":         {"*.rs"},
		"sass":         {"*.sass", "*.scss"},
		"scala":        {"*.scala", "*.sbt"},
		"sh":           {"*.bash", "*.bashrc", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", "*.csh", "*.cshrc", ".cshrc", "*.ksh", "*.kshrc", ".kshrc", ".login", ".logout", ".profile", "*.sh", "*.tcsh", "*.zsh", ".zshenv", ".zlogin", ".zlogout", ".zprofile", ".zshrc", "zshenv", "zlogin", "zlogout", "zprofile", "zshrc"},
		"sql":          {"*.sql", "*.psql"},
		"svelte":       {"*.svelte"},
		"swift":        {"*.swift"},
		"tex":          {"*.tex", "*.ltx", "*.cls", "*.sty", "*.bib", "*.dtx", "*.ins"},
		"tf":           {"*.tf", "*.tfvars", "*.tf.json"},
		"terraform":    {"*.tf", "*.tfvars", "*.tf.json"},
		"toml":         {"*.toml", "Cargo.lock"},
		"ts":           {"*.ts", "*.tsx", "*.cts", "*.mts"},
		"typescript":   {"*.ts", "*.tsx", "*.cts", "*.mts"},
		"txt":          {"*.txt"},
		"vim":          {"*.vim", ".vimrc", ".gvimrc", "vimrc", "gvimrc", "_vimrc", "_gvimrc"},
		"vue":          {"*.vue"},
		"xml":          {"*.xml", "*.xml.dist", "*.dtd", "*.xsl", "*.xslt", "*.xsd", "*.xjb", "*.rng", "*.sch", "*.xhtml"},
		"yaml":         {"*.yaml", "*.yml"},
		"zig":          {"*.zig"},
	}
})

// TypeNames lists the known type names, sorted (for error messages and help).
func TypeNames() []string {
	names := make([]string, 0, len(fileTypes()))
	for n := range fileTypes() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// nameFilter is a compiled set of file-name globs: exact names, suffixes and the rest.
type nameFilter struct {
	exact  map[string]bool
	suffix []string
	globs  []string
}

func newNameFilter(globs []string) *nameFilter {
	f := &nameFilter{exact: map[string]bool{}}
	for _, g := range globs {
		switch {
		case !strings.ContainsAny(g, `*?[{\`):
			f.exact[g] = true
		case g[0] == '*' && !strings.ContainsAny(g[1:], `*?[{\`):
			f.suffix = append(f.suffix, g[1:])
		default:
			f.globs = append(f.globs, g)
		}
	}
	return f
}

func (f *nameFilter) match(name string) bool {
	if f.exact[name] {
		return true
	}
	for _, s := range f.suffix {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	for _, g := range f.globs {
		if doublestar.MatchUnvalidated(g, name) {
			return true
		}
	}
	return false
}

// pathGlob is one rg -g style glob: negated with "!", matched against the file name when
// it has no slash, else against the root-relative path (a leading "/" anchors it).
type pathGlob struct {
	pat    string
	negate bool
	base   bool
}

type globFilter struct {
	pos, neg []pathGlob
}

func newGlobFilter(globs []string) (*globFilter, error) {
	f := &globFilter{}
	for _, g := range globs {
		pg := pathGlob{pat: g}
		if strings.HasPrefix(g, "!") {
			pg.negate, pg.pat = true, g[1:]
		}
		pg.pat = strings.TrimSuffix(pg.pat, "/")
		if !strings.Contains(pg.pat, "/") {
			pg.base = true
		} else {
			pg.pat = strings.TrimPrefix(pg.pat, "/")
		}
		if pg.pat == "" || !doublestar.ValidatePattern(pg.pat) {
			return nil, &GlobError{Glob: g}
		}
		if pg.negate {
			f.neg = append(f.neg, pg)
		} else {
			f.pos = append(f.pos, pg)
		}
	}
	return f, nil
}

// GlobError reports a malformed glob filter.
type GlobError struct{ Glob string }

func (e *GlobError) Error() string {
	return "glob " + `"` + e.Glob + `"` + " is not a valid pattern: use *, **, ?, [abc], [!abc] and {a,b}; prefix ! to exclude"
}

func (g pathGlob) match(rel, name string) bool {
	if g.base {
		return doublestar.MatchUnvalidated(g.pat, name)
	}
	return doublestar.MatchUnvalidated(g.pat, rel)
}

// excludesDir reports whether a negated glob matches the folder rel (so no file below
// it is kept).
func (f *globFilter) excludesDir(rel, name string) bool {
	for _, g := range f.neg {
		if g.match(rel, name) {
			return true
		}
	}
	return false
}

// keep applies the filter to a file: a negated glob excludes the file when it matches
// the file or any folder above it; positive globs, if any, must match the file.
func (f *globFilter) keep(rel, name string) bool {
	for _, g := range f.neg {
		if g.match(rel, name) {
			return false
		}
		for i := 0; i < len(rel); i++ {
			if rel[i] == '/' {
				dir := rel[:i]
				if g.match(dir, dir[strings.LastIndexByte(dir, '/')+1:]) {
					return false
				}
			}
		}
	}
	if len(f.pos) == 0 {
		return true
	}
	for _, g := range f.pos {
		if g.match(rel, name) {
			return true
		}
	}
	return false
}
