package applets

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/agentbox/agentbox/core/index"
	"github.com/agentbox/agentbox/core/walk"
	"golang.org/x/sys/unix"
)

// indexedEnv is a grep Env whose workspace has an index in its own cache folder; the
// index is used unless AGENTBOX_INDEX is "off" (*off).
func indexedEnv(t *testing.T, off *bool) (*core.Env, string) {
	t.Helper()
	env := coretest.Env(t, "grep")
	cache := t.TempDir()
	base := env.Getenv
	env.Getenv = func(k string) string {
		switch {
		case k == "XDG_CACHE_HOME":
			return cache
		case k == "AGENTBOX_INDEX" && *off:
			return "off"
		}
		return base(k)
	}
	return env, cache
}

// counts runs grep in count mode and returns its sorted "path:count" lines and the
// files it searched.
func grepCounts(t *testing.T, env *core.Env, pattern string, ci bool) ([]string, int) {
	t.Helper()
	req := fmt.Sprintf(`{"pattern":%q,"output_mode":"count","-i":%v,"head_limit":100000}`, pattern, ci)
	res, err := coretest.Call(t, env, &Grep{}, req)
	if err != nil {
		t.Fatalf("%s: %v", pattern, err)
	}
	r := res.Data.(GrepResult)
	got := append([]string(nil), r.Counts...)
	sort.Strings(got)
	return got, r.FilesSearched
}

// TestIndexedGrepStaysExact changes, creates, deletes and renames files behind
// agentbox's back between queries, and compares every indexed answer with the same
// search without the index and with ripgrep (when installed): the index only prunes.
func TestIndexedGrepStaysExact(t *testing.T) {
	off := false
	env, cache := indexedEnv(t, &off)
	root := coretest.Root(env)
	rng := rand.New(rand.NewSource(11))
	words := []string{"func", "main", "Lock()", "ErrShortWrite", "errShort", "return", "needle", "NEEDLE", "κόσμε", "x", "hay"}
	file := func(i int) string { return filepath.Join(root, fmt.Sprintf("d%d", i%5), fmt.Sprintf("f%d.txt", i)) }
	body := func() string {
		var b strings.Builder
		for range 5 + rng.Intn(30) {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteByte(" \n"[rng.Intn(2)])
		}
		return b.String()
	}
	for i := range 120 {
		os.MkdirAll(filepath.Dir(file(i)), 0o755)
		os.WriteFile(file(i), []byte(body()), 0o644)
	}
	os.WriteFile(filepath.Join(root, "bin.dat"), []byte("needle\x00binary"), 0o644)
	if _, err := index.Build(context.Background(), cache, root, index.BuildOptions{Walk: index.DefaultWalk(env.Getenv), RacyWindow: -1}); err != nil {
		t.Fatal(err)
	}
	rg, _ := exec.LookPath("rg")
	patterns := []struct {
		p  string
		ci bool
	}{{"needle", false}, {"needle", true}, {"ErrShortWrite", false}, {"(Lock|ErrShort)", false}, {"κόσμε", false}, {"func main", false}, {"x", false}, {"nowhere at all", false}}
	check := func(round string) {
		t.Helper()
		for _, p := range patterns {
			off = false
			got, searched := grepCounts(t, env, p.p, p.ci)
			off = true
			want, wantSearched := grepCounts(t, env, p.p, p.ci)
			off = false
			if strings.Join(got, "\n") != strings.Join(want, "\n") || searched != wantSearched {
				t.Fatalf("%s, %q (i=%v): with the index only %v, without it only %v (%d and %d searched)", round, p.p, p.ci, onlyIn(got, want), onlyIn(want, got), searched, wantSearched)
			}
			if rg == "" {
				continue
			}
			fromRG := rgCounts(rg, p.p, p.ci, root)
			if strings.Join(got, "\n") != strings.Join(fromRG, "\n") {
				t.Fatalf("%s, %q (i=%v): only agentbox with the index says %v, only ripgrep %v", round, p.p, p.ci, onlyIn(got, fromRG), onlyIn(fromRG, got))
			}
		}
	}
	check("fresh index")
	for round := range 6 {
		time.Sleep(15 * time.Millisecond) // the changes get a later clock tick than the build
		for k := range 8 {
			i := rng.Intn(120)
			switch k % 4 {
			case 0: // rewritten in place, perhaps at the same size
				if f, err := os.OpenFile(file(i), os.O_WRONLY, 0); err == nil {
					f.WriteAt([]byte("needle"), 0)
					f.Close()
				}
			case 1: // replaced
				os.WriteFile(file(i), []byte(body()+"needle ErrShortWrite\n"), 0o644)
			case 2: // deleted
				os.Remove(file(i))
			case 3: // renamed, and a new file in its place
				os.Rename(file(i), file(i)+".moved")
				os.WriteFile(file(i), []byte("NEEDLE func main\n"), 0o644)
			}
		}
		os.WriteFile(filepath.Join(root, fmt.Sprintf("new%d.txt", round)), []byte("needle κόσμε\n"), 0o644)
		check(fmt.Sprintf("after round %d of changes", round+1))
	}
}

// rgCounts is ripgrep's "path:count" lines for pattern under root, sorted.
func rgCounts(rg, pattern string, ci bool, root string) []string {
	args := []string{"--no-config", "-c", pattern, root}
	if ci {
		args = append([]string{"-i"}, args...)
	}
	out, _ := exec.Command(rg, args...).Output()
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(out) == 0 {
		lines = nil
	}
	sort.Strings(lines)
	return lines
}

// onlyIn returns the lines of a that b lacks.
func onlyIn(a, b []string) []string {
	var out []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, l)
		}
	}
	return out
}

// startWatcher runs root's index watcher in this process until the test ends, and
// waits until it answers.
func startWatcher(t *testing.T, env *core.Env, cache, root string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- index.Watch(ctx, cache, root, index.DefaultWalk(env.Getenv), time.Hour) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the watcher failed: %v", err)
		}
	})
	waitWatcher(t, cache, root)
}

// waitWatcher waits until root's watcher answers (it rescans after a build or an
// ignore file's change, and answers busy meanwhile).
func waitWatcher(t *testing.T, cache, root string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(20 * time.Millisecond) {
		if _, err := index.Sync(cache, root, "", time.Second); err == nil {
			return
		}
	}
	t.Fatal("the watcher never answered")
}

// TestWatchedGrepStaysExact is TestIndexedGrepStaysExact with the watcher running, so
// that searches take the tree's files from the index and the watcher's changed folders
// instead of a walk: files and folders changed, created, deleted and renamed behind
// agentbox's back, hidden and ignored ones, ignore files rewritten, links put in place
// of files, and every answer compared with a search without the index and with rg.
func TestWatchedGrepStaysExact(t *testing.T) {
	off := false
	var keepIgnored, nestIsRepo bool // the state of two toggling changes below
	env, cache := indexedEnv(t, &off)
	root := coretest.Root(env)
	outside := t.TempDir()
	rng := rand.New(rand.NewSource(watchSeed()))
	words := []string{"func", "needle", "NEEDLE", "ErrShortWrite", "hay", "κόσμε", "x"}
	body := func() string {
		var b strings.Builder
		for range 3 + rng.Intn(20) {
			b.WriteString(words[rng.Intn(len(words))])
			b.WriteByte(" \n"[rng.Intn(2)])
		}
		return b.String()
	}
	dirs := []string{"a", "a/b", "a/b/c", "d", "d/e", "f", "ignored", "keep"}
	for _, d := range dirs {
		os.MkdirAll(filepath.Join(root, d), 0o755)
		for i := range 6 {
			os.WriteFile(filepath.Join(root, d, fmt.Sprintf("f%d.txt", i)), []byte(body()), 0o644)
		}
	}
	os.Symlink("a", filepath.Join(root, "lnkdir"))  // a link to a folder: walks do not follow it
	os.MkdirAll(filepath.Join(root, "nest"), 0o755) // becomes a repository of its own
	os.WriteFile(filepath.Join(root, "nest", ".gitignore"), []byte("*.tmp\n"), 0o644)
	os.WriteFile(filepath.Join(root, "nest", "n.tmp"), []byte("needle\n"), 0o644)
	os.WriteFile(filepath.Join(root, "nest", "n.txt"), []byte("needle\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "nest", "deep"), 0o755)
	os.WriteFile(filepath.Join(root, "nest", "deep", "d.tmp"), []byte("needle\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "bad\xffname"), 0o755) // a name that is not UTF-8
	os.WriteFile(filepath.Join(root, "bad\xffname", "b.txt"), []byte("hay\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "mm"), 0o755) // only written through a mapping
	os.WriteFile(filepath.Join(root, "mm", "m.txt"), []byte("hay\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "hl"), 0o755)
	for i := range 6 { // files only linked to, untouched before
		os.WriteFile(filepath.Join(root, "hl", fmt.Sprintf("h%d.txt", i)), []byte("hay\n"), 0o644)
	}
	for i := range 4 { // folders only moved out, untouched before
		os.MkdirAll(filepath.Join(root, fmt.Sprintf("m%d", i), "x"), 0o755)
		os.WriteFile(filepath.Join(root, fmt.Sprintf("m%d", i), "x", "m.txt"), []byte("needle hay\n"), 0o644)
	}
	os.WriteFile(filepath.Join(root, ".ignore"), []byte("ignored/\n*.log\n"), 0o644)
	os.WriteFile(filepath.Join(root, "keep", "x.log"), []byte("needle\n"), 0o644)
	os.Symlink("f0.txt", filepath.Join(root, "a", "link.txt"))
	os.Symlink("nowhere", filepath.Join(root, "a", "dangling.txt"))
	unix.Mkfifo(filepath.Join(root, "d", "fifo.txt"), 0o644)
	if _, err := index.Build(context.Background(), cache, root, index.BuildOptions{Walk: index.DefaultWalk(env.Getenv), RacyWindow: -1}); err != nil {
		t.Fatal(err)
	}
	// Changed before the watcher starts: its first rescan must find these.
	time.Sleep(15 * time.Millisecond)
	if f, err := os.OpenFile(filepath.Join(root, "a", "f0.txt"), os.O_WRONLY, 0); err == nil {
		f.WriteAt([]byte("needle"), 0)
		f.Close()
	}
	os.Remove(filepath.Join(root, "d", "e", "f1.txt"))
	os.WriteFile(filepath.Join(root, "f", "early.txt"), []byte("needle\n"), 0o644)
	os.Rename(filepath.Join(root, "a", "b", "c"), filepath.Join(outside, "early"))
	os.Rename(filepath.Join(outside, "early"), filepath.Join(root, "a", "b", "c"))
	os.Rename(filepath.Join(root, "m0"), filepath.Join(outside, "m0"))
	startWatcher(t, env, cache, root)
	rg, _ := exec.LookPath("rg")
	type query struct {
		p, under, glob string
		ci             bool
	}
	queries := []query{{p: "needle"}, {p: "needle", ci: true}, {p: "ErrShortWrite"}, {p: "κόσμε"}, {p: "err", ci: true},
		{p: "needle", under: "a"}, {p: "needle", under: "a/b"}, {p: "hay", glob: "*.txt"}, {p: "nowhere at all"},
		{p: "needle", under: "ignored"}, {p: "needle", under: "nest"}, {p: "needle", under: "lnkdir"}}
	counts := func(q query) ([]string, string) {
		t.Helper()
		req := fmt.Sprintf(`{"pattern":%q,"output_mode":"count","-i":%v,"head_limit":100000,"path":%q,"glob":%q}`, q.p, q.ci, filepath.Join(root, q.under), q.glob)
		res, err := coretest.Call(t, env, &Grep{}, req)
		if err != nil {
			t.Fatalf("%v: %v", q, err)
		}
		r := res.Data.(GrepResult)
		got := append([]string(nil), r.Counts...)
		sort.Strings(got)
		return got, fmt.Sprintf("searched %d, binary %d, unreadable %d, denied %d", r.FilesSearched, r.SkippedBinary, r.Unreadable, r.Denied)
	}
	globs := func(pattern, under string) string {
		t.Helper()
		genv := *env
		genv.Applet = "glob"
		res, err := coretest.Call(t, &genv, &Glob{}, fmt.Sprintf(`{"pattern":%q,"path":%q,"limit":100000}`, pattern, filepath.Join(root, under)))
		if err != nil {
			t.Fatalf("glob %s: %v", pattern, err)
		}
		r := res.Data.(GlobResult)
		return fmt.Sprintf("%d files, %d denied: %s", r.Total, r.Denied, strings.Join(r.Files, "\n"))
	}
	check := func(round string) {
		t.Helper()
		waitWatcher(t, cache, root)
		for _, g := range [][2]string{{"**/*.txt", ""}, {"**/*", ""}, {"*", ""}, {"**/f1.txt", ""}, {"**/*.txt", "a"}, {"b/**", "a"}, {"**/*.log", ""},
			// Folders the root's walk leaves out or reaches otherwise, named by the
			// pattern or the path: the index's list does not stand for them.
			{"ignored/*", ""}, {"*", "ignored"}, {".hid/*", ""}, {"lnkdir/*.txt", ""}, {"a/../f/*.txt", ""}, {"a//b/*", ""}, {"nest/*", ""}} {
			if !strings.Contains(g[0], "**") && !strings.HasPrefix(g[0], "*") || g[1] != "" {
				// The pattern or path names a folder: the index is asked, and may say no.
				off = true
				want := globs(g[0], g[1])
				off = false
				if got := globs(g[0], g[1]); got != want {
					t.Fatalf("%s, glob %v:\nwith the index: %s\nfrom a walk: %s", round, g, got, want)
				}
				continue
			}
			before := listedGlobs.Load()
			got := globs(g[0], g[1])
			if listedGlobs.Load() == before {
				t.Fatalf("%s, glob %v: the glob walked; the watcher's list was not used", round, g)
			}
			off = true
			want := globs(g[0], g[1])
			off = false
			if got != want {
				t.Fatalf("%s, glob %v:\nfrom the index's list: %s\nfrom a walk: %s", round, g, got, want)
			}
		}
		for _, q := range queries {
			before := listedSearches.Load()
			got, searched := counts(q)
			if listedSearches.Load() == before && q.under != "ignored" && q.under != "lnkdir" {
				t.Fatalf("%s, %v: the search walked; the watcher's list was not used", round, q)
			}
			off = true
			want, wantSearched := counts(q)
			off = false
			if strings.Join(got, "\n") != strings.Join(want, "\n") || searched != wantSearched {
				t.Fatalf("%s, %v: from the index's list only %v, from a walk only %v (%s; %s)", round, q, onlyIn(got, want), onlyIn(want, got), searched, wantSearched)
			}
			if rg == "" || q.under != "" || q.glob != "" {
				continue
			}
			fromRG := rgCounts(rg, q.p, q.ci, root)
			if strings.Join(got, "\n") != strings.Join(fromRG, "\n") {
				t.Fatalf("%s, %v: only agentbox says %v, only ripgrep %v", round, q, onlyIn(got, fromRG), onlyIn(fromRG, got))
			}
		}
	}
	check("fresh index")
	pick := func() string {
		d := dirs[rng.Intn(len(dirs))]
		return filepath.Join(root, d, fmt.Sprintf("f%d.txt", rng.Intn(8)))
	}
	changes := []func(int){
		func(int) { // first, on a tree no other change touched: a folder becomes a repository of its own (its .gitignore then counts), and stops
			if nestIsRepo = !nestIsRepo; nestIsRepo {
				os.MkdirAll(filepath.Join(root, "nest", ".git"), 0o755)
			} else {
				os.RemoveAll(filepath.Join(root, "nest", ".git"))
			}
		},
		func(int) { // rewritten in place at the same size
			if f, err := os.OpenFile(pick(), os.O_WRONLY, 0); err == nil {
				f.WriteAt([]byte("needle"), 0)
				f.Close()
			}
		},
		func(int) { os.WriteFile(pick(), []byte(body()+"needle ErrShortWrite\n"), 0o644) },
		func(int) { os.Remove(pick()) },
		func(int) { os.Rename(pick(), pick()) },
		func(r int) { // a new folder, filled at once
			d := filepath.Join(root, dirs[rng.Intn(len(dirs))], fmt.Sprintf("new%d", r), "deep")
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, "n.txt"), []byte("needle ErrShortWrite κόσμε\n"), 0o644)
		},
		func(r int) { // a folder renamed within the tree, or out of it and back in
			from := filepath.Join(root, "d")
			to := filepath.Join(root, fmt.Sprintf("d%d", r))
			if r%2 == 1 {
				to = filepath.Join(outside, fmt.Sprintf("d%d", r))
			}
			if os.Rename(from, to) == nil {
				os.WriteFile(filepath.Join(to, "e", "moved.txt"), []byte("needle\n"), 0o644)
				if r%2 == 1 {
					os.Rename(to, filepath.Join(root, "d"))
				}
			}
		},
		func(int) { os.RemoveAll(filepath.Join(root, "a", "b", "c")) },
		func(r int) { // a folder moved out of the tree for good
			os.Rename(filepath.Join(root, fmt.Sprintf("m%d", r%4)), filepath.Join(outside, fmt.Sprintf("gone%d", r)))
		},
		func(r int) { // hidden and ignored files and folders
			os.WriteFile(filepath.Join(root, "a", ".hidden.txt"), []byte("needle\n"), 0o644)
			os.MkdirAll(filepath.Join(root, ".hid"), 0o755)
			os.WriteFile(filepath.Join(root, ".hid", "h.txt"), []byte("needle\n"), 0o644)
			os.WriteFile(filepath.Join(root, "ignored", fmt.Sprintf("i%d.txt", r)), []byte("needle\n"), 0o644)
			os.WriteFile(filepath.Join(root, "f", fmt.Sprintf("n%d.log", r)), []byte("needle\n"), 0o644)
		},
		func(int) { // the ignore file rewritten: a folder left out, then back
			rules := "ignored/\n*.log\n"
			if keepIgnored = !keepIgnored; keepIgnored {
				rules = "keep/\n"
			}
			os.WriteFile(filepath.Join(root, ".ignore"), []byte(rules), 0o644)
		},
		func(int) { // an ignore file above the root, which no watch sees
			above := filepath.Join(filepath.Dir(root), ".ignore")
			if _, err := os.Stat(above); err == nil {
				os.Remove(above)
			} else {
				os.WriteFile(above, []byte("f/\n"), 0o644)
			}
		},
		func(r int) { // a second name for a file, in another folder, written through
			from := filepath.Join(root, "hl", fmt.Sprintf("h%d.txt", r%6))
			to := filepath.Join(root, "a", fmt.Sprintf("hard%d.txt", r)) // a folder never ignored
			if os.Link(from, to) == nil {
				waitWatcher(t, cache, root) // the link is noticed before the write
				if f, err := os.OpenFile(to, os.O_WRONLY|os.O_APPEND, 0); err == nil {
					f.WriteString("needle ErrShortWrite\n")
					f.Close()
				}
			}
		},
		func(r int) { // names that are not UTF-8
			os.WriteFile(filepath.Join(root, "bad\xffname", fmt.Sprintf("n%d.txt", r)), []byte("needle\n"), 0o644)
			os.MkdirAll(filepath.Join(root, fmt.Sprintf("new\xfe%d", r)), 0o755)
			os.WriteFile(filepath.Join(root, fmt.Sprintf("new\xfe%d", r), "x.txt"), []byte("needle\n"), 0o644)
		},
		func(int) { // written through a memory mapping: no event until the close
			f, err := os.OpenFile(filepath.Join(root, "mm", "m.txt"), os.O_RDWR, 0)
			if err != nil {
				return
			}
			defer f.Close()
			if m, err := unix.Mmap(int(f.Fd()), 0, 3, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); err == nil {
				copy(m, "ErrShortWrite"[:3]) // "Err" over "hay": a new match for (?i)err
				unix.Munmap(m)
			}
		},
		func(int) { // a file replaced by a link to one with a match
			p := pick()
			os.Remove(p)
			os.Symlink(filepath.Join(root, "keep", "x.log"), p)
		},
		func(int) { // a file replaced by a folder
			p := pick()
			os.Remove(p)
			os.MkdirAll(p, 0o755)
			os.WriteFile(filepath.Join(p, "inside.txt"), []byte("needle\n"), 0o644)
		},
	}
	// Each kind of change alone first, then several at once.
	for k, change := range changes {
		change(k)
		check(fmt.Sprintf("after change %d alone", k))
	}
	for round := range 12 {
		for k := range 4 {
			changes[rng.Intn(len(changes))](100 + round*4 + k)
		}
		check(fmt.Sprintf("after round %d of changes", round+1))
	}
}

// watchSeed is TestWatchedGrepStaysExact's random seed: AGENTBOX_WATCH_SEED (to
// explore), else a fixed one.
func watchSeed() int64 {
	if n, err := strconv.ParseInt(os.Getenv("AGENTBOX_WATCH_SEED"), 10, 64); err == nil {
		return n
	}
	return 7
}

// Files the policy refuses stay out of searches and globs that take their files from
// the index and its watcher, counted as a walk counts them.
func TestWatchedListsHonourThePolicy(t *testing.T) {
	off := false
	env, cache := indexedEnv(t, &off)
	root := coretest.Root(env)
	penv := policyEnv(t, "grep", `{"permissions":{"deny":["fs.read(secret/**)","fs.read(**/*.key)","fs.read(pub/hidden)"]}}`)
	env.Gate = penv.Gate
	base := env.Getenv
	env.Getenv = func(k string) string {
		if k == "XDG_CONFIG_HOME" || k == "AGENTBOX_MODE" {
			return penv.Getenv(k)
		}
		return base(k)
	}
	for _, f := range []string{"secret/a.txt", "secret/deep/b.txt", "pub/c.txt", "pub/d.key", "pub/hidden/e.txt", "f.txt"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(root, f), []byte("needle\n"), 0o644)
	}
	if _, err := index.Build(context.Background(), cache, root, index.BuildOptions{Walk: index.DefaultWalk(env.Getenv), RacyWindow: -1}); err != nil {
		t.Fatal(err)
	}
	startWatcher(t, env, cache, root)
	os.WriteFile(filepath.Join(root, "secret", "new.txt"), []byte("needle\n"), 0o644)
	os.WriteFile(filepath.Join(root, "pub", "new.key"), []byte("needle\n"), 0o644)
	run := func(cmd core.Command, applet, req string) string {
		t.Helper()
		e := *env
		e.Applet = applet
		res, err := coretest.Call(t, &e, cmd, req)
		if err != nil {
			t.Fatalf("%s %s: %v", applet, req, err)
		}
		b, _ := json.Marshal(res.Data)
		return string(b)
	}
	for _, c := range []struct {
		applet string
		cmd    func() core.Command
		req    string
		listed *atomic.Int64
	}{
		{"grep", func() core.Command { return &Grep{} }, `{"pattern":"needle","output_mode":"files_with_matches"}`, &listedSearches},
		{"glob", func() core.Command { return &Glob{} }, `{"pattern":"**/*"}`, &listedGlobs},
	} {
		before := c.listed.Load()
		got := run(c.cmd(), c.applet, c.req)
		if c.listed.Load() == before {
			t.Fatalf("%s did not take its files from the index", c.applet)
		}
		off = true
		want := run(c.cmd(), c.applet, c.req)
		off = false
		if got != want {
			t.Fatalf("%s:\nfrom the index: %s\nfrom a walk:   %s", c.applet, got, want)
		}
		for _, leak := range []string{"secret", ".key", "hidden"} {
			if strings.Contains(got, leak) {
				t.Fatalf("%s names a refused file: %s", c.applet, got)
			}
		}
	}
}

// A walk of a changed folder decides an entry reached through a link where it really
// is, which may lie outside the listing's root: refusals decide and count that path
// alone (it recursed without end on a path not below root).
func TestRefusalsDecideRealPathsOutsideTheRoot(t *testing.T) {
	var st walk.Stats
	deny := func(abs string, _ bool) bool { return strings.HasPrefix(abs, "/ws/secret/") || abs == "/ws/secret" }
	r := newRefusals("/ws/pub", deny, &st)
	if !r.walkFilter("/ws/secret/key.txt", false) || !r.walkFilter("/ws/secret", true) {
		t.Fatal("a refused real path outside the root was let through")
	}
	if r.walkFilter("/ws/open/a.txt", false) || r.walkFilter("/ws/pub/b.txt", false) {
		t.Fatal("an allowed path was refused")
	}
	if st.Denied != 2 {
		t.Fatalf("denied %d, want 2", st.Denied)
	}
}
