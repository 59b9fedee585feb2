package applets

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/bmatcuk/doublestar/v4"
)

// Limits of grep, used by the code and quoted in the descriptions.
const (
	GrepDefaultHeadLimit = 200 // reference 002: 200 matches
	GrepMaxLineChars     = 500 // matching lines are cut to this many characters
	GrepMaxFileBytes     = 64 << 20
	GrepTimeBudget       = 30 * time.Second
)

// grepTypes maps ripgrep type names to file globs.
var grepTypes = map[string][]string{
	"go": {"*.go"}, "rust": {"*.rs"}, "py": {"*.py", "*.pyi"}, "js": {"*.js", "*.mjs", "*.cjs", "*.jsx"},
	"ts": {"*.ts", "*.tsx", "*.mts", "*.cts"}, "java": {"*.java"}, "c": {"*.c", "*.h"},
	"cpp": {"*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.h"}, "cs": {"*.cs"}, "rb": {"*.rb", "Gemfile", "Rakefile"},
	"php": {"*.php"}, "swift": {"*.swift"}, "kotlin": {"*.kt", "*.kts"}, "scala": {"*.scala", "*.sc"},
	"sh": {"*.sh", "*.bash", "*.zsh", ".bashrc", ".zshrc"}, "md": {"*.md", "*.markdown"}, "json": {"*.json"},
	"yaml": {"*.yaml", "*.yml"}, "toml": {"*.toml"}, "xml": {"*.xml"}, "html": {"*.html", "*.htm"},
	"css": {"*.css", "*.scss", "*.sass", "*.less"}, "sql": {"*.sql"}, "lua": {"*.lua"}, "dart": {"*.dart"},
	"elixir": {"*.ex", "*.exs"}, "erlang": {"*.erl", "*.hrl"}, "haskell": {"*.hs"}, "ocaml": {"*.ml", "*.mli"},
	"r": {"*.r", "*.R"}, "perl": {"*.pl", "*.pm"}, "proto": {"*.proto"}, "make": {"Makefile", "*.mk", "makefile", "GNUmakefile"},
	"docker": {"Dockerfile", "*.dockerfile"}, "vue": {"*.vue"}, "svelte": {"*.svelte"}, "zig": {"*.zig"},
	"nim": {"*.nim"}, "clojure": {"*.clj", "*.cljs", "*.cljc", "*.edn"}, "tf": {"*.tf", "*.tfvars"}, "txt": {"*.txt"},
}

// Grep searches file contents with a regular expression.
type Grep struct {
	Pattern      string `json:"pattern" alias:"regex,query" arg:"" required:"" help:"regular expression (Go RE2 syntax: no backreferences or lookaround)"`
	Path         string `json:"path" alias:"dir,directory" arg:"" optional:"" default:"." help:"file or directory to search"`
	Glob         string `json:"glob" alias:"include,include_pattern" help:"only files whose path matches this glob (e.g. *.go, src/**/*.ts)"`
	Type         string `json:"type" alias:"file_type" help:"only files of this ripgrep type (go, py, js, ts, rust, java, c, cpp, md, ...)"`
	OutputMode   string `json:"output_mode" alias:"mode" enum:"files_with_matches,content,count" default:"files_with_matches" help:"files_with_matches (paths), content (matching lines) or count (matches per file)"`
	IgnoreCase   bool   `json:"-i" alias:"case_insensitive,ignore_case,i" short:"i" name:"ignore-case" help:"case-insensitive"`
	After        int    `json:"-A" alias:"after_context,A" short:"A" name:"after-context" schema:"min=0" help:"lines of context after each match (content mode)"`
	Before       int    `json:"-B" alias:"before_context,B" short:"B" name:"before-context" schema:"min=0" help:"lines of context before each match (content mode)"`
	Context      int    `json:"-C" alias:"context,C" short:"C" name:"context" schema:"min=0" help:"lines of context before and after each match (content mode)"`
	LineNumbers  bool   `json:"-n" alias:"line_numbers,n" short:"n" name:"line-number" default:"true" negatable:"" help:"show line numbers (content mode)"`
	Multiline    bool   `json:"multiline" short:"U" help:"let the pattern span lines (. matches newlines)"`
	FixedStrings bool   `json:"fixed_strings" alias:"literal" short:"F" help:"treat the pattern as a literal string"`
	Word         bool   `json:"word" alias:"word_regexp" short:"w" help:"match whole words only"`
	HeadLimit    int    `json:"head_limit" alias:"max_results,limit" default:"200" schema:"min=1" help:"at most this many output entries (lines, files or counts); the rest go to the sidecar file"`
	Offset       int    `json:"offset" schema:"min=0" help:"skip this many output entries first (paging)"`
	Hidden       bool   `json:"include_hidden" alias:"hidden" help:"search hidden files and folders too"`
	Sort         string `json:"sort" enum:"path,modified" default:"path" help:"order files by path, or by modification time (newest first)"`
}

// GrepResult is what grep returns.
type GrepResult struct {
	Mode          string   `json:"mode"`
	Files         []string `json:"files,omitempty"`  // files_with_matches
	Lines         []string `json:"lines,omitempty"`  // content: path:line:text, context path-line-text, groups split by --
	Counts        []string `json:"counts,omitempty"` // count: path:n
	TotalMatches  int      `json:"total_matches"`
	FilesMatched  int      `json:"files_matched"`
	FilesSearched int      `json:"files_searched"`
	SkippedBinary int      `json:"skipped_binary,omitempty"`
	SkippedLarge  int      `json:"skipped_large,omitempty"`
	More          int      `json:"more"` // entries left out by head_limit
	Partial       string   `json:"partial,omitempty"`
}

type grepFile struct {
	abs     string
	mod     time.Time
	entries []string
	matches int
}

// Run implements core.Command.
func (g *Grep) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	re, err := g.compile()
	if err != nil {
		return nil, err
	}
	if g.Type != "" && grepTypes[g.Type] == nil {
		var names []string
		for n := range grepTypes {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, core.Errorf(core.CodeInvalidParams, "unknown file type %q; known types: %s", g.Type, strings.Join(names, ", "))
	}
	if g.Glob != "" && !doublestar.ValidatePattern(g.Glob) {
		return nil, core.Errorf(core.CodeInvalidParams, "glob %q is not a valid pattern", g.Glob)
	}
	p, err := env.Resolve(g.Path)
	if err != nil {
		return nil, err
	}
	if _, err := env.Authorize(ctx, core.Request{Capability: core.CapFSRead, Target: p.Abs, Summary: "search " + p.Abs}); err != nil {
		return nil, err
	}
	fi, err := env.WS.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil, core.Errorf(core.CodeInvalidParams, "%s is not a regular file or a directory; grep searches files and directories only, so it cannot hang on a pipe, socket or device", p.Abs)
	}
	before, after := g.Before, g.After
	if g.Context > 0 {
		before, after = max(before, g.Context), max(after, g.Context)
	}
	res := GrepResult{Mode: g.OutputMode}
	var found []grepFile
	search := func(fp core.Path, display string, mod time.Time) {
		f, _, err := env.WS.OpenRegular(fp)
		if err != nil {
			return
		}
		data, err := io.ReadAll(io.LimitReader(f, GrepMaxFileBytes+1))
		f.Close()
		if err != nil {
			return
		}
		res.FilesSearched++
		if len(data) > GrepMaxFileBytes {
			res.SkippedLarge++
			return
		}
		if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
			res.SkippedBinary++
			return
		}
		gf := g.searchFile(re, data, display, before, after)
		if gf.matches > 0 {
			gf.abs, gf.mod = fp.Abs, mod
			found = append(found, gf)
		}
	}
	if !fi.IsDir() {
		search(p, p.Abs, fi.ModTime())
	} else {
		partial, err := env.WS.WalkFiles(ctx, p, core.WalkOptions{IncludeHidden: g.Hidden, Deadline: env.Now().Add(GrepTimeBudget)}, func(abs, rel string, d fs.DirEntry) error {
			if !g.wanted(rel, d.Name()) {
				return nil
			}
			var mod time.Time
			if g.Sort == "modified" {
				if info, err := d.Info(); err == nil {
					mod = info.ModTime()
				}
			}
			search(core.Path{Abs: abs, Root: p.Root, Rel: filepath.Join(p.Rel, filepath.FromSlash(rel))}, abs, mod)
			return nil
		})
		if err != nil {
			return nil, err
		}
		res.Partial = partial
	}
	sort.Slice(found, func(i, j int) bool {
		if g.Sort == "modified" && !found[i].mod.Equal(found[j].mod) {
			return found[i].mod.After(found[j].mod)
		}
		return found[i].abs < found[j].abs
	})
	var all []string
	for i, f := range found {
		res.TotalMatches += f.matches
		switch g.OutputMode {
		case "content":
			if i > 0 && (before > 0 || after > 0) {
				all = append(all, "--")
			}
			all = append(all, f.entries...)
		case "count":
			all = append(all, fmt.Sprintf("%s:%d", f.abs, f.matches))
		default:
			all = append(all, f.abs)
		}
	}
	res.FilesMatched = len(found)
	page := all
	if g.Offset < len(page) {
		page = page[g.Offset:]
	} else {
		page = nil
	}
	if len(page) > g.HeadLimit {
		res.More = len(page) - g.HeadLimit
		page = page[:g.HeadLimit]
	}
	switch g.OutputMode {
	case "content":
		res.Lines = page
	case "count":
		res.Counts = page
	default:
		res.Files = page
	}
	result := &core.Result{Data: res}
	if res.More > 0 || res.Partial != "" {
		result.Truncated = true
		if path, err := env.Session.Spill("grep", []byte(strings.Join(all, "\n")+"\n")); err == nil {
			result.OutputPath = path
		}
	}
	return result, nil
}

func (g *Grep) compile() (*regexp.Regexp, error) {
	expr := g.Pattern
	if g.FixedStrings {
		expr = regexp.QuoteMeta(expr)
	}
	if g.Word {
		expr = `\b(?:` + expr + `)\b`
	}
	flags := ""
	if g.IgnoreCase {
		flags += "i"
	}
	if g.Multiline {
		flags += "s"
	}
	if flags != "" {
		expr = "(?" + flags + ")" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, core.Errorf(core.CodeInvalidParams, "invalid regular expression: %v. The syntax is Go's RE2: no backreferences or lookaround; escape literal ( [ { . * + ? with \\, or pass fixed_strings", err)
	}
	return re, nil
}

func (g *Grep) wanted(rel, name string) bool {
	if g.Glob != "" {
		pat := g.Glob
		target := rel
		if !strings.Contains(pat, "/") {
			target = name // a bare pattern like *.go matches the file name, as in ripgrep
		}
		if ok, _ := doublestar.Match(pat, target); !ok {
			return false
		}
	}
	if g.Type != "" {
		for _, pat := range grepTypes[g.Type] {
			if ok, _ := doublestar.Match(pat, name); ok {
				return true
			}
		}
		return false
	}
	return true
}

// searchFile finds the matches of one file and renders its entries for the mode.
func (g *Grep) searchFile(re *regexp.Regexp, data []byte, display string, before, after int) grepFile {
	var gf grepFile
	if g.OutputMode == "files_with_matches" {
		if re.Match(data) {
			gf.matches = 1
		}
		return gf
	}
	// A literal the match must contain lets most files be skipped without splitting lines.
	if lit, complete := re.LiteralPrefix(); lit != "" && !g.IgnoreCase && complete && !bytes.Contains(data, []byte(lit)) {
		return gf
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	matched := make([]bool, len(lines))
	if g.Multiline {
		starts := make([]int, len(lines)+1)
		for i, l := range lines {
			starts[i+1] = starts[i] + len(l)
		}
		for _, loc := range re.FindAllIndex(data, -1) {
			gf.matches++
			first := sort.SearchInts(starts, loc[0]+1) - 1
			last := sort.SearchInts(starts, max(loc[1], loc[0]+1)) - 1
			for i := max(first, 0); i <= last && i < len(lines); i++ {
				matched[i] = true
			}
		}
	} else {
		for i, l := range lines {
			if re.Match(bytes.TrimRight(l, "\r\n")) {
				matched[i] = true
				gf.matches++
			}
		}
	}
	if gf.matches == 0 || g.OutputMode == "count" {
		return gf
	}
	lastShown := -1
	for i := range lines {
		if !matched[i] {
			continue
		}
		from := max(i-before, lastShown+1)
		if lastShown >= 0 && from > lastShown+1 && (before > 0 || after > 0) {
			gf.entries = append(gf.entries, "--")
		}
		to := min(i+after, len(lines)-1)
		for j := from; j <= to; j++ {
			if j > i && matched[j] {
				break // the next match prints itself and its own context
			}
			sep := "-"
			if matched[j] {
				sep = ":"
			}
			gf.entries = append(gf.entries, g.entry(display, j+1, sep, lines[j]))
			lastShown = j
		}
	}
	return gf
}

func (g *Grep) entry(display string, n int, sep string, line []byte) string {
	text := strings.ToValidUTF8(string(bytes.TrimRight(line, "\r\n")), "\uFFFD")
	if r := []rune(text); len(r) > GrepMaxLineChars {
		text = string(r[:GrepMaxLineChars]) + fmt.Sprintf(" … [%d more characters]", len(r)-GrepMaxLineChars)
	}
	if g.LineNumbers {
		return display + sep + strconv.Itoa(n) + sep + text
	}
	return display + sep + text
}

// RenderText implements core.TextRenderer.
func (r GrepResult) RenderText(p *core.Printer) {
	for _, f := range r.Files {
		p.Println(p.Path(f))
	}
	for _, l := range r.Lines {
		p.Println(l)
	}
	for _, c := range r.Counts {
		p.Println(c)
	}
	if r.TotalMatches == 0 {
		p.Println(p.Dim(fmt.Sprintf("No matches (%d files searched).", r.FilesSearched)))
	}
	if r.More > 0 {
		p.Println(p.Dim(fmt.Sprintf("... and %d more (raise head_limit, or page with offset)", r.More)))
	}
	if r.SkippedBinary > 0 {
		p.Println(p.Dim(fmt.Sprintf("(%d binary files skipped)", r.SkippedBinary)))
	}
	if r.Partial != "" {
		p.Println(p.Warn("partial result: " + r.Partial))
	}
}
