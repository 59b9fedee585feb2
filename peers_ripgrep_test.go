package main

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ripgrepCase is one of ripgrep's regression tests (tests/regression.rs), ported: the
// tree to create, the grep request, and the output entries expected, with paths
// relative to the root (content lines "path:line:text", file paths, or "path:count").
type ripgrepCase struct {
	Name    string            `json:"name"`
	Files   map[string]string `json:"files"`
	Hex     map[string]string `json:"hex"` // files given as hex bytes (not UTF-8)
	Dirs    []string          `json:"dirs"`
	Links   map[string]string `json:"links"`
	Request map[string]any    `json:"request"`
	Want    []string          `json:"want"`
	Note    string            `json:"note"`
}

// TestRipgrepRegressions runs the ported cases of ripgrep's regression suite (and a
// few of tests/feature.rs, named f…) that
// concern what agentbox's grep shares with ripgrep: ignore-file semantics, hidden
// files, globs, regex, case, context, counts, symlinked paths.
func TestRipgrepRegressions(t *testing.T) {
	raw, err := os.ReadFile("testdata/peers/ripgrep/regression.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []ripgrepCase
	if err := json.Unmarshal(raw, &cases); err != nil || len(cases) < 40 {
		t.Fatalf("%d cases, %v", len(cases), err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			root := t.TempDir()
			if real, err := filepath.EvalSymlinks(root); err == nil {
				root = real
			}
			for _, d := range c.Dirs {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for p, content := range c.Files {
				full := filepath.Join(root, p)
				os.MkdirAll(filepath.Dir(full), 0o755)
				if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for p, h := range c.Hex {
				b, err := hex.DecodeString(h)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, p), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for link, target := range c.Links {
				if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
					t.Fatal(err)
				}
			}
			req, _ := json.Marshal(c.Request)
			vars := map[string]string{"HOME": t.TempDir(), "XDG_STATE_HOME": filepath.Join(t.TempDir(), "state"), "AGENTBOX_ROOT": root, "AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "bypass"}
			res := callInProcess(t, vars, root, "grep", req)
			if res.envelope.Type != "output" {
				t.Fatalf("grep failed: %.400s", res.stdout)
			}
			var data struct {
				Files, Lines, Counts []string
			}
			b, _ := json.Marshal(res.envelope.Data)
			json.Unmarshal(b, &data)
			got := append(append(append([]string(nil), data.Files...), data.Lines...), data.Counts...)
			for i, g := range got {
				got[i] = strings.TrimPrefix(g, root+"/")
			}
			if strings.Join(got, "\n") != strings.Join(c.Want, "\n") {
				t.Errorf("got  %q\nwant %q", got, c.Want)
			}
		})
	}
}
