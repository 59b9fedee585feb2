// Package filelock is agentbox's lock on its own state: an advisory flock(2) on a lock file
// in agentbox's own state folder (a session's folder, the folder shared by a user's
// sessions, a journal folder), never beside the user's files. The kernel drops the lock
// of a process that dies, so a killed call never leaves a lock behind; waiting polls
// until the context ends.
package filelock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrNotTaken is wrapped by every error of Hold and Do that means the lock was not
// taken (as opposed to an error of Do's fn).
var ErrNotTaken = errors.New("the lock was not taken")

// pollEvery is how often a waiting lock is retried.
const pollEvery = 5 * time.Millisecond

// MaxWait bounds the wait for a lock: agentbox holds its locks for moments, so a lock
// held longer is a stuck or stopped process (or one taken by hand), and a call waiting
// on it would hang with it.
var MaxWait = 30 * time.Second

// Hold takes the lock at path (shared or exclusive), creating its folder, and returns
// the function that releases it. It waits until the lock is free, ctx ends or MaxWait
// has passed.
func Hold(ctx context.Context, path string, shared bool) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("%w: cannot create the lock folder %s: %w", ErrNotTaken, filepath.Dir(path), err)
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		// A FIFO (or a link to one) would block the open below for good, past every
		// signal; a folder would never lock. Whatever it is, it is no lock of ours.
		if err := os.RemoveAll(path); err != nil {
			return nil, fmt.Errorf("%w: %s is not a lock file and cannot be removed: %w", ErrNotTaken, path, err)
		}
	}
	wait, cancel := context.WithTimeout(ctx, MaxWait)
	defer cancel()
	l := flock.New(path)
	var ok bool
	if shared {
		ok, err = l.TryRLockContext(wait, pollEvery)
	} else {
		ok, err = l.TryLockContext(wait, pollEvery)
	}
	if err == nil && !ok {
		err = wait.Err()
	}
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: %s has been held by another process for %v (a stuck or stopped agentbox, or a lock taken by hand: fuser %s names it)", ErrNotTaken, path, MaxWait, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotTaken, path, err)
	}
	return func() { _ = l.Unlock() }, nil
}

// Do runs fn while holding the exclusive lock at path.
func Do(ctx context.Context, path string, fn func() error) error {
	unlock, err := Hold(ctx, path, false)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// NameFor is the lock file name for a lock on something outside the state folder (a
// user's file, by its absolute path): a hash, so any path maps to one short name.
func NameFor(abs string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(abs)))
	return hex.EncodeToString(sum[:12]) + ".lock"
}
