// Package grep is agentbox's content search engine: ripgrep's semantics (same files,
// lines and counts on the differential test table) in pure Go, at close to its speed.
//
// How a file is searched, fastest path first:
//
//   - Literal prefilter. From the parsed pattern (regexp/syntax) the engine derives a
//     small set of literals one of which every match must contain ((Lock|Unlock)\(\) →
//     "Lock()", "Unlock()"). It scans the whole buffer with bytes.Index, expands a hit to
//     its line and runs the regexp on that line only; when the literals are the whole
//     pattern no regexp runs at all. Line numbers come from counting newlines
//     incrementally between hits.
//   - Neighbour classes. When the literal sits between a class that must match there
//     and the rest (`\w+Error\b`: a \w right before "Error"), a hit whose neighbour is
//     outside that class (`err.Error()`) is skipped without running the regexp.
//   - Decided hits. When the pattern is the literal with at most one simple condition
//     on each side (`\w+Error\b`, `^func \w+`, `\bmain\b`), the byte on each side of a
//     hit says whether the line matches there, and the regexp runs only when that byte
//     is not ASCII (decide.go).
//   - Case-insensitive search looks for each lowercased literal's rarest byte (by a static
//     byte-frequency rank of source code, counting both its cases) with bytes.IndexByte,
//     once per case, and compares the literal ASCII-case-insensitively around each
//     candidate: no lowercased copy of the buffer, whose extra pass cost as much as the
//     search. A literal with non-ASCII letters, 'k' or 's' is cut to its longest part
//     without them, because KELVIN SIGN (U+212A) and LONG S (U+017F) fold to k and s.
//   - One byte between two such classes (`[a-z]+_[a-z]+\(`: "_" with a letter on each
//     side) is tried as a prefilter too; when it makes the regexp run on more than one
//     line per 512 bytes searched (after 4 MB), the search switches to go-re2.
//   - No usable literal (e.g. `[a-z]+[0-9]+\(`): github.com/wasilibs/go-re2 runs over
//     the whole buffer (Go's regexp is 6-8x slower there). It is loaded on first use so
//     calls that do not need it pay nothing; a match that crosses a line break is
//     re-checked line by line with Go's regexp, which stays the authority.
//
// Files are read with raw open/read/close system calls into a per-worker buffer (os.Open
// costs several extra syscalls per file), in chunks, so a multi-gigabyte file never sits
// in memory whole; a chunk keeps the lines before-context needs. Like ripgrep, data after
// the first NUL byte is not searched, and a file whose NUL comes before any match is
// counted as binary and skipped. Multiline search needs the whole file and is limited
// to MultilineMaxBytes.
//
// The regex dialect is Go's RE2 syntax. Differences from PCRE/ripgrep: no backreferences
// or lookaround; \b is ASCII-only; in invalid UTF-8, `.` and negated classes match a
// stray byte (ripgrep's do not). \w, \d and \s are rewritten to their Unicode meaning,
// as in ripgrep. Outside multiline mode a literal newline is refused and a newline in a
// class is dropped from it, as ripgrep does.
package grep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core/beneath"
	"github.com/agentbox/agentbox/core/walk"
)

// Mode is what a search reports.
type Mode int

const (
	FilesWithMatches Mode = iota // paths of files with at least one match
	Content                      // matching lines (and context)
	Count                        // number of matching lines per file
)

// Sizes of the engine's buffers and caps.
const (
	ChunkSize         = 1 << 20  // bytes read per chunk (per worker buffer)
	MaxLineBytes      = 64 << 20 // a line longer than this ends the file's search
	MultilineMaxBytes = 64 << 20 // multiline search skips larger files (counted)
)

// Options describe one search.
type Options struct {
	Pattern      string
	FixedStrings bool // the pattern is a literal string
	IgnoreCase   bool
	Word         bool // match whole words only (ripgrep's -w)
	Multiline    bool // the pattern may span lines; . matches newlines
	Mode         Mode
	Before       int      // context lines before each match (Content)
	After        int      // context lines after each match (Content)
	Types        []string // ripgrep type names; a file must match one
	Globs        []string // ripgrep -g style filters ("!" excludes)
	SortModified bool     // order files newest first instead of by path
	// Invert selects the lines that do not match (grep's -v); not with Multiline.
	Invert bool
	// OnlyMatching keeps each matched part of a matching line as a line of its own
	// (grep's -o; Content): context and inverted lines keep nothing.
	OnlyMatching bool
	// MaxCount stops a file after this many selected lines (grep's -m; 0: no limit).
	MaxCount int
	// MaxLines keeps at most this many content lines (0: no cap): the first ones in the
	// result's order, whichever order the files were searched in, so a search repeated
	// or paged with an offset keeps the same ones. The result is then marked truncated;
	// counting continues.
	MaxLines int
	// LineCap cuts each output line to at most this many bytes (at a UTF-8 boundary;
	// 0: no cap) and records how many were left out in Line.Cut, so one minified line
	// cannot fill the output or the memory.
	LineCap int
	Walk    walk.Options
}

// Line is one output line of a file in Content mode.
type Line struct {
	Num   int    `json:"line"`
	Text  string `json:"text"`
	Match bool   `json:"match"`         // false: a context line
	Cut   int    `json:"cut,omitempty"` // bytes cut from the end of Text (LineCap)
	// Skip: bytes cut from the start of Text, so that a long line's first match is in
	// what is shown.
	Skip int `json:"skip,omitempty"`
}

// File is one file with matches.
type File struct {
	Path    string    `json:"path"`
	Rel     string    `json:"rel"`
	Matches int       `json:"matches"` // matching lines
	Lines   []Line    `json:"lines,omitempty"`
	ModTime time.Time `json:"modified,omitzero"`

	linesCut bool // content lines were left out (Options.MaxLines)
}

// Result is a whole search.
type Result struct {
	Files    []File
	Searched int // files searched
	Binary   int // files skipped as binary
	TooLarge int // files skipped for size (multiline) or an over-long line
	Errors   int // files that could not be read
	Denied   int // files the permission policy does not let the caller read
	// Unlistable: the folders the system would not let the walk see (not searched).
	Unlistable walk.Unlistable
	// Truncated is set when the walk stopped early (Reason says why) or MaxLines cut.
	Truncated bool
	Reason    string
	// LinesCut: content lines past MaxLines were left out (counted, not kept).
	LinesCut bool
}

// Engine is one compiled search: the pattern, its literal prefilter, the filters and
// the walk; Search runs it over a tree, SearchText over one buffer.
type Engine struct {
	opt   Options
	re    *regexp.Regexp // authority for line matching (and multiline)
	lits  [][]byte       // prefilter literals (lowercased when fold)
	fold  bool           // the literals are searched ASCII case folded
	folds []foldLit      // when fold: the finder of each literal
	exact bool           // a literal hit is a match: no regexp needed
	sure  *decider       // when set: the bytes around a hit settle most hits (decide.go)
	reSrc string         // the source handed to go-re2 when there is no literal
	re2   func([]byte) [][]int
	types *nameFilter
	globs *globFilter
	// before/after: classes the character just before/after a literal hit must be in
	// for a match to be there (see neighbours); nil: no condition.
	before, after []rune
	// tentative: the prefilter is one byte with neighbour classes, kept only while the
	// regexp runs on few enough lines; switched then tells every worker to use go-re2.
	tentative    bool
	switched     atomic.Bool
	re2Once      sync.Once
	runs, volume atomic.Int64 // regexp runs and bytes searched with the tentative prefilter
	// prune, when set, is asked about every file before it is read (core/index): skip
	// means the file need not be read, because it holds none of the literals (it
	// counts as searched without a match) or, binary, because a search would count it
	// as binary unread.
	prune func(path string) (skip, binary bool)
	// lister, when set, lists a directory search's files in place of the walk.
	lister Lister
}

// PruneLiterals returns literals one of which every match holds, ASCII case folded
// where the search folds case, for an index to prune files by (core/index); ok is
// false when the search cannot be pruned that way: no literal, an inverted search
// (a file without the literal matches on every line), multiline, or a one-byte
// prefilter.
func (m *Engine) PruneLiterals() (lits [][]byte, ok bool) {
	if len(m.lits) == 0 || m.tentative || m.opt.Invert || m.opt.Multiline {
		return nil, false
	}
	return m.lits, true
}

// SetPrune installs the index's answer (see Engine.prune); call before Search.
func (m *Engine) SetPrune(prune func(path string) (skip, binary bool)) { m.prune = prune }

// A Lister replaces the walk of a directory search, for an index that knows the tree
// (core/index with its watcher): it calls visit, concurrently if it likes, for every
// file the walk would visit that must be read, and counts the others it knows hold no
// match (searched) or are binary.
type Lister func(ctx context.Context, root string, visit func(*walk.Entry) error) (st walk.Stats, searched, binary int64, err error)

// SetLister installs a Lister; call before Search.
func (m *Engine) SetLister(l Lister) { m.lister = l }

// Wanted reports whether the search's file type and glob filters keep the file at rel
// (relative to the searched folder) named name; Filtered whether there are any.
func (m *Engine) Wanted(rel, name string) bool { return m.wanted(rel, name) }

// PruneDir is the walk's PruneDir for a search of root: the folders a negated glob
// leaves out whole are not entered (nil without one).
func (m *Engine) PruneDir(root string) func(abs, name string) bool {
	if m.globs == nil || len(m.globs.neg) == 0 {
		return nil
	}
	prefix := strings.TrimSuffix(root, "/") + "/"
	return func(abs, name string) bool {
		rel, ok := strings.CutPrefix(abs, prefix)
		return ok && m.globs.excludesDir(rel, name)
	}
}

// Filtered reports whether the search has file type or glob filters.
func (m *Engine) Filtered() bool { return m.types != nil || m.globs != nil }

// Compile checks the options and prepares the pattern. Errors say where a pattern
// breaks and what to do instead.
func Compile(opt Options) (*Engine, error) {
	m := &Engine{opt: opt}
	expr := opt.Pattern
	if opt.FixedStrings {
		expr = regexp.QuoteMeta(expr)
	} else {
		expr = unicodeClasses(expr)
	}
	// Without OneLine, ^ and $ are line anchors in the parsed tree itself, so they hold
	// line by line and in a search over a whole buffer alike (Perl's flags would make
	// them text anchors, which "(?m)" in front of the rendered tree does not undo).
	flags := syntax.Perl &^ syntax.OneLine
	if opt.IgnoreCase {
		flags |= syntax.FoldCase
	}
	if opt.Multiline {
		flags |= syntax.DotNL
		if opt.Invert {
			return nil, errors.New("invert_match selects lines, so it does not combine with multiline: drop one of them")
		}
	}
	parsed, err := syntax.Parse(expr, flags)
	if err != nil {
		return nil, patternError(opt.Pattern, err)
	}
	if !opt.Multiline {
		// A newline can never match inside one line. Like ripgrep, a literal one (raw, or
		// written \n, \x0A, \012) is refused, and one in a class (`[\na]`, `a|\x0A`)
		// is dropped from it, so the literal prefilter never looks for it either.
		// `\\n`, a backslash and an n, is no newline.
		if hasNewline(parsed) {
			return nil, fmt.Errorf("the pattern %q contains \\n, which never matches within one line: set multiline to search across lines", opt.Pattern)
		}
		dropNewline(parsed)
	}
	// The line-level regexp. Word mode follows ripgrep: the match must be bounded by
	// a non-word character or the line's edge on both sides.
	src := parsed.String()
	if opt.Word {
		src = `(?:^|\W)(?:` + src + `)(?:\W|$)`
	}
	if !opt.Multiline {
		src = "(?m)" + src
	}
	if m.re, err = regexp.Compile(src); err != nil {
		return nil, patternError(opt.Pattern, err)
	}
	m.reSrc = src
	info := analyze(parsed.Simplify())
	lits := info.required
	m.fold = info.fold
	if m.fold {
		// Lowercased literals, found ASCII case folded (foldLit): a hit is a match only
		// when every literal is case-folded, ASCII and free of k and s.
		safe := !info.sensitive
		for i, l := range lits {
			if !foldSafe(l) {
				safe = false
			}
			lits[i] = foldPiece(l)
		}
		info.complete = info.complete && safe
	}
	if score(lits) >= 2 || (score(lits) == 1 && info.exact != nil && info.complete && len(lits) == 1) {
		for _, l := range lits {
			m.lits = append(m.lits, []byte(l))
		}
		m.exact = info.exact != nil && info.complete && !opt.Word && sameSet(info.exact, lits, m.fold)
		if m.fold {
			for _, l := range m.lits {
				m.folds = append(m.folds, newFoldLit(l))
			}
		}
		if !m.exact && !m.fold && !opt.Multiline {
			m.before, m.after = neighbours(parsed.Simplify(), lits)
			switch {
			case !opt.Word && len(lits) == 1:
				m.sure = newDecider(parsed.Simplify(), lits[0])
			case opt.Word && len(lits) == 1 && info.exact != nil && info.complete && sameSet(info.exact, lits, false):
				// A literal in word mode (rg -w err): the bytes on each side decide
				// every hit, so the regexp never runs.
				m.sure = &decider{before: edge{kind: edgeNotWord}, after: edge{kind: edgeNotWord}}
			}
		}
	} else if score(lits) == 1 && len(lits) == 1 && !m.fold && !opt.Multiline {
		// One byte is a poor prefilter on its own, but with a class required on both
		// sides of it (`[a-z]+_[a-z]+\(`: a letter, "_", a letter) few hits may survive.
		// Whether they do depends on the text, so the search measures it and hands
		// over to go-re2 when the regexp runs on too many lines (see tooDense).
		if before, after := neighbours(parsed.Simplify(), lits); before != nil && after != nil {
			m.lits, m.before, m.after = [][]byte{[]byte(lits[0])}, before, after
			m.tentative = true
		}
	}
	if len(opt.Types) > 0 {
		var globs []string
		for _, t := range opt.Types {
			g, ok := fileTypes()[t]
			if !ok {
				return nil, fmt.Errorf("unknown file type %q; known types: %s", t, strings.Join(TypeNames(), ", "))
			}
			globs = append(globs, g...)
		}
		m.types = newNameFilter(globs)
	}
	if len(opt.Globs) > 0 {
		if m.globs, err = newGlobFilter(opt.Globs); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// hasNewline reports whether a literal of the parsed pattern holds a newline.
func hasNewline(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && slices.Contains(re.Rune, '\n') {
		return true
	}
	return slices.ContainsFunc(re.Sub, hasNewline)
}

// dropNewline removes the newline from every class of the parsed pattern.
func dropNewline(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		re.Rune = out
		if len(out) == 0 {
			re.Op = syntax.OpNoMatch
		}
	}
	for _, sub := range re.Sub {
		dropNewline(sub)
	}
}

// sameSet reports whether the prefilter literals are exactly the pattern's strings.
func sameSet(exact, lits []string, fold bool) bool {
	if len(exact) != len(lits) {
		return false
	}
	for i := range exact {
		e := exact[i]
		if fold {
			e = strings.ToLower(e)
		}
		if e != lits[i] {
			return false
		}
	}
	return true
}

func patternError(pat string, err error) error {
	msg := err.Error()
	where := ""
	if se, ok := err.(*syntax.Error); ok {
		msg = fmt.Sprintf("%s at `%s`", se.Code, se.Expr)
		// Point at the broken part when it can be found in what the caller wrote (the
		// engine rewrites \w, \d and \s, so the fragment may not be there verbatim).
		i := strings.LastIndex(pat, se.Expr)
		if se.Code == syntax.ErrMissingParen {
			i = unclosedParen(pat)
		}
		if i >= 0 && se.Expr != "" && !strings.ContainsAny(pat, "\n\r") {
			where = fmt.Sprintf("\n  %s\n  %s^ here (byte %d)", pat, strings.Repeat(" ", len([]rune(pat[:i]))), i)
		}
	}
	return fmt.Errorf("invalid regular expression %q: %s.%s\nThe syntax is Go's RE2 (no backreferences or lookaround); escape literal ( ) [ ] { } . * + ? | with \\, or pass fixed_strings to search for the text as it is", pat, msg, where)
}

// unclosedParen returns the offset of the last '(' that no ')' closes, or -1.
func unclosedParen(pat string) int {
	var open []int
	inClass := false
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
			if i+1 < len(pat) && pat[i+1] == ']' {
				i++
			}
		case c == '(':
			open = append(open, i)
		case c == ')' && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	if len(open) == 0 {
		return -1
	}
	return open[len(open)-1]
}

// Literals returns the prefilter literals (for tests and diagnostics) and whether a
// literal hit alone is a match.
func (m *Engine) Literals() ([]string, bool) {
	var out []string
	for _, l := range m.lits {
		out = append(out, string(l))
	}
	return out, m.exact
}

// UsesRE2 reports whether the search needs go-re2 (no usable literal).
func (m *Engine) UsesRE2() bool {
	return (len(m.lits) == 0 || m.switched.Load()) && !m.opt.Multiline
}

// Thresholds of the tentative single-byte prefilter: after tentativeProbe bytes, a
// regexp run per tentativeMaxDensity bytes or more means go-re2 over the whole buffer
// is cheaper than Go's regexp line by line (measured on GOROOT/src: `[a-z]+_[a-z]+\(`
// runs it about once per 2 KB and is 1.5x faster than go-re2 that way).
const (
	tentativeProbe      = 4 << 20
	tentativeMaxDensity = 512
)

// tooDense records one chunk searched with the tentative prefilter and reports
// whether the search should switch to go-re2.
func (m *Engine) tooDense(runs, bytes int) bool {
	r, v := m.runs.Add(int64(runs)), m.volume.Add(int64(bytes))
	return v >= tentativeProbe && r*tentativeMaxDensity >= v
}

// worker holds the reused buffers of one searching goroutine.
type worker struct {
	buf   []byte
	next  []int    // per literal: next known hit in the current chunk, -1 unknown
	fnext [][2]int // per folded literal: foldLit.index's scan state
}

var workers = sync.Pool{New: func() any { return &worker{buf: make([]byte, ChunkSize)} }}

// fileState is the per-file search state carried from chunk to chunk.
type fileState struct {
	m        *Engine
	file     File
	lineBase int         // line number of buf[0]
	lastEnd  int         // offset after the last emitted line (a line start), in the current chunk
	lastLine int         // line number at lastEnd
	after    int         // after-context lines still owed
	done     bool        // FilesWithMatches: one match is enough
	limit    int         // content lines this file may keep (MaxLines, or 0 when it cannot make the cut)
	halt     func() bool // reports (after a chunk) that the search must stop
	halted   bool        // a match over a long line gave way to halt: the file was not searched
}

// newFileState starts the search of one file that may keep limit lines.
func (m *Engine) newFileState(limit int) *fileState {
	return &fileState{m: m, lineBase: 1, lastLine: 1, limit: limit}
}

// BinaryMatch reports whether data, which a search skips as binary, holds a match, and
// the offset of its first NUL byte: what grep and ripgrep report as "binary file
// matches" for a file named on the command line. NUL bytes count as line breaks, so a
// match never spans one.
func (m *Engine) BinaryMatch(data []byte) (matches bool, nul int) {
	nul = bytes.IndexByte(data, 0)
	if m.opt.Multiline {
		return false, nul
	}
	if m.UsesRE2() {
		if err := m.loadRE2(); err != nil {
			return false, nul
		}
	}
	text := bytes.ReplaceAll(data, []byte{0}, []byte{'\n'})
	st := m.newFileState(m.opt.MaxLines)
	w := workers.Get().(*worker)
	m.searchChunk(w, st, text, 0, true)
	workers.Put(w)
	return st.file.Matches > 0, nul
}

// SearchText searches text held in memory (standard input) as one file called name,
// with the rules a file on disk gets: a byte order mark dropped, a NUL in the first
// chunk making it binary, context, counts and the line cap.
func (m *Engine) SearchText(name string, text []byte) (*Result, error) {
	if m.opt.Multiline {
		return nil, errors.New("multiline searches files, not standard input: give a path")
	}
	if m.UsesRE2() {
		if err := m.loadRE2(); err != nil {
			return nil, err
		}
	}
	res := &Result{Searched: 1}
	text = bytes.TrimPrefix(text, utf8BOM)
	if z := bytes.IndexByte(text, 0); z >= 0 {
		if z < ChunkSize || m.opt.Mode == Count {
			res.Searched, res.Binary = 0, 1
			return res, nil
		}
		text = text[:z]
	}
	st := m.newFileState(m.opt.MaxLines)
	w := workers.Get().(*worker)
	m.searchChunk(w, st, text, 0, true)
	workers.Put(w)
	if st.file.Matches > 0 {
		st.file.Path, st.file.Rel = name, name
		res.Files = append(res.Files, st.file)
	}
	res.LinesCut = st.file.linesCut
	if st.file.linesCut {
		res.Truncated, res.Reason = true, fmt.Sprintf("more than %d lines matched; narrow the pattern", m.opt.MaxLines)
	}
	return res, nil
}

// Search searches root (a file or a directory) and returns files in path order (or
// newest first with SortModified).
func (m *Engine) Search(ctx context.Context, root string) (*Result, error) {
	var (
		mu                      sync.Mutex
		res                     Result
		kept                    = keptLines{less: m.fileLess, max: m.opt.MaxLines}
		nsrch, nbin, nbig, nerr atomic.Int64
	)
	if m.UsesRE2() {
		if err := m.loadRE2(); err != nil {
			return nil, err
		}
	}
	// The walk's time budget and cancellation also bound the searching itself, checked
	// between files and between the chunks of a file: one multi-GB file (searched alone
	// or met by the walk) cannot hold the call past its budget.
	var deadline time.Time
	if b := m.opt.Walk.Budget; b > 0 {
		deadline = time.Now().Add(b)
	}
	var stopped atomic.Pointer[string]
	halt := func() bool {
		if stopped.Load() != nil {
			return true
		}
		var why string
		switch {
		case ctx.Err() != nil:
			why = "cancelled"
		case !deadline.IsZero() && time.Now().After(deadline):
			why = "time budget of " + m.opt.Walk.Budget.String() + " exhausted"
		default:
			return false
		}
		stopped.CompareAndSwap(nil, &why)
		return true
	}
	var anchor *beneath.Anchor
	searchOne := func(path, rel string, d fs.DirEntry) {
		if halt() {
			return
		}
		if m.prune != nil {
			if skip, binary := m.prune(path); skip && binary {
				nbin.Add(1)
				return
			} else if skip {
				nsrch.Add(1) // it holds none of the literals: searched, no match
				return
			}
		}
		var mtime time.Time
		if m.opt.SortModified && d != nil {
			if fi, err := d.Info(); err == nil {
				mtime = fi.ModTime()
			}
		}
		w := workers.Get().(*worker)
		f, status := m.searchFile(w, anchor, path, d, kept.limitFor(path, mtime), halt)
		workers.Put(w)
		switch status {
		case statusBinary:
			nbin.Add(1)
			return
		case statusTooLarge:
			nbig.Add(1)
		case statusError:
			nerr.Add(1)
			return
		case statusHalted:
			return
		}
		nsrch.Add(1)
		if f.Matches == 0 {
			return
		}
		f.Path, f.Rel, f.ModTime = path, rel, mtime
		mu.Lock()
		res.Files = append(res.Files, f)
		kept.add(res.Files, len(res.Files)-1)
		mu.Unlock()
	}
	fi, err := statPath(root)
	if err != nil {
		return nil, err
	}
	// Files are opened beneath the search's folder (core/beneath): one swapped for a
	// link out while the search runs is not read.
	anchorDir := root
	if !fi.IsDir() {
		anchorDir = filepath.Dir(root)
	}
	anchor, err = beneath.OpenAnchor(anchorDir, m.opt.Walk.Inside)
	if err != nil {
		return nil, err
	}
	defer anchor.Close()
	if !fi.IsDir() {
		searchOne(root, fi.Name(), nil)
		if len(res.Files) == 1 && m.opt.SortModified {
			res.Files[0].ModTime = fi.ModTime()
		}
	} else {
		visit := func(e *walk.Entry) error {
			if e.D.Type()&fs.ModeSymlink != 0 && !m.opt.Walk.Follow {
				return nil // ripgrep does not search links unless asked to follow them
			}
			if !m.wanted(e.Rel, e.Name) {
				return nil
			}
			if e.D.Type()&fs.ModeSymlink == 0 && !e.D.Type().IsRegular() {
				return nil
			}
			searchOne(e.Path, e.Rel, e.D)
			return nil
		}
		var st walk.Stats
		if m.lister != nil {
			var searched, binary int64
			st, searched, binary, err = m.lister(ctx, root, visit)
			nsrch.Add(searched)
			nbin.Add(binary)
		} else {
			wopt := m.opt.Walk
			wopt.PruneDir = m.PruneDir(root)
			st, err = walk.Walk(ctx, root, wopt, visit)
		}
		if err != nil {
			return nil, err
		}
		res.Truncated, res.Reason = st.Truncated, st.Reason
		res.Denied = int(st.Denied)
		res.Unlistable = st.Unlistable
	}
	if why := stopped.Load(); why != nil && !res.Truncated {
		res.Truncated, res.Reason = true, *why
	}
	res.Searched, res.Binary, res.TooLarge, res.Errors = int(nsrch.Load()), int(nbin.Load()), int(nbig.Load()), int(nerr.Load())
	res.LinesCut = kept.cut
	if kept.cut && !res.Truncated {
		res.Truncated, res.Reason = true, fmt.Sprintf("more than %d lines matched; narrow the pattern or path", m.opt.MaxLines)
	}
	sort.Slice(res.Files, func(i, j int) bool { return m.fileLess(&res.Files[i], &res.Files[j]) })
	return &res, nil
}

// fileLess is the order of a result's files: by path, or newest first (ties by path).
func (m *Engine) fileLess(a, b *File) bool {
	if m.opt.SortModified && !a.ModTime.Equal(b.ModTime) {
		return a.ModTime.After(b.ModTime)
	}
	return walk.PathLess(a.Path, b.Path)
}

func (m *Engine) wanted(rel, name string) bool {
	if m.types != nil && !m.types.match(name) {
		return false
	}
	if m.globs != nil && !m.globs.keep(rel, name) {
		return false
	}
	return true
}

type status int

const (
	statusOK status = iota
	statusBinary
	statusTooLarge
	statusError
	statusHalted // the search stopped (budget, cancel) while this file was matched
)

// searchFile reads and searches one file with raw system calls.
func (m *Engine) searchFile(w *worker, anchor *beneath.Anchor, path string, d fs.DirEntry, limit int, halt func() bool) (File, status) {
	// A walk's file is opened in the folder being read; any other (the index's, the one
	// file searched) beneath the search's folder. A file below a followed link is read
	// where the link leads, if the walk's confinement allows it; any other path meets
	// no link (the one file searched was resolved to its real path): a link there was
	// swapped in since, and is not read.
	fd, ok, err := walk.OpenEntry(d, syscall.O_RDONLY|syscall.O_NONBLOCK)
	if !ok || err != nil && m.opt.Walk.Follow {
		rel := strings.TrimPrefix(strings.TrimPrefix(path, anchor.Path()), "/")
		fd, err = anchor.Open(rel, syscall.O_RDONLY|syscall.O_NONBLOCK, m.opt.Walk.Follow, m.opt.Walk.FollowedAllowed(false))
	}
	if err != nil {
		return File{}, statusError
	}
	defer syscall.Close(fd)
	st := m.newFileState(limit)
	st.halt = halt
	if m.opt.Multiline {
		return m.searchMultiline(w, fd, st)
	}
	buf := w.buf
	n := 0    // bytes in buf
	from := 0 // where the search resumes (earlier bytes are kept context)
	eof, sawNUL, first := false, false, true
	for !eof && !st.done {
		// Fill the buffer.
		for n < len(buf) {
			k, err := readFull(fd, buf[n:])
			if err != nil {
				return st.file, statusError
			}
			if k == 0 {
				eof = true
				break
			}
			if first && n == 0 && k >= 2 && (buf[0] == 0xFF && buf[1] == 0xFE || buf[0] == 0xFE && buf[1] == 0xFF) {
				return m.searchUTF16(w, fd, st, buf[:k])
			}
			if z := bytes.IndexByte(buf[n:n+k], 0); z >= 0 {
				// Like ripgrep: nothing after the first NUL byte is searched.
				// A NUL in the first chunk makes the file binary: skipped unsearched.
				// Later, ripgrep still shows the lines before it but drops counts.
				if first || m.opt.Mode == Count {
					return File{}, statusBinary
				}
				n += z
				eof, sawNUL = true, true
				break
			}
			n += k
		}
		if first && bytes.HasPrefix(buf[:n], utf8BOM) {
			// A UTF-8 byte order mark is no part of the first line (ripgrep's
			// regression 1163: ^test123 matches it).
			n = copy(buf, buf[len(utf8BOM):n])
		}
		first = false
		end := n // search complete lines only, unless at EOF
		if !eof {
			end = bytes.LastIndexByte(buf[:n], '\n') + 1
			if end <= from {
				// One line longer than the buffer: grow it.
				if len(buf) >= MaxLineBytes {
					return st.file, statusTooLarge
				}
				nb := make([]byte, len(buf)*2)
				copy(nb, buf[:n])
				buf = nb
				if len(nb) <= 8*ChunkSize {
					w.buf = nb // keep a moderately grown buffer for the next file
				}
				continue
			}
		}
		m.searchChunk(w, st, buf[:end], from, eof)
		if st.halted {
			return File{}, statusHalted
		}
		if eof || st.done || (st.halt != nil && st.halt()) {
			break
		}
		// Keep the last Before lines (for context) and the partial line.
		keep := end
		for i := 0; i < m.opt.Before && keep > 0; i++ {
			keep = bytes.LastIndexByte(buf[:keep-1], '\n') + 1
		}
		if m.opt.Mode == Content {
			st.lineBase += bytes.Count(buf[:keep], nl)
			if st.lastEnd >= keep {
				st.lastEnd -= keep
			} else {
				st.lastEnd = 0
				st.lastLine = st.lineBase
			}
		}
		copy(buf, buf[keep:n])
		n -= keep
		from = end - keep
	}
	if sawNUL && st.file.Matches == 0 {
		return File{}, statusBinary
	}
	return st.file, statusOK
}

// searchUTF16 searches a file that starts with a UTF-16 byte order mark as ripgrep
// does: decoded to UTF-8 (up to MultilineMaxBytes of it) and searched as one chunk.
// Without this its NUL bytes would make it binary, and Windows tools write UTF-16.
func (m *Engine) searchUTF16(w *worker, fd int, st *fileState, head []byte) (File, status) {
	raw := append([]byte(nil), head...)
	chunk := make([]byte, 64<<10)
	for {
		if len(raw) > MultilineMaxBytes {
			return File{}, statusTooLarge
		}
		k, err := readFull(fd, chunk)
		if err != nil {
			return File{}, statusError
		}
		if k == 0 {
			break
		}
		raw = append(raw, chunk[:k]...)
	}
	big := raw[0] == 0xFE
	units := make([]uint16, 0, len(raw)/2)
	for i := 2; i+1 < len(raw); i += 2 {
		if big {
			units = append(units, uint16(raw[i])<<8|uint16(raw[i+1]))
		} else {
			units = append(units, uint16(raw[i+1])<<8|uint16(raw[i]))
		}
	}
	text := []byte(string(utf16.Decode(units)))
	if bytes.IndexByte(text, 0) >= 0 {
		return File{}, statusBinary
	}
	m.searchChunk(w, st, text, 0, true)
	return st.file, statusOK
}

var (
	nl      = []byte{'\n'}
	utf8BOM = []byte{0xEF, 0xBB, 0xBF}
)

// lineMatch reports whether the expression matches one line; over a line of 1 MiB or
// more the call gives way to the search's halt (st.halted, st.done).
func (m *Engine) lineMatch(w *worker, st *fileState, line []byte) bool {
	if len(line) < interruptibleBytes || st.halt == nil {
		return m.re.Match(line)
	}
	var ok bool
	if !interruptible(st.halt, func() { ok = m.re.Match(line) }) {
		w.buf = make([]byte, ChunkSize) // the abandoned match goes on reading the old one
		st.halted, st.done = true, true
		return false
	}
	return ok
}

// searchChunk finds matching lines in buf[from:] (buf holds whole lines, except possibly
// the last at EOF). Context may reach back before from.
func (m *Engine) searchChunk(w *worker, st *fileState, buf []byte, from int, eof bool) {
	if m.opt.Invert {
		m.searchInverted(st, buf, from)
		return
	}
	lits, re2, tentative := m.matchers()
	folds := m.folds
	next, fnext := w.literalCursors(len(lits), len(folds))
	var re2hits [][]int
	if re2 != nil && len(lits) == 0 {
		re2hits = re2(buf[from:])
	}
	runs, h := 0, 0
	cur, curLine := 0, st.lineBase // a line start and its number
	pos := from
	for pos < len(buf) && !st.done {
		var ls, le int
		if len(lits) > 0 {
			p, pl := -1, 0
			for i, lit := range lits {
				if next[i] < pos && next[i] != -2 {
					k := -1
					if folds != nil {
						k = folds[i].index(buf, pos, &fnext[i])
					} else if k = bytes.Index(buf[pos:], lit); k >= 0 {
						k += pos
					}
					next[i] = k
					if k < 0 {
						next[i] = -2 // no more hits in this chunk
					}
				}
				if next[i] >= 0 && (p < 0 || next[i] < p) {
					p, pl = next[i], len(lit)
				}
			}
			if p < 0 {
				break
			}
			if !m.neighboursOK(buf, p, p+pl) {
				pos = p + 1 // no match can be here; the next hit may be on this line
				continue
			}
			v := unsure
			if m.sure != nil {
				if v = m.sure.decide(buf, p, p+pl); v == noMatch {
					pos = p + 1
					continue
				}
			}
			ls = bytes.LastIndexByte(buf[:p], '\n') + 1
			le = lineEnd(buf, p)
			if !m.exact && v == unsure {
				runs++
				if !m.lineMatch(w, st, buf[ls:le]) {
					pos = le + 1
					continue
				}
			}
		} else if re2 != nil {
			var found, stop bool
			if ls, le, pos, found, stop = m.nextRE2Line(buf, from, pos, re2hits, &h); stop {
				break
			} else if !found {
				continue
			}
		} else {
			// Go's regexp line by line (a pattern go-re2 could not take).
			ls, le = pos, lineEnd(buf, pos)
			if !m.lineMatch(w, st, buf[ls:le]) {
				pos = le + 1
				continue
			}
		}
		pos = le + 1
		cur, curLine = m.matchedLine(st, buf, ls, le, cur, curLine)
	}
	if m.opt.Mode == Content && st.after > 0 {
		m.emitTo(st, buf, len(buf), -1)
	}
	if tentative && m.tooDense(runs, len(buf)-from) {
		m.re2Once.Do(func() {
			if m.loadRE2() == nil && m.re2 != nil {
				m.switched.Store(true)
			}
		})
	}
}

// matchers are what finds candidate lines in this chunk: the literals (checked by the
// regexp where they cannot decide), or go-re2 over the whole chunk once a tentative
// engine has switched to it.
func (m *Engine) matchers() (lits [][]byte, re2 func([]byte) [][]int, tentative bool) {
	lits, tentative = m.lits, m.tentative
	switch {
	case !m.tentative:
		re2 = m.re2
	case m.switched.Load():
		// m.re2 is written once, by the worker that switches, before switched is set:
		// read it only after seeing switched.
		lits, re2, tentative = nil, m.re2, false
	}
	return lits, re2, tentative
}

// literalCursors are the worker's per-literal positions of the next hit, reset for a
// chunk: -1 not searched yet, -2 no more hits.
func (w *worker) literalCursors(lits, folds int) ([]int, [][2]int) {
	if cap(w.next) < lits {
		w.next = make([]int, lits)
	}
	next := w.next[:lits]
	for i := range next {
		next[i] = -1
	}
	if cap(w.fnext) < folds {
		w.fnext = make([][2]int, folds)
	}
	fnext := w.fnext[:folds]
	for i := range fnext {
		fnext[i] = [2]int{-1, -1}
	}
	return next, fnext
}

// nextRE2Line is the next line at or after pos that go-re2's hits over the chunk
// (starting at from) show to match: found, or a new pos to go on from, or stop.
func (m *Engine) nextRE2Line(buf []byte, from, pos int, hits [][]int, h *int) (ls, le, next int, found, stop bool) {
	for *h < len(hits) && from+hits[*h][0] < pos {
		*h++
	}
	if *h == len(hits) {
		return 0, 0, pos, false, true
	}
	s, e := from+hits[*h][0], from+hits[*h][1]
	*h++
	if s == len(buf) && s > 0 && buf[s-1] == '\n' {
		return 0, 0, pos, false, true // an empty match after the final newline is not a line
	}
	ls = bytes.LastIndexByte(buf[:s], '\n') + 1
	le = lineEnd(buf, s)
	if e <= le {
		return ls, le, pos, true, false
	}
	// The match crossed a line break: check each line it touched on its own.
	for a := ls; a <= e && a < len(buf); {
		b := lineEnd(buf, a)
		if m.re.Match(buf[a:b]) {
			return a, b, pos, true, false
		}
		a = b + 1
	}
	return 0, 0, lineEnd(buf, min(e, len(buf)-1)) + 1, false, false
}

// matchedLine counts the matching line buf[ls:le], notes when the file is done (-m,
// -l), and in content mode prints it with its context; it returns the line-counting
// position and number moved up to ls.
func (m *Engine) matchedLine(st *fileState, buf []byte, ls, le, cur, curLine int) (int, int) {
	st.file.Matches++
	if m.opt.MaxCount > 0 && st.file.Matches >= m.opt.MaxCount {
		st.done = true // after-context is still owed, in searchChunk
	}
	switch m.opt.Mode {
	case FilesWithMatches:
		st.done = true
	case Content:
		curLine += bytes.Count(buf[cur:ls], nl)
		cur = ls
		m.emitTo(st, buf, ls, curLine)
		m.emit(st, buf, ls, le, curLine, true)
		st.after = m.opt.After
	}
	return cur, curLine
}

// searchInverted selects the lines of buf[from:] that do not match (grep's -v): every
// line goes through the regexp, as no literal can prove a line free of a match.
func (m *Engine) searchInverted(st *fileState, buf []byte, from int) {
	cur, curLine := 0, st.lineBase
	for pos := from; pos < len(buf) && !st.done; {
		le := lineEnd(buf, pos)
		if !m.re.Match(buf[pos:le]) {
			cur, curLine = m.matchedLine(st, buf, pos, le, cur, curLine)
		}
		pos = le + 1
	}
	if m.opt.Mode == Content && st.after > 0 {
		m.emitTo(st, buf, len(buf), -1)
	}
}

// emitTo emits owed after-context lines, then before-context lines, up to the line
// starting at ls (number lsLine; -1 means just settle after-context at chunk end).
func (m *Engine) emitTo(st *fileState, buf []byte, ls, lsLine int) {
	for st.after > 0 && st.lastEnd < ls {
		e := lineEnd(buf, st.lastEnd)
		// Past max_count the search has stopped, but a line of the after-context that
		// matches is still shown as a match, as ripgrep shows it.
		match := st.done && m.opt.MaxCount > 0 && m.re.Match(buf[st.lastEnd:e]) != m.opt.Invert
		m.emit(st, buf, st.lastEnd, e, st.lastLine, match)
		st.after--
	}
	if lsLine < 0 {
		return // chunk end: the rest of the after-context is owed to the next chunk
	}
	st.after = 0
	if m.opt.Before == 0 {
		return
	}
	b, k := ls, 0
	for k < m.opt.Before && b > st.lastEnd {
		b = bytes.LastIndexByte(buf[:b-1], '\n') + 1
		k++
	}
	for line := lsLine - k; b < ls; line++ {
		e := lineEnd(buf, b)
		m.emit(st, buf, b, e, line, false)
		b = e + 1
	}
}

func (m *Engine) emit(st *fileState, buf []byte, s, e, num int, match bool) {
	st.lastEnd, st.lastLine = min(e+1, len(buf)), num+1
	if e == len(buf) {
		st.lastEnd = len(buf)
	}
	if m.opt.OnlyMatching {
		// Each matched part is a line of its own, found in the whole line (a match past
		// the cut is still one) and cut on its own; context and inverted lines have none.
		if match && !m.opt.Invert {
			for _, loc := range m.re.FindAllIndex(buf[s:e], -1) {
				if loc[1] > loc[0] && !m.keep(st, buf, s+loc[0], s+loc[1], num, true) {
					return
				}
			}
		}
		return
	}
	m.keep(st, buf, s, e, num, match)
}

// keep adds buf[s:e] as one output line, cut to LineCap, unless the file has kept its
// share of lines (then it reports false).
func (m *Engine) keep(st *fileState, buf []byte, s, e, num int, match bool) bool {
	if m.opt.MaxLines > 0 && len(st.file.Lines) >= st.limit {
		st.file.linesCut = true
		return false
	}
	cut, skip := 0, 0
	if c := m.opt.LineCap; c > 0 && e-s > c {
		from := s
		if match && m.re != nil {
			// The window starts a quarter of the cap before the first match, which a
			// line's first bytes would not show.
			if loc := m.re.FindIndex(buf[s:e]); loc != nil && loc[0] > c/2 {
				from = min(s+loc[0]-c/4, e-c)
				from = runeStart(buf, s, from)
			}
		}
		k := runeStart(buf, from, from+c)
		skip, cut, s, e = from-s, e-k, from, k
	}
	st.file.Lines = append(st.file.Lines, Line{Num: num, Text: string(buf[s:e]), Match: match, Cut: cut, Skip: skip})
	return true
}

// runeStart backs k up to the first byte of the UTF-8 sequence it is in, at most three
// bytes and not before lo (a run of stray continuation bytes is no sequence to keep
// whole).
func runeStart(buf []byte, lo, k int) int {
	if k >= len(buf) {
		return k
	}
	j := k
	for i := 0; i < 3 && j > lo && buf[j]&0xC0 == 0x80; i++ {
		j--
	}
	if buf[j]&0xC0 == 0x80 {
		return k
	}
	return j
}

// neighboursOK reports whether a literal hit at buf[s:e] may be part of a match: the
// bytes around it are in the before/after classes. A non-ASCII neighbour is let through
// (the regexp decides), and the line's edges count as no neighbour.
func (m *Engine) neighboursOK(buf []byte, s, e int) bool {
	if m.before != nil {
		if s == 0 || buf[s-1] == '\n' {
			return false
		}
		if c := buf[s-1]; c < utf8.RuneSelf && !inClass(m.before, c) {
			return false
		}
	}
	if m.after != nil {
		if e >= len(buf) || buf[e] == '\n' {
			return false
		}
		if c := buf[e]; c < utf8.RuneSelf && !inClass(m.after, c) {
			return false
		}
	}
	return true
}

func lineEnd(buf []byte, p int) int {
	if k := bytes.IndexByte(buf[p:], '\n'); k >= 0 {
		return p + k
	}
	return len(buf)
}

// searchMultiline reads the whole file and lets matches span lines.
func (m *Engine) searchMultiline(w *worker, fd int, st *fileState) (File, status) {
	// A file known to be too large is skipped without reading (and buffering) the
	// first MultilineMaxBytes of it; the loop below still stops one that grows.
	var sys syscall.Stat_t
	if syscall.Fstat(fd, &sys) == nil && sys.Size > MultilineMaxBytes {
		return File{}, statusTooLarge
	}
	buf := w.buf[:0]
	for {
		if len(buf) == cap(buf) {
			if cap(buf) >= MultilineMaxBytes {
				return File{}, statusTooLarge
			}
			nb := make([]byte, len(buf), cap(buf)*2)
			copy(nb, buf)
			buf = nb
			w.buf = nb[:cap(nb)]
		}
		k, err := readFull(fd, buf[len(buf):cap(buf)])
		if err != nil {
			return File{}, statusError
		}
		if k == 0 {
			break
		}
		buf = buf[:len(buf)+k]
	}
	sawNUL := false
	if z := bytes.IndexByte(buf, 0); z >= 0 {
		if z < ChunkSize || m.opt.Mode == Count {
			return File{}, statusBinary
		}
		buf, sawNUL = buf[:z], true
	}
	var locs [][]int
	if len(buf) < interruptibleBytes || st.halt == nil {
		locs = m.re.FindAllIndex(buf, -1)
	} else if !interruptible(st.halt, func() { locs = m.re.FindAllIndex(buf, -1) }) {
		// The abandoned match goes on reading this buffer: the worker takes a new one.
		w.buf = make([]byte, ChunkSize)
		return File{}, statusHalted
	}
	if len(locs) == 0 {
		if sawNUL {
			return File{}, statusBinary
		}
		return st.file, statusOK
	}
	if m.opt.Mode == FilesWithMatches {
		st.file.Matches = 1
		return st.file, statusOK
	}
	// Mark every line a match touches: from the line of its first byte to the line of
	// its last (a match ending with a newline ends on that newline's line).
	cur, curLine := 0, 1
	lastMarked := 0
	for _, loc := range locs {
		s, e := loc[0], loc[1]
		if s == len(buf) && s > 0 && buf[s-1] == '\n' {
			continue // an empty match after the final newline is not a line
		}
		st.file.Matches++ // ripgrep counts matches, not lines, in multiline mode
		last := s
		if e > s {
			last = e - 1
		}
		ls := bytes.LastIndexByte(buf[:s], '\n') + 1
		curLine += bytes.Count(buf[cur:ls], nl)
		cur = ls
		for a, line := ls, curLine; ; line++ {
			b := lineEnd(buf, a)
			if line > lastMarked {
				if m.opt.Mode == Content {
					m.emitTo(st, buf, a, line)
					m.emit(st, buf, a, b, line, true)
					st.after = m.opt.After
				}
				lastMarked = line
			}
			if b >= last || b >= len(buf) {
				break
			}
			a = b + 1
		}
	}
	if m.opt.Mode == Content && st.after > 0 {
		m.emitTo(st, buf, len(buf), -1)
	}
	return st.file, statusOK
}

func readFull(fd int, p []byte) (int, error) {
	for {
		k, err := syscall.Read(fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			return 0, err
		}
		if k < 0 {
			k = 0
		}
		return k, err
	}
}

// TuneGC is for a short-lived search process: it turns the collector off and sets a
// memory limit instead (measured ~15% faster), so the heap is only collected if it
// nears limit bytes. Call it only from commands that search.
func TuneGC(limit int64) {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
}

var gcPause struct {
	sync.Mutex
	n              int
	percent, limit int64
}

// PauseGC is TuneGC for code that may run inside a long-lived process (the MCP server):
// it turns the collector off with a memory limit until the returned func is called.
// Overlapping calls nest; the last release restores the settings the first one found.
func PauseGC(limit int64) (release func()) {
	gcPause.Lock()
	if gcPause.n == 0 {
		gcPause.percent = int64(debug.SetGCPercent(-1))
		gcPause.limit = debug.SetMemoryLimit(limit)
	}
	gcPause.n++
	gcPause.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gcPause.Lock()
			defer gcPause.Unlock()
			if gcPause.n--; gcPause.n == 0 {
				debug.SetGCPercent(int(gcPause.percent))
				debug.SetMemoryLimit(gcPause.limit)
			}
		})
	}
}

// MatchIndexes returns where the pattern matches inside one line (for colouring).
func (m *Engine) MatchIndexes(line string) [][]int {
	return m.re.FindAllStringIndex(line, -1)
}

func statPath(p string) (fs.FileInfo, error) { return os.Stat(p) }

// keptLines holds a search's content lines to Options.MaxLines: the first ones in the
// result's order, whatever order the files finish in. Files arrive whole (a file keeps
// at most max lines itself); past max, lines go from the end of the last file in
// order, and once the cap is full a file that sorts after the last one kept is
// searched with no room for lines at all (its matches still count). The caller holds
// its lock around add; limitFor reads the bound without it.
type keptLines struct {
	less  func(a, b *File) bool
	max   int
	n     int   // lines kept
	heap  []int // files with lines kept, the last in order on top
	bound atomic.Pointer[File]
	cut   bool
}

// limitFor is how many lines the file at path (modified at mtime) may keep.
func (k *keptLines) limitFor(path string, mtime time.Time) int {
	if b := k.bound.Load(); b != nil && !k.less(&File{Path: path, ModTime: mtime}, b) {
		return 0
	}
	return k.max
}

// add takes files[i] (just appended) into the count and trims the lines past max.
func (k *keptLines) add(files []File, i int) {
	if files[i].linesCut {
		k.cut = true
	}
	if k.max <= 0 || len(files[i].Lines) == 0 {
		return
	}
	after := func(a, b int) bool { return k.less(&files[b], &files[a]) }
	k.heap = append(k.heap, i)
	for c := len(k.heap) - 1; c > 0; { // sift up
		p := (c - 1) / 2
		if !after(k.heap[c], k.heap[p]) {
			break
		}
		k.heap[c], k.heap[p] = k.heap[p], k.heap[c]
		c = p
	}
	k.n += len(files[i].Lines)
	for k.n > k.max {
		k.cut = true
		top := &files[k.heap[0]]
		if excess := k.n - k.max; excess < len(top.Lines) {
			top.Lines = top.Lines[:len(top.Lines)-excess]
			k.n = k.max
			break
		}
		k.n -= len(top.Lines)
		top.Lines, top.linesCut = nil, true
		last := len(k.heap) - 1
		k.heap[0] = k.heap[last]
		k.heap = k.heap[:last]
		for c := 0; ; { // sift down
			l, r, big := 2*c+1, 2*c+2, c
			if l < len(k.heap) && after(k.heap[l], k.heap[big]) {
				big = l
			}
			if r < len(k.heap) && after(k.heap[r], k.heap[big]) {
				big = r
			}
			if big == c {
				break
			}
			k.heap[c], k.heap[big] = k.heap[big], k.heap[c]
			c = big
		}
	}
	if k.n == k.max && len(k.heap) > 0 {
		last := files[k.heap[0]]
		k.bound.Store(&File{Path: last.Path, ModTime: last.ModTime})
	}
}

// interruptibleBytes is the size from which one regular-expression call over a file
// is made interruptible: a heavy expression over 20 MB took 12 s, past the time budget
// and deaf to SIGTERM (red team).
const interruptibleBytes = 1 << 20

// interruptible runs f, giving up once halt says the search is over (reported false);
// f then runs to its end in the background, its result unused (a Go regexp cannot be
// stopped, and its time is linear in its input).
func interruptible(halt func() bool, f func()) bool {
	done := make(chan struct{})
	go func() {
		f()
		close(done)
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return true
		case <-tick.C:
			if halt() {
				return false
			}
		}
	}
}
