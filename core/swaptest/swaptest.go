// Package swaptest races tests against a process that renames files under them: the
// attack a red team made on agentbox's confinement and writes, kept as a helper so
// the tests of every package that must withstand it run the same race.
package swaptest

import (
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// Loop exchanges the paths a and b (rename(2) with RENAME_EXCHANGE) over and over until
// the returned stop is called, which waits for the loop to end. The loop ends early once
// an exchange fails (one of the two is gone). The test is skipped where the exchange is
// not available.
func Loop(t testing.TB, a, b string) (stop func()) {
	t.Helper()
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("rename with RENAME_EXCHANGE is not available here (%v)", err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) != nil {
					return
				}
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}
