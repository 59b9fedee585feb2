// Package patch parses and applies multi-file patches: the apply_patch format that coding
// models are trained to emit (`*** Begin Patch` … `*** End Patch`) and unified diffs (plain
// `diff -u` and `git diff` output with renames, new and deleted files).
//
// Both formats parse into one model, a Patch of FilePatches made of Hunks of Lines, so
// everything after parsing is shared. Applying happens in two separate steps:
//
//  1. Prepare reads every file through the caller's FS, locates every hunk and computes the
//     full new content of every file in memory. Nothing is written; any failure (a hunk that
//     cannot be located, or can be located in more than one place) fails the whole patch and
//     names the file, the hunk and the nearest matching lines.
//  2. Commit writes all files through the FS (whose writes must be atomic: temp + rename),
//     re-checking first that nobody changed them since Prepare, and undoes what it wrote if a
//     write fails part-way. Before the first write it saves a journal of the original
//     contents, so a process killed mid-commit can be rolled back by Recover on the next run.
//
// Hunks are located in stages, most exact first, and the stage that matched is reported per
// hunk: exact, trailing whitespace ignored, leading whitespace ignored, then Unicode
// punctuation look-alikes (curly quotes, dashes, non-breaking spaces) folded to ASCII.
// Models get exactly these details wrong; matching past them is safe because a hunk is
// only applied where it matches in exactly one place.
//
// Line endings and byte-order marks are preserved: a CRLF file stays CRLF whatever a
// patch written in LF uses, and a BOM stays in front. In a file of mixed endings every
// line keeps its own, and added lines take those of the lines they replace, in order,
// as GNU patch keeps them (the nearest line's where they outnumber them). A diff that
// carries the file's own bytes (git diff of a CRLF file, a BOM inside line 1) is applied
// to the bytes, as git apply does: its CR LF lines where they match the file's endings,
// its BOM where line 1 has one. Modes change with git's mode lines; links are refused.
package patch

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// Op is what a FilePatch does to its file.
type Op int

// The file operations.
const (
	OpUpdate Op = iota // change an existing file (and maybe move it)
	OpAdd              // create a new file
	OpDelete           // delete an existing file
)

func (o Op) String() string {
	switch o {
	case OpAdd:
		return "add"
	case OpDelete:
		return "delete"
	}
	return "update"
}

// Format names the syntax a patch was written in.
const (
	FormatApplyPatch = "apply_patch"
	FormatUnified    = "unified"
)

// Patch is a parsed patch.
type Patch struct {
	Format string
	Files  []*FilePatch
}

// FilePatch is the change to one file.
type FilePatch struct {
	Op      Op
	Path    string // the file (for a rename, the old name)
	NewPath string // the new name for a move or rename, else ""
	Hunks   []*Hunk
	Mode    fs.FileMode // permission bits of an added file from `new file mode`; 0 = default 0644
	// NewMode is the permission bits a git `new mode` line gives an existing file
	// (0: unchanged).
	NewMode fs.FileMode
	// Diff: the section is a unified diff's, whose hunks say all a file holds (a git
	// deletion without hunks is of an empty file).
	Diff bool
	Line int // the patch line where this file's section starts (1-based)
}

// Target is the path the file has after the patch.
func (f *FilePatch) Target() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.Path
}

// Hunk is one located change: context and removed lines that must be found in the file,
// replaced by context and added lines.
type Hunk struct {
	// Context are apply_patch `@@ text` headers: lines that must be found, in order, before
	// the hunk (typically a function or class declaration). Empty for unified diffs.
	Context []string
	// OldStart is the unified diff's 1-based old line number (0 = unknown). It is a hint
	// that disambiguates, never a requirement: the text must still match.
	OldStart int
	// OldEmpty: the unified diff's old range is `-0,0`, an empty file's (or, from
	// diff -U0, lines put before the first).
	OldEmpty bool
	// AtEOF anchors the hunk at the end of the file (`*** End of File`).
	AtEOF bool
	Lines []Line
	// OldNoEOL / NewNoEOL record `\ No newline at end of file` after the old or new side's
	// last line.
	OldNoEOL, NewNoEOL bool
	Line               int // the patch line where the hunk starts (1-based)
}

// Line is one line of a hunk, without its line ending.
type Line struct {
	Kind byte // ' ' context, '-' removed, '+' added
	Text string
	// CR: the line ended in CR LF in the patch, not as the patch's own transport (a
	// patch whose every line ends so), but as the file's bytes: git diff of a CRLF file.
	CR bool
}

// Old returns the lines the hunk expects in the file (context and removed).
func (h *Hunk) Old() []string {
	var out []string
	for _, l := range h.Lines {
		if l.Kind != '+' {
			out = append(out, l.Text)
		}
	}
	return out
}

// New returns the lines the hunk leaves in the file (context and added).
func (h *Hunk) New() []string {
	var out []string
	for _, l := range h.Lines {
		if l.Kind != '-' {
			out = append(out, l.Text)
		}
	}
	return out
}

// ParseError is a patch that could not be parsed; Line is 1-based.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line <= 0 {
		return "patch: " + e.Msg
	}
	return fmt.Sprintf("patch line %d: %s", e.Line, e.Msg)
}

func errAt(line int, format string, args ...any) error {
	return &ParseError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Parse parses a patch in either format, detected from its first meaningful line.
func Parse(text string) (*Patch, error) {
	return ParseStrip(text, -1)
}

// ParseStrip parses like Parse, but strips exactly strip leading path components from
// every file name of a unified diff, as patch -pN does (strip < 0: the default, git
// apply's a/ and b/ prefixes). The apply_patch format names files as they are.
func ParseStrip(text string, strip int) (*Patch, error) {
	lines, cr := splitPatchLines(text)
	first := skipWrapper(lines)
	if first < len(lines) && strings.TrimSpace(lines[first]) == "*** Begin Patch" {
		return parseApplyPatch(lines, cr, first)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "*** Begin Patch") {
			return parseApplyPatch(lines, cr, first)
		}
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "@@ -") {
			return parseUnified(lines, cr, strip)
		}
	}
	if strings.TrimSpace(text) == "" {
		return nil, errAt(0, "the patch is empty; pass apply_patch text (*** Begin Patch … *** End Patch) or a unified diff")
	}
	return nil, errAt(first+1, "not a patch: expected `*** Begin Patch` or a unified diff (`--- a/file`, `+++ b/file`, `@@ -1,2 +1,3 @@`)")
}

// splitPatchLines splits on \n and drops one trailing \r per line. cr says which lines
// had one that belongs to the files: none when every line has one (the patch's own
// line endings, a patch saved or sent with CRLF, say nothing of the files'), else
// each that does (git diff of a CRLF file: its headers end in LF, its lines in CR LF).
func splitPatchLines(text string) (lines []string, cr []bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	lines = strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	cr = make([]bool, len(lines))
	transport := true
	for i, l := range lines {
		lines[i], cr[i] = strings.CutSuffix(l, "\r")
		if !cr[i] && lines[i] != "" {
			transport = false
		}
	}
	if transport {
		// The patch's own CR LF: a CR still left is the file's (git diff of a CRLF
		// file, sent with CRLF).
		for i := range lines {
			lines[i], cr[i] = strings.CutSuffix(lines[i], "\r")
		}
	}
	return lines, cr
}

// skipWrapper returns the index of the first line that is not blank and not a Markdown
// fence or shell heredoc opener, which models like to wrap patches in.
func skipWrapper(lines []string) int {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "apply_patch <<") {
			continue
		}
		return i
	}
	return len(lines)
}

const (
	apBegin  = "*** Begin Patch"
	apEnd    = "*** End Patch"
	apAdd    = "*** Add File: "
	apDelete = "*** Delete File: "
	apUpdate = "*** Update File: "
	apMove   = "*** Move to: "
	apEOF    = "*** End of File"
)

// isFileHeader reports whether the line l of a section ends it. A line indented by a
// space is a hunk's context line whatever it reads (" *** End Patch" is a line of a
// file about patches), so only trailing blanks are forgiven.
func isFileHeader(l string) bool {
	return strings.HasPrefix(l, apAdd) || strings.HasPrefix(l, apDelete) ||
		strings.HasPrefix(l, apUpdate) || strings.TrimRight(l, " \t") == apEnd
}

func parseApplyPatch(lines []string, cr []bool, i int) (*Patch, error) {
	// Tolerate prose or a fence before the marker: start at the marker itself.
	for i < len(lines) && strings.TrimSpace(lines[i]) != apBegin {
		i++
	}
	p := &Patch{Format: FormatApplyPatch}
	i++ // past Begin Patch
	ended := false
	for i < len(lines) && !ended {
		// A file header may be indented (codex scenario 017): between sections no
		// line is a hunk line, so leading blanks cannot mean anything else.
		l := strings.TrimLeft(lines[i], " \t")
		lines[i] = l
		t := strings.TrimSpace(l)
		switch {
		case t == apEnd:
			ended = true
			i++
		case strings.HasPrefix(l, apAdd):
			path, err := headerPath(l, apAdd, i)
			if err != nil {
				return nil, err
			}
			fp := &FilePatch{Op: OpAdd, Path: path, Line: i + 1}
			h := &Hunk{Line: i + 2}
			i++
			for i < len(lines) && strings.HasPrefix(lines[i], "+") {
				h.Lines = append(h.Lines, Line{Kind: '+', Text: lines[i][1:], CR: cr[i]})
				i++
			}
			// (no hunk line can follow an added file's, so a padded marker is one)
			if i < len(lines) && !isFileHeader(strings.TrimLeft(lines[i], " \t")) && strings.TrimSpace(lines[i]) != "" {
				return nil, errAt(i+1, "in `*** Add File: %s` every content line must start with `+`; got %q", path, clip(lines[i]))
			}
			fp.Hunks = []*Hunk{h}
			p.Files = append(p.Files, fp)
		case strings.HasPrefix(l, apDelete):
			path, err := headerPath(l, apDelete, i)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, &FilePatch{Op: OpDelete, Path: path, Line: i + 1})
			i++
		case strings.HasPrefix(l, apUpdate):
			fp, next, err := parseUpdate(lines, cr, i)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, fp)
			i = next
		case t == "" || strings.HasPrefix(t, "```"):
			i++
		default:
			return nil, errAt(i+1, "expected `*** Add File: `, `*** Delete File: `, `*** Update File: ` or `*** End Patch`; got %q", clip(l))
		}
	}
	if len(p.Files) == 0 {
		return nil, errAt(i, "the patch changes no file: add an `*** Add File:`, `*** Delete File:` or `*** Update File:` section")
	}
	if !ended {
		// Without its end marker the patch may have been cut off mid-hunk: applying
		// what arrived could leave a file half changed.
		return nil, errAt(i, "the patch has no `*** End Patch` line, so it may have been cut off; nothing was applied. Send the whole patch, ending with `*** End Patch`")
	}
	return p, nil
}

func headerPath(l, prefix string, i int) (string, error) {
	path := strings.TrimSpace(strings.TrimPrefix(l, prefix))
	if path == "" {
		return "", errAt(i+1, "%q names no file", strings.TrimSpace(prefix))
	}
	if strings.ContainsRune(path, 0) {
		return "", errAt(i+1, "the file name contains a NUL byte")
	}
	return path, nil
}

// lastLine reports whether no line after lines[i] holds anything but blanks or a
// closing fence or heredoc word.
func lastLine(lines []string, i int) bool {
	for _, l := range lines[i+1:] {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "```") && t != "EOF" && t != "PATCH" {
			return false
		}
	}
	return true
}

func parseUpdate(lines []string, cr []bool, i int) (*FilePatch, int, error) {
	path, err := headerPath(lines[i], apUpdate, i)
	if err != nil {
		return nil, 0, err
	}
	fp := &FilePatch{Op: OpUpdate, Path: path, Line: i + 1}
	i++
	if i < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[i], " \t"), apMove) {
		if fp.NewPath, err = headerPath(strings.TrimLeft(lines[i], " \t"), apMove, i); err != nil {
			return nil, 0, err
		}
		i++
	}
	var h *Hunk
	flush := func() {
		if h != nil && len(h.Lines) > 0 {
			fp.Hunks = append(fp.Hunks, h)
		}
	}
	for i < len(lines) {
		l := lines[i]
		if isFileHeader(l) || strings.TrimSpace(l) == apEnd && lastLine(lines, i) {
			// (an indented end marker ends the patch only where nothing follows it:
			// elsewhere it is a context line of a file that holds that text)
			break
		}
		switch {
		case strings.HasPrefix(l, "@@"):
			// Consecutive @@ lines accumulate context (class, then method); an @@ after
			// body lines starts a new hunk.
			if h == nil || len(h.Lines) > 0 {
				flush()
				h = &Hunk{Line: i + 1}
			}
			// Its indentation is kept (only the space after @@ goes): "@@     if a:"
			// names the nested if, not the first one; a looser stage still finds it.
			if c := strings.TrimRight(strings.TrimPrefix(strings.TrimPrefix(l, "@@"), " "), " \t"); strings.TrimSpace(c) != "" {
				h.Context = append(h.Context, c)
			}
		case strings.TrimRight(l, " \t") == apEOF:
			if h == nil || len(h.Lines) == 0 {
				return nil, 0, errAt(i+1, "`*** End of File` must follow a hunk's lines")
			}
			h.AtEOF = true
			flush()
			h = nil
		default:
			if h == nil {
				h = &Hunk{Line: i + 1} // the first hunk may omit its @@ line
			}
			switch {
			case l == "":
				// An empty line is an empty context line whose leading space was lost.
				h.Lines = append(h.Lines, Line{Kind: ' ', CR: cr[i]})
			case l[0] == ' ' || l[0] == '+' || l[0] == '-':
				h.Lines = append(h.Lines, Line{Kind: l[0], Text: l[1:], CR: cr[i]})
			default:
				return nil, 0, errAt(i+1, "in `*** Update File: %s` a hunk line must start with ' ' (context), '+' (added) or '-' (removed), or be an `@@` header; got %q", path, clip(l))
			}
		}
		i++
	}
	flush()
	// Trailing empty "context" lines are most often the blank line before the next
	// header, not part of the hunk.
	for _, hk := range fp.Hunks {
		for len(hk.Lines) > 0 && hk.Lines[len(hk.Lines)-1].Kind == ' ' && hk.Lines[len(hk.Lines)-1].Text == "" {
			hk.Lines = hk.Lines[:len(hk.Lines)-1]
		}
	}
	kept := fp.Hunks[:0]
	for _, hk := range fp.Hunks {
		if len(hk.Lines) > 0 {
			kept = append(kept, hk)
		}
	}
	fp.Hunks = kept
	if len(fp.Hunks) == 0 && fp.NewPath == "" {
		return nil, 0, errAt(fp.Line, "`*** Update File: %s` has no hunks; add lines starting with ' ', '-' or '+'", path)
	}
	return fp, i, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// parseUnified parses one or more files of unified diff, with or without git headers.
func parseUnified(lines []string, cr []bool, strip int) (*Patch, error) {
	p := &Patch{Format: FormatUnified}
	var cur *FilePatch
	git := false // inside a `diff --git` section
	var gitOld, gitNew string
	finish := func() error {
		if cur == nil {
			return nil
		}
		if cur.Op == OpUpdate && len(cur.Hunks) == 0 && cur.NewPath == "" && cur.NewMode == 0 {
			// A git section with nothing to apply here (an index line alone).
			cur = nil
			return nil
		}
		p.Files = append(p.Files, cur)
		cur = nil
		return nil
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if git && cur != nil && len(cur.Hunks) == 0 {
			if err := gitExtended(l, cur, i); err != nil {
				return nil, err
			}
		}
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if err := finish(); err != nil {
				return nil, err
			}
			a, b, ok := splitGitHeader(strings.TrimPrefix(l, "diff --git "))
			if !ok {
				return nil, errAt(i+1, "cannot read the file names in %q", clip(l))
			}
			if strip >= 0 {
				// The header's a/ and b/ are stripped by splitGitHeader; -pN counts them.
				a, b = stripComponents(a, strip-1), stripComponents(b, strip-1)
			}
			gitOld, gitNew = a, b
			cur = &FilePatch{Op: OpUpdate, Path: gitOld, Line: i + 1, Diff: true}
			if gitNew != gitOld {
				cur.NewPath = gitNew
			}
			git = true
		case git && cur != nil && len(cur.Hunks) == 0 && (strings.HasPrefix(l, "GIT binary patch") || strings.HasPrefix(l, "Binary files ")):
			return nil, errAt(i+1, "binary patches are not supported (%s); write the file with the write applet instead", cur.Target())
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			oldName := diffName(strings.TrimPrefix(l, "--- "))
			newName := diffName(strings.TrimPrefix(lines[i+1], "+++ "))
			if strip >= 0 {
				oldName, newName = stripComponents(oldName, strip), stripComponents(newName, strip)
			}
			auto := strip < 0
			if !git || cur == nil || len(cur.Hunks) > 0 {
				if err := finish(); err != nil {
					return nil, err
				}
				cur = &FilePatch{Op: OpUpdate, Line: i + 1, Diff: true}
				git = false
			}
			// diff -N writes a missing side as an empty file dated the epoch.
			oldEpoch, newEpoch := epochDated(l), epochDated(lines[i+1])
			switch {
			case oldName == "/dev/null" && newName == "/dev/null", oldEpoch && newEpoch:
				return nil, errAt(i+1, "both sides are /dev/null")
			case oldEpoch:
				cur.Op, cur.Path, cur.NewPath = OpAdd, newName, ""
				if stripped := stripAB(newName, 'b', auto); !git && auto && strings.HasPrefix(oldName, "a/") {
					cur.Path = stripped
				}
			case newEpoch:
				cur.Op, cur.Path, cur.NewPath = OpDelete, oldName, ""
				if stripped := stripAB(oldName, 'a', auto); !git && auto && strings.HasPrefix(newName, "b/") {
					cur.Path = stripped
				}
			case oldName == "/dev/null":
				// A lone b/ is git's prefix even without a diff --git line (git apply
				// strips it: `+++ b/new.txt` creates new.txt).
				cur.Op, cur.Path, cur.NewPath = OpAdd, stripAB(newName, 'b', auto), ""
			case newName == "/dev/null":
				cur.Op, cur.Path, cur.NewPath = OpDelete, stripAB(oldName, 'a', auto), ""
			default:
				o, n := stripAB(oldName, 'a', git && auto), stripAB(newName, 'b', git && auto)
				if !git && auto {
					// Plain diff -u: strip a/ and b/ only when both sides carry them.
					if strings.HasPrefix(oldName, "a/") && strings.HasPrefix(newName, "b/") {
						o, n = oldName[2:], newName[2:]
					}
				}
				cur.Path = o
				if n != o {
					cur.NewPath = n
				}
				if !git && cur.NewPath != "" {
					// Plain diffs name a backup or a temp file on one side; the new name is
					// the file being patched unless it does not look like the target.
					cur.Path, cur.NewPath = n, ""
				}
			}
			i++
		case strings.HasPrefix(l, "@@ "):
			if cur == nil {
				return nil, errAt(i+1, "a hunk before any file header: add `--- a/file` and `+++ b/file` lines before it")
			}
			h, next, err := parseUnifiedHunk(lines, cr, i)
			if err != nil {
				return nil, err
			}
			if err := overrun(lines, next, h); err != nil {
				return nil, err
			}
			cur.Hunks = append(cur.Hunks, h)
			i = next - 1
		default:
			// Anything else between files (commit messages, `Index:` lines, `Only in`)
			// is not part of any hunk and is ignored, like patch(1) does.
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(p.Files) == 0 {
		return nil, errAt(0, "the diff changes no file: expected `--- a/file`, `+++ b/file` and `@@ … @@` hunks")
	}
	for _, f := range p.Files {
		if f.Path == "" {
			return nil, errAt(f.Line, "a file section names no file")
		}
	}
	return p, nil
}

// epochDated reports whether a `--- ` or `+++ ` header dates its file at the Unix
// epoch, as diff -N does for a file that is not there.
func epochDated(header string) bool {
	tab := strings.IndexByte(header, '\t')
	return tab >= 0 && strings.HasPrefix(strings.TrimSpace(header[tab+1:]), "1970-01-01 00:00:00")
}

// modeKind names what a git mode makes of a file.
func modeKind(m uint64) string {
	switch m & 0o170000 {
	case 0o120000:
		return "symbolic link"
	case 0o160000:
		return "submodule (gitlink)"
	case 0o040000:
		return "directory"
	}
	return "special file"
}

// gitExtended applies git's extended header lines (new/deleted file, rename) to cur; it
// returns an error only for lines that cannot be honoured and ignores all others.
func gitExtended(l string, cur *FilePatch, i int) error {
	switch {
	case strings.HasPrefix(l, "new file mode "):
		cur.Op, cur.NewPath = OpAdd, ""
		if m, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(l, "new file mode ")), 8, 32); err == nil {
			if m&0o170000 != 0o100000 {
				return errAt(i+1, "the patch creates %s as a %s (mode %o), which patch does not do; create it with bash (ln -s for a link), or send it as a regular file", cur.Path, modeKind(m), m)
			}
			cur.Mode = fs.FileMode(m & 0o777)
		}
		if cur.Path == "" {
			return errAt(i+1, "new file without a name")
		}
		// In a git header both names are equal for a new file; keep the b/ one.
	case strings.HasPrefix(l, "new mode "):
		m, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(l, "new mode ")), 8, 32)
		if err != nil {
			return errAt(i+1, "cannot read the mode in %q", clip(l))
		}
		if m&0o170000 != 0o100000 {
			return errAt(i+1, "the patch makes %s a %s (mode %o), which patch does not do; only a regular file's permission bits can change here", cur.Path, modeKind(m), m)
		}
		cur.NewMode = fs.FileMode(m & 0o777)
	case strings.HasPrefix(l, "deleted file mode "):
		cur.Op, cur.NewPath = OpDelete, ""
	case strings.HasPrefix(l, "rename from "):
		cur.Path = unquote(strings.TrimPrefix(l, "rename from "))
	case strings.HasPrefix(l, "rename to "):
		cur.NewPath = unquote(strings.TrimPrefix(l, "rename to "))
	case strings.HasPrefix(l, "copy from ") || strings.HasPrefix(l, "copy to "):
		return errAt(i+1, "git copy patches are not supported; use a new-file patch for %s", cur.Path)
	}
	return nil
}

// parseUnifiedHunk reads one `@@ -a,b +c,d @@` hunk using its counts, so context lines
// that begin with "--- " or "+++ " are not mistaken for file headers.
func parseUnifiedHunk(lines []string, cr []bool, i int) (*Hunk, int, error) {
	oldStart, oldCount, newCount, ok := parseRange(lines[i])
	if !ok {
		return nil, 0, errAt(i+1, "malformed hunk header %q: expected `@@ -start,count +start,count @@`", clip(lines[i]))
	}
	h := &Hunk{OldStart: oldStart, OldEmpty: oldStart == 0 && oldCount == 0, Line: i + 1}
	if oldCount == 0 {
		// "-5,0" means "insert after line 5": the position is the line after it.
		h.OldStart = oldStart + 1
	}
	i++
	oldSeen, newSeen := 0, 0
	last := byte(0)
	for i < len(lines) && (oldSeen < oldCount || newSeen < newCount) {
		l := lines[i]
		if strings.HasPrefix(l, `\`) {
			if err := noEOLAt(h, lines, i, oldSeen < oldCount, newSeen < newCount); err != nil {
				return nil, 0, err
			}
			markNoEOL(h, last)
			i++
			continue
		}
		kind := byte(' ')
		text := ""
		if l != "" { // an empty line is an empty context line whose space was stripped
			kind, text = l[0], l[1:]
		}
		switch kind {
		case ' ':
			oldSeen++
			newSeen++
		case '-':
			oldSeen++
		case '+':
			newSeen++
		default:
			return nil, 0, errAt(i+1, "hunk line must start with ' ', '-' or '+' (the hunk header promised %d old and %d new lines, %d and %d seen); got %q", oldCount, newCount, oldSeen, newSeen, clip(l))
		}
		if oldSeen > oldCount || newSeen > newCount {
			return nil, 0, errAt(i+1, "the hunk has more lines than its header (-%d +%d) says", oldCount, newCount)
		}
		h.Lines = append(h.Lines, Line{Kind: kind, Text: text, CR: cr[i]})
		last = kind
		i++
	}
	if oldSeen < oldCount || newSeen < newCount {
		return nil, 0, errAt(i, "the hunk ends early: its header promised %d old and %d new lines, found %d and %d", oldCount, newCount, oldSeen, newSeen)
	}
	if i < len(lines) && strings.HasPrefix(lines[i], `\`) {
		markNoEOL(h, last)
		i++
	}
	return h, i, nil
}

// overrun refuses lines that follow a hunk as its own lines would (' ', '+', '-') when
// its header's counts are spent: a header that counts too few lines (hand-written or
// edited diffs get them wrong) would otherwise leave them out silently, and the
// patch would apply in part. The next file's "--- " header and a mail signature's
// "-- " line are not such lines.
func overrun(lines []string, next int, h *Hunk) error {
	if next >= len(lines) {
		return nil
	}
	l := lines[next]
	switch {
	case l == "" || l == "-- ":
		return nil
	case strings.HasPrefix(l, "--- ") && next+1 < len(lines) && strings.HasPrefix(lines[next+1], "+++ "):
		return nil
	case l[0] == ' ' || l[0] == '+' || l[0] == '-':
		return errAt(next+1, "the hunk at patch line %d has more lines than its header %q counts (%q follows them); fix the counts in the @@ line, or send the hunk in *** Begin Patch form, which needs none", h.Line, clip(lines[h.Line-1]), clip(l))
	}
	return nil
}

// noEOLAt refuses a "\ No newline at end of file" marker (lines[i]) that does not follow
// the last line of its side: the old side's when oldLeft (lines of it are still to
// come), the new side's when newLeft. git refuses such a hunk; applied, the marker
// would take a newline from, or leave one on, a line it does not end.
func noEOLAt(h *Hunk, lines []string, i int, oldLeft, newLeft bool) error {
	if len(h.Lines) == 0 {
		return errAt(i+1, "a \"\\ No newline at end of file\" marker before any line of the hunk")
	}
	last := h.Lines[len(h.Lines)-1].Kind
	if last == ' ' && (oldLeft || newLeft) || last == '-' && oldLeft || last == '+' && newLeft {
		return errAt(i+1, "a \"\\ No newline at end of file\" marker in the middle of a hunk: it may only follow the last line of the old or the new side; fix the diff")
	}
	return nil
}

func markNoEOL(h *Hunk, last byte) {
	if n := len(h.Lines); n > 0 && h.Lines[n-1].CR {
		// A last line without a line ending that ends in CR holds that CR: it is the
		// line's text, not half of a CR LF.
		h.Lines[n-1].Text += "\r"
		h.Lines[n-1].CR = false
	}
	switch last {
	case '-':
		h.OldNoEOL = true
	case '+':
		h.NewNoEOL = true
	case ' ':
		h.OldNoEOL, h.NewNoEOL = true, true
	}
}

func parseRange(l string) (oldStart, oldCount, newCount int, ok bool) {
	rest, found := strings.CutPrefix(l, "@@ -")
	if !found {
		return 0, 0, 0, false
	}
	end := strings.Index(rest, " @@")
	if end < 0 {
		return 0, 0, 0, false
	}
	fields := strings.Fields(rest[:end])
	if len(fields) != 2 || !strings.HasPrefix(fields[1], "+") {
		return 0, 0, 0, false
	}
	oldStart, oldCount, ok1 := parseSpan(fields[0])
	_, newCount, ok2 := parseSpan(fields[1][1:])
	return oldStart, oldCount, newCount, ok1 && ok2
}

func parseSpan(s string) (start, count int, ok bool) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if has {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

// diffName reads the name from a ---/+++ line: quoted git names are unquoted, and a
// timestamp after a tab (diff -u) is dropped.
func diffName(s string) string {
	if strings.HasPrefix(s, `"`) {
		if end := closingQuote(s); end > 0 {
			return unquote(s[:end+1])
		}
	}
	if tab := strings.IndexByte(s, '\t'); tab >= 0 {
		s = s[:tab]
	}
	return strings.TrimRight(s, " ")
}

func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote decodes git's C-style quoted names ("a/t\303\251st"); Go's string literal
// escapes are a superset of git's.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// stripComponents removes n leading path components, as patch -pN does ("/dev/null"
// and names with fewer components are kept as they are).
func stripComponents(name string, n int) string {
	if name == "/dev/null" {
		return name
	}
	for ; n > 0; n-- {
		i := strings.IndexByte(name, '/')
		if i < 0 {
			return name
		}
		name = name[i+1:]
	}
	return name
}

func stripAB(name string, side byte, git bool) string {
	if git && len(name) > 2 && name[0] == side && name[1] == '/' {
		return name[2:]
	}
	return name
}

// splitGitHeader splits "a/x b/y" (either side possibly quoted). Unquoted names with
// spaces are ambiguous; git writes both names equal unless renamed, so prefer the split
// where the two names match.
func splitGitHeader(s string) (string, string, bool) {
	if strings.HasPrefix(s, `"`) {
		end := closingQuote(s)
		if end < 0 {
			return "", "", false
		}
		a := unquote(s[:end+1])
		b := diffName(strings.TrimSpace(s[end+1:]))
		return stripAB(a, 'a', true), stripAB(b, 'b', true), b != ""
	}
	if strings.HasSuffix(s, `"`) {
		start := strings.LastIndex(s[:len(s)-1], ` "`)
		if start < 0 {
			return "", "", false
		}
		return stripAB(s[:start], 'a', true), stripAB(unquote(s[start+1:]), 'b', true), true
	}
	// Try the split where both halves name the same file.
	if n := len(s); n%2 == 1 {
		a, b := s[:n/2], s[n/2+1:]
		if s[n/2] == ' ' && len(a) > 2 && len(b) > 2 && a[2:] == b[2:] {
			return stripAB(a, 'a', true), stripAB(b, 'b', true), true
		}
	}
	if k := strings.Index(s, " b/"); k > 0 {
		return stripAB(s[:k], 'a', true), stripAB(s[k+1:], 'b', true), true
	}
	a, b, ok := strings.Cut(s, " ")
	return stripAB(a, 'a', true), stripAB(b, 'b', true), ok
}
