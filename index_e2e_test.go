package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A search of a big enough tree starts a background build of its index and returns
// without waiting; later searches use it and answer exactly as without it, also after
// a file changed behind agentbox's back.
func TestGrepBuildsItsIndexInTheBackground(t *testing.T) {
	bin := agentboxBinary(t)
	root, cache, state, home := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	for i := range 60 {
		body := "hay\n"
		if i%10 == 0 {
			body = "needle\n"
		}
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2100 * time.Millisecond) // older than the build's racy window
	grep := func(index string) string {
		t.Helper()
		cmd := exec.Command(bin, "grep")
		cmd.Dir = root
		cmd.Stdin = bytes.NewReader([]byte(`{"pattern":"needle","output_mode":"count"}`))
		cmd.Env = []string{"HOME=" + home, "XDG_CACHE_HOME=" + cache, "XDG_STATE_HOME=" + state, "AGENTBOX_ROOT=" + root, "AGENTBOX_INDEX=" + index, "PATH=" + os.Getenv("PATH"), "AGENTBOX_WATCH_IDLE=60s"}
		// A descriptor the caller passes on (as `out=$(agentbox grep 9>&1)` does): the
		// helpers grep starts must not keep it open after grep exits.
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		cmd.ExtraFiles = []*os.File{pw}
		out, err := cmd.Output()
		pw.Close()
		if err != nil {
			t.Fatalf("grep: %v\n%s", err, out)
		}
		pr.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := pr.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			t.Fatalf("the caller's descriptor stayed open after grep exited (%d, %v): a helper holds it", n, err)
		}
		var env struct {
			Data struct {
				Counts        []string `json:"counts"`
				FilesSearched int      `json:"files_searched"`
			} `json:"data"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(env.Data.Counts, env.Data.FilesSearched)
	}
	want := grep("off")
	if got := grep("50"); got != want { // 60 files >= 50: starts the build
		t.Fatalf("first search: %s, want %s", got, want)
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "agentbox", "index", "*", "meta.json"))
	for deadline := time.Now().Add(20 * time.Second); len(matches) == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		matches, _ = filepath.Glob(filepath.Join(cache, "agentbox", "index", "*", "meta.json"))
	}
	if len(matches) == 0 {
		t.Fatal("no index was built in the background")
	}
	var meta struct{ Files int }
	if b, err := os.ReadFile(matches[0]); err != nil || json.Unmarshal(b, &meta) != nil || meta.Files != 60 {
		t.Fatalf("the index records %d files (%v), want 60", meta.Files, err)
	}
	if got := grep("50"); got != want {
		t.Fatalf("search with the index: %s, want %s", got, want)
	}
	// That search found no watcher and started one; the next ones take the tree's
	// files from it.
	for deadline := time.Now().Add(10 * time.Second); len(watcherPIDs(root)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no watcher was started")
		}
	}
	if err := os.WriteFile(filepath.Join(root, "f01.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(root, "new"), 0o755)
	os.WriteFile(filepath.Join(root, "new", "n.txt"), []byte("needle\n"), 0o644)
	want = grep("off")
	if got := grep("50"); got != want {
		t.Fatalf("after a change behind agentbox's back: %s, want %s", got, want)
	}
	pids := watcherPIDs(root)
	if len(pids) != 1 {
		t.Fatalf("%d watchers run for the root, want 1", len(pids))
	}
	// Its working folder is not in the root: that would keep a removed root alive.
	if cwd, err := os.Readlink("/proc/" + pids[0] + "/cwd"); err != nil || cwd != "/" {
		t.Fatalf("the watcher works in %q (%v), want /", cwd, err)
	}
	// Removing the index stops its watcher.
	rm := exec.Command(bin, "index", "--remove", root)
	rm.Env = []string{"HOME=" + home, "XDG_CACHE_HOME=" + cache, "XDG_STATE_HOME=" + state, "PATH=" + os.Getenv("PATH")}
	if out, err := rm.CombinedOutput(); err != nil {
		t.Fatalf("index --remove: %v\n%s", err, out)
	}
	for deadline := time.Now().Add(10 * time.Second); len(watcherPIDs(root)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the watcher outlived its index")
		}
	}
	if got := grep("50"); got != want { // builds the index again
		t.Fatalf("after the index was removed: %s, want %s", got, want)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(matches[0]); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the index was not built again")
		}
	}

	// An index that can no longer be read (damaged, or written by an older agentbox)
	// is replaced by the next big search once it is older than the rebuild interval.
	segs, _ := filepath.Glob(filepath.Join(filepath.Dir(matches[0]), "*.idx"))
	for _, s := range segs {
		os.WriteFile(s, []byte("abidx01\nnot an index"), 0o600)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(matches[0], old, old)
	if got := grep("50"); got != want {
		t.Fatalf("with a damaged index: %s, want %s", got, want)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if fi, err := os.Stat(matches[0]); err == nil && fi.ModTime().After(old.Add(time.Minute)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the damaged index was not rebuilt")
		}
	}
	if got := grep("50"); got != want {
		t.Fatalf("with the rebuilt index: %s, want %s", got, want)
	}
}

// watcherPIDs are the processes watching root for grep's index.
func watcherPIDs(root string) []string {
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte("__agentbox_watch__\x00"+root+"\x00")) {
			pids = append(pids, filepath.Base(d))
		}
	}
	return pids
}

// Text output is buffered (a write per line was half of a big search's time); the
// notes on stderr still come after the results they follow when both streams share a
// terminal or a pipe.
func TestTextOutputKeepsResultsBeforeNotes(t *testing.T) {
	bin := agentboxBinary(t)
	dir := t.TempDir()
	var b bytes.Buffer
	for i := range 20000 { // past the buffer's 64 KiB several times
		fmt.Fprintf(&b, "needle %d\n", i)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), b.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "b.bin"), []byte("needle\x00"), 0o644)
	cmd := exec.Command(bin, "grep", "-n", "needle", dir)
	var both bytes.Buffer
	cmd.Stdout, cmd.Stderr = &both, &both
	cmd.Env = append(os.Environ(), "AGENTBOX_INDEX=off", "AGENTBOX_ROOT="+dir, "XDG_STATE_HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatalf("grep: %v\n%.500s", err, both.String())
	}
	lines := strings.Split(strings.TrimSpace(both.String()), "\n")
	note := -1
	for i, l := range lines {
		if strings.Contains(l, "binary file") {
			note = i
		}
	}
	if note < 0 || strings.Count(both.String(), "needle ") != 20000 {
		t.Fatalf("want 20000 matches and a note about the binary file, got %d lines: %.300s", len(lines), both.String())
	}
	for _, l := range lines[note+1:] {
		if strings.Contains(l, ":needle ") {
			t.Fatalf("a result came after the note: %q", l)
		}
	}
}
