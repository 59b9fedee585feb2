package patch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentbox/agentbox/core/filelock"
)

// Journals is a directory of commit journals shared by every agentbox process of a
// user, whatever its session: a patch killed half-way is rolled back by the next run
// even when the harness restarted with a new session.
//
// Each commit writes its own journal file, so concurrent patches never overwrite each
// other's. A committing process holds a shared lock on the directory's lock file for
// the life of its journal; recovery takes the exclusive lock, so it only ever sees
// journals whose writer is gone (the kernel drops a dead process's lock).
type Journals struct {
	Dir string
}

const journalSuffix = ".journal.json"

func (j Journals) lockPath() string { return filepath.Join(j.Dir, ".lock") }

// Begin reserves a journal path for one commit. Call done when the commit returned
// (Commit removes the journal itself on success and on a clean rollback).
func (j Journals) Begin(ctx context.Context) (path string, done func(), err error) {
	unlock, err := filelock.Hold(ctx, j.lockPath(), true)
	if err != nil {
		return "", nil, fmt.Errorf("the journal folder %s: %w", j.Dir, err)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	path = filepath.Join(j.Dir, time.Now().UTC().Format("20060102T150405")+"-"+hex.EncodeToString(rnd[:])+journalSuffix)
	return path, unlock, nil
}

// journalTemp reports a name renameio gives a journal's temporary file: the journal's
// name after a dot, then digits.
func journalTemp(name string) bool {
	i := strings.LastIndex(name, journalSuffix)
	return i > 0 && len(name) > i+len(journalSuffix) && strings.Trim(name[i+len(journalSuffix):], "0123456789") == ""
}

// RecoverAll rolls back every interrupted commit whose journal is in the directory.
// It waits for commits in progress (they are short) up to ctx's deadline.
func (j Journals) RecoverAll(ctx context.Context, fsys FS) (*Recovery, error) {
	entries, err := os.ReadDir(j.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &Recovery{}, nil
	}
	if err != nil {
		return nil, err
	}
	var names, temps []string
	for _, e := range entries {
		switch name := e.Name(); {
		case strings.HasSuffix(name, journalSuffix):
			names = append(names, name)
		case strings.HasPrefix(name, ".") && journalTemp(name):
			temps = append(temps, name)
		}
	}
	if len(names) == 0 && len(temps) == 0 {
		return &Recovery{}, nil // the common case: one ReadDir, no lock
	}
	unlock, err := filelock.Hold(ctx, j.lockPath(), false)
	if err != nil {
		return nil, fmt.Errorf("recovering interrupted patches in %s: %w", j.Dir, err)
	}
	defer unlock()
	// A journal's temporary file (renameio's .NAME<digits>) that a killed commit left
	// half-written: with the lock held no commit is writing one, and it holds copies
	// of files' old contents (red team: 74 MB left by two killed patches).
	for _, name := range temps {
		os.Remove(filepath.Join(j.Dir, name))
	}
	// Names sort by time: undo the newest first, as a later patch may build on an
	// earlier one's files.
	sort.Strings(names)
	total := &Recovery{}
	var errs []error
	for i := len(names) - 1; i >= 0; i-- {
		rec, err := Recover(filepath.Join(j.Dir, names[i]), fsys)
		if rec != nil {
			total.Restored = append(total.Restored, rec.Restored...)
			total.Kept = append(total.Kept, rec.Kept...)
			total.Elsewhere = total.Elsewhere || rec.Elsewhere
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return total, errors.Join(errs...)
}
