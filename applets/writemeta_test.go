package applets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

// A file with another name (a hard link) is refused by every writing applet, before
// anything is written: a rename would leave the other name with the old content.
func TestWritersRefuseHardLinks(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  core.Command
		req  map[string]any
	}{
		{"write", &Write{}, map[string]any{"file_path": "a.txt", "content": "new\n"}},
		{"edit", &Edit{}, map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "ONE"}},
		{"patch both names", &Patch{}, map[string]any{"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: hl.txt\n@@\n two\n-three\n+THREE\n*** End Patch\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := coretest.Env(t, "write")
			a := writeFile(t, env, "a.txt", "one\ntwo\nthree\n")
			hl := filepath.Join(coretest.Root(env), "hl.txt")
			if err := os.Link(a, hl); err != nil {
				t.Fatal(err)
			}
			req, _ := json.Marshal(tc.req)
			_, err := coretest.Call(t, env, tc.cmd, string(req))
			if err == nil || err.Code != core.CodeInvalidParams || !strings.Contains(err.Message, "hard links") {
				t.Fatalf("got %v, want invalid_params about hard links", err)
			}
			if strings.Contains(err.Message, "hunk") || strings.Contains(err.Message, "part-way") {
				t.Errorf("a refused file is blamed on a hunk or a half-done write: %v", err)
			}
			for _, p := range []string{a, hl} {
				if b, _ := os.ReadFile(p); string(b) != "one\ntwo\nthree\n" {
					t.Errorf("%s changed: %q", filepath.Base(p), b)
				}
			}
			// A refused patch leaves no journal for the next call to trip over.
			if j, err := patchJournals(env); err == nil {
				if left, _ := filepath.Glob(filepath.Join(j.Dir, "*.journal*")); len(left) > 0 {
					t.Errorf("journal left behind: %v", left)
				}
			}
			fa, _ := os.Stat(a)
			fh, _ := os.Stat(hl)
			if !os.SameFile(fa, fh) {
				t.Error("the hard link was broken")
			}
		})
	}
}

// A read-only file is refused by every writing applet and left as it was.
func TestWritersRefuseReadOnlyFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  core.Command
		req  map[string]any
	}{
		{"write", &Write{}, map[string]any{"file_path": "a.txt", "content": "new\n"}},
		{"edit", &Edit{}, map[string]any{"file_path": "a.txt", "old_string": "one", "new_string": "ONE"}},
		{"patch", &Patch{}, map[string]any{"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := coretest.Env(t, "write")
			a := writeFile(t, env, "a.txt", "one\n")
			os.Chmod(a, 0o444)
			req, _ := json.Marshal(tc.req)
			_, err := coretest.Call(t, env, tc.cmd, string(req))
			if err == nil || err.Code != core.CodePermissionDenied || !strings.Contains(err.Message, "read-only (mode 0444") || !strings.Contains(err.Message, "chmod u+w") {
				t.Fatalf("got %v, want permission_denied saying the file is read-only", err)
			}
			if b, _ := os.ReadFile(a); string(b) != "one\n" {
				t.Errorf("changed: %q", b)
			}
		})
	}
}

// edit and a patch move keep the special mode bits too.
func TestEditAndPatchMoveKeepSpecialBits(t *testing.T) {
	env := coretest.Env(t, "edit")
	a := writeFile(t, env, "a.sh", "one\n")
	if err := syscall.Chmod(a, 0o4755); err != nil {
		t.Fatal(err)
	}
	if _, err := coretest.Call(t, env, &Edit{}, `{"file_path":"a.sh","old_string":"one","new_string":"two"}`); err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(map[string]any{"patch": "*** Begin Patch\n*** Update File: a.sh\n*** Move to: b.sh\n@@\n-two\n+three\n*** End Patch\n"})
	if _, err := coretest.Call(t, env, &Patch{}, string(req)); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(coretest.Root(env), "b.sh"), &st); err != nil {
		t.Fatal(err)
	}
	if got := st.Mode &^ syscall.S_IFMT; got != 0o4755 {
		t.Errorf("mode after edit and move: %04o, want 4755", got)
	}
}
