package main

// Scale (issues 3 and 9): grep, glob, ls and read over a generated tree of 1,000,000
// files and over a 4 GB file, each run as the real binary in its own process. Every
// call must answer with an output envelope within its time budget, mark a result that
// exceeds a cap as truncated (with the whole list in output_path, or a reason), and keep
// the process's peak RSS bounded: a multi-GB file is never loaded, a million paths do
// not push the process past a few hundred MB.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Sizes of the generated data.
const (
	scaleDirs      = 1000    // folders under the tree's root
	scaleFiles     = 1000    // files in each folder
	scaleCommonNth = 10      // every 10th file holds scaleCommon
	scaleBigBytes  = 4 << 30 // the big file
)

// Bounds the tests assert. The peak RSS bounds have a margin over what was measured
// (see the t.Logf lines in -v output; on 2 cores: 186-282 MiB for the tree, the most
// for files_with_matches over every file; 18-96 MiB for the 4 GB file, the most for
// 100,000 collected content lines), yet far below the data's size.
const (
	treeRSSLimitKiB = 400 << 10 // 400 MiB for a million-file tree
	fileRSSLimitKiB = 128 << 10 // 128 MiB for a 4 GB file
	// scaleCallLimit bounds one call's wall time: the applets' own budgets are 20-30 s,
	// so a call past this has not honoured its budget.
	scaleCallLimit = 60 * time.Second
)

// scaleRun is one measured call of the binary.
type scaleRun struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	ErrorText string          `json:"error_text"`
	Metadata  struct {
		Truncated  bool   `json:"truncated"`
		OutputPath string `json:"output_path"`
	} `json:"metadata"`
	wall   time.Duration
	rssKiB int
}

// runScale runs `agentbox applet` with req on stdin, in the workspace root, and measures
// its wall time and peak RSS. GNU time measures the RSS when it is installed (it forks
// from a small process); otherwise the child's rusage is used, which Linux may inflate
// with this test process's own high-water mark (a vforked child inherits it), so it is
// an upper bound.
func runScale(t *testing.T, bin, root, applet, req string, extraEnv ...string) *scaleRun {
	t.Helper()
	return runScaleArgs(t, bin, root, []string{applet}, req, extraEnv...)
}

// runScaleArgs is runScale with the whole argument list (`index --json DIR`).
func runScaleArgs(t *testing.T, bin, root string, args []string, req string, extraEnv ...string) *scaleRun {
	t.Helper()
	applet := strings.Join(args, " ")
	state := filepath.Join(root, ".state")
	env := append(os.Environ(), "AGENTBOX_ROOT="+root, "XDG_STATE_HOME="+state, "AGENTBOX_SESSION=scale", "AGENTBOX_HEADLESS=1")
	env = append(env, extraEnv...)
	var cmd *exec.Cmd
	rssFile := ""
	if timeBin, err := exec.LookPath("/usr/bin/time"); err == nil {
		f, err := os.CreateTemp("", "agentbox-rss")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		rssFile = f.Name()
		defer os.Remove(rssFile)
		cmd = exec.Command(timeBin, append([]string{"-f", "%M", "-o", rssFile, bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Dir = root
	cmd.Env = env
	cmd.Stdin = strings.NewReader(req)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Start()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(3 * scaleCallLimit):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s %s did not finish within %v: it hangs or ignores its time budget", applet, req, 3*scaleCallLimit)
	}
	r := &scaleRun{wall: time.Since(start)}
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout: %.500s\nstderr: %.500s", applet, req, err, stdout.Bytes(), stderr.Bytes())
	}
	if err := json.Unmarshal(stdout.Bytes(), r); err != nil {
		t.Fatalf("%s %s: the output is not one JSON envelope: %v\n%.500s", applet, req, err, stdout.Bytes())
	}
	if r.Type != "output" {
		t.Fatalf("%s %s: %s envelope: %s", applet, req, r.Type, r.ErrorText)
	}
	if rssFile != "" {
		text, _ := os.ReadFile(rssFile)
		if _, err := fmt.Sscan(strings.TrimSpace(string(text)), &r.rssKiB); err != nil {
			t.Fatalf("cannot parse GNU time's output %q: %v", text, err)
		}
	} else if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rssKiB = int(ru.Maxrss)
	}
	t.Logf("%-5s %-70.70s wall %6.2fs  peak RSS %4d MiB", applet, req, r.wall.Seconds(), r.rssKiB>>10)
	if r.wall > scaleCallLimit {
		t.Errorf("%s %s took %v, over %v: the time budget was not honoured", applet, req, r.wall, scaleCallLimit)
	}
	return r
}

// checkRSS fails when a call's peak RSS is over limit.
func (r *scaleRun) checkRSS(t *testing.T, what string, limitKiB int) {
	t.Helper()
	if r.rssKiB > limitKiB {
		t.Errorf("%s: peak RSS %d MiB is over the bound of %d MiB", what, r.rssKiB>>10, limitKiB>>10)
	}
}

// data decodes the envelope's data.
func (r *scaleRun) data(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Data, v); err != nil {
		t.Fatalf("cannot decode data: %v\n%.500s", err, r.Data)
	}
}

// spilled checks the call was marked truncated with a sidecar file and returns the
// sidecar's line count.
func (r *scaleRun) spilled(t *testing.T, what string) int {
	t.Helper()
	if !r.Metadata.Truncated || r.Metadata.OutputPath == "" {
		t.Fatalf("%s: not marked truncated with an output_path (truncated=%v, output_path=%q)", what, r.Metadata.Truncated, r.Metadata.OutputPath)
	}
	f, err := os.Open(r.Metadata.OutputPath)
	if err != nil {
		t.Fatalf("%s: the output_path cannot be read: %v", what, err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// Rare markers in the tree: the files holding them.
var scaleRare = []string{"d007/f0123.txt", "d500/f0500.txt", "d999/f0999.txt"}

const (
	scaleCommon     = "needle_common"
	scaleRareMarker = "ZEBRA_QUARTZ_MARKER"
)

// makeTree writes scaleDirs folders of scaleFiles small files each below root, in
// parallel. Every file has a "func" line; every scaleCommonNth holds scaleCommon; the
// files in scaleRare hold scaleRareMarker.
func makeTree(t *testing.T, root string) {
	t.Helper()
	rare := map[string]bool{}
	for _, r := range scaleRare {
		rare[r] = true
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < max(4, 2*runtime.NumCPU()); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b []byte
			for d := range jobs {
				dir := filepath.Join(root, fmt.Sprintf("d%03d", d))
				err := os.Mkdir(dir, 0o755)
				for f := 0; f < scaleFiles && err == nil; f++ {
					name := fmt.Sprintf("f%04d.txt", f)
					b = append(b[:0], "package p\n\n// file "...)
					b = strconv.AppendInt(b, int64(d*scaleFiles+f), 10)
					b = append(b, "\nfunc F() int { return 1 }\n"...)
					if rare[fmt.Sprintf("d%03d/%s", d, name)] {
						b = append(b, "// "+scaleRareMarker+"\n"...)
					}
					if f%scaleCommonNth == 0 {
						b = append(b, "var x = \""+scaleCommon+"\"\n"...)
					}
					err = os.WriteFile(filepath.Join(dir, name), b, 0o644)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for d := 0; d < scaleDirs; d++ {
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		t.Skipf("cannot make a million-file tree here: %v", firstErr)
	}
}

func TestScaleMillionFiles(t *testing.T) {
	longTest(t)
	bin := agentboxBinary(t)
	root := t.TempDir()
	t.Cleanup(func() { removeTree(t, root) }) // runs before TempDir's own, serial removal
	start := time.Now()
	makeTree(t, root)
	t.Logf("generated %d files in %d folders in %.1fs", scaleDirs*scaleFiles, scaleDirs, time.Since(start).Seconds())
	total := scaleDirs * scaleFiles

	t.Run("grep_files_common", func(t *testing.T) {
		r := runScale(t, bin, root, "grep", `{"pattern":"`+scaleCommon+`"}`)
		r.checkRSS(t, "grep files_with_matches", treeRSSLimitKiB)
		var d struct {
			Files         []string
			FilesMatched  int `json:"files_matched"`
			FilesSearched int `json:"files_searched"`
			More          int
		}
		r.data(t, &d)
		want := total / scaleCommonNth
		if d.FilesMatched != want || d.FilesSearched != total || len(d.Files) != 200 || d.More != want-200 {
			t.Errorf("files_matched %d (want %d), files_searched %d (want %d), %d files shown (want 200), more %d", d.FilesMatched, want, d.FilesSearched, total, len(d.Files), d.More)
		}
		if n := r.spilled(t, "grep files_with_matches"); n != want {
			t.Errorf("the output_path holds %d paths, want %d", n, want)
		}
	})
	t.Run("grep_files_every_file", func(t *testing.T) {
		// The worst case for files_with_matches: every one of the million files matches.
		r := runScale(t, bin, root, "grep", `{"pattern":"^func F"}`)
		r.checkRSS(t, "grep files_with_matches, all files", treeRSSLimitKiB)
		var d struct {
			Files        []string
			FilesMatched int `json:"files_matched"`
			More         int
		}
		r.data(t, &d)
		if d.FilesMatched != total || len(d.Files) != 200 || d.More != total-200 {
			t.Errorf("files_matched %d (want %d), %d files shown (want 200), more %d", d.FilesMatched, total, len(d.Files), d.More)
		}
		if n := r.spilled(t, "grep files_with_matches, all files"); n != total {
			t.Errorf("the output_path holds %d paths, want %d", n, total)
		}
	})
	t.Run("grep_content_every_file", func(t *testing.T) {
		r := runScale(t, bin, root, "grep", `{"pattern":"^func F","output_mode":"content"}`)
		r.checkRSS(t, "grep content", treeRSSLimitKiB)
		var d struct {
			Lines        []string
			TotalMatches int `json:"total_matches"`
			More         int
			Partial      string
		}
		r.data(t, &d)
		if d.TotalMatches != total || len(d.Lines) != 200 || !strings.Contains(d.Partial, "lines matched") {
			t.Errorf("total_matches %d (want %d), %d lines shown (want 200), partial %q (want the collection cap)", d.TotalMatches, total, len(d.Lines), d.Partial)
		}
		if n := r.spilled(t, "grep content"); n != 100_000 {
			t.Errorf("the output_path holds %d lines, want the 100000 collected", n)
		}
	})
	t.Run("grep_rare", func(t *testing.T) {
		r := runScale(t, bin, root, "grep", `{"pattern":"`+scaleRareMarker+`","output_mode":"content"}`)
		r.checkRSS(t, "grep rare", treeRSSLimitKiB)
		var d struct {
			Lines   []string
			Partial string
		}
		r.data(t, &d)
		if len(d.Lines) != len(scaleRare) || d.Partial != "" || r.Metadata.Truncated {
			t.Fatalf("want %d lines, complete; got %q, partial %q, truncated %v", len(scaleRare), d.Lines, d.Partial, r.Metadata.Truncated)
		}
		for i, rel := range scaleRare {
			if want := filepath.Join(root, rel) + ":5:// " + scaleRareMarker; d.Lines[i] != want {
				t.Errorf("line %d: %q, want %q", i, d.Lines[i], want)
			}
		}
	})
	t.Run("glob_everything", func(t *testing.T) {
		r := runScale(t, bin, root, "glob", `{"pattern":"**/*.txt"}`)
		r.checkRSS(t, "glob", treeRSSLimitKiB)
		var d struct {
			Files   []string
			Total   int
			More    int
			Partial string
		}
		r.data(t, &d)
		if len(d.Files) != 1000 || d.Total != total || d.More != total-1000 || d.Partial != "" {
			t.Errorf("%d files shown (want 1000), total %d (want %d), more %d, partial %q", len(d.Files), d.Total, total, d.More, d.Partial)
		}
		if n := r.spilled(t, "glob"); n != total {
			t.Errorf("the output_path holds %d paths, want %d", n, total)
		}
	})
	t.Run("ls_wide_folder", func(t *testing.T) {
		r := runScale(t, bin, root, "ls", `{"path":"d042","limit":100}`)
		var d struct {
			Entries []struct{ Name string }
			Total   int
			More    int
		}
		r.data(t, &d)
		if len(d.Entries) != 100 || d.Total != scaleFiles || d.More != scaleFiles-100 || d.Entries[0].Name != "f0000.txt" {
			t.Errorf("%d entries (want 100), total %d, more %d", len(d.Entries), d.Total, d.More)
		}
		if n := r.spilled(t, "ls"); n != scaleFiles {
			t.Errorf("the output_path holds %d entries, want %d", n, scaleFiles)
		}
	})
	t.Run("ls_root_depth", func(t *testing.T) {
		r := runScale(t, bin, root, "ls", `{"path":".","depth":3}`)
		r.checkRSS(t, "ls depth 3", treeRSSLimitKiB)
		var d struct {
			Entries []struct{ Path string }
			Total   int
			More    int
			Partial string
		}
		r.data(t, &d)
		all := scaleDirs + total
		if len(d.Entries) != 1000 || d.Total != all || d.More != all-1000 || d.Partial != "" {
			t.Errorf("%d entries (want 1000), total %d (want %d), more %d, partial %q", len(d.Entries), d.Total, all, d.More, d.Partial)
		}
		if n := r.spilled(t, "ls depth"); n != all {
			t.Errorf("the output_path holds %d entries, want %d", n, all)
		}
	})
	t.Run("index", func(t *testing.T) {
		// grep's index over the million files: its build's memory stays bounded (8 Mi
		// postings gathered at a time), and a search with it answers as grep_rare did. The
		// build's racy window is 2 s: the tree must be older for every file to be recorded.
		time.Sleep(2100 * time.Millisecond)
		cache := t.TempDir()
		b := runScaleArgs(t, bin, root, []string{"index", "--json", root}, "", "XDG_CACHE_HOME="+cache)
		b.checkRSS(t, "index build", treeRSSLimitKiB)
		var rep struct {
			Files      int   `json:"files"`
			TextBytes  int64 `json:"text_bytes"`
			IndexBytes int64 `json:"index_bytes"`
		}
		b.data(t, &rep)
		t.Logf("index: %d files, %d bytes of text, index %d bytes (%.0f%%)", rep.Files, rep.TextBytes, rep.IndexBytes, 100*float64(rep.IndexBytes)/float64(max(rep.TextBytes, 1)))
		if rep.Files != total {
			t.Errorf("the index records %d files, want %d", rep.Files, total)
		}
		req := `{"pattern":"` + scaleRareMarker + `","output_mode":"content"}`
		with := runScale(t, bin, root, "grep", req, "XDG_CACHE_HOME="+cache, "AGENTBOX_INDEX=on")
		with.checkRSS(t, "grep with the index", treeRSSLimitKiB)
		without := runScale(t, bin, root, "grep", req)
		if string(with.Data) != string(without.Data) {
			t.Errorf("with the index: %.300s\nwithout: %.300s", with.Data, without.Data)
		}
		// That search started a watcher, which compares the million files with the
		// index in the background: removing the index stops it before the timed
		// subtests below.
		runScaleArgs(t, bin, root, []string{"index", "--remove", "--json", root}, "", "XDG_CACHE_HOME="+cache)
		for deadline := time.Now().Add(30 * time.Second); len(watcherPIDs(root)) > 0; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the watcher outlived its index")
			}
		}
	})
	t.Run("budget", func(t *testing.T) {
		// A small budget (AGENTBOX_WALK_BUDGET) stops each walk early: a partial result,
		// marked truncated with the reason, soon after the budget.
		const budget = "200ms"
		for _, c := range []struct{ applet, req string }{
			{"grep", `{"pattern":"` + scaleRareMarker + `","output_mode":"content"}`},
			{"glob", `{"pattern":"**/*.txt"}`},
			{"ls", `{"path":".","depth":3}`},
		} {
			r := runScale(t, bin, root, c.applet, c.req, "AGENTBOX_WALK_BUDGET="+budget)
			var d struct{ Partial string }
			r.data(t, &d)
			if d.Partial != "time budget of "+budget+" exhausted" || !r.Metadata.Truncated {
				t.Errorf("%s with a %s budget: partial %q, truncated %v; want the budget named as the reason", c.applet, budget, d.Partial, r.Metadata.Truncated)
			}
			if r.wall > 10*time.Second {
				t.Errorf("%s with a %s budget took %v", c.applet, budget, r.wall)
			}
		}
	})
}

// removeTree removes a generated tree one folder per goroutine: os.RemoveAll of a
// million files alone takes minutes.
func removeTree(t *testing.T, root string) {
	start := time.Now()
	entries, _ := os.ReadDir(root)
	jobs := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < max(4, 2*runtime.NumCPU()); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				_ = os.RemoveAll(p)
			}
		}()
	}
	for _, e := range entries {
		jobs <- filepath.Join(root, e.Name())
	}
	close(jobs)
	wg.Wait()
	t.Logf("removed the tree in %.1fs", time.Since(start).Seconds())
}

// The big file: blocks of log lines, every scaleEveryNth line of a block holding
// scaleEvery, and one marker line after block bigMarkerBlock.
const (
	scaleEvery     = "WARN slow"
	scaleEveryNth  = 128
	bigMarker      = "UNIQUE_NEEDLE_9f41c2 the one line near the end"
	bigMarkerBlock = 4090 // of 4096 blocks: about 6 MB before the end
)

func TestScaleBigFile(t *testing.T) {
	longTest(t)
	bin := agentboxBinary(t)
	root := t.TempDir()
	dir := filepath.Join(root, "big")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "huge.log")
	// One block of about 1 MiB of varied lines.
	var block bytes.Buffer
	perBlock, everyPerBlock := 0, 0
	for block.Len() < 1<<20-200 {
		perBlock++
		level := "INFO request handled"
		if perBlock%scaleEveryNth == 0 {
			level, everyPerBlock = scaleEvery, everyPerBlock+1
		}
		fmt.Fprintf(&block, "2026-11-22T21:%02d:%02d.%03dZ %s in %dms path=/api/v1/items/%d status=%d\n",
			perBlock/60%60, perBlock%60, perBlock%1000, level, perBlock%97, perBlock*7919%100000, 200+perBlock%3)
	}
	blocks := scaleBigBytes / block.Len()
	start := time.Now()
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < blocks; i++ {
		if _, err := f.Write(block.Bytes()); err != nil {
			f.Close()
			t.Skipf("cannot make a 4 GB file here: %v", err)
		}
		if i == bigMarkerBlock {
			if _, err := f.WriteString(bigMarker + "\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	size := int64(blocks*block.Len() + len(bigMarker) + 1)
	markerLine := (bigMarkerBlock+1)*perBlock + 1
	totalLines := blocks*perBlock + 1
	t.Logf("wrote a %.2f GB file (%d lines) in %.1fs", float64(size)/1e9, totalLines, time.Since(start).Seconds())

	t.Run("grep_marker_near_end", func(t *testing.T) {
		r := runScale(t, bin, root, "grep", fmt.Sprintf(`{"pattern":"UNIQUE_NEEDLE_[0-9a-f]+","path":%q,"output_mode":"content"}`, big))
		r.checkRSS(t, "grep of the 4 GB file", fileRSSLimitKiB)
		var d struct {
			Lines        []string
			TotalMatches int `json:"total_matches"`
			Partial      string
		}
		r.data(t, &d)
		want := fmt.Sprintf("%s:%d:%s", big, markerLine, bigMarker)
		if len(d.Lines) != 1 || d.Lines[0] != want || d.TotalMatches != 1 || d.Partial != "" || r.Metadata.Truncated {
			t.Errorf("lines %q (want [%q]), total_matches %d, partial %q, truncated %v", d.Lines, want, d.TotalMatches, d.Partial, r.Metadata.Truncated)
		}
	})
	t.Run("grep_every_nth_line", func(t *testing.T) {
		r := runScale(t, bin, root, "grep", fmt.Sprintf(`{"pattern":%q,"path":"big","output_mode":"content"}`, scaleEvery))
		r.checkRSS(t, "grep of the 4 GB file, many matches", fileRSSLimitKiB)
		var d struct {
			Lines        []string
			TotalMatches int `json:"total_matches"`
			Partial      string
		}
		r.data(t, &d)
		if want := blocks * everyPerBlock; d.TotalMatches != want || len(d.Lines) != 200 || !strings.Contains(d.Partial, "lines matched") {
			t.Errorf("total_matches %d (want %d), %d lines shown (want 200), partial %q (want the collection cap)", d.TotalMatches, want, len(d.Lines), d.Partial)
		}
		if want := fmt.Sprintf("%s:%d:", big, scaleEveryNth); len(d.Lines) > 0 && !strings.HasPrefix(d.Lines[0], want) {
			t.Errorf("first line %q, want it to start with %q", d.Lines[0], want)
		}
		if n := r.spilled(t, "grep of the 4 GB file, many matches"); n != 100_000 {
			t.Errorf("the output_path holds %d lines, want the 100000 collected", n)
		}
	})
	t.Run("grep_multiline_skips", func(t *testing.T) {
		// Multiline search needs a whole file in memory: a 4 GB one is skipped and counted.
		r := runScale(t, bin, root, "grep", fmt.Sprintf(`{"pattern":"status=200\\n2026","path":%q,"multiline":true}`, big))
		r.checkRSS(t, "multiline grep of the 4 GB file", fileRSSLimitKiB)
		var d struct {
			SkippedLarge int `json:"skipped_large"`
			FilesMatched int `json:"files_matched"`
		}
		r.data(t, &d)
		if d.SkippedLarge != 1 || d.FilesMatched != 0 {
			t.Errorf("skipped_large %d, files_matched %d; want the file skipped as too large", d.SkippedLarge, d.FilesMatched)
		}
	})
	t.Run("grep_budget", func(t *testing.T) {
		// Searching one huge file honours the time budget too, between its chunks.
		r := runScale(t, bin, root, "grep", fmt.Sprintf(`{"pattern":"UNIQUE_NEEDLE","path":%q,"output_mode":"content"}`, big), "AGENTBOX_WALK_BUDGET=50ms")
		var d struct {
			Lines   []string
			Partial string
		}
		r.data(t, &d)
		if d.Partial != "time budget of 50ms exhausted" || !r.Metadata.Truncated || len(d.Lines) != 0 {
			t.Errorf("partial %q, truncated %v, %d lines; want a partial result naming the budget", d.Partial, r.Metadata.Truncated, len(d.Lines))
		}
		if r.wall > 5*time.Second {
			t.Errorf("a 50ms budget took %v", r.wall)
		}
	})
	t.Run("read_near_end", func(t *testing.T) {
		r := runScale(t, bin, root, "read", fmt.Sprintf(`{"file_path":%q,"offset":%d,"limit":3}`, big, markerLine-1)) // offset: lines skipped
		r.checkRSS(t, "read of the 4 GB file", fileRSSLimitKiB)
		var d struct {
			Content    string
			StartLine  int `json:"start_line"`
			TotalLines int `json:"total_lines"`
		}
		r.data(t, &d)
		if d.StartLine != markerLine || !strings.Contains(d.Content, bigMarker) || d.TotalLines != totalLines {
			t.Errorf("start_line %d (want %d), total_lines %d (want %d), content %q", d.StartLine, markerLine, d.TotalLines, totalLines, d.Content)
		}
	})
	t.Run("glob_and_ls", func(t *testing.T) {
		r := runScale(t, bin, root, "glob", `{"pattern":"big/*.log"}`)
		var g struct{ Files []string }
		r.data(t, &g)
		if len(g.Files) != 1 || g.Files[0] != big {
			t.Errorf("glob: %q", g.Files)
		}
		r = runScale(t, bin, root, "ls", `{"path":"big","long_format":true}`)
		var l struct {
			Entries []struct {
				Name string
				Size int64
			}
		}
		r.data(t, &l)
		if len(l.Entries) != 1 || l.Entries[0].Name != "huge.log" || l.Entries[0].Size != size {
			t.Errorf("ls: %+v, want huge.log of %d bytes", l.Entries, size)
		}
	})
}
