package applets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/grep"
	"github.com/agentbox/agentbox/core/walk"
)

// Limits of grep, used by the code and quoted in the descriptions.
const (
	GrepDefaultHeadLimit = 200 // reference 002: 200 matches
	GrepMaxLineChars     = 500 // output lines are cut to this many bytes, with a marker
	// GrepMaxCollect bounds the content lines one call keeps (for the page and the
	// sidecar file); past it the result says so, and a narrower search gets the rest.
	GrepMaxCollect = 100_000
	GrepTimeBudget = 30 * time.Second
	// GrepStdinMax bounds what a piped-in standard input may hold (it is searched in
	// memory).
	GrepStdinMax = 64 << 20
)

// Grep searches file contents with a regular expression.
type Grep struct {
	Pattern       string   `json:"pattern" alias:"regex,query" arg:"" optional:"" schema:"required,maxLength=65536" help:"regular expression (Go RE2 syntax: no backreferences or lookaround)"`
	Path          string   `json:"path" alias:"dir,directory" arg:"" optional:"" help:"file or directory to search (default: the working folder; typed at a shell with data piped in and no path: standard input)"`
	Patterns      []string `json:"patterns" short:"e" name:"regexp" sep:"none" help:"more patterns: a line matches when any of them does (repeatable, as grep -e)"`
	Glob          string   `json:"glob" alias:"include,include_pattern" short:"g" help:"only files whose path matches this glob (*.go, src/**/*.ts); a leading ! excludes; several separated by commas outside braces"`
	Type          string   `json:"type" alias:"file_type" short:"t" help:"only files of these ripgrep types, comma-separated (go, py, js, ts, rust, java, c, cpp, md, ...)"`
	OutputMode    string   `json:"output_mode" alias:"mode" enum:"files_with_matches,content,count" default:"files_with_matches" help:"files_with_matches (paths), content (matching lines) or count (matching lines per file); typed at a shell, content is the default, as in ripgrep"`
	IgnoreCase    bool     `json:"-i" alias:"case_insensitive,ignore_case,i" short:"i" name:"ignore-case" help:"case-insensitive"`
	SmartCase     bool     `json:"smart_case" short:"S" name:"smart-case" help:"case-insensitive unless a pattern has an upper-case letter"`
	Invert        bool     `json:"invert_match" alias:"invert,v" short:"v" name:"invert-match" help:"select the lines that do not match"`
	OnlyMatching  bool     `json:"only_matching" short:"o" name:"only-matching" help:"show only the matched parts of each line, one entry each (content mode)"`
	MaxCount      int      `json:"max_count" short:"m" name:"max-count" schema:"min=0" help:"stop searching a file after this many matching lines"`
	After         int      `json:"-A" alias:"after_context,A" short:"A" name:"after-context" schema:"min=0" help:"lines of context after each match (content mode)"`
	Before        int      `json:"-B" alias:"before_context,B" short:"B" name:"before-context" schema:"min=0" help:"lines of context before each match (content mode)"`
	Context       int      `json:"-C" alias:"context,C" short:"C" name:"context" schema:"min=0" help:"lines of context before and after each match (content mode)"`
	LineNumbers   bool     `json:"-n" alias:"line_numbers,n" short:"n" name:"line-number" default:"true" negatable:"" help:"show line numbers (content mode)"`
	Multiline     bool     `json:"multiline" short:"U" help:"let the pattern span lines (. matches newlines)"`
	FixedStrings  bool     `json:"fixed_strings" alias:"literal" short:"F" help:"treat the pattern as a literal string"`
	Word          bool     `json:"word" alias:"word_regexp" short:"w" help:"match whole words only"`
	HeadLimit     int      `json:"head_limit" alias:"max_results,limit" default:"200" schema:"min=1" help:"at most this many output entries (lines, files or counts); the rest go to the sidecar file"`
	Offset        int      `json:"offset" schema:"min=0" help:"skip this many output entries first (paging)"`
	IncludeHidden bool     `name:"hidden" json:"include_hidden" alias:"hidden" help:"search hidden files and folders too"`
	RespectIgnore bool     `name:"respect" json:"respect_gitignore" alias:"gitignore" default:"true" negatable:"" help:"leave out what .gitignore, .ignore and git's excludes ignore, and node_modules-like folders"`
	Follow        bool     `json:"follow" alias:"follow_symlinks" short:"L" help:"follow symbolic links (loop-safe; links leading out of the workspace are left out)"`
	Sort          string   `json:"sort" enum:"path,modified" default:"path" help:"order files by path, or by modification time (newest first)"`

	// The spellings grep and ripgrep users type at a shell (shell mode only).
	FilesWithMatches bool     `json:"-" short:"l" name:"files-with-matches" help:"print only the names of files with a match (output-mode files_with_matches)"`
	Count            bool     `json:"-" short:"c" name:"count" help:"print only each file's count of matching lines (output-mode count)"`
	Quiet            bool     `json:"-" short:"q" name:"quiet" help:"print nothing: the exit status says whether anything matched (0) or not (1)"`
	Recursive        bool     `json:"-" short:"r" name:"recursive" help:"accepted for grep's sake: folders are always searched recursively"`
	RecursiveFollow  bool     `json:"-" short:"R" name:"dereference-recursive" help:"accepted for grep's sake: recursive, following links (as --follow)"`
	Extended         bool     `json:"-" short:"E" name:"extended-regexp" help:"accepted for grep's sake: patterns are always extended (RE2) regexps"`
	Include          []string `json:"-" name:"include" sep:"none" help:"only files whose name matches this glob (grep's spelling of --glob)"`
	Exclude          []string `json:"-" name:"exclude" sep:"none" help:"leave out files whose name matches this glob (grep's spelling of --glob '!G')"`
	WithFilename     bool     `json:"-" short:"H" name:"with-filename" help:"print the file name for each match, also when searching one file"`
	MorePaths        []string `json:"-" arg:"" optional:"" name:"paths" sep:"none" help:"more files or directories to search (at a shell, as grep a.go b.go)"`

	shell     bool      // typed at a shell: paths as given, notes on stderr, grep's exit status
	typedPath string    // the path as typed at a shell ("" when none was)
	bare      bool      // at a shell, one file or standard input searched: no file name, as grep and rg
	noMatch   bool      // -m 0: nothing can match
	shellErr  string    // a command line that cannot be read one way only
	stdin     io.Reader // shell mode, data piped in: searched when no path is given
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
	Unreadable    int      `json:"unreadable,omitempty"` // files the system would not let grep read
	Denied        int      `json:"denied,omitempty"`     // files left out: the permission policy does not allow reading them
	// Folders the system would not let the walk see, so not searched.
	Unlistable *walk.Unlistable `json:"unlistable,omitempty"`
	More       int              `json:"more"` // entries left out by head_limit
	Partial    string           `json:"partial,omitempty"`

	page  []grepEntry  // the entries shown, for the terminal rendering
	m     *grep.Engine // for colouring matches
	quiet bool         // grep -q: nothing is printed
	// lines, when set, stands for Lines in content mode: the page is rendered as it is
	// written (a hundred thousand lines are not rendered into strings first).
	lines *lineFormat
}

// lineFormat is how content entries render: path:num:text, with the path or number
// left out as the call asked.
type lineFormat struct {
	bare    bool // no path: one file or standard input at a shell
	numbers bool
}

// append renders one content entry (a match, a context line or a -- separator).
func (f lineFormat) append(b []byte, e grepEntry) []byte {
	if e.sep == 0 {
		return append(b, "--"...)
	}
	if !f.bare {
		b = append(b, e.path...)
		b = append(b, e.sep)
	}
	if f.numbers {
		b = strconv.AppendInt(b, int64(e.num), 10)
		b = append(b, e.sep)
	}
	// Bytes as the file holds them, as grep and rg print them; a JSON envelope shows
	// each invalid byte as \ufffd, as it shows one in a path.
	if e.skip > 0 {
		b = fmt.Appendf(b, "[%d bytes before] … ", e.skip)
	}
	b = append(b, e.text...)
	if e.cut > 0 {
		b = fmt.Appendf(b, " … [%d more bytes]", e.cut)
	}
	return b
}

// lineStrings is Lines, rendered if they were left to be rendered as written.
func (r GrepResult) lineStrings() []string {
	if r.lines == nil {
		return r.Lines
	}
	out := make([]string, len(r.page))
	var b []byte
	for i, e := range r.page {
		b = r.lines.append(b[:0], e)
		out[i] = string(b)
	}
	return out
}

// StreamJSON implements core.JSONStreamer: content lines are rendered and escaped
// straight into the envelope's buffer. The other fields are encoded as usual; "lines"
// goes in after "mode", where encoding/json puts it.
func (r GrepResult) StreamJSON(w *bufio.Writer) error {
	type fields GrepResult // the same fields without the methods
	lines := r.lines
	r.lines = nil
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields(r)); err != nil {
		return err
	}
	rest := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	head := core.AppendJSONString([]byte(`{"mode":`), []byte(r.Mode))
	if lines == nil || len(r.page) == 0 {
		_, err := w.Write(rest)
		return err
	}
	if !bytes.HasPrefix(rest, head) || !bytes.HasPrefix(rest[len(head):], []byte(",")) {
		r.Lines = r.lineStrings() // not the shape expected: encode them as strings
		b.Reset()
		if err := enc.Encode(fields(r)); err != nil {
			return err
		}
		_, err := w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		return err
	}
	w.Write(head)
	w.WriteString(`,"lines":[`)
	var line, quoted []byte
	for i, e := range r.page {
		if i > 0 {
			w.WriteByte(',')
		}
		line = lines.append(line[:0], e)
		quoted = core.AppendJSONString(quoted[:0], line)
		w.Write(quoted)
	}
	w.WriteByte(']')
	_, err := w.Write(rest[len(head):])
	return err
}

// MarshalJSON writes what StreamJSON streams (the MCP server's structured content).
func (r GrepResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	if err := r.StreamJSON(w); err != nil {
		return nil, err
	}
	err := w.Flush()
	return b.Bytes(), err
}

// grepEntry is one output entry before it is rendered to a string.
type grepEntry struct {
	path  string
	num   int  // 0: no line (files, counts, a -- separator)
	sep   byte // ':' a match, '-' context, 0 a group separator
	text  string
	count int
	cut   int
	skip  int
}

// Run implements core.Command.
func (g *Grep) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	before, after := g.Before, g.After
	if g.Context > 0 {
		before, after = max(before, g.Context), max(after, g.Context)
	}
	if g.shellErr != "" {
		return nil, core.Errorf(core.CodeInvalidParams, "%s", g.shellErr)
	}
	if g.noMatch {
		// -m 0: grep and rg stop before the first match.
		return &core.Result{Data: GrepResult{Mode: g.OutputMode, quiet: true}, ExitCode: 1}, nil
	}
	if len(g.MorePaths) > 0 {
		return g.runEach(ctx, env)
	}
	pattern, fixed := g.pattern()
	ignoreCase := g.IgnoreCase
	if g.SmartCase && !ignoreCase {
		ignoreCase = !hasUpper(strings.Join(append([]string{g.Pattern}, g.Patterns...), ""))
	}
	opt := grep.Options{
		Pattern: pattern, FixedStrings: fixed, IgnoreCase: ignoreCase, Word: g.Word,
		Multiline: g.Multiline, SortModified: g.Sort == "modified", LineCap: GrepMaxLineChars,
		MaxLines: max(GrepMaxCollect, g.Offset+g.HeadLimit), Invert: g.Invert, MaxCount: g.MaxCount,
		OnlyMatching: g.OnlyMatching,
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
	opt.Walk = walkOptions(env, g.IncludeHidden, g.RespectIgnore, g.Follow, GrepTimeBudget)
	m, err := grep.Compile(opt)
	if err != nil {
		return nil, core.Errorf(core.CodeInvalidParams, "%s", err.Error())
	}
	if g.Path == "" && g.stdin != nil {
		data, err := core.ReadAllContext(ctx, g.stdin, GrepStdinMax+1)
		if ctx.Err() != nil {
			return nil, core.Errorf(core.CodeInterrupted, "interrupted while reading standard input")
		}
		if err != nil {
			return nil, core.Errorf(core.CodeIOError, "reading standard input: %v", err)
		}
		// An empty pipe (a harness that connects one and writes nothing) is no data:
		// the working folder is searched, as it is with no stdin at all.
		if len(data) > 0 {
			return g.searchStdin(env, m, opt, data)
		}
	}
	if g.Path == "" {
		g.Path = "."
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
	g.bare = g.shell && !fi.IsDir() && !g.WithFilename
	defer grep.PauseGC(SearchGCLimit)()
	ix := &grepIndex{}
	if fi.IsDir() { // one file is read at once: opening an index would cost more
		ix = openGrepIndex(env, p.Abs, m, opt.Walk)
	}
	found, err := m.Search(ctx, p.Abs)
	ix.done(env, found)
	if err == nil && !fi.IsDir() && found.Errors > 0 {
		// The one file asked for could not be read: an error, as in grep and rg, not
		// "no matches".
		f, oerr := env.WS.Open(p)
		if oerr != nil {
			return nil, oerr // the workspace's error says why (permission denied) and what to do
		}
		f.Close()
		return nil, core.Errorf(core.CodeIOError, "cannot read %s: a read failed; try again, or read it to see the error", p.Abs)
	}
	if err == nil && g.shell && !fi.IsDir() && found.Binary == 1 && fi.Size() <= GrepStdinMax {
		// A binary file named at a shell: grep and rg say whether it matches.
		if data, rerr := env.WS.ReadFile(p); rerr == nil {
			if ok, nul := m.BinaryMatch(data); ok {
				return g.binaryMatch(nul)
			}
		}
	}
	return g.finish(env, m, opt, found, err, p.Abs)
}

// binaryMatch is the answer for a binary file named at a shell that matches: ripgrep's
// line (its name with -l), exit 0.
func (g *Grep) binaryMatch(nul int) (*core.Result, error) {
	res := GrepResult{Mode: g.OutputMode, TotalMatches: 1, FilesMatched: 1, FilesSearched: 1, quiet: g.Quiet}
	if g.OutputMode == "files_with_matches" {
		res.Files = []string{g.typedPath}
	} else {
		line := fmt.Sprintf("binary file matches (found \"\\0\" byte around offset %d)", nul)
		if !g.bare {
			line = g.typedPath + ": " + line
		}
		res.Lines = []string{line}
	}
	return &core.Result{Data: res}, nil
}

// searchStdin searches what a person piped in, as grep and ripgrep do with no path.
func (g *Grep) searchStdin(env *core.Env, m *grep.Engine, opt grep.Options, data []byte) (*core.Result, error) {
	if len(data) > GrepStdinMax {
		return nil, core.Errorf(core.CodeTooLarge, "standard input is over %d MiB; save it to a file and search that", GrepStdinMax>>20)
	}
	found, err := m.SearchText(stdinName, data)
	if err != nil {
		return nil, core.Errorf(core.CodeInvalidParams, "%v", err)
	}
	g.bare = !g.WithFilename
	return g.finish(env, m, opt, found, nil, "")
}

// finish turns what the search found into the result: paths as the caller gave them,
// entries paged by offset and head_limit, the rest spilled to the sidecar file.
func (g *Grep) finish(env *core.Env, m *grep.Engine, opt grep.Options, found *grep.Result, err error, abs string) (*core.Result, error) {
	before, after := g.Before, g.After
	if g.Context > 0 {
		before, after = max(before, g.Context), max(after, g.Context)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, core.Errorf(core.CodeInterrupted, "the search was cancelled")
		}
		return nil, walkError("search", abs, err)
	}
	var display func(rest string) string // a found path under abs as it is shown
	if g.shell && !filepath.IsAbs(g.Path) && !strings.HasPrefix(g.Path, "~") {
		// At a shell paths print as given, relative staying relative, as grep and rg do:
		// none typed prints them bare, a typed "." as ./a.go.
		typed := g.typedPath
		if typed == "." {
			typed = "./"
		}
		given := filepath.Clean(g.Path)
		display = func(rest string) string { return displayJoin(typed, given, rest) }
	} else if shown := shownPath(env, g.Path); shown != "" && shown != abs {
		// Paths read as the caller named them: searching through a link to a folder
		// reports link/file, as ripgrep does, not the folder's real name.
		display = func(rest string) string { return shown + rest }
	}
	if display != nil && abs != "" {
		for i := range found.Files {
			if rest, ok := strings.CutPrefix(found.Files[i].Path, abs); ok {
				found.Files[i].Path = display(rest)
			}
		}
		for i, d := range found.Unlistable.Paths {
			if rest, ok := strings.CutPrefix(d, abs); ok {
				found.Unlistable.Paths[i] = display(rest)
			}
		}
	}
	res := GrepResult{Mode: g.OutputMode, FilesSearched: found.Searched, SkippedBinary: found.Binary,
		SkippedLarge: found.TooLarge, Unreadable: found.Errors, Denied: found.Denied, FilesMatched: len(found.Files), m: m,
		Unlistable: found.Unlistable.Or()}
	if found.Truncated {
		res.Partial = found.Reason
	}
	// Content entries are made here; a file or count entry is made from its File when
	// shown or spilled (a million matching files are not held twice).
	var all []grepEntry
	if opt.Mode == grep.Content {
		n := 0
		for i := range found.Files {
			n += len(found.Files[i].Lines) + 1 // a separator at most per file, if no context
		}
		all = make([]grepEntry, 0, n)
	}
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
				prev = l.Num
				all = append(all, grepEntry{path: f.Path, num: l.Num, sep: sep, text: l.Text, cut: l.Cut, skip: l.Skip})
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
	if found.LinesCut && found.Reason == res.Partial && res.More == 0 && !g.shell {
		// The page reaches the last line kept: say where the next one starts, as more
		// cannot count lines that were not kept.
		res.Partial += fmt.Sprintf(" (lines after these were counted, not kept: offset %d reads on)", to)
	}
	if opt.Mode == grep.Content {
		// Rendered as they are written: a heavy search's lines are not held twice.
		res.page, res.lines = all[from:to], &lineFormat{bare: g.bare, numbers: g.LineNumbers}
	} else {
		lines := make([]string, 0, to-from)
		for i := from; i < to; i++ {
			e := entry(i)
			res.page = append(res.page, e)
			lines = append(lines, g.render(opt.Mode, e))
		}
		if opt.Mode == grep.Count {
			res.Counts = lines
		} else {
			res.Files = lines
		}
	}
	res.quiet = g.Quiet
	result := &core.Result{Data: res, ExitCode: res.shellExit(g), Interrupted: cancelled(res.Partial)}
	// Cut or partial: the sidecar file holds every entry collected (README: whenever
	// anything was cut, truncated and output_path say so).
	// A partial search is truncated; one that found nothing has nothing to keep in a
	// sidecar, and names none (it had named an empty file).
	if res.Partial != "" && n == 0 && res.More == 0 {
		result.Truncated = true
	}
	if (res.More > 0 || res.Partial != "" && n > 0) && !g.Quiet {
		result.Spilled(env.Session.SpillStream("grep", func(w *bufio.Writer) error {
			var b []byte
			for i := 0; i < n; i++ {
				b = append(g.appendEntry(b[:0], opt.Mode, entry(i)), '\n')
				if _, err := w.Write(b); err != nil {
					return err // a write error is sticky: the rest would fail too
				}
			}
			return nil
		}))
	}
	return result, nil
}

// ShellDefaults implements core.ShellDefaulter: a person who types `agentbox grep foo`
// sees the matching lines, as ripgrep shows them; an agent's default stays
// files_with_matches (reference 000).
func (g *Grep) ShellDefaults(given func(string) bool) {
	g.shell = true
	switch {
	case g.FilesWithMatches:
		g.OutputMode = "files_with_matches"
	case g.Count:
		g.OutputMode = "count"
	case !given("output-mode"):
		g.OutputMode = "content"
	}
	if g.Quiet {
		g.OutputMode, g.HeadLimit = "files_with_matches", 1
	}
	if g.RecursiveFollow {
		g.Follow = true
	}
	// A person sees every match: no page of 200, and whole lines (up to what one call
	// collects; past that the note on stderr says so).
	if !given("head-limit") {
		g.HeadLimit = GrepMaxCollect
	}
	g.noMatch = given("max-count") && g.MaxCount == 0
	// An empty pattern matches every line, as in grep (`grep '' f`, `-e ''`): "^" says
	// so to a matcher that takes "" for no pattern at all.
	if g.Pattern == "" && g.Path != "" && len(g.Patterns) == 0 {
		g.Pattern = "^"
	}
	for i, p := range g.Patterns {
		if p == "" {
			g.Patterns[i] = "^"
		}
	}
	// `grep -e foo -e bar src`: the positional words are paths, not a pattern.
	if len(g.Patterns) > 0 {
		if g.Pattern != "" {
			g.MorePaths = append([]string{g.Path}, g.MorePaths...)
			if g.Path == "" {
				g.MorePaths = nil
			}
			g.Path = g.Pattern
		}
		g.Pattern, g.Patterns = g.Patterns[0], g.Patterns[1:]
	}
	g.typedPath = g.Path
	globs := splitGlobs(g.Glob)
	globs = append(globs, g.Include...)
	for _, e := range g.Exclude {
		globs = append(globs, "!"+e)
	}
	g.Glob = strings.Join(globs, ",")
}

// RewriteShellArgs implements core.ShellArgsRewriter: -e takes the next word as its
// pattern whatever it looks like (-e -foo, -e ”), as grep does, where the flag parser
// would take -foo for a flag.
func (g *Grep) RewriteShellArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return append(out, args[i:]...)
		case (a == "-e" || a == "--regexp") && i+1 < len(args):
			out = append(out, "--regexp="+args[i+1])
			i++
		default:
			out = append(out, a)
		}
	}
	return out
}

// ShellStdin implements core.ShellStdin.
func (g *Grep) ShellStdin(r io.Reader) { g.stdin = r }

// ShellErrorExit implements core.ShellErrorExiter: an error exits 2, as in grep and
// ripgrep, since 1 means that nothing matched.
func (g *Grep) ShellErrorExit() int { return 2 }

// pattern is the one regexp the search runs: the pattern and any more patterns as
// alternatives (literal ones quoted when fixed_strings is set).
func (g *Grep) pattern() (string, bool) {
	if len(g.Patterns) == 0 {
		return g.Pattern, g.FixedStrings
	}
	var alts []string
	for _, p := range append([]string{g.Pattern}, g.Patterns...) {
		if p == "" && g.Pattern != "" {
			continue
		}
		if g.FixedStrings {
			p = regexp.QuoteMeta(p)
		}
		alts = append(alts, "(?:"+p+")")
	}
	return strings.Join(alts, "|"), false
}

// hasUpper reports whether a pattern spells an upper-case letter (not in an escape such
// as \W or \S), which turns smart case sensitive, as in ripgrep.
func hasUpper(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' {
			i++
			continue
		}
		if r, _ := utf8.DecodeRuneInString(p[i:]); unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// render writes one entry the way ripgrep prints it without headings.
func (g *Grep) render(mode grep.Mode, e grepEntry) string {
	switch {
	case mode == grep.Count && g.bare:
		return strconv.Itoa(e.count) // one file or stdin: the count alone, as grep -c prints it
	case mode == grep.Count:
		return e.path + ":" + strconv.Itoa(e.count)
	case mode == grep.FilesWithMatches:
		return e.path
	}
	return string(g.appendEntry(nil, mode, e))
}

// appendEntry renders an entry onto b; content lines print bare (no path) for one file
// or standard input, as grep and rg print them.
func (g *Grep) appendEntry(b []byte, mode grep.Mode, e grepEntry) []byte {
	if mode != grep.Content {
		return append(b, g.render(mode, e)...)
	}
	return lineFormat{bare: g.bare, numbers: g.LineNumbers}.append(b, e)
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
	if r.quiet {
		r.unseenNotes(p) // what could not be searched is said even then, as rg -q does
		return
	}
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
		if r.lines != nil {
			var b []byte
			for _, e := range r.page {
				b = append(r.lines.append(b[:0], e), '\n')
				p.Write(b)
			}
		}
		for _, c := range r.Counts {
			if i := strings.LastIndexByte(c, ':'); i > 0 && p.Color {
				c = p.Path(c[:i]) + ":" + c[i+1:]
			}
			p.Println(c)
		}
	}
	// Notes go to stderr, so a pipe reads results only.
	if r.TotalMatches == 0 {
		p.Note(fmt.Sprintf("No matches (%d files searched).", r.FilesSearched))
	}
	if r.More > 0 {
		p.Note(fmt.Sprintf("... and %d more (raise head_limit, or page with offset)", r.More))
	}
	if r.Denied > 0 {
		p.Note(fmt.Sprintf("(%s left out: the permission policy does not allow reading them)", plural(r.Denied, "path")))
	}
	r.unseenNotes(p)
	if r.SkippedBinary > 0 {
		p.Note(fmt.Sprintf("(%d binary files skipped)", r.SkippedBinary))
	}
	if r.SkippedLarge > 0 {
		p.Note(fmt.Sprintf("(%d files skipped: too large for multiline, or a line over %d MB)", r.SkippedLarge, grep.MaxLineBytes>>20))
	}
	if r.Partial != "" {
		p.Note("partial result: " + r.Partial)
	}
}

// unseenNotes are the notes on what the search could not see.
func (r GrepResult) unseenNotes(p *core.Printer) {
	if r.Unreadable > 0 {
		p.Note(fmt.Sprintf("(%s could not be read: the system refused; check their permissions)", plural(r.Unreadable, "file")))
	}
	if r.Unlistable != nil {
		p.Note(unlistableNote("searched", r.Unlistable))
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
		if e.skip > 0 {
			text = p.Dim(fmt.Sprintf("[%d bytes before] … ", e.skip)) + text
		}
		if e.cut > 0 {
			text += p.Dim(fmt.Sprintf(" … [%d more bytes]", e.cut))
		}
		p.Println(p.LineNo(strconv.Itoa(e.num)) + string(e.sep) + text)
	}
}

// walkError is the error of a search or listing of abs that could not start: the
// system refused to list it (or a folder on the way to it), or failed.
func walkError(verb, abs string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return core.Errorf(core.CodePermissionDenied, "the system would not let agentbox %s %s (permission denied); check its permissions and those of the folders above it, or %s another folder", verb, abs, verb)
	}
	return core.Errorf(core.CodeIOError, "cannot %s %s: %v", verb, abs, err)
}

// unlistableNote is the terminal's note on what a walk could not see (folders, and
// links whose target it could not reach): how many, the first of them, and why.
func unlistableNote(verb string, u *walk.Unlistable) string {
	more := ""
	if u.Count > len(u.Paths) {
		more = fmt.Sprintf(" and %d more", u.Count-len(u.Paths))
	}
	return fmt.Sprintf("(%s not %s (%s): %s%s)", plural(u.Count, "path"), verb, strings.Join(u.Why, "; "), strings.Join(u.Paths, ", "), more)
}

// displayJoin writes a found path under the path the person typed: "." shows paths
// bare (src/a.go), "./" keeps its "./" (./src/a.go), others keep their spelling.
func displayJoin(typed, clean, rest string) string {
	rest = strings.TrimPrefix(rest, string(filepath.Separator))
	switch {
	case rest == "":
		return typed
	case clean == "." && !strings.HasPrefix(typed, "./"):
		return rest
	case clean == ".":
		return "./" + rest
	}
	return strings.TrimSuffix(typed, "/") + "/" + rest
}

// stdinName names standard input in files and counts output, as ripgrep does; content
// lines from it carry no path.
const stdinName = "<stdin>"

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

// runEach searches several paths typed at a shell (grep foo a.go b.go), one after the
// other, and prints what each found in turn, with file names. A path that cannot be
// searched is reported on stderr and makes the exit status 2, as in grep, after the
// others are searched.
func (g *Grep) runEach(ctx context.Context, env *core.Env) (*core.Result, error) {
	merged := GrepResult{Mode: g.OutputMode, quiet: g.Quiet}
	var failed []string
	var spill []string
	for _, path := range append([]string{g.Path}, g.MorePaths...) {
		one := *g
		one.Path, one.typedPath, one.MorePaths, one.WithFilename = path, path, nil, true
		res, err := one.Run(ctx, env)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			failed = append(failed, fmt.Sprintf("%s: %s", path, core.AsError(err).Message))
			continue
		}
		r := res.Data.(GrepResult)
		merged.Files = append(merged.Files, r.Files...)
		merged.Lines = append(merged.Lines, r.lineStrings()...)
		merged.Counts = append(merged.Counts, r.Counts...)
		merged.page = append(merged.page, r.page...)
		merged.m = r.m
		merged.TotalMatches += r.TotalMatches
		merged.FilesMatched += r.FilesMatched
		merged.FilesSearched += r.FilesSearched
		merged.SkippedBinary += r.SkippedBinary
		merged.SkippedLarge += r.SkippedLarge
		merged.Unreadable += r.Unreadable
		if r.Unlistable != nil {
			if merged.Unlistable == nil {
				merged.Unlistable = &walk.Unlistable{}
			}
			merged.Unlistable.Merge(*r.Unlistable)
		}
		merged.Denied += r.Denied
		merged.More += r.More
		if r.Partial != "" {
			merged.Partial = r.Partial
		}
		if res.OutputPath != "" {
			spill = append(spill, res.OutputPath)
		}
	}
	result := &core.Result{Data: merged, Interrupted: cancelled(merged.Partial)}
	if len(spill) > 0 {
		result.Truncated, result.OutputPath = true, strings.Join(spill, " ")
	}
	for _, f := range failed {
		fmt.Fprintf(env.Stderr, "grep: %s\n", f)
	}
	if result.ExitCode = merged.shellExit(g); len(failed) > 0 {
		result.ExitCode = 2
	}
	return result, nil
}

// shellExit is the exit status of a search typed at a shell, as grep's and ripgrep's:
// 1 when nothing matched, 2 when a file or folder could not be read (unless -q found
// a match: its answer is then known), else 0. An agent's call exits 0 with the counts
// in the envelope.
func (r GrepResult) shellExit(g *Grep) int {
	switch {
	case !g.shell:
		return 0
	case (r.Unreadable > 0 || r.Unlistable != nil) && !(g.Quiet && r.TotalMatches > 0):
		return 2
	case r.TotalMatches == 0:
		return 1
	}
	return 0
}
