package patch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/renameio/v2"
)

// CommitOptions configure Commit.
type CommitOptions struct {
	// Journal, if set, is a file Commit writes the original contents to before its first
	// write and removes after its last; Recover reads it after a crash. It should live
	// outside the files being patched (a session state directory).
	Journal string
}

// Changed reports whether committing would write anything.
func (r *Result) Changed() bool { return len(r.writes) > 0 }

// Written are the paths Commit writes or removes, as the FS named them when the files
// were read (its canonical names): what a caller must authorize, since names in the
// patch may lead elsewhere by the time it asks.
func (r *Result) Written() []string {
	out := make([]string, len(r.writes))
	for i, w := range r.writes {
		out[i] = w.path
	}
	return out
}

// Commit writes the prepared contents. It first checks that no file changed since
// Prepare (else KindConflict, nothing written); then it writes added and updated files,
// then removes deleted and moved-away ones. If any step fails, what was already done is
// undone in reverse order, so the files are as before.
func (r *Result) Commit(fsys FS, opt CommitOptions) error {
	for _, w := range r.writes {
		now, err := readState(fsys, w.path)
		if err != nil {
			return err
		}
		if !now.equal(w.orig) {
			return &Error{Kind: KindConflict, Path: w.path,
				Msg: "the file changed while the patch was being prepared; nothing was written, re-read it and try again"}
		}
	}
	if opt.Journal != "" && len(r.writes) > 0 {
		if err := writeJournal(opt.Journal, r.writes); err != nil {
			return &Error{Kind: KindIO, Path: opt.Journal, Msg: "cannot write the patch journal, nothing was written: " + err.Error(), Err: err}
		}
	}
	// Writes before removals: a move writes its new name before the old one disappears.
	ordered := make([]*write, 0, len(r.writes))
	for _, w := range r.writes {
		if w.next.exists {
			ordered = append(ordered, w)
		}
	}
	for _, w := range r.writes {
		if !w.next.exists {
			ordered = append(ordered, w)
		}
	}
	for i, w := range ordered {
		if err := put(fsys, w.path, w.next); err != nil {
			if i == 0 {
				// A refusal of the first file (read-only, hard-linked, changed meanwhile)
				// needs no rollback, and its own message says what to do.
				if opt.Journal != "" {
					_ = os.Remove(opt.Journal)
				}
				return &Error{Kind: KindIO, Path: w.path, Msg: err.Error(), Err: err}
			}
			rerr := undo(fsys, ordered[:i])
			msg := fmt.Sprintf("writing failed part-way (%v); the %d file(s) already written were restored, so nothing changed", err, i)
			if rerr != nil {
				msg = fmt.Sprintf("writing failed part-way (%v) and restoring the files already written also failed (%v)", err, rerr)
				if opt.Journal != "" {
					msg += "; the journal " + opt.Journal + " holds the original contents and the next run recovers them"
				}
				return &Error{Kind: KindIO, Path: w.path, Msg: msg, Err: err}
			}
			if opt.Journal != "" {
				_ = os.Remove(opt.Journal)
			}
			return &Error{Kind: KindIO, Path: w.path, Msg: msg, Err: err}
		}
	}
	if opt.Journal != "" && len(r.writes) > 0 {
		if err := os.Remove(opt.Journal); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &Error{Kind: KindIO, Path: opt.Journal, Msg: "the patch was applied but its journal could not be removed: " + err.Error(), Err: err}
		}
	}
	return nil
}

func readState(fsys FS, path string) (state, error) {
	data, mode, err := fsys.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return state{}, nil
		}
		return state{}, &Error{Kind: KindIO, Path: path, Msg: err.Error(), Err: err}
	}
	return state{exists: true, data: data, mode: mode}, nil
}

func put(fsys FS, path string, s state) error {
	if s.exists {
		return fsys.WriteFile(path, s.data, s.mode)
	}
	err := fsys.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func undo(fsys FS, done []*write) error {
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		if err := put(fsys, done[i].path, done[i].orig); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", done[i].path, err))
		}
	}
	return errors.Join(errs...)
}

// journal is the on-disk record of a commit in progress.
type journal struct {
	Version int            `json:"version"`
	Entries []journalEntry `json:"entries"`
}

type journalEntry struct {
	Path       string      `json:"path"`
	Existed    bool        `json:"existed"`
	Mode       fs.FileMode `json:"mode,omitempty"`
	Old        []byte      `json:"old,omitempty"`
	NextExists bool        `json:"next_exists"`
	NextSHA256 string      `json:"next_sha256,omitempty"`
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func writeJournal(path string, writes []*write) error {
	j := journal{Version: 1}
	for _, w := range writes {
		e := journalEntry{Path: w.path, Existed: w.orig.exists, Mode: w.orig.mode, Old: w.orig.data, NextExists: w.next.exists}
		if w.next.exists {
			e.NextSHA256 = digest(w.next.data)
		}
		j.Entries = append(j.Entries, e)
	}
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return renameio.WriteFile(path, data, 0o600, renameio.WithTempDir(filepath.Dir(path)))
}

// Recovery reports what Recover did.
type Recovery struct {
	Restored []string // files put back to their content before the interrupted commit
	Kept     []string // files changed by someone else since; left alone
	// Elsewhere: a journal names files this FS does not reach (Reacher), and was left
	// for a call that does.
	Elsewhere bool
}

// Reacher is an optional FS method: whether the FS can change the file at path (an
// absolute path from a journal). Recover leaves a journal with a file out of reach for
// an FS that reaches them all.
type Reacher interface {
	Reaches(path string) bool
}

// Recover rolls back a commit that was interrupted (the process was killed between its
// first and last write), using the journal Commit left behind. A file is restored only if
// it holds the original or the patched content; a file edited since is left alone and
// listed in Kept. With a TempSweeper FS, the temporary files of the commit's writes are
// removed too. The journal is removed once every file is settled. No journal: nothing
// to do.
func Recover(journalPath string, fsys FS) (*Recovery, error) {
	data, err := os.ReadFile(journalPath)
	if errors.Is(err, fs.ErrNotExist) {
		return &Recovery{}, nil
	}
	if err != nil {
		return nil, err
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil || j.Version != 1 {
		// A journal is written atomically, so a torn one means it was never complete and
		// no file write had started.
		_ = os.Remove(journalPath)
		return &Recovery{}, nil
	}
	rec := &Recovery{}
	if r, ok := fsys.(Reacher); ok {
		for _, e := range j.Entries {
			if !r.Reaches(e.Path) {
				// Another workspace's patch (the journals are shared): rolled back by
				// the next call there, never half here.
				rec.Elsewhere = true
				return rec, nil
			}
		}
	}
	var errs []error
	for _, e := range j.Entries {
		now, err := readState(fsys, e.Path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		orig := state{exists: e.Existed, data: e.Old, mode: e.Mode}
		switch {
		case now.equal(orig):
		case now.exists == e.NextExists && (!now.exists || digest(now.data) == e.NextSHA256):
			if err := put(fsys, e.Path, orig); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", e.Path, err))
				continue
			}
			rec.Restored = append(rec.Restored, e.Path)
		default:
			rec.Kept = append(rec.Kept, e.Path)
		}
		if sw, ok := fsys.(TempSweeper); ok {
			// Best effort: a leftover temporary file is litter, not data.
			_ = sw.SweepTemp(e.Path)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return rec, fmt.Errorf("recovering the interrupted patch from %s: %w", journalPath, err)
	}
	return rec, os.Remove(journalPath)
}

// OSFS is an FS on the real file system; relative names are resolved against Dir.
type OSFS struct{ Dir string }

func (o OSFS) abs(name string) string {
	if filepath.IsAbs(name) || o.Dir == "" {
		return name
	}
	return filepath.Join(o.Dir, name)
}

// ReadFile implements FS.
func (o OSFS) ReadFile(name string) ([]byte, fs.FileMode, error) {
	p := o.abs(name)
	fi, err := os.Stat(p)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", name)
	}
	data, err := os.ReadFile(p)
	return data, fi.Mode().Perm(), err
}

// WriteFile implements FS.
func (o OSFS) WriteFile(name string, data []byte, mode fs.FileMode) error {
	p := o.abs(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if mode == 0 {
		mode = 0o644
	}
	return renameio.WriteFile(p, data, mode, renameio.WithTempDir(filepath.Dir(p)))
}

// Remove implements FS.
func (o OSFS) Remove(name string) error { return os.Remove(o.abs(name)) }

// Summary renders "+a -r" counts and the operation for a file, for text output.
func (f *FileResult) Summary() string {
	var b strings.Builder
	switch f.Op {
	case OpAdd:
		b.WriteString("A ")
	case OpDelete:
		b.WriteString("D ")
	default:
		if f.NewPath != "" {
			b.WriteString("R ")
		} else {
			b.WriteString("M ")
		}
	}
	b.WriteString(f.Path)
	if f.NewPath != "" {
		b.WriteString(" -> " + f.NewPath)
	}
	fmt.Fprintf(&b, " (+%d -%d)", f.Added, f.Removed)
	return b.String()
}
