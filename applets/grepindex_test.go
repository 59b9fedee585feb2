package applets

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/agentbox/agentbox/core/index"
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
			args := []string{"--no-config", "-c", p.p, root}
			if p.ci {
				args = append([]string{"-i"}, args...)
			}
			out, _ := exec.Command(rg, args...).Output()
			fromRG := strings.Fields(string(out))
			sort.Strings(fromRG)
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
