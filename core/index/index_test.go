package index

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildNow builds the index of root at once (files just written are not racy here).
func buildNow(t *testing.T, cache, root string, opt BuildOptions) Meta {
	t.Helper()
	opt.RacyWindow = -1 // a file written before the build is recorded
	m, err := Build(context.Background(), cache, root, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A file is skipped only when it holds no literal (in any ASCII case) and is as the
// index recorded it; everything else is searched. Several segments (a tiny posting
// budget) answer as one.
func TestPrunerNeverSkipsAMatch(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	r := rand.New(rand.NewPCG(7, 8))
	words := []string{"alpha", "beta", "Gamma", "delta", "errFoo", "ERRBAR", "x", "yz", "ünïcode"}
	files := map[string]string{}
	for i := range 300 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(" \n"[r.IntN(2)])
		}
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = b.String()
	}
	files["bin.dat"] = "alpha\x00beta"
	files["utf16.txt"] = "\xff\xfea\x00l\x00"
	files["late-nul.txt"] = strings.Repeat("gamma\n", 200000) + "\x00" // NUL past the first chunk
	writeTree(t, root, files)
	for _, opt := range []BuildOptions{{}, {MaxPostings: 50}, {MaxSegmentFiles: 7}} {
		m := buildNow(t, cache, root, opt)
		if opt.MaxPostings+opt.MaxSegmentFiles > 0 && len(m.Segments) < 5 {
			t.Fatalf("want many segments with %+v, got %d", opt, len(m.Segments))
		}
		if m.Files != 303 {
			t.Fatalf("recorded %d files, want the 300 text files, bin.dat, and the UTF-16 and late-NUL files as left to the search", m.Files)
		}
		ix, err := Open(cache, root)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range [][]string{{"alpha"}, {"gamma"}, {"errfoo", "errbar"}, {"ünïcode"}, {"nothere"}, {"elta be"}} {
			var lits [][]byte
			for _, l := range q {
				lits = append(lits, []byte(l))
			}
			p := ix.Pruner(lits)
			skipped := 0
			for name, body := range files {
				holds := false
				for _, l := range q {
					holds = holds || bytes.Contains(bytes.ToLower([]byte(body)), []byte(strings.ToLower(l)))
				}
				skip, binary := p.Skip(filepath.Join(root, name))
				if name == "bin.dat" {
					if !skip || !binary {
						t.Fatalf("%v: bin.dat: skip %v binary %v, want a binary skip", q, skip, binary)
					}
					continue
				}
				if binary || (name == "utf16.txt" || name == "late-nul.txt") && skip {
					t.Fatalf("%v: %s: skip %v binary %v", q, name, skip, binary)
				}
				if skip && holds {
					t.Fatalf("%v: %s holds a literal but was skipped", q, name)
				}
				if skip {
					skipped++
				}
			}
			if q[0] == "nothere" && skipped != 300 {
				t.Fatalf("an absent literal skips every recorded file, got %d", skipped)
			}
		}
		if ix.Pruner([][]byte{[]byte("ab")}) != nil {
			t.Fatal("a literal shorter than a trigram cannot prune")
		}
		ix.Close()
	}
}

// Changes behind the index's back: an edited, a replaced, a touched, a new and a
// renamed file are all searched, never skipped on the old record.
func TestPrunerSeesChangedFiles(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "nothing\n", "b.txt": "nothing\n", "c.txt": "nothing\n", "d.txt": "nothing\n"})
	buildNow(t, cache, root, BuildOptions{})
	time.Sleep(20 * time.Millisecond) // a new clock tick for the changes
	writeTree(t, root, map[string]string{"a.txt": "needle!\n", "new.txt": "needle\n"})
	os.Rename(filepath.Join(root, "b.txt"), filepath.Join(root, "b2.txt"))
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("needle\n"), 0o644)
	if f, err := os.OpenFile(filepath.Join(root, "c.txt"), os.O_WRONLY, 0); err == nil {
		f.WriteAt([]byte("needl"), 0) // same size
		f.Close()
	}
	ix, err := Open(cache, root)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	p := ix.Pruner([][]byte{[]byte("needle")})
	for _, name := range []string{"a.txt", "b.txt", "c.txt", "new.txt"} {
		if skip, _ := p.Skip(filepath.Join(root, name)); skip {
			t.Errorf("%s changed since the build but was skipped", name)
		}
	}
	if skip, _ := p.Skip(filepath.Join(root, "d.txt")); !skip {
		t.Error("the unchanged d.txt lacks the literal and should be skipped")
	}
	if p.Changed.Load() < 3 || p.Unknown.Load() < 1 {
		t.Errorf("changed %d, unknown %d", p.Changed.Load(), p.Unknown.Load())
	}
}

// A file changed within RacyWindow of the build's start is recorded as left to the
// search: listed, never pruned.
func TestRacyFilesAreLeftToTheSearch(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{"fresh.txt": "x\n"})
	m, err := Build(context.Background(), cache, root, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Files != 1 || m.Bytes != 0 || m.Postings != 0 {
		t.Fatalf("a file written just now was indexed: %+v", m)
	}
	ix, err := Open(cache, root)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	p := ix.Pruner([][]byte{[]byte("absent")})
	if skip, _ := p.Skip(filepath.Join(root, "fresh.txt")); skip {
		t.Fatal("a file the build left to the search was pruned")
	}
	var listed []string
	p.Each("", &Changes{}, func(rel []byte, read, _ bool) {
		if read {
			listed = append(listed, string(rel))
		}
	})
	if len(listed) != 1 || listed[0] != "fresh.txt" {
		t.Fatalf("the file list gives %q to read, want fresh.txt", listed)
	}
}

// A second build while one runs gives way; a rebuild replaces the old segments.
func TestBuildLockAndReplace(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "hello\n"})
	m1 := buildNow(t, cache, root, BuildOptions{})
	m2 := buildNow(t, cache, root, BuildOptions{})
	entries, _ := os.ReadDir(Dir(cache, root))
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".idx") {
			n++
		}
	}
	if n != len(m2.Segments) || m1.Segments[0] == m2.Segments[0] {
		t.Fatalf("old segments left: %d files for %d segments", n, len(m2.Segments))
	}
}

// FuzzOpenSegment: no bytes make opening or querying a segment panic or read outside it.
func FuzzOpenSegment(f *testing.F) {
	root, cache := f.TempDir(), f.TempDir()
	for name, body := range map[string]string{"a.txt": "hello world\n", "b/c.go": "package c\nfunc main() {}\n"} {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	m, err := Build(context.Background(), cache, root, BuildOptions{RacyWindow: -1})
	if err != nil {
		f.Fatal(err)
	}
	valid, _ := os.ReadFile(filepath.Join(Dir(cache, root), m.Segments[0]))
	f.Add(valid)
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= headerSize {
			// Past the checksum, so that the layout checks behind it are what is fuzzed.
			binary.LittleEndian.PutUint32(data[headerSize-4:], crc32.Checksum(data[headerSize:], castagnoli()))
		}
		s, err := parseSegment(data)
		if err != nil {
			return
		}
		for _, rel := range []string{"a.txt", "b/c.go", "", "zz"} {
			if id, ok := s.lookup(rel); ok {
				_ = s.record(id)
			}
		}
		c := s.candidates([][]uint32{trigramsOf([]byte("hello")), trigramsOf([]byte("func"))})
		_ = c.count()
	})
}

// A segment damaged on disk never makes a search skip a file that matches: a flipped
// bit anywhere in its tables fails the opening, one in a posting list makes the
// segment prune nothing (each list is checked when read), and a truncated tail fails
// the opening. A FIFO or a folder where meta.json or a segment should be fails the
// opening at once instead of blocking it.
func TestDamagedIndexIsNotUsed(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "a needle\n", "b.txt": "hay stack\n"})
	m := buildNow(t, cache, root, BuildOptions{})
	seg := filepath.Join(Dir(cache, root), m.Segments[0])
	good, _ := os.ReadFile(seg)
	opened := 0
	for at := range good {
		for _, bit := range []byte{0x01, 0x40} {
			bad := append([]byte(nil), good...)
			bad[at] ^= bit
			os.WriteFile(seg, bad, 0o600)
			ix, err := Open(cache, root)
			if err != nil {
				continue
			}
			opened++
			for lit, holder := range map[string]string{"needle": "a.txt", "stack": "b.txt"} {
				if skip, _ := ix.Pruner([][]byte{[]byte(lit)}).Skip(filepath.Join(root, holder)); skip {
					t.Fatalf("with bit %#x of byte %d flipped, %s was skipped for %q, which it holds", bit, at, holder, lit)
				}
			}
			ix.Close()
		}
	}
	if opened == 0 {
		t.Fatal("no flip landed in a posting list: the test checks nothing there")
	}
	os.WriteFile(seg, good[:len(good)-8], 0o600)
	if _, err := Open(cache, root); err == nil {
		t.Fatal("a truncated segment was opened")
	}
	os.WriteFile(seg, good, 0o600)
	for _, name := range []string{"meta.json", m.Segments[0]} {
		p := filepath.Join(Dir(cache, root), name)
		saved, _ := os.ReadFile(p)
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			ix, err := Open(cache, root)
			if err == nil {
				ix.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("an index with a FIFO for %s was opened", name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("opening an index with a FIFO for %s blocked", name)
		}
		os.Remove(p)
		os.WriteFile(p, saved, 0o600)
	}
	if ix, err := Open(cache, root); err != nil {
		t.Fatalf("the repaired index does not open: %v", err)
	} else {
		ix.Close()
	}
}

// A FIFO where the build's lock file goes does not hang the build.
func TestBuildWithAFIFOForItsLock(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "x\n"})
	os.MkdirAll(filepath.Dir(Dir(cache, root)), 0o700)
	if err := syscall.Mkfifo(Dir(cache, root)+".lock", 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Build(context.Background(), cache, root, BuildOptions{RacyWindow: -1})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the build blocked on a FIFO lock file")
	}
}

// A relative XDG_CACHE_HOME is ignored (the XDG rule), so an index never lands in the
// searched tree; no absolute home means no cache.
func TestCacheHome(t *testing.T) {
	for _, c := range []struct{ xdg, home, want string }{
		{"/c", "/h", "/c"}, {"rel/c", "/h", "/h/.cache"}, {"", "/h", "/h/.cache"}, {"rel", "rel", ""}, {"", "", ""},
	} {
		got := CacheHome(func(k string) string { return map[string]string{"XDG_CACHE_HOME": c.xdg, "HOME": c.home}[k] })
		if got != c.want {
			t.Errorf("XDG_CACHE_HOME=%q HOME=%q: %q, want %q", c.xdg, c.home, got, c.want)
		}
	}
}

// A search trusts a watcher's answer only when it is one: garbage, a wrong shape or a
// folder outside the root is an error (the search then walks), and no answer within
// the wait is one too.
func TestSyncRejectsStrangeAnswers(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	for _, answer := range []string{ // names travel as base64: "../outside", "/etc", "a/../../b"
		"not json\n",
		`{"built":"2026-01-01T00:00:00Z","dirs":["Li4vb3V0c2lkZQ=="],"trees":[]}` + "\n",
		`{"built":"2026-01-01T00:00:00Z","dirs":[],"trees":["L2V0Yw=="]}` + "\n",
		`{"built":"2026-01-01T00:00:00Z","dirs":["YS8uLi8uLi9i"],"trees":[]}` + "\n",
		`{"busy":true}` + "\n",
		"", // silence
	} {
		ln, err := net.Listen("unix", socketName(cache, root))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			bufio.NewReader(c).ReadString('\n')
			if answer == "" {
				time.Sleep(time.Second)
				return
			}
			c.Write([]byte(answer))
		}()
		start := time.Now()
		if ch, err := Sync(cache, root, "", 200*time.Millisecond); err == nil {
			t.Errorf("answer %q was taken: %+v", answer, ch)
		}
		if time.Since(start) > 3*time.Second { // a hang, not a speed goal: the wait is 200 ms
			t.Errorf("answer %q: Sync waited %v", answer, time.Since(start))
		}
		ln.Close()
	}
	if _, err := Sync(cache, root, "", 200*time.Millisecond); err != ErrNoWatcher {
		t.Errorf("with no watcher: %v, want ErrNoWatcher", err)
	}
}

// sortPostings orders postings as sorting (trigram, id) pairs does: by trigram, and
// within a trigram by file id (a posting list's gaps must be positive).
func TestSortPostingsSortsByTrigramThenID(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 100, 5000, 200000} {
		var tris, ends []uint32
		var want []uint64
		for id := uint64(0); len(tris) < n; id++ {
			// A file's trigrams are distinct; their spread covers both radix digits.
			seen := map[uint32]bool{}
			for range r.IntN(40) {
				tri := uint32(r.IntN(1 << 24))
				if r.IntN(2) == 0 {
					tri = uint32(r.IntN(64)) << 12 // many shared high digits
				}
				if !seen[tri] && len(tris) < n {
					seen[tri] = true
					tris = append(tris, tri)
					want = append(want, uint64(tri)<<32|id)
				}
			}
			ends = append(ends, uint32(len(tris)))
		}
		if n == 5000 { // the last trigram goes to the last id a segment may hold
			last := ends[len(ends)-1]
			ends[len(ends)-1] = last - 1
			for len(ends) < maxSegmentFiles-1 {
				ends = append(ends, last-1)
			}
			ends = append(ends, last)
			want[len(want)-1] = want[len(want)-1]&^(1<<32-1) | (maxSegmentFiles - 1)
		}
		slices.Sort(want)
		high := sortPostings(tris, make([]uint32, n+r.IntN(3)), ends)
		var got []uint64
		from := uint32(0)
		for h, to := range high {
			for _, p := range tris[from:to] {
				got = append(got, uint64(uint32(h)<<12|p>>idBits)<<32|uint64(p&(1<<idBits-1)))
			}
			from = to
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%d postings: sortPostings differs from a sort", n)
		}
	}
}

// Every substring of every file, in any ASCII case and of any bytes but NUL, keeps
// its file from being pruned, whatever the posting budget (one segment or many, a
// file bigger than a shard's share) and however the shards took the files.
func TestEverySubstringKeepsItsFile(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	r := rand.New(rand.NewPCG(11, 12))
	files := map[string]string{}
	alphabet := []byte("aAbBzZ09 _\n\t\x7f\x80\xc3\xa9\xff\xfe")
	for i := range 120 {
		b := make([]byte, r.IntN(3000))
		for j := range b {
			if r.IntN(4) == 0 {
				b[j] = byte(1 + r.IntN(255)) // any byte but NUL
			} else {
				b[j] = alphabet[r.IntN(len(alphabet))]
			}
		}
		if len(b) >= 2 && (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff) {
			b[0] = 'x' // not UTF-16
		}
		files[fmt.Sprintf("d%d/f%d", i%5, i)] = string(b)
	}
	writeTree(t, root, files)
	for _, maxPostings := range []int{0, 700, 5000} {
		m := buildNow(t, cache, root, BuildOptions{MaxPostings: maxPostings})
		if m.Files != len(files) {
			t.Fatalf("budget %d: recorded %d files, want %d", maxPostings, m.Files, len(files))
		}
		ix, err := Open(cache, root)
		if err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			for range 30 {
				if len(body) < 3 {
					break
				}
				i := r.IntN(len(body) - 2)
				lit := []byte(body[i:min(len(body), i+3+r.IntN(6))])
				if r.IntN(2) == 0 { // the index folds ASCII case (bytes.ToUpper would rewrite bytes that are not UTF-8)
					upper := make([]byte, len(lit))
					for k, c := range lit {
						if 'a' <= c && c <= 'z' {
							c -= 'a' - 'A'
						}
						upper[k] = c
					}
					lit = upper
				}
				if skip, _ := ix.Pruner([][]byte{lit}).Skip(filepath.Join(root, name)); skip {
					t.Fatalf("budget %d, %d segments: %s holds %q (in some case) but was pruned", maxPostings, len(m.Segments), name, lit)
				}
			}
		}
		ix.Close()
	}
}
