package patch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentbox/agentbox/core/textedit"
	"github.com/agentbox/agentbox/core/textfmt"
)

// FS is the file system a patch is applied to. The caller provides it, so an application
// can route every access through its own confinement and permission checks.
type FS interface {
	// ReadFile returns a file's content and mode (permission bits, and the setuid,
	// setgid and sticky bits a move or a restore must keep); an error satisfying
	// errors.Is(err, fs.ErrNotExist) when it does not exist.
	ReadFile(name string) ([]byte, fs.FileMode, error)
	// WriteFile replaces or creates name atomically (temp file + rename), creating parent
	// directories as needed.
	WriteFile(name string, data []byte, mode fs.FileMode) error
	// Remove deletes a file.
	Remove(name string) error
}

// Canonicalizer is an optional FS method that maps a name to the one name of its file
// (typically an absolute path). Prepare uses it to see that "a.txt" and "./a.txt" are the
// same file, and Commit records canonical names in the journal, so Recover finds the files
// even when it runs from another working directory.
type Canonicalizer interface {
	Canonical(name string) (string, error)
}

// TempSweeper is an optional FS method that removes what an interrupted WriteFile of
// name may have left (its temporary file). Recover calls it for every file of the
// interrupted commit, so a kill in the middle of a write leaves no litter behind.
type TempSweeper interface {
	SweepTemp(name string) error
}

// Error kinds.
const (
	KindNotFound  = "not_found"       // a file to update or delete does not exist
	KindExists    = "exists"          // a file to add, or a move target, already exists
	KindNoMatch   = "no_match"        // a hunk's lines are not in the file
	KindAmbiguous = "ambiguous_match" // a hunk's lines are in the file more than once
	KindConflict  = "conflict"        // the file changed between Prepare and Commit, or a delete does not match
	KindIO        = "io_error"        // the FS failed
	KindBinary    = "binary_file"     // the file to update is binary or UTF-16 (see core/textfmt)
	KindInvalid   = "invalid_params"  // the patch asks for what patch does not do (delete a file through a link)
	KindReadOnly  = "read_only"       // the patch removes or moves a read-only file
)

// Linker is an optional FS method: whether name, as written, is a symbolic link (and
// to what). Prepare refuses to delete or move a link: the FS reads and writes through
// it, so the link's target would be removed and the link left dangling. Prepare asks
// before it reads the file, so that an FS may pin the name to the entry it found.
type Linker interface {
	Link(name string) (target string, ok bool)
}

// Error is a patch that could not be applied. Nothing was written when Prepare returns
// one; Commit says in Msg whether its rollback succeeded.
type Error struct {
	Kind       string
	Path       string
	Hunk       int      // 1-based index of the hunk within its file; 0 if not about a hunk
	PatchLine  int      // the patch line the hunk or file section starts at
	Candidates []int    // ambiguous: 1-based file lines where the hunk matches
	Nearest    *Nearest // no_match: the closest lines of the file
	Msg        string
	Err        error
}

// Nearest is the region of a file most like a hunk that did not match.
type Nearest struct {
	StartLine int      `json:"start_line"` // 1-based
	Matching  int      `json:"matching"`   // how many of the hunk's lines match (ignoring whitespace and punctuation)
	Of        int      `json:"of"`         // how many lines the hunk expects
	Lines     []string `json:"lines"`      // the file's lines there
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Hunk > 0 {
		fmt.Fprintf(&b, ": hunk %d", e.Hunk)
		if e.PatchLine > 0 {
			fmt.Fprintf(&b, " (patch line %d)", e.PatchLine)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if n := e.Nearest; n != nil {
		fmt.Fprintf(&b, "\nnearest lines (%d of %d expected lines match), from line %d:", n.Matching, n.Of, n.StartLine)
		for i, l := range n.Lines {
			fmt.Fprintf(&b, "\n%6d\t%s", n.StartLine+i, l)
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// HunkResult says where and how one hunk was located.
type HunkResult struct {
	Stage string `json:"stage"` // exact, trailing_whitespace, leading_whitespace, unicode_punctuation
	Line  int    `json:"line"`  // 1-based line of the original file where the hunk starts
}

// FileResult is what the patch does to one file.
type FileResult struct {
	Op      Op
	Path    string
	NewPath string
	Added   int // lines added
	Removed int // lines removed
	Hunks   []HunkResult
	NewMode fs.FileMode // the permission bits a git `new mode` line gave it (0: unchanged)
	Old     []byte      // the content before (nil for an added file)
	New     []byte      // the content after (nil for a deleted file)
}

// Target is the path the file has after the patch.
func (f *FileResult) Target() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.Path
}

// Result is a prepared patch: every file's new content, computed and not yet written.
type Result struct {
	Files  []*FileResult
	writes []*write
}

// state is a file's content at one point: absent, or data with a mode.
type state struct {
	exists bool
	data   []byte
	mode   fs.FileMode
}

func (s state) equal(o state) bool {
	return s.exists == o.exists && (!s.exists || bytes.Equal(s.data, o.data))
}

// write is one path's net change.
type write struct {
	path       string
	orig, next state
}

// Prepare locates every hunk and computes every file's new content without writing.
func Prepare(p *Patch, fsys FS) (*Result, error) {
	pr := &preparer{fsys: fsys, cur: map[string]*state{}, orig: map[string]state{}}
	res := &Result{}
	for _, fp := range p.Files {
		fr, err := pr.file(fp)
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, fr)
	}
	for _, k := range pr.order {
		o, n := pr.orig[k], *pr.cur[k]
		if !o.equal(n) || (o.exists && n.exists && o.mode != n.mode) {
			res.writes = append(res.writes, &write{path: k, orig: o, next: n})
		}
	}
	return res, nil
}

type preparer struct {
	fsys  FS
	cur   map[string]*state // the content as earlier file sections left it
	orig  map[string]state
	order []string
}

func (pr *preparer) load(path string) (*state, error) {
	key := filepath.Clean(path)
	if c, ok := pr.fsys.(Canonicalizer); ok {
		k, err := c.Canonical(path)
		if err != nil {
			return nil, &Error{Kind: KindIO, Path: path, Msg: err.Error(), Err: err}
		}
		key = k
	}
	if s, ok := pr.cur[key]; ok {
		return s, nil
	}
	data, mode, err := pr.fsys.ReadFile(key)
	s := state{exists: err == nil, data: data, mode: mode}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Kind: KindIO, Path: path, Msg: err.Error(), Err: err}
		}
		s.data = nil
	}
	pr.orig[key] = s
	pr.order = append(pr.order, key)
	c := s
	pr.cur[key] = &c
	return &c, nil
}

func (pr *preparer) file(fp *FilePatch) (*FileResult, error) {
	fr := &FileResult{Op: fp.Op, Path: fp.Path, NewPath: fp.NewPath}
	moves := fp.NewPath != "" && filepath.Clean(fp.NewPath) != filepath.Clean(fp.Path)
	if lk, ok := pr.fsys.(Linker); ok && (fp.Op == OpDelete || moves) {
		// Asked before the file is read: the FS then reads, checks and removes the
		// entry the name gives, never a link's target.
		if target, isLink := lk.Link(fp.Path); isLink {
			verb := "deletes"
			if fp.Op != OpDelete {
				verb = "moves"
			}
			return nil, &Error{Kind: KindInvalid, Path: fp.Path, PatchLine: fp.Line,
				Msg: fmt.Sprintf("the patch %s this path, which is a symbolic link to %s: patch reads and writes through links, so it would %s the file the link points to and leave the link dangling; remove or move the link itself with bash (rm, mv), or name the file", verb, target, strings.TrimSuffix(verb, "s"))}
		}
	}
	src, err := pr.load(fp.Path)
	if err != nil {
		return nil, err
	}
	switch fp.Op {
	case OpAdd:
		if src.exists {
			return nil, &Error{Kind: KindExists, Path: fp.Path, PatchLine: fp.Line,
				Msg: "the patch adds this file but it already exists; use an `*** Update File:` section (or a diff against its content) to change it, or delete it first"}
		}
		var t text
		for _, h := range fp.Hunks {
			for _, l := range h.Lines {
				if l.Kind == '+' {
					t.lines = append(t.lines, line{text: l.Text, eol: lineEnding(l.CR)})
				}
			}
			if h.NewNoEOL && len(t.lines) > 0 {
				t.lines[len(t.lines)-1].eol = ""
			}
		}
		fr.Added = len(t.lines)
		fr.New = t.encode()
		mode := fp.mode()
		*src = state{exists: true, data: fr.New, mode: mode}
		return fr, nil
	}
	if !src.exists {
		verb := "updates"
		if fp.Op == OpDelete {
			verb = "deletes"
		}
		return nil, &Error{Kind: KindNotFound, Path: fp.Path, PatchLine: fp.Line,
			Msg: fmt.Sprintf("the patch %s this file but it does not exist; check the path (to create a file use `*** Add File:`)", verb)}
	}
	if fp.Op == OpDelete || moves {
		verb := "deletes"
		if fp.Op != OpDelete {
			verb = "moves"
		}
		if src.mode&0o222 == 0 {
			// write and edit refuse such a file; removing it is no less a change.
			return nil, &Error{Kind: KindReadOnly, Path: fp.Path, PatchLine: fp.Line,
				Msg: fmt.Sprintf("the patch %s this file, which is read-only (mode %04o: no one may write it), so it was left untouched; if the change is intended, make it writable first (chmod u+w) and call again", verb, src.mode&fs.ModePerm)}
		}
	}
	fr.Old = src.data
	if fp.Op != OpDelete || len(fp.Hunks) > 0 {
		if why := textfmt.BinaryReason(src.data); why != "" {
			return nil, &Error{Kind: KindBinary, Path: fp.Path, PatchLine: fp.Line,
				Msg: fmt.Sprintf("the file looks binary (%s in its first 4 KB); patch changes text files only", why)}
		}
		if enc, _ := textfmt.Encoding(src.data); textfmt.Wide(enc) {
			return nil, &Error{Kind: KindBinary, Path: fp.Path, PatchLine: fp.Line,
				Msg: fmt.Sprintf("the file is %s; patch changes UTF-8 files only, so change it with edit, which keeps its encoding", enc)}
		}
		if bytes.IndexByte(src.data, '\n') < 0 && bytes.IndexByte(src.data, '\r') >= 0 {
			// A hunk's lines would all be one line of this file: no hunk could match.
			return nil, &Error{Kind: KindBinary, Path: fp.Path, PatchLine: fp.Line,
				Msg: "the file's lines end in a lone CR (classic Mac OS); patch changes files whose lines end in LF or CR LF, so change it with edit, which keeps its line endings"}
		}
	}
	t := decode(src.data)
	if fp.mentionsBOM() && t.bom {
		// The diff carries the BOM in its lines (git diff and diff -u see bytes): it is
		// the first line's, to match and to move as the diff says.
		t.bom = false
		if len(t.lines) == 0 {
			t.lines = []line{{}}
		}
		t.lines[0].text = "\ufeff" + t.lines[0].text
	}
	if fp.Op == OpDelete {
		fr.Removed = len(t.lines)
		if fp.Diff && len(fp.Hunks) == 0 && len(src.data) > 0 {
			// git writes the lines of a deleted file; none means it was empty.
			return nil, &Error{Kind: KindConflict, Path: fp.Path, PatchLine: fp.Line,
				Msg: fmt.Sprintf("the diff deletes this file as an empty one, but it holds %d bytes; re-read it and regenerate the diff", len(src.data))}
		}
		if len(fp.Hunks) > 0 {
			nt, _, err := applyHunks(fp, t)
			if err != nil {
				return nil, err
			}
			if len(nt.lines) > 0 {
				return nil, &Error{Kind: KindConflict, Path: fp.Path, PatchLine: fp.Line,
					Msg: fmt.Sprintf("the diff deletes this file, but the file has %d lines the diff does not remove; re-read the file and regenerate the diff", len(nt.lines))}
			}
		}
		*src = state{}
		return fr, nil
	}
	if len(fp.Hunks) == 1 && fp.Hunks[0].OldEmpty && len(src.data) > 0 {
		// git apply refuses it too: a diff written for a new or empty file would end up
		// in front of the file's own lines.
		return nil, &Error{Kind: KindConflict, Path: fp.Path, Hunk: 1, PatchLine: fp.Hunks[0].Line,
			Msg: fmt.Sprintf("the hunk `@@ -0,0` describes an empty file, but this file has %d lines; to add lines at its top, give the hunk the file's first lines as context (` ` lines); to replace the whole file, use write", len(t.lines))}
	}
	nt, hunks, err := applyHunks(fp, t)
	if err != nil {
		return nil, err
	}
	fr.Hunks = hunks
	for _, h := range fp.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case '+':
				fr.Added++
			case '-':
				fr.Removed++
			}
		}
	}
	fr.New = nt.encode()
	mode := src.mode
	if fp.NewMode != 0 {
		mode = mode&^0o777 | fp.NewMode
		fr.NewMode = fp.NewMode
	}
	if fp.NewPath != "" && filepath.Clean(fp.NewPath) != filepath.Clean(fp.Path) {
		dst, err := pr.load(fp.NewPath)
		if err != nil {
			return nil, err
		}
		if dst == src {
			*src = state{exists: true, data: fr.New, mode: mode}
			return fr, nil
		}
		if dst.exists {
			return nil, &Error{Kind: KindExists, Path: fp.NewPath, PatchLine: fp.Line,
				Msg: fmt.Sprintf("the patch moves %s here but this file already exists; delete it first or move elsewhere", fp.Path)}
		}
		*src = state{}
		*dst = state{exists: true, data: fr.New, mode: mode}
		return fr, nil
	}
	*src = state{exists: true, data: fr.New, mode: mode}
	return fr, nil
}

func (fp *FilePatch) mode() fs.FileMode {
	if fp.Mode != 0 {
		return fp.Mode
	}
	return 0o644
}

// applyHunks locates every hunk in the original lines (in order, without overlap) and
// then splices the replacements in. A diff whose hunks do not apply in the order they
// are written but whose line numbers put them in another order (hunks pasted out of
// order) is tried once more in that order, as git apply and patch take hunks in any
// order; a diff that applies as written is never reordered, since a model's line
// numbers are often wrong.
func applyHunks(fp *FilePatch, t text) (text, []HunkResult, error) {
	order := make([]int, len(fp.Hunks))
	for i := range order {
		order[i] = i
	}
	out, results, err := applyHunksInOrder(fp, t, order)
	var pe *Error
	if err == nil || !errors.As(err, &pe) || pe.Kind != KindNoMatch {
		return out, results, err
	}
	byLine := slices.Clone(order)
	slices.SortStableFunc(byLine, func(a, b int) int { return fp.Hunks[a].OldStart - fp.Hunks[b].OldStart })
	if fp.Hunks[byLine[0]].OldStart == 0 || slices.Equal(byLine, order) {
		return out, results, err // no line numbers, or already in their order
	}
	if out, results, rerr := applyHunksInOrder(fp, t, byLine); rerr == nil {
		return out, results, nil
	}
	return out, results, err
}

// applyHunksInOrder applies the hunks, taking them in the given order (indexes into
// fp.Hunks); results are in the patch's order.
func applyHunksInOrder(fp *FilePatch, t text, order []int) (text, []HunkResult, error) {
	type placed struct {
		pos, n int
		stage  string
		repl   []line
		h      *Hunk
		idx    int
	}
	var all []placed
	cursor, delta := 0, 0
	for _, i := range order {
		h := fp.Hunks[i]
		pos, stage, err := locate(fp, i, h, t, cursor, delta)
		if err != nil {
			return text{}, nil, err
		}
		old := h.Old()
		if h.OldStart > 0 {
			delta = pos - (h.OldStart - 1)
		}
		explicit := fp.explicitEndings() && endingsAgree(h, t, pos)
		repl, err := replacement(h, t, pos, stage, explicit)
		if err != nil {
			return text{}, nil, &Error{Kind: KindAmbiguous, Path: fp.Path, Hunk: i + 1, PatchLine: h.Line, Msg: err.Error()}
		}
		all = append(all, placed{pos: pos, n: len(old), stage: stage, repl: repl, h: h, idx: i})
		cursor = pos + len(old)
	}
	out := text{bom: t.bom, eol: t.eol}
	prev := 0
	results := make([]HunkResult, len(all))
	for _, p := range all {
		h := p.h
		out.lines = append(out.lines, t.lines[prev:p.pos]...)
		repl := p.repl
		atEnd := p.pos+p.n == len(t.lines)
		out.lines = append(out.lines, repl...)
		if atEnd && len(out.lines) > 0 {
			last := &out.lines[len(out.lines)-1]
			switch {
			case len(repl) == 0 && (h.OldNoEOL || h.NewNoEOL):
				// The hunk removed the file's last lines: the line now last is one it
				// left alone, which keeps its own ending, as git leaves it.
			case h.NewNoEOL && h.OldNoEOL && t.finalNewline():
				// Both sides say the file ends without a newline, and it ends with one:
				// the hunk does not change the ending (its old side is wrong about it,
				// where git refuses), so the file keeps it (red team: the newline was
				// dropped).
				if last.eol == "" {
					last.eol = out.eolBefore(len(out.lines) - 1)
				}
			case h.NewNoEOL:
				last.eol = ""
			case h.OldNoEOL && last.eol == "":
				last.eol = out.eolBefore(len(out.lines) - 1)
			case h.OldNoEOL:
				// A context line that was not last keeps its own ending.
			case !t.finalNewline():
				// The file had no final newline: the line that now ends it has none
				// either, unless it is empty (it would be no line at all).
				if last.text != "" {
					last.eol = ""
				}
			case last.eol == "":
				last.eol = out.eolBefore(len(out.lines) - 1)
			}
		}
		prev = p.pos + p.n
		results[p.idx] = HunkResult{Stage: p.stage, Line: p.pos + 1}
	}
	out.lines = append(out.lines, t.lines[prev:]...)
	// A line that was last and had no ending but now has lines after it needs one.
	for i := 0; i+1 < len(out.lines); i++ {
		if out.lines[i].eol == "" {
			out.lines[i].eol = out.eolBefore(i)
		}
	}
	return out, results, nil
}

// sameIndent reports whether every line of a is indented as the line of b beside it.
func sameIndent(a, b []string) bool {
	for i := range a {
		if leadingSpace(a[i]) != leadingSpace(b[i]) {
			return false
		}
	}
	return true
}

// endingsAgree reports whether the endings a hunk's context and removed lines carry
// are the file's at pos: only then do its added lines' endings speak for this file (a
// diff of a CRLF file applied to a copy converted to LF keeps the copy's LF).
func endingsAgree(h *Hunk, t text, pos int) bool {
	k := pos
	for _, l := range h.Lines {
		if l.Kind == '+' {
			continue
		}
		if k < len(t.lines) && t.lines[k].eol != "" && t.lines[k].eol != lineEnding(l.CR) {
			return false
		}
		k++
	}
	return true
}

// lineEnding is the ending of a patch line that had a CR before its LF, or not.
func lineEnding(cr bool) string {
	if cr {
		return "\r\n"
	}
	return "\n"
}

// explicitEndings reports whether the section's lines carry the files' own endings
// (some line has a CR of the file's): then an added line without one ends in LF.
func (fp *FilePatch) explicitEndings() bool {
	for _, h := range fp.Hunks {
		for _, l := range h.Lines {
			if l.CR {
				return true
			}
		}
	}
	return false
}

// mentionsBOM reports whether the section's lines carry a byte-order mark.
func (fp *FilePatch) mentionsBOM() bool {
	for _, h := range fp.Hunks {
		for _, l := range h.Lines {
			if strings.HasPrefix(l.Text, "\ufeff") {
				return true
			}
		}
	}
	return false
}

// replacement builds the lines that replace a located hunk: context lines keep the file's
// own text (the patch may differ in whitespace or punctuation), added lines take the
// line endings of the lines they replace (addedEndings) and, for whitespace-tolerant
// matches, the file's indentation.
func replacement(h *Hunk, t text, pos int, stage string, explicit bool) ([]line, error) {
	from, to := "", ""
	var oldLines, fileLines []string
	if stage == StageLeading || stage == StageUnicode {
		k := pos
		for _, l := range h.Lines {
			if l.Kind == '+' {
				continue
			}
			if strings.TrimSpace(l.Text) != "" && k < len(t.lines) {
				if oldLines == nil {
					from, to = leadingSpace(l.Text), leadingSpace(t.lines[k].text)
				}
				oldLines, fileLines = append(oldLines, l.Text), append(fileLines, t.lines[k].text)
			}
			k++
		}
		if sameIndent(oldLines, fileLines) {
			// Matched past punctuation or trailing blanks only: the hunk's
			// indentation is the file's, and its added lines are kept as written.
			oldLines, from, to = nil, "", ""
		}
	}
	if oldLines != nil && hasAdded(h) && allIndented(oldLines, leadingSpace(oldLines[0])) && !allIndented(fileLines, leadingSpace(fileLines[0])) {
		// Written flat (every line at one indentation) over lines of several depths:
		// how deep an added line goes is not in the hunk, and Python changes meaning
		// with a wrong guess.
		return nil, fmt.Errorf("the hunk is written without indentation, but the lines it matches are at different depths (%q and %q in the file), so how deep its added lines go would be a guess: write the hunk with the file's indentation", strings.TrimSpace(fileLines[0]), strings.TrimSpace(otherDepth(fileLines)))
	}
	var out []line
	eols := addedEndings(h, t, pos, explicit)
	k := pos
	for i, l := range h.Lines {
		switch l.Kind {
		case '+':
			s := l.Text
			// The change of indentation the hunk's lines share with the file's (tabs
			// for spaces, a shift) applies to the added lines; failing that, the first
			// line's prefix is swapped.
			if mapped, ok := textedit.ShiftIndent(oldLines, fileLines, s); ok && oldLines != nil {
				s = mapped
			} else if from != to && strings.HasPrefix(s, from) {
				s = to + s[len(from):]
			}
			out = append(out, line{text: s, eol: eols[i]})
		case '-':
			k++
		default:
			out = append(out, t.lines[k])
			k++
		}
	}
	return out, nil
}

// allIndented reports whether every non-blank line starts with exactly ind.
func allIndented(lines []string, ind string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" && leadingSpace(l) != ind {
			return false
		}
	}
	return true
}

// hasAdded reports whether the hunk adds a line.
func hasAdded(h *Hunk) bool {
	for _, l := range h.Lines {
		if l.Kind == '+' {
			return true
		}
	}
	return false
}

// otherDepth is the first of lines indented otherwise than the first.
func otherDepth(lines []string) string {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" && leadingSpace(l) != leadingSpace(lines[0]) {
			return l
		}
	}
	return ""
}

// addedEndings gives each added line of h (by its index in h.Lines) a line ending, as
// GNU patch keeps them: in a run of removed and added lines, the added ones take the
// endings of the removed ones in order, so a file of mixed endings keeps every line's
// own. Added lines beyond those take the ending of the run's last removed line or, where
// the run only adds, of the line above it (below it at the top of the file). In a file
// of one ending that is always the file's.
func addedEndings(h *Hunk, t text, pos int, explicit bool) []string {
	eols := make([]string, len(h.Lines))
	if explicit {
		// The diff has the files' own endings (git diff of a CRLF file): each added
		// line takes the one it has there, as git apply writes it.
		for i, l := range h.Lines {
			eols[i] = lineEnding(l.CR)
		}
		return eols
	}
	k := pos
	for i := 0; i < len(h.Lines); {
		if c := h.Lines[i].Kind; c != '+' && c != '-' {
			i++
			k++
			continue
		}
		var removed []string
		j, first := i, k
		for ; j < len(h.Lines) && (h.Lines[j].Kind == '+' || h.Lines[j].Kind == '-'); j++ {
			if h.Lines[j].Kind == '-' {
				if k < len(t.lines) {
					removed = append(removed, t.lines[k].eol)
				}
				k++
			}
		}
		near := ""
		for _, e := range removed {
			if e != "" {
				near = e
			}
		}
		if near == "" && first > 0 && first <= len(t.lines) {
			near = t.lines[first-1].eol
		}
		if near == "" && k < len(t.lines) {
			near = t.lines[k].eol
		}
		if near == "" {
			near = t.eol
		}
		n := 0
		for ; i < j; i++ {
			if h.Lines[i].Kind != '+' {
				continue
			}
			eols[i] = near
			if n < len(removed) && removed[n] != "" {
				eols[i] = removed[n]
			}
			n++
		}
	}
	return eols
}

// locate finds the one place hunk h fits, trying the stages in order.
func locate(fp *FilePatch, idx int, h *Hunk, t text, cursor, delta int) (int, string, error) {
	old := h.Old()
	lo, hi := cursor, len(t.lines) // candidate start positions are in [lo, hi]
	// @@ context headers narrow the search to after the first line that matches each (the
	// hunk may begin on the header line itself); the region ends where the last header
	// occurs again, so a repeated header is not taken for the next occurrence's body.
	for ci, c := range h.Context {
		at := findLine(t, c, lo)
		if at < 0 {
			e := &Error{Kind: KindNoMatch, Path: fp.Path, Hunk: idx + 1, PatchLine: h.Line,
				Msg: fmt.Sprintf("the @@ context line %q is not in the file after line %d; re-read the file and copy the line exactly", c, lo)}
			e.Nearest = nearest(t, []string{c}, 0, len(t.lines))
			return 0, "", e
		}
		lo = at
		if ci == len(h.Context)-1 {
			if again := findLine(t, c, at+1); again >= 0 {
				hi = again
			}
		}
	}
	if len(old) == 0 {
		// Pure insertion: where the diff's line number says, else after the context
		// header, else at the end of the file.
		pos := hi
		switch {
		case h.OldStart > 0:
			pos = min(max(h.OldStart-1+delta, lo), len(t.lines))
		case len(h.Context) > 0:
			pos = min(lo+1, len(t.lines))
		}
		return pos, StageExact, nil
	}
	hint := -1
	if h.OldStart > 0 {
		hint = h.OldStart - 1 + delta
	}
	for _, stage := range stages {
		want := make([]string, len(old))
		for i, s := range old {
			want[i] = normalize(stage, s)
		}
		var cands []int
		last := min(hi, len(t.lines)-len(old))
		first := lo
		if h.AtEOF || h.OldNoEOL || h.NewNoEOL {
			// (a diff's side without a final newline is the file's end)
			first = max(first, last)
		}
		for p := first; p <= last; p++ {
			if matchAt(t, p, want, stage) && (stage == StageExact || stage == StageTrailing || uniformIndent(t, p, old)) {
				cands = append(cands, p)
			}
		}
		switch {
		case len(cands) == 1:
			return cands[0], stage, nil
		case len(cands) > 1:
			if at, ok := edgeCandidate(h, cands, len(t.lines)-len(old)); ok {
				return at, stage, nil
			}
			for _, c := range cands {
				if c == hint {
					return c, stage, nil
				}
			}
			lines := make([]int, len(cands))
			for i, c := range cands {
				lines[i] = c + 1
			}
			return 0, "", &Error{Kind: KindAmbiguous, Path: fp.Path, Hunk: idx + 1, PatchLine: h.Line, Candidates: lines,
				Msg: fmt.Sprintf("the hunk's lines match %d places (lines %s, stage %s); add more context lines or an `@@` line naming the enclosing function so it matches once", len(cands), joinInts(lines), stage)}
		}
	}
	e := &Error{Kind: KindNoMatch, Path: fp.Path, Hunk: idx + 1, PatchLine: h.Line,
		Msg: "the hunk's context and removed lines are not in the file (also tried ignoring whitespace and Unicode punctuation); re-read the file and regenerate the hunk from its current content"}
	if h.AtEOF {
		e.Msg = "the hunk is marked `*** End of File` but its lines are not the file's last lines; re-read the end of the file"
	}
	if slices.ContainsFunc(old, func(l string) bool { return strings.ContainsRune(l, utf8.RuneError) }) &&
		slices.ContainsFunc(t.lines, func(l line) bool { return !utf8.ValidString(l.text) }) {
		e.Msg += ". Its lines hold U+FFFD, which read shows for each byte of the file that is not UTF-8 (Latin-1, Shift-JIS): such bytes cannot be matched from a copy; change those lines with edit, starting and ending old_string at the text around them"
	}
	e.Nearest = nearest(t, old, lo, len(t.lines))
	return 0, "", e
}

// edgeCandidate picks, among several places a diff's hunk matches, the one at the
// file's edge its context says it is at, as git apply anchors such a hunk: with
// context before its changes and none after, a diff tool wrote it at the end of the
// file (end is the last place it can start); with none before, starting at line 1,
// at the start.
func edgeCandidate(h *Hunk, cands []int, end int) (int, bool) {
	if h.OldStart == 0 || len(h.Lines) == 0 {
		return 0, false // not a diff's hunk: no line numbers, no edge to infer
	}
	leading, trailing := h.Lines[0].Kind == ' ', h.Lines[len(h.Lines)-1].Kind == ' '
	switch {
	case leading && !trailing && cands[len(cands)-1] == end:
		return end, true
	case trailing && !leading && h.OldStart == 1 && cands[0] == 0:
		return 0, true
	}
	return 0, false
}

// uniformIndent reports whether the hunk's old lines are indented as the file's lines
// at p but for one change made to all of them: a stage that ignores leading whitespace
// must not take a line the hunk nests differently (a y() the hunk puts inside an if
// that the file has after it). A hunk whose lines all share one indentation says
// nothing of nesting (it was written without it, as codex's trimmed match allows) and
// matches any.
func uniformIndent(t text, p int, old []string) bool {
	file := make([]string, len(old))
	flat := true
	for i, l := range old {
		file[i] = t.lines[p+i].text
		if strings.TrimSpace(l) != "" && leadingSpace(l) != leadingSpace(old[0]) {
			flat = false
		}
	}
	return flat || textedit.UniformIndent(old, file)
}

func matchAt(t text, p int, want []string, stage string) bool {
	for i, w := range want {
		if normalize(stage, t.lines[p+i].text) != w {
			return false
		}
	}
	return true
}

// findLine returns the first line at or after from that equals s under any stage.
func findLine(t text, s string, from int) int {
	for _, stage := range stages {
		w := normalize(stage, s)
		for i := from; i < len(t.lines); i++ {
			if normalize(stage, t.lines[i].text) == w {
				return i
			}
		}
	}
	return -1
}

// nearest finds the window of the file where most of want's lines match loosely.
func nearest(t text, want []string, lo, hi int) *Nearest {
	n := len(want)
	if n == 0 || len(t.lines) == 0 {
		return nil
	}
	w := make([]string, n)
	for i, s := range want {
		w[i] = normalize(StageUnicode, s)
	}
	norm := make([]string, len(t.lines))
	for i, l := range t.lines {
		norm[i] = normalize(StageUnicode, l.text)
	}
	best, bestAt := 0, 0
	const budget = 4 << 20 // line comparisons; beyond it only windows anchored on a match
	exhaustive := len(t.lines)*n <= budget
	for p := max(0, lo-n+1); p < hi; p++ {
		score := 0
		for i := 0; i < n && p+i < len(norm); i++ {
			if norm[p+i] == w[i] && w[i] != "" {
				score++
			}
		}
		if score > best {
			best, bestAt = score, p
		}
		if !exhaustive && p > lo+budget/n {
			break
		}
	}
	if best == 0 {
		return nil
	}
	end := min(bestAt+max(n, 1), len(t.lines), bestAt+12)
	r := &Nearest{StartLine: bestAt + 1, Matching: best, Of: n}
	for _, l := range t.lines[bestAt:end] {
		r.Lines = append(r.Lines, l.text)
	}
	return r
}

// joinInts lists line numbers for a message: the first 20, then how many more, so a
// text that matches 200,000 places still gets a short error.
func joinInts(xs []int) string {
	const show = 20
	n := min(len(xs), show)
	parts := make([]string, n)
	for i, x := range xs[:n] {
		parts[i] = fmt.Sprint(x)
	}
	out := strings.Join(parts, ", ")
	if len(xs) > show {
		out += fmt.Sprintf(" and %d more", len(xs)-show)
	}
	return out
}
