package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxSession runs one command in a detached tmux session with its own server socket,
// so the command has a real terminal (/dev/tty) while its stdin and stdout are files,
// the way an agent runs agentbox.
type tmuxSession struct {
	t    *testing.T
	sock string
	dir  string
}

func newTmux(t *testing.T, dir, command string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the interactive terminal tests need it (.ci/run installs it)")
	}
	s := &tmuxSession{t: t, sock: filepath.Join(dir, "tmux.sock"), dir: dir}
	script := filepath.Join(dir, "run.sh")
	// The wrapper shell shares the pane's foreground process group, so a Ctrl-C sent to
	// the command reaches it too: a trap (reset to default in the child) keeps it alive to
	// record the exit status, and the status file appears whole, by rename, never half
	// written.
	done := filepath.Join(dir, "done")
	body := "#!/bin/sh\ntrap 'true' INT\ncd " + dir + "\n" + command + "\necho \"exit=$?\" > " + done + ".tmp\nmv " + done + ".tmp " + done + "\nsleep 30\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	s.run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "t") }

// waitFor waits until the screen shows text.
func (s *tmuxSession) waitFor(text string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(s.screen(), text) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("the screen never showed %q:\n%s", text, s.screen())
}

func (s *tmuxSession) keys(keys ...string) {
	s.run(append([]string{"send-keys", "-t", "t"}, keys...)...)
}

// wait waits for the command to end and returns its exit line and stdout file.
func (s *tmuxSession) wait() (string, string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(s.dir, "done")); err == nil {
			out, _ := os.ReadFile(filepath.Join(s.dir, "out.json"))
			return strings.TrimSpace(string(b)), string(out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("the command did not finish:\n%s", s.screen())
	return "", ""
}

func tmuxBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the interactive terminal tests need it (.ci/run installs it)")
	}
	return agentboxBinary(t)
}

func shellEnv(dir string) string {
	return fmt.Sprintf("env -u AGENTBOX_HEADLESS -u AGENTBOX_MODE -u AGENTBOX_ASK_ANSWERS HOME=%s XDG_CONFIG_HOME=%s/.config XDG_STATE_HOME=%s/.state AGENTBOX_ROOT=%s AGENTBOX_SESSION=s1 TERM=xterm", dir, dir, dir, dir)
}

// TestAskInTerminal: an agent's ask call (JSON on stdin, JSON on stdout) is answered by
// a person on the terminal with arrow keys, Space, numbers and typing.
func TestAskInTerminal(t *testing.T) {
	bin := tmuxBinary(t)
	dir := t.TempDir()
	q := `{"questions":[{"text":"Which database?","choices":["PostgreSQL","MySQL","SQLite"],"required":true},` +
		`{"question":"Extras?","options":[{"label":"cache","description":"redis"},{"label":"queue"},{"label":"search"}],"multi_select":true},` +
		`{"text":"Anything else?","type":"FreeText"}]}`
	if err := os.WriteFile(filepath.Join(dir, "q.json"), []byte(q), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTmux(t, dir, shellEnv(dir)+" "+bin+" ask < q.json > out.json")
	s.waitFor("Which database?")
	s.waitFor("3. SQLite")
	s.keys("Down", "Down", "Enter")
	s.waitFor("Extras?")
	s.keys("Space", "Down", "Down", "Space")
	s.waitFor("[x] search")
	s.keys("Enter")
	s.waitFor("Anything else?")
	s.keys("-l", "fast please")
	s.keys("Enter")
	exit, out := s.wait()
	if exit != "exit=0" {
		t.Fatalf("%s; stdout %s\n%s", exit, out, s.screen())
	}
	var env struct {
		Data struct{ Answers [][]string }
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("stdout is not an envelope: %v\n%s", err, out)
	}
	want := `[["SQLite"],["cache","search"],["fast please"]]`
	if got, _ := json.Marshal(env.Data.Answers); string(got) != want {
		t.Errorf("answers %s, want %s", got, want)
	}
}

// TestAskCancelInTerminal: Ctrl-C cancels cleanly: a needs_input envelope, exit 1.
func TestAskCancelInTerminal(t *testing.T) {
	bin := tmuxBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "q.json"), []byte(`{"questions":[{"text":"Proceed?","choices":["yes","no"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTmux(t, dir, shellEnv(dir)+" "+bin+" ask < q.json > out.json")
	s.waitFor("Proceed?")
	s.keys("C-c")
	exit, out := s.wait()
	if exit != "exit=1" || !strings.Contains(out, `"error_code":"needs_input"`) || !strings.Contains(out, "cancelled") {
		t.Errorf("%s %s", exit, out)
	}
}

// TestPermissionPromptInTerminal: an agent's write in default mode is asked on the
// terminal; "allow for this session" lets it and the next write of that file through.
func TestPermissionPromptInTerminal(t *testing.T) {
	bin := tmuxBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "w.json"), []byte(`{"file_path":"notes.txt","content":"hello\n"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTmux(t, dir, shellEnv(dir)+" "+bin+" write < w.json > out.json")
	s.waitFor("wants to:")
	s.waitFor("create " + filepath.Join(dir, "notes.txt") + " (6 bytes)")
	s.waitFor("2. Allow for this session")
	s.keys("2")
	exit, out := s.wait()
	if exit != "exit=0" || !strings.Contains(out, `"type":"output"`) || !strings.Contains(out, `the user allowed it for the session`) {
		t.Fatalf("%s %s\n%s", exit, out, s.screen())
	}
	// The session grant now allows the same write without a terminal.
	cmd := exec.Command("sh", "-c", shellEnv(dir)+" AGENTBOX_HEADLESS=1 "+bin+" write < w.json")
	cmd.Dir = dir
	b, _ := cmd.CombinedOutput()
	if !strings.Contains(string(b), `"scope":"session"`) {
		t.Errorf("the session grant was not used: %s", b)
	}
}

// TestShellFlagsInTerminal: typed by a person in a terminal, grep shows ripgrep's
// headings and colours, ls and glob colour folders and paths; the same commands through
// a pipe print plain path:line text with no escape codes, and the exit status says
// whether anything matched (issue 19.4).
func TestShellFlagsInTerminal(t *testing.T) {
	bin := tmuxBinary(t)
	dir := t.TempDir()
	for name, body := range map[string]string{
		"src/a.txt": "hello\nworld\nhello again\n",
		"b.txt":     "hello b\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := shellEnv(dir)
	ab := env + " " + bin
	// Each command's exit status is printed after it; the piped runs land in files
	// (through /bin/cat: the tests' PATH holds agentbox's own links, cat among them).
	command := strings.Join([]string{
		"clear",
		ab + " grep -e hello src; echo grep=$?",
		ab + " ls -l; echo ls=$?",
		ab + " glob -e txt; echo glob=$?",
		ab + " grep -c hello src | /bin/cat > piped-count.txt",
		ab + " grep hello src | /bin/cat > piped.txt",
		ab + " grep nowhere src > none.txt; echo $? > none-exit.txt",
		ab + " ls -lh | /bin/cat > piped-ls.txt",
	}, "\n")
	s := newTmux(t, dir, command)
	exit, _ := s.wait()
	if exit != "exit=0" {
		t.Fatalf("%s\n%s", exit, s.screen())
	}
	screen := s.run("capture-pane", "-e", "-p", "-t", "t")
	for _, want := range []string{
		"\x1b[35msrc/a.txt\n",                    // the path as a heading, coloured
		"\x1b[32m1\x1b[39m:\x1b[1m\x1b[31mhello", // line number and match coloured
		"grep=0", "ls=0", "glob=0",
		"\x1b[35msrc/", // ls colours folders
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal does not show %q:\n%s", want, screen)
		}
	}
	if plain := s.screen(); !strings.Contains(plain, "src/a.txt\n1:hello\n3:hello again") {
		t.Errorf("grep at a terminal should group lines under the path:\n%s", plain)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got, want := read("piped.txt"), "src/a.txt:1:hello\nsrc/a.txt:3:hello again\n"; got != want {
		t.Errorf("grep through a pipe printed %q, want %q", got, want)
	}
	if got, want := read("piped-count.txt"), "src/a.txt:2\n"; got != want {
		t.Errorf("grep -c through a pipe printed %q, want %q", got, want)
	}
	if got := read("none.txt") + read("none-exit.txt"); got != "1\n" {
		t.Errorf("grep with no match: stdout+status %q, want an empty stdout and status 1", got)
	}
	if got := read("piped-ls.txt"); strings.Contains(got, "\x1b[") || !strings.Contains(got, " 8B ") {
		t.Errorf("ls -lh through a pipe should be plain text with sizes:\n%q", got)
	}
}
