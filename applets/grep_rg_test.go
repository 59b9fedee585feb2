package applets

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core/coretest"
)

// TestGrepMatchesRipgrep compares per-file matching-line counts with ripgrep over a
// generated tree, for a table of patterns (literals, case-insensitive, alternations,
// classes, anchors, no-literal regexes).
func TestGrepMatchesRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed; the differential test needs it (.ci/run installs it)")
	}
	env := coretest.Env(t, "grep")
	root := coretest.Root(env)
	rng := rand.New(rand.NewSource(7))
	words := []string{"func", "main", "Lock()", "Unlock()", "err", "Error", "parse_value(", "TODO", "todo", "x_y(", "return", "nil", "ÄÖÜ", "κόσμε", "tab\there"}
	for i := 0; i < 60; i++ {
		var b strings.Builder
		for l := 0; l < 50+rng.Intn(100); l++ {
			for w := 0; w < 1+rng.Intn(8); w++ {
				b.WriteString(words[rng.Intn(len(words))])
				b.WriteByte(' ')
			}
			b.WriteByte('\n')
		}
		p := filepath.Join(root, fmt.Sprintf("d%d", i%7), fmt.Sprintf("f%d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(b.String()), 0o644)
	}
	patterns := []struct {
		pattern string
		ci      bool
	}{
		{"func main", false}, {"func", true}, {"(Lock|Unlock)\\(\\)", false}, {"\\w+Error\\b", false},
		{"[a-z]+_[a-z]+\\(", false}, {"^return", false}, {"nil $", false}, {"todo", true}, {"κόσμε", false}, {"\\t", false},
	}
	for _, p := range patterns {
		args := []string{"--no-config", "-c", p.pattern, root}
		if p.ci {
			args = append([]string{"-i"}, args...)
		}
		out, _ := exec.Command(rg, args...).Output()
		want := strings.Fields(string(out))
		sort.Strings(want)
		req := fmt.Sprintf(`{"pattern":%q,"output_mode":"count","-i":%v,"head_limit":100000}`, p.pattern, p.ci)
		res, cerr := coretest.Call(t, env, &Grep{}, req)
		if cerr != nil {
			t.Fatalf("%s: %v", p.pattern, cerr)
		}
		got := append([]string(nil), res.Data.(GrepResult).Counts...)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("pattern %q (i=%v): agentbox and ripgrep differ\nagentbox: %v\nripgrep:  %v", p.pattern, p.ci, got, want)
		}
	}
}
