package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestCodexPatchScenarios runs codex's apply-patch scenarios (ported into
// testdata/peers/codex: input state, patch, expected state) through the patch applet.
// Each ends in exactly the expected files, or with the expected error and nothing
// changed; where agentbox deliberately differs, the archive holds agentbox's result
// and testdata/peers/README.md says why.
func TestCodexPatchScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "peers", "codex", "*.txtar"))
	if err != nil || len(files) < 20 {
		t.Fatalf("scenarios: %d %v", len(files), err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			nonl := map[string]bool{}
			for _, l := range strings.Split(string(ar.Comment), "\n") {
				if v, ok := strings.CutPrefix(l, "nonl: "); ok {
					nonl[v] = true
				}
			}
			root := t.TempDir()
			if real, err := filepath.EvalSymlinks(root); err == nil {
				root = real
			}
			var patch, wantErr string
			want := map[string]string{}
			for _, f := range ar.Files {
				data := string(f.Data)
				if nonl[f.Name] {
					data = strings.TrimSuffix(data, "\n")
				}
				switch {
				case f.Name == "patch.txt":
					patch = data
				case f.Name == "error":
					wantErr = strings.TrimSpace(data)
				case strings.HasPrefix(f.Name, "input/"):
					p := filepath.Join(root, strings.TrimPrefix(f.Name, "input/"))
					os.MkdirAll(filepath.Dir(p), 0o755)
					if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
						t.Fatal(err)
					}
				case strings.HasPrefix(f.Name, "expected/"):
					want[strings.TrimPrefix(f.Name, "expected/")] = data
				}
			}
			before := dirState(t, root)
			req, _ := json.Marshal(map[string]string{"patch": patch})
			vars := map[string]string{"HOME": root, "XDG_STATE_HOME": filepath.Join(t.TempDir(), "state"), "AGENTBOX_ROOT": root, "AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "bypass"}
			res := callInProcess(t, vars, root, "patch", req)
			code, _ := res.envelope.Metadata["error_code"].(string)
			switch {
			case wantErr != "":
				if res.envelope.Type != "error" || (wantErr != "*" && code != wantErr) {
					t.Fatalf("got %s %s, want error %s: %.300s", res.envelope.Type, code, wantErr, res.stdout)
				}
				if after := dirState(t, root); !sameState(before, after) {
					t.Fatalf("a refused patch changed files: %v -> %v", before, after)
				}
			case res.envelope.Type != "output":
				t.Fatalf("patch failed: %.400s", res.stdout)
			}
			if len(want) > 0 || wantErr == "" {
				if got := dirState(t, root); !sameState(got, want) {
					t.Errorf("files after the patch:\n got %q\nwant %q", got, want)
				}
			}
		})
	}
}

func dirState(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out
}

func sameState(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
