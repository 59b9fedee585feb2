package filelock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Exclusive holders never overlap; a shared holder waits for an exclusive one.
func TestExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	var mu sync.Mutex
	inside, overlaps := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Do(context.Background(), path, func() error {
				mu.Lock()
				inside++
				if inside > 1 {
					overlaps++
				}
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
				mu.Lock()
				inside--
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if overlaps != 0 {
		t.Errorf("%d overlapping exclusive holders", overlaps)
	}
}

// A lock that stays taken ends the wait with the context's error.
func TestWaitEndsWithContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Hold(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := Hold(ctx, path, true); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNotTaken) {
		t.Errorf("a shared lock while an exclusive one is held: %v, want the deadline", err)
	}
}

func TestNameFor(t *testing.T) {
	if NameFor("/a/b/plan.md") != NameFor("/a/b/../b/plan.md") {
		t.Error("the same file must map to the same lock")
	}
	if NameFor("/a/b/plan.md") == NameFor("/a/b/plan2.md") {
		t.Error("two files share a lock name")
	}
}

// TestWaitIsBounded: a lock another process holds for good (a stopped agentbox, a
// flock by hand) ends the wait after MaxWait with an error saying so, instead of
// hanging the call (a red team's todo call waited until it was killed).
func TestWaitIsBounded(t *testing.T) {
	defer func(d time.Duration) { MaxWait = d }(MaxWait)
	MaxWait = 200 * time.Millisecond
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Hold(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	start := time.Now()
	err = Do(context.Background(), path, func() error { return nil })
	if !errors.Is(err, ErrNotTaken) || !strings.Contains(err.Error(), "held by another process") || time.Since(start) > 5*time.Second {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
}

// TestNonRegularLockIsReplaced: a FIFO, a link to one or a folder where a lock file
// belongs is no lock: it is replaced, not opened (a FIFO hung the call past SIGTERM).
func TestNonRegularLockIsReplaced(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	link := filepath.Join(dir, "link.lock")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder.lock")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link, folder} {
		done := make(chan error, 1)
		go func() { done <- Do(context.Background(), p, func() error { return nil }) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", p, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: taking the lock blocked", p)
		}
	}
}
