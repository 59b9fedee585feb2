package applets

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/grep"
)

// Limits of grep, used by the code and quoted in the descriptions.
const (
	GrepDefaultHeadLimit = 200 // reference 002: 200 matches
	GrepMaxLineChars     = 500 // output lines are cut to this many bytes, with a marker
	// GrepMaxCollect bounds the content lines one call keeps (for the page and the
	// sidecar file); past it the result says so, and a narrower search gets the rest.
	GrepMaxCollect = 100_000
	GrepTimeBudget = 30 * time.Second
)

// Grep searches file contents with a regular expression.
type Grep struct {
	Pattern      string `json:"pattern" alias:"regex,query" arg:"" required:"" schema:"maxLength=65536" help:"regular expression (Go RE2 syntax: no backreferences or lookaround)"`
	Path         string `json:"path" alias:"dir,directory" arg:"" optional:"" default:"." help:"file or directory to search"`
	Glob         string `json:"glob" alias:"include,include_pattern" short:"g" help:"only files whose path matches this glob (*.go, src/**/*.ts); a leading ! excludes; several separated by commas outside braces"`
	Type         string `json:"type" alias:"file_type" short:"t" help:"only files of these ripgrep types, comma-separated (go, py, js, ts, rust, java, c, cpp, md, ...)"`
	OutputMode   string `json:"output_mode" alias:"mode" enum:"files_with_matches,content,count" default:"files_with_matches" help:"files_with_matches (paths), content (matching lines) or count (matching lines per file); typed at a shell, content is the default, as in ripgrep"`
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
	Respect      bool   `json:"respect_gitignore" alias:"gitignore" default:"true" negatable:"" help:"leave out what .gitignore, .ignore and git's excludes ignore, and node_modules-like folders"`
	Follow       bool   `json:"follow" alias:"follow_symlinks" short:"L" help:"follow symbolic links (loop-safe; links leading out of the workspace are left out)"`
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
	Unreadable    int      `json:"unreadable,omitempty"`
	Denied        int      `json:"denied,omitempty"` // files left out: the permission policy does not allow reading them
	More          int      `json:"more"`             // entries left out by head_limit
	Partial       string   `json:"partial,omitempty"`

	page []grepEntry   // the entries shown, for the terminal rendering
	m    *grep.Matcher // for colouring matches
}

// grepEntry is one output entry before it is rendered to a string.
type grepEntry struct {
	path  string
	num   int  // 0: no line (files, counts, a -- separator)
	sep   byte // ':' a match, '-' context, 0 a group separator
	text  string
	count int
	cut   int
}

// Run implements core.Command.
func (g *Grep) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	before, after := g.Before, g.After
	if g.Context > 0 {
		before, after = max(before, g.Context), max(after, g.Context)
	}
	opt := grep.Options{
		Pattern: g.Pattern, FixedStrings: g.FixedStrings, IgnoreCase: g.IgnoreCase, Word: g.Word,
		Multiline: g.Multiline, SortModified: g.Sort == "modified", LineCap: GrepMaxLineChars,
		MaxLines: max(GrepMaxCollect, g.Offset+g.HeadLimit),
	}
	switch g.OutputMode {
	case "content":
		opt.Mode, opt.Before, opt.After = grep.Content, before, after
	case "count":
		opt.Mode = grep.Count
	default:
		opt.Mode = grep.FilesWithMatches
	}
	if g.Type != "" {
		opt.Types = splitList(g.Type)
	}
	if g.Glob != "" {
		opt.Globs = splitGlobs(g.Glob)
	}
	opt.Walk = walkOptions(env, g.Hidden, g.Respect, g.Follow, GrepTimeBudget)
	m, err := grep.Compile(opt)
	if err != nil {
		return nil, core.Errorf(core.CodeInvalidParams, "%s", err.Error())
	}
	p, err := env.ResolveRead(g.Path)
	if err != nil {
		return nil, err
	}
	if _, err := env.Authorize(ctx, core.Request{Capability: core.CapFSRead, Target: p.Abs, Summary: "search " + p.Abs}); err != nil {
		return nil, err
	}
	// Stat through the workspace: a path (or a link) leading outside is refused here.
	fi, err := env.WS.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return nil, core.Errorf(core.CodeInvalidParams, "%s is not a regular file or a directory; grep searches files and directories only, so it cannot hang on a pipe, socket or device", p.Abs)
	}
	defer grep.PauseGC(SearchGCLimit)()
	found, err := m.Search(ctx, p.Abs)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, core.Errorf(core.CodeInterrupted, "the search was cancelled")
		}
		return nil, core.Errorf(core.CodeIOError, "cannot search %s: %v", p.Abs, err)
	}
	if shown := shownPath(env, g.Path); shown != "" && shown != p.Abs {
		// Paths read as the caller named them: searching through a link to a folder
		// reports link/file, as ripgrep does, not the folder's real name.
		for i := range found.Files {
			if rest, ok := strings.CutPrefix(found.Files[i].Path, p.Abs); ok {
				found.Files[i].Path = shown + rest
			}
		}
	}
	res := GrepResult{Mode: g.OutputMode, FilesSearched: found.Searched, SkippedBinary: found.Binary,
		SkippedLarge: found.TooLarge, Unreadable: found.Errors, Denied: found.Denied, FilesMatched: len(found.Files), m: m}
	if found.Truncated {
		res.Partial = found.Reason
	}
	// Content entries are made here; a file or count entry is made from its File when
	// shown or spilled (a million matching files are not held twice).
	var all []grepEntry
	for i := range found.Files {
		f := &found.Files[i]
		res.TotalMatches += f.Matches
		switch opt.Mode {
		case grep.Content:
			prev := 0
			for j, l := range f.Lines {
				if before > 0 || after > 0 {
					// A "--" between groups, as ripgrep prints; num -1 marks the one
					// between files, which the heading view replaces by a blank line.
					if j == 0 && len(all) > 0 {
						all = append(all, grepEntry{path: f.Path, num: -1})
					} else if j > 0 && l.Num > prev+1 {
						all = append(all, grepEntry{path: f.Path})
					}
				}
				sep := byte('-')
				if l.Match {
					sep = ':'
				}
				all = append(all, grepEntry{path: f.Path, num: l.Num, sep: sep, text: l.Text, cut: l.Cut})
				prev = l.Num
			}
			f.Lines = nil // let the collector have them once rendered
		}
	}
	n, entry := len(all), func(i int) grepEntry { return all[i] }
	if opt.Mode != grep.Content {
		n = len(found.Files)
		entry = func(i int) grepEntry {
			return grepEntry{path: found.Files[i].Path, count: found.Files[i].Matches}
		}
	}
	from, to := min(g.Offset, n), n
	if to-from > g.HeadLimit {
		res.More = to - from - g.HeadLimit
		to = from + g.HeadLimit
	}
	page := make([]grepEntry, 0, to-from)
	for i := from; i < to; i++ {
		page = append(page, entry(i))
	}
	res.page = page
	lines := make([]string, len(page))
	for i, e := range page {
		lines[i] = g.render(opt.Mode, e)
	}
	switch opt.Mode {
	case grep.Content:
		res.Lines = lines
	case grep.Count:
		res.Counts = lines
	default:
		res.Files = lines
	}
	result := &core.Result{Data: res}
	if res.More > 0 || res.Partial != "" {
		result.Truncated = true
		path, err := env.Session.SpillStream("grep", func(w *bufio.Writer) error {
			for i := 0; i < n; i++ {
				w.WriteString(g.render(opt.Mode, entry(i)))
				if err := w.WriteByte('\n'); err != nil {
					return err
				}
			}
			return nil
		})
		if err == nil {
			result.OutputPath = path
		}
	}
	return result, nil
}

// ShellDefaults implements core.ShellDefaulter: a person who types `agentbox grep foo`
// sees the matching lines, as ripgrep shows them; an agent's default stays
// files_with_matches (reference 000).
func (g *Grep) ShellDefaults(given func(string) bool) {
	if !given("output-mode") {
		g.OutputMode = "content"
	}
}

// render writes one entry the way ripgrep prints it without headings.
func (g *Grep) render(mode grep.Mode, e grepEntry) string {
	switch {
	case mode == grep.Count:
		return e.path + ":" + strconv.Itoa(e.count)
	case mode == grep.FilesWithMatches:
		return e.path
	case e.sep == 0:
		return "--"
	}
	text := strings.ToValidUTF8(e.text, "\uFFFD")
	if e.cut > 0 {
		text += fmt.Sprintf(" … [%d more bytes]", e.cut)
	}
	if g.LineNumbers {
		return e.path + string(e.sep) + strconv.Itoa(e.num) + string(e.sep) + text
	}
	return e.path + string(e.sep) + text
}

// splitList splits a comma- or space-separated list.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}

// splitGlobs splits "*.go,!*_test.go" on the commas outside braces, so "*.{ts,tsx}"
// stays one glob.
func splitGlobs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	out = append(out, s[start:])
	var keep []string
	for _, g := range out {
		if g = strings.TrimSpace(g); g != "" {
			keep = append(keep, g)
		}
	}
	return keep
}

// RenderText implements core.TextRenderer. On a terminal (colour on) content is shown
// the way ripgrep shows it to a person: a heading per file, line numbers and the
// matches highlighted; otherwise one path:line:text entry per line.
func (r GrepResult) RenderText(p *core.Printer) {
	switch {
	case p.Color && r.Mode == "content":
		r.renderHeadings(p)
	default:
		for _, f := range r.Files {
			p.Println(p.Path(f))
		}
		for _, l := range r.Lines {
			p.Println(l)
		}
		for _, c := range r.Counts {
			if i := strings.LastIndexByte(c, ':'); i > 0 && p.Color {
				c = p.Path(c[:i]) + ":" + c[i+1:]
			}
			p.Println(c)
		}
	}
	if r.TotalMatches == 0 {
		p.Println(p.Dim(fmt.Sprintf("No matches (%d files searched).", r.FilesSearched)))
	}
	if r.More > 0 {
		p.Println(p.Dim(fmt.Sprintf("... and %d more (raise head_limit, or page with offset)", r.More)))
	}
	if r.Denied > 0 {
		p.Println(p.Dim(fmt.Sprintf("(%d files left out: the permission policy does not allow reading them)", r.Denied)))
	}
	if r.SkippedBinary > 0 {
		p.Println(p.Dim(fmt.Sprintf("(%d binary files skipped)", r.SkippedBinary)))
	}
	if r.SkippedLarge > 0 {
		p.Println(p.Dim(fmt.Sprintf("(%d files skipped: too large for multiline, or a line over %d MB)", r.SkippedLarge, grep.MaxLineBytes>>20)))
	}
	if r.Partial != "" {
		p.Println(p.Warn("partial result: " + r.Partial))
	}
}

func (r GrepResult) renderHeadings(p *core.Printer) {
	cur := ""
	for _, e := range r.page {
		if e.path != cur && e.num >= 0 {
			if cur != "" {
				p.Println()
			}
			cur = e.path
			p.Println(p.Path(e.path))
		}
		if e.sep == 0 {
			if e.num == 0 {
				p.Println(p.Dim("--"))
			}
			continue
		}
		text := strings.ToValidUTF8(e.text, "\uFFFD")
		if e.sep == ':' && r.m != nil {
			var b strings.Builder
			last := 0
			for _, loc := range r.m.MatchIndexes(text) {
				if loc[1] <= loc[0] || loc[0] < last {
					continue
				}
				b.WriteString(text[last:loc[0]])
				b.WriteString(p.Match(text[loc[0]:loc[1]]))
				last = loc[1]
			}
			b.WriteString(text[last:])
			text = b.String()
		}
		if e.cut > 0 {
			text += p.Dim(fmt.Sprintf(" … [%d more bytes]", e.cut))
		}
		p.Println(p.LineNo(strconv.Itoa(e.num)) + string(e.sep) + text)
	}
}

// shownPath is path as the caller wrote it, made absolute without resolving links, or
// "" where it cannot be (a ~ path).
func shownPath(env *core.Env, path string) string {
	if path == "" || strings.HasPrefix(path, "~") {
		return ""
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Cwd, path)
	}
	return filepath.Clean(path)
}
