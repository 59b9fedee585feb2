package patch

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// killingFS kills its own process with SIGKILL on the n-th write, like a kill -9 mid-apply.
type killingFS struct {
	OSFS
	n, calls int
}

func (k *killingFS) WriteFile(name string, data []byte, mode fs.FileMode) error {
	k.calls++
	if k.calls == k.n {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return k.OSFS.WriteFile(name, data, mode)
}

const crashPatch = "*** Begin Patch\n*** Update File: a\n-1\n+one\n*** Update File: b\n-2\n+two\n*** Update File: c\n-3\n+three\n*** End Patch"

func TestMain(m *testing.M) {
	if dir := os.Getenv("PATCH_CRASH_DIR"); dir != "" {
		p, err := Parse(crashPatch)
		if err != nil {
			os.Exit(3)
		}
		fsys := &killingFS{OSFS: OSFS{Dir: dir}, n: 3}
		r, err := Prepare(p, fsys)
		if err != nil {
			os.Exit(4)
		}
		_ = r.Commit(fsys, CommitOptions{Journal: filepath.Join(dir, "journal.json")})
		os.Exit(5) // not reached: killed on the third write
	}
	os.Exit(m.Run())
}

func TestKillMidCommitIsRecovered(t *testing.T) {
	dir := t.TempDir()
	orig := map[string]string{"a": "1\n", "b": "2\n", "c": "3\n"}
	for k, v := range orig {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PATCH_CRASH_DIR="+dir)
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v", err)
	}
	read := func(n string) string {
		b, _ := os.ReadFile(filepath.Join(dir, n))
		return string(b)
	}
	if read("a") != "one\n" || read("b") != "two\n" || read("c") != "3\n" {
		t.Fatalf("expected a half-applied patch before recovery: %q %q %q", read("a"), read("b"), read("c"))
	}
	rec, err := Recover(filepath.Join(dir, "journal.json"), OSFS{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Restored) != 2 {
		t.Errorf("restored %v, want a and b", rec.Restored)
	}
	for k, v := range orig {
		if got := read(k); got != v {
			t.Errorf("%s = %q after recovery, want %q", k, got, v)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "journal.json")); err == nil {
		t.Error("journal not removed")
	}
}
