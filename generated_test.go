package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/completions"
	"github.com/agentbox/agentbox/core/proc"
	"github.com/agentbox/agentbox/man"
)

// generated maps every file generated from the applet table to its current content.
func generated(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	pages, err := man.Pages(applets.All)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range pages {
		out[filepath.Join("man", name)] = body
	}
	scripts, err := completions.Scripts(applets.All)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range scripts {
		out[filepath.Join("completions", name)] = body
	}
	return out
}

// TestGeneratedFilesCurrent fails when man pages or completions are stale; scripts/gen
// (go test -run TestGeneratedFilesCurrent -update) rewrites them.
func TestGeneratedFilesCurrent(t *testing.T) {
	for path, want := range generated(t) {
		if *update {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is stale or missing; run scripts/gen", path)
		}
	}
	for _, dir := range []string{"man", "completions"} {
		entries, _ := os.ReadDir(dir)
		all := generated(t)
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if _, ok := all[p]; !ok && !strings.HasSuffix(p, ".go") {
				t.Errorf("%s is not generated from the table any more; delete it", p)
			}
		}
	}
}

// TestManPagesRender renders every page with groff and fails on any warning.
func TestManPagesRender(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed; cannot check that the man pages render")
	}
	for path, body := range generated(t) {
		if !strings.HasPrefix(path, "man") {
			continue
		}
		cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
		cmd.Stdin = strings.NewReader(body)
		out, err := cmd.CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("%s: groff: %v\n%s", path, err, out)
		}
	}
}

// TestBashCompletion loads the generated bash script and completes an applet name, a
// flag, and an enum value.
func TestBashCompletion(t *testing.T) {
	// Not exec.LookPath: testscript puts every applet name on PATH, bash included,
	// and FindBash skips this binary.
	bash, err := proc.FindBash(os.Getenv("PATH"))
	if err != nil {
		t.Skip("bash is not installed")
	}
	script := generated(t)[filepath.Join("completions", "agentbox.bash")]
	cases := []struct{ words, cword, want string }{
		{"agentbox re", "1", "read"},
		{"agentbox read --off", "2", "--offset"},
		{"agentbox ls --sort-by m", "3", "modified"},
		{"edit --repl", "1", "--replace-all"},
	}
	for _, c := range cases {
		prog := script + "\nCOMP_WORDS=(" + c.words + "); COMP_CWORD=" + c.cword + "; _agentbox; echo \"${COMPREPLY[@]}\"\n"
		out, err := exec.Command(bash, "--noprofile", "--norc", "-c", prog).CombinedOutput()
		if err != nil || !strings.Contains(" "+string(out)+" ", " "+c.want) {
			t.Errorf("completing %q: got %q (%v), want %s", c.words, out, err, c.want)
		}
	}
}
