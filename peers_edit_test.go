package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// peerEditCase is one case of a peer's edit tests: the file before (absent when nil),
// the edit, and either the file after or the error code with the file untouched.
// Differs says why agentbox's result is not the peer's (testdata/peers/README.md).
type peerEditCase struct {
	Name       string  `json:"name"`
	File       *string `json:"file"`
	Old        string  `json:"old"`
	New        string  `json:"new"`
	ReplaceAll bool    `json:"replace_all"`
	Fuzzy      bool    `json:"fuzzy"`
	Want       *string `json:"want"`
	WantError  string  `json:"want_error"`
	WantHint   string  `json:"want_hint"` // text the refusal must hold
	Differs    string  `json:"differs"`
}

// TestPeerEditCases runs aider's editblock and gemini-cli's edit-tool cases, ported to
// testdata/peers/{aider,gemini}, through the edit applet: each ends in exactly the
// expected file, or in the expected refusal with the file as it was.
func TestPeerEditCases(t *testing.T) {
	for _, suite := range []struct {
		file string
		min  int
	}{{"testdata/peers/aider/editblock.json", 10}, {"testdata/peers/gemini/edit.json", 50}} {
		raw, err := os.ReadFile(suite.file)
		if err != nil {
			t.Fatal(err)
		}
		var cases []peerEditCase
		if err := json.Unmarshal(raw, &cases); err != nil || len(cases) < suite.min {
			t.Fatalf("%s: %d cases, %v", suite.file, len(cases), err)
		}
		for _, c := range cases {
			t.Run(filepath.Base(filepath.Dir(suite.file))+"/"+c.Name, func(t *testing.T) {
				if (c.Want == nil) == (c.WantError == "") {
					t.Fatal("a case needs exactly one of want and want_error")
				}
				root := t.TempDir()
				if real, err := filepath.EvalSymlinks(root); err == nil {
					root = real
				}
				path := filepath.Join(root, "target.txt")
				if c.File != nil {
					if err := os.WriteFile(path, []byte(*c.File), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				req, _ := json.Marshal(map[string]any{"file_path": "target.txt", "old_string": c.Old, "new_string": c.New, "replace_all": c.ReplaceAll, "fuzzy_match": c.Fuzzy})
				vars := map[string]string{"HOME": root, "XDG_STATE_HOME": filepath.Join(t.TempDir(), "state"), "AGENTBOX_ROOT": root, "AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "bypass"}
				res := callInProcess(t, vars, root, "edit", req)
				got, readErr := os.ReadFile(path)
				if c.WantError != "" {
					code, _ := res.envelope.Metadata["error_code"].(string)
					if res.envelope.Type != "error" || code != c.WantError {
						t.Fatalf("got %s %s, want error %s: %.400s", res.envelope.Type, code, c.WantError, res.stdout)
					}
					if !strings.Contains(res.stdout, c.WantHint) {
						t.Errorf("the refusal does not say %q: %.400s", c.WantHint, res.stdout)
					}
					if c.File == nil && readErr == nil || c.File != nil && string(got) != *c.File {
						t.Fatalf("a refused edit changed the file to %q", got)
					}
					return
				}
				if res.envelope.Type != "output" {
					t.Fatalf("edit failed: %.400s", res.stdout)
				}
				if string(got) != *c.Want {
					t.Errorf("file after the edit:\n got %q\nwant %q", got, *c.Want)
				}
			})
		}
	}
}
