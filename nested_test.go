package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNestedAgentboxFindsItsPins: an agentbox that a bash command runs with a cleared
// environment (env -i, or a program's execve with none) finds the caller's pins in the
// environment its shell started with: the user's deny rules and the mode ceiling hold,
// and the roots cannot be widened. (Each line read the denied file before.)
func TestNestedAgentboxFindsItsPins(t *testing.T) {
	bin := agentboxBinary(t)
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	ws, cfg := filepath.Join(dir, "ws"), filepath.Join(dir, "cfg")
	for name, body := range map[string]string{
		"ws/sec/key.txt":           "TOPSECRET\n",
		"out/secret.txt":           "OUTSIDE\n",
		"cfg/agentbox/config.json": `{"permissions":{"allow":["bash(*)"],"deny":["read(sec/**)"]}}`,
		"ws/readme.txt":            "hello\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := map[string]string{
		"env -i " + bin + " read --mode bypass sec/key.txt":                                                           "permission_denied",
		"env -i " + bin + " read --root " + filepath.Join(dir, "out") + " " + filepath.Join(dir, "out", "secret.txt"): "outside the workspace",
	}
	// Another user config, with no deny rule, named by the line; the ceiling changed
	// by a builtin that assigns (read, printf -v): the pins in the shell's environment
	// stand.
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(filepath.Join(other, "agentbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "agentbox", "config.json"), []byte(`{"permissions":{"allow":["read(**)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	lines["XDG_CONFIG_HOME="+other+" "+bin+" read sec/key.txt"] = "permission_denied"
	lines["read AGENTBOX_MODE_CEILING <<< bypass; "+bin+" read --mode bypass sec/key.txt"] = "permission_denied"
	lines["printf -v AGENTBOX_MODE_CEILING bypass; "+bin+" read --mode bypass sec/key.txt"] = "permission_denied"
	lines["( env -i "+bin+" read --mode bypass sec/key.txt 2>&1 & ) | cat"] = "permission_denied"
	lines["env -i bash -c '"+bin+" read --mode bypass sec/key.txt'"] = "permission_denied"
	// Out of the process group and the session, under a parent that holds no pins and
	// exits at once (the nested call is then a child of the outer agentbox, a subreaper
	// whose own environment pins nothing): the descriptor bash holds the pins on is
	// still inherited. The output goes to a file the line waits for.
	lines["env -i bash -c 'setsid -f "+bin+" read --mode bypass sec/key.txt > detached.out 2>&1'; "+
		"for i in $(seq 100); do [ -s detached.out ] && break; sleep 0.05; done; sleep 0.1; cat detached.out"] = "permission_denied"
	lines["env -i bash -c 'setsid -f env -i "+bin+" read --root "+filepath.Join(dir, "out")+" "+filepath.Join(dir, "out", "secret.txt")+" > detached2.out 2>&1'; "+
		"for i in $(seq 100); do [ -s detached2.out ] && break; sleep 0.05; done; sleep 0.1; cat detached2.out"] = "outside the workspace"
	if py, err := exec.LookPath("python3"); err == nil {
		lines[py+` -c 'import os; os.execve("`+bin+`", ["agentbox", "read", "--mode", "bypass", "sec/key.txt"], {})'`] = "permission_denied"
		// A program that puts something else on the pins' descriptor: the nested call
		// refuses to run rather than run without them.
		lines[py+` -c 'import os; os.dup2(os.open("/dev/null", os.O_RDONLY), 249, inheritable=True); os.execve("`+bin+`", ["agentbox", "read", "--mode", "bypass", "readme.txt"], {})'`] = "file descriptor 249 is open but holds /dev/null"
	}
	// PATH: the system's, where bash is bash (the test binary's PATH names applets).
	base := append(os.Environ(), "PATH=/usr/bin:/bin", "AGENTBOX_MODE=accept-edits", "AGENTBOX_HEADLESS=1", "AGENTBOX_ROOT="+ws,
		"XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "AGENTBOX_MODE_CEILING=", "AGENTBOX_MANIFEST=")
	for line, refusal := range lines {
		req, _ := json.Marshal(map[string]string{"command": line})
		cmd := exec.Command(bin, "bash")
		cmd.Dir = ws
		cmd.Env = base
		cmd.Stdin = strings.NewReader(string(req))
		out, _ := cmd.Output()
		if strings.Contains(string(out), "TOPSECRET") || strings.Contains(string(out), "OUTSIDE") || !strings.Contains(string(out), refusal) {
			t.Errorf("%s:\n%s\nwant the nested call refused (%s: the caller's rules and roots), the file unread", line, out, refusal)
		}
	}
	// A program that moves the user config's folder away and then runs agentbox: the
	// nested call finds no config where the pinned digest says one was, and refuses.
	if py, err := exec.LookPath("python3"); err == nil {
		line := py + ` -c 'import os; os.rename("` + cfg + `", "` + cfg + `.away"); os.execve("` + bin + `", ["agentbox", "read", "sec/key.txt"], {})'`
		req, _ := json.Marshal(map[string]string{"command": line})
		cmd := exec.Command(bin, "bash")
		cmd.Dir, cmd.Env, cmd.Stdin = ws, base, strings.NewReader(string(req))
		out, _ := cmd.Output()
		moved := os.Rename(cfg+".away", cfg) == nil
		switch {
		case strings.Contains(string(out), "TOPSECRET"):
			t.Errorf("%s:\n%s\nthe file was read", line, out)
		case !moved && !strings.Contains(string(out), `"type":"error"`):
			t.Errorf("%s:\n%s\nthe config was not moved, yet the line was not refused", line, out)
		case moved && !strings.Contains(string(out), "not the user config the calling agentbox runs under"):
			// The gate may refuse the move itself (os.rename of the user config's folder
			// is a move of protected files); where it ran, the nested call refuses.
			t.Errorf("%s:\n%s\nwant the nested call refused: its user config is gone", line, out)
		}
	}
	// An ordinary nested call still works.
	req, _ := json.Marshal(map[string]string{"command": "env -i " + bin + " read readme.txt"})
	cmd := exec.Command(bin, "bash")
	cmd.Dir = ws
	cmd.Env = base
	cmd.Stdin = strings.NewReader(string(req))
	if out, _ := cmd.Output(); !strings.Contains(string(out), "hello") {
		t.Errorf("env -i agentbox read readme.txt: %s; want the file", out)
	}
}
