package main

// Full and read-only disks (issue 9): on a small file system that fills up, or one
// mounted read-only, every write fails with a clear error and the original file is
// intact, with no temporary file left behind.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestFullAndReadOnlyDisk(t *testing.T) {
	longTest(t)
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root; run as root (CI does) to test full and read-only disks")
	}
	bin := agentboxBinary(t)
	dir := t.TempDir()
	mnt := filepath.Join(dir, "small")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a 1 MB tmpfs here (%v: %s); full-disk behaviour is not tested", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })

	old := strings.Repeat("old line of the original file\n", 10000) // 300 KB
	target := filepath.Join(mnt, "f.txt")
	if err := os.WriteFile(target, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	// Fill the disk, then give back 64 KB: small writes fit, a second copy of f.txt does not.
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	st, _ := f.Stat()
	if err := f.Truncate(st.Size() - 64<<10); err != nil {
		t.Fatal(err)
	}
	f.Close()

	call := func(applet string, req map[string]any) (string, string) {
		t.Helper()
		b, _ := json.Marshal(req)
		cmd := exec.Command(bin, applet)
		cmd.Dir = mnt
		cmd.Stdin = strings.NewReader(string(b))
		cmd.Env = append(os.Environ(), "AGENTBOX_ROOT="+mnt, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "AGENTBOX_MODE=bypass", "AGENTBOX_HEADLESS=1")
		out, _ := cmd.Output()
		var env struct {
			ErrorText string         `json:"error_text"`
			Metadata  map[string]any `json:"metadata"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatalf("%s: stdout is not an envelope: %v %.300q", applet, err, out)
		}
		code, _ := env.Metadata["error_code"].(string)
		return code, env.ErrorText
	}
	intact := func(when string) {
		t.Helper()
		got, err := os.ReadFile(target)
		if err != nil || string(got) != old {
			t.Fatalf("%s: the original file is not intact (%d bytes, %v)", when, len(got), err)
		}
		ents, _ := os.ReadDir(mnt)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".agentbox-tmp") {
				t.Fatalf("%s: a temporary file was left behind: %s", when, e.Name())
			}
		}
	}
	bigger := strings.Repeat("new line that makes the file bigger\n", 10000)
	for _, c := range []struct {
		name, applet string
		req          map[string]any
	}{
		{"write, full disk", "write", map[string]any{"file_path": "f.txt", "content": bigger}},
		{"edit, full disk", "edit", map[string]any{"file_path": "f.txt", "old_string": old, "new_string": bigger}},
		{"patch, full disk", "patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: g.txt\n+" + strings.Repeat("x", 100<<10) + "\n*** End Patch\n"}},
	} {
		code, text := call(c.applet, c.req)
		if code != "io_error" || !strings.Contains(text, "no space left") || !strings.Contains(text, "unchanged") {
			t.Errorf("%s: %s %q; want io_error saying there is no space and the file is unchanged", c.name, code, text)
		}
		intact(c.name)
	}
	if _, err := os.Stat(filepath.Join(mnt, "g.txt")); err == nil {
		t.Errorf("the failed patch left g.txt behind")
	}
	// Small writes still fit: the failures above were about space, not a broken state.
	if code, text := call("write", map[string]any{"file_path": "small.txt", "content": "fits\n"}); code != "" {
		t.Fatalf("a small write on the nearly full disk failed: %s %s", code, text)
	}

	if out, err := exec.Command("mount", "-o", "remount,ro", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only (%v: %s)", err, out)
	}
	for _, c := range []struct {
		applet string
		req    map[string]any
	}{
		{"write", map[string]any{"file_path": "f.txt", "content": "x"}},
		{"edit", map[string]any{"file_path": "small.txt", "old_string": "fits", "new_string": "no"}},
		{"write", map[string]any{"file_path": "new.txt", "content": "x"}},
	} {
		code, text := call(c.applet, c.req)
		if code != "io_error" || !strings.Contains(text, "read-only file system") {
			t.Errorf("%s %v on a read-only disk: %s %q; want io_error naming the read-only file system", c.applet, c.req, code, text)
		}
	}
	intact("read-only")
}
