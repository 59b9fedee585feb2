package main

// The reliability suite (issue 9): bad input for every applet, with the error code each
// case must get, no change on disk where a call fails, no stack trace, no hang.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/cli"
	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/walk"
)

// callBudget bounds every call of the suite: a call that takes longer has hung.
const callBudget = 30 * time.Second

type callResult struct {
	code     int
	envelope core.Envelope
	stdout   string
	stderr   string
}

// callInProcess runs one JSON-mode call through core.Main, as a subprocess would.
func callInProcess(t *testing.T, vars map[string]string, dir, applet string, req []byte) callResult {
	t.Helper()
	var out, errb bytes.Buffer
	host := cli.Host{
		Stdin: bytes.NewReader(req), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return dir, nil },
		Now: time.Now, Executable: "/nonexistent/agentbox",
	}
	done := make(chan int, 1)
	go func() { done <- cli.Main([]string{"agentbox", applet}, applets.All, host) }()
	var res callResult
	select {
	case res.code = <-done:
	case <-time.After(callBudget):
		t.Fatalf("%s <- %.80q: no answer within %v", applet, req, callBudget)
	}
	res.stdout, res.stderr = out.String(), errb.String()
	dec := json.NewDecoder(strings.NewReader(res.stdout))
	if err := dec.Decode(&res.envelope); err != nil || dec.More() {
		t.Errorf("%s <- %.80q: stdout is not one envelope (%v): %.300q", applet, req, err, res.stdout)
	}
	var generic any
	if json.Unmarshal([]byte(res.stdout), &generic) == nil {
		assertSnakeCaseKeys(t, applet, "", generic)
	}
	if strings.Contains(res.stdout+res.stderr, "goroutine ") || strings.Contains(res.stdout+res.stderr, "panic:") {
		t.Errorf("%s <- %.80q: printed a Go stack: %.500s", applet, req, res.stdout+res.stderr)
	}
	return res
}

// snapshot records every entry under root (mode, size, content hash, link target), so
// a failed call can be shown to have changed nothing.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if rel == ".state" {
			return filepath.SkipDir // the session's own bookkeeping
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		desc := fmt.Sprintf("%v %d", info.Mode(), info.Size())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			desc += " -> " + target
		case info.Mode().IsRegular():
			if data, err := os.ReadFile(path); err == nil {
				desc += fmt.Sprintf(" %x", sha256.Sum256(data))
			}
		}
		out[rel] = desc
		return nil
	})
	return out
}

func diffSnapshots(before, after map[string]string) []string {
	var diffs []string
	for k, v := range before {
		if after[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: %q -> %q", k, v, after[k]))
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: new %q", k, v))
		}
	}
	sort.Strings(diffs)
	return diffs
}

// badInputFixture builds a workspace holding every awkward kind of entry.
func badInputFixture(t *testing.T) (root string, cleanup func()) {
	t.Helper()
	root = t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return badInputFixtureAt(t, root)
}

// pathCase is one awkward path, with the error code every path-taking applet must
// answer it with ("" = the call succeeds).
type pathCase struct {
	name string
	path string
	want map[string]string // applet -> error code; "*" for the rest
}

func (c pathCase) wantFor(applet string) string {
	if w, ok := c.want[applet]; ok {
		return w
	}
	return c.want["*"]
}

// pathRequest builds a call of applet that uses path as its file or directory.
func pathRequest(applet, path string) map[string]any {
	switch applet {
	case "read":
		return map[string]any{"file_path": path}
	case "write":
		return map[string]any{"file_path": path, "content": "new content\n"}
	case "edit":
		return map[string]any{"file_path": path, "old_string": "hello", "new_string": "bye"}
	case "ls":
		return map[string]any{"path": path}
	case "glob":
		return map[string]any{"path": path, "pattern": "*"}
	case "grep":
		return map[string]any{"path": path, "pattern": "hello"}
	}
	return nil
}

func TestBadInputEveryApplet(t *testing.T) {
	root, cleanup := badInputFixture(t)
	defer cleanup()
	vars := map[string]string{"HOME": root, "XDG_STATE_HOME": filepath.Join(root, ".state"), "AGENTBOX_ROOT": root, "AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "bypass", "AGENTBOX_SESSION": "bad-input"}

	// Input every applet must refuse before looking at any field.
	huge := append(append([]byte(`{"file_path":"`), bytes.Repeat([]byte("A"), 100<<20)...), `"}`...)
	for _, spec := range applets.All {
		if spec.Stdio {
			continue
		}
		before := snapshot(t, root)
		for _, c := range []struct {
			name, want string
			req        []byte
		}{
			{"100 MB", string(core.CodeTooLarge), huge},
			{"invalid UTF-8", string(core.CodeInvalidParams), []byte("{\"file_path\":\"x\xffy\"}")},
			{"malformed", string(core.CodeInvalidParams), []byte(`{"file_path":`)},
			{"unknown field", string(core.CodeInvalidParams), []byte(`{"no_such_field_anywhere":1}`)},
		} {
			res := callInProcess(t, vars, root, spec.Name, c.req)
			if got := fmt.Sprint(res.envelope.Metadata["error_code"]); got != c.want {
				t.Errorf("%s <- %s: error_code %s, want %s (%.200s)", spec.Name, c.name, got, c.want, res.envelope.ErrorText)
			}
		}
		// An empty object: refused when the applet has required fields, and never with
		// anything but invalid_params.
		required := false
		for _, f := range core.ParamsOf(spec.New()).Fields {
			required = required || f.Required
		}
		res := callInProcess(t, vars, root, spec.Name, []byte(`{}`))
		code, _ := res.envelope.Metadata["error_code"].(string)
		if required && code != string(core.CodeInvalidParams) || !required && code != "" && code != string(core.CodeInvalidParams) {
			t.Errorf("%s <- {}: error_code %q (required fields: %v): %.200s", spec.Name, code, required, res.envelope.ErrorText)
		}
		if d := diffSnapshots(before, snapshot(t, root)); len(d) > 0 {
			t.Errorf("%s: refused calls changed the workspace: %v", spec.Name, d)
		}
	}

	outside := string(core.CodeOutsideWorkspace)
	invalid := string(core.CodeInvalidParams)
	notFound := string(core.CodeNotFound)
	isDir := string(core.CodeIsDirectory)
	cases := []pathCase{
		{"NUL byte", "a\x00b", map[string]string{"*": invalid}},
		{"missing, newline in name", "no\nsuch.txt", map[string]string{"*": notFound, "write": ""}},
		{"existing, newline in name", "new\nline.txt", map[string]string{"*": "", "ls": invalid, "glob": invalid}},
		{"spaces and unicode", "a b ü.txt", map[string]string{"*": "", "ls": invalid, "glob": invalid}},
		{"named pipe", "fifo", map[string]string{"*": invalid}},
		{"socket", "sock", map[string]string{"*": invalid}},
		{"/dev/zero", "/dev/zero", map[string]string{"*": outside}},
		{"symlink to /dev/zero", "zero", map[string]string{"*": outside}},
		{"symlink loop", "loop1", map[string]string{"*": invalid}},
		{"directory", "dir", map[string]string{"*": isDir, "ls": "", "glob": "", "grep": ""}},
		{"escape through ..", "dir/../../x", map[string]string{"*": outside}},
	}
	for _, c := range cases {
		for _, applet := range []string{"read", "write", "edit", "ls", "glob", "grep"} {
			req, _ := json.Marshal(pathRequest(applet, c.path))
			before := snapshot(t, root)
			res := callInProcess(t, vars, root, applet, req)
			want := c.wantFor(applet)
			code, _ := res.envelope.Metadata["error_code"].(string)
			if code != want {
				t.Errorf("%s on %s: error_code %q, want %q: %.300s", applet, c.name, code, want, res.envelope.ErrorText)
				continue
			}
			if code == "" {
				if applet == "write" || applet == "edit" {
					// Put the fixture back for the next applet.
					cleanup()
					os.RemoveAll(root)
					os.MkdirAll(root, 0o755)
					_, cleanup = badInputFixtureAt(t, root)
				}
				continue
			}
			if len(res.envelope.ErrorText) < 20 {
				t.Errorf("%s on %s: error text too thin to act on: %q", applet, c.name, res.envelope.ErrorText)
			}
			if d := diffSnapshots(before, snapshot(t, root)); len(d) > 0 {
				t.Errorf("%s on %s failed but changed the workspace: %v", applet, c.name, d)
			}
		}
	}
}

// badInputFixtureAt rebuilds the fixture in an existing directory.
func badInputFixtureAt(t *testing.T, root string) (string, func()) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(root, "file.txt"), []byte("hello\nworld\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "a b ü.txt"), []byte("hello ü\n"), 0o644))
	must(os.WriteFile(filepath.Join(root, "new\nline.txt"), []byte("hello\n"), 0o644))
	must(os.MkdirAll(filepath.Join(root, "dir"), 0o755))
	must(os.WriteFile(filepath.Join(root, "dir", "inner.txt"), []byte("hello inner\n"), 0o644))
	must(syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	must(os.Symlink("/dev/zero", filepath.Join(root, "zero")))
	must(os.Symlink("loop2", filepath.Join(root, "loop1")))
	must(os.Symlink("loop1", filepath.Join(root, "loop2")))
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	must(err)
	return root, func() { l.Close() }
}

// TestChangedBetweenReadAndEdit: a file replaced or deleted after the session read it
// is never overwritten blindly.
func TestChangedBetweenReadAndEdit(t *testing.T) {
	root := t.TempDir()
	vars := map[string]string{"HOME": root, "XDG_STATE_HOME": filepath.Join(root, ".state"), "AGENTBOX_ROOT": root, "AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "bypass", "AGENTBOX_SESSION": "changed"}
	target := filepath.Join(root, "f.txt")
	call := func(applet string, req map[string]any) (string, string) {
		b, _ := json.Marshal(req)
		res := callInProcess(t, vars, root, applet, b)
		code, _ := res.envelope.Metadata["error_code"].(string)
		return code, res.envelope.ErrorText
	}
	for _, tc := range []struct {
		name   string
		change func()
		want   string
		after  string // the file's content after the refused call ("" = absent)
	}{
		{"replaced", func() { os.WriteFile(target, []byte("someone else's hello\n"), 0o644) }, string(core.CodeConflict), "someone else's hello\n"},
		{"deleted", func() { os.Remove(target) }, string(core.CodeNotFound), ""},
	} {
		for _, applet := range []string{"edit", "write"} {
			if err := os.WriteFile(target, []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, text := call("read", map[string]any{"file_path": target}); code != "" {
				t.Fatalf("read: %s %s", code, text)
			}
			time.Sleep(10 * time.Millisecond) // a new mtime, though the hash decides
			tc.change()
			req := map[string]any{"file_path": target, "old_string": "hello", "new_string": "bye"}
			want := tc.want
			if applet == "write" {
				req = map[string]any{"file_path": target, "content": "bye\n"}
				if tc.name == "deleted" {
					want = "" // write creates files; nothing is lost by recreating it
				}
			}
			code, text := call(applet, req)
			if code != want {
				t.Errorf("%s after the file was %s: error_code %q, want %q (%s)", applet, tc.name, code, want, text)
			}
			if want == "" {
				continue
			}
			got, err := os.ReadFile(target)
			if tc.after == "" && err == nil || tc.after != "" && string(got) != tc.after {
				t.Errorf("%s after the file was %s: the file now holds %q (err %v), want %q", applet, tc.name, got, err, tc.after)
			}
			if !strings.Contains(text, "read it again") && !strings.Contains(text, "does not exist") {
				t.Errorf("%s after the file was %s: the error does not say what to do: %s", applet, tc.name, text)
			}
		}
	}
}

// unprivileged runs the agentbox binary as an unprivileged user (nobody, when the
// test runs as root) in a workspace root of its own.
type unprivileged struct {
	t                *testing.T
	bin, root, state string
	cred             *syscall.Credential
}

func newUnprivileged(t *testing.T) *unprivileged {
	u := &unprivileged{t: t, bin: agentboxBinary(t), root: t.TempDir(), state: t.TempDir()}
	for _, d := range []string{filepath.Dir(u.root), u.root, filepath.Dir(u.state), u.state, filepath.Dir(u.bin)} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		u.cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	} else {
		probe := filepath.Join(u.state, "probe")
		if err := os.WriteFile(probe, nil, 0o000); err != nil {
			t.Fatal(err)
		}
		if f, err := os.Open(probe); err == nil {
			f.Close()
			t.Skip("this user can read a mode-000 file (a capability?), so permissions cannot be tested here")
		}
	}
	return u
}

// mk writes the file rel of the root with mode, its folders made as needed.
func (u *unprivileged) mk(rel, data string, mode os.FileMode) {
	u.t.Helper()
	path := filepath.Join(u.root, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		u.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		u.t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		u.t.Fatal(err)
	}
}

// chmod sets the mode of the folder rel, and gives it back 0755 when the test ends.
func (u *unprivileged) chmod(rel string, mode os.FileMode) {
	u.t.Helper()
	path := filepath.Join(u.root, rel)
	if err := os.Chmod(path, mode); err != nil {
		u.t.Fatal(err)
	}
	u.t.Cleanup(func() { os.Chmod(path, 0o755) })
}

func (u *unprivileged) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, u.bin, args...)
	cmd.Dir = u.root
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + u.state, "XDG_STATE_HOME=" + u.state, "AGENTBOX_ROOT=" + u.root, "AGENTBOX_HEADLESS=1", "AGENTBOX_MODE=bypass"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	return cmd
}

// run calls applet as an agent does and returns its envelope.
func (u *unprivileged) run(applet string, req map[string]any) core.Envelope {
	u.t.Helper()
	b, _ := json.Marshal(req)
	ctx, cancel := context.WithTimeout(context.Background(), callBudget)
	defer cancel()
	cmd := u.command(ctx, applet)
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	var env core.Envelope
	if jerr := json.Unmarshal(out, &env); jerr != nil {
		u.t.Fatalf("%s: stdout is not an envelope: %v %q (%v)", applet, jerr, out, err)
	}
	return env
}

// shell runs agentbox with args as a person does at a shell: stdout, stderr, status.
func (u *unprivileged) shell(args ...string) (string, string, int) {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callBudget)
	defer cancel()
	cmd := u.command(ctx, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		u.t.Fatalf("agentbox %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// index builds the index of the root as the user, as `agentbox index` does.
func (u *unprivileged) index() string {
	u.t.Helper()
	out, errOut, code := u.shell("index", u.root)
	if code != 0 {
		u.t.Fatalf("agentbox index: exit %d\n%s%s", code, out, errOut)
	}
	return out + errOut
}

// unseen is a result's "unlistable" field.
func unseen(env core.Envelope) (count float64, paths []string, why []string) {
	data, _ := env.Data.(map[string]any)
	u, _ := data["unlistable"].(map[string]any)
	count, _ = u["count"].(float64)
	for _, p := range asList(u["paths"]) {
		paths = append(paths, fmt.Sprint(p))
	}
	for _, w := range asList(u["why"]) {
		why = append(why, fmt.Sprint(w))
	}
	return count, paths, why
}

func asList(v any) []any { l, _ := v.([]any); return l }

// TestUnreadableEntries runs agentbox as an unprivileged user against a file and a
// folder it may not read, and a folder it may not write: permission_denied with
// advice, nothing changed, and searches that go on past what they cannot open and
// say what that was (as rg does), with and without the index and its watcher.
func TestUnreadableEntries(t *testing.T) {
	u := newUnprivileged(t)
	root := u.root
	u.mk("secret.txt", "hello secret\n", 0o000)
	u.mk("open.txt", "hello open\n", 0o644)
	u.mk("locked/inside.txt", "hello locked\n", 0o644)
	u.mk("ro/kept.txt", "hello kept\n", 0o644)
	u.chmod("locked", 0o000)
	u.chmod("ro", 0o555)
	before := snapshot(t, root)
	denied := string(core.CodePermissionDenied)
	for _, c := range []struct {
		applet string
		req    map[string]any
	}{
		{"read", map[string]any{"file_path": "secret.txt"}},
		{"edit", map[string]any{"file_path": "secret.txt", "old_string": "hello", "new_string": "bye"}},
		{"write", map[string]any{"file_path": "ro/kept.txt", "content": "bye\n"}},
		{"write", map[string]any{"file_path": "ro/new.txt", "content": "bye\n"}},
		{"ls", map[string]any{"path": "locked"}},
		{"read", map[string]any{"file_path": "locked/inside.txt"}},
		// A search of the folder, or of a pattern's folder, that cannot be listed is
		// refused as ls is, not answered "no matches".
		{"grep", map[string]any{"pattern": "hello", "path": "locked"}},
		{"glob", map[string]any{"pattern": "**/*.txt", "path": "locked"}},
		{"glob", map[string]any{"pattern": "locked/**/*.txt"}},
		{"glob", map[string]any{"pattern": "locked/inside.txt"}},
		// The one file asked for cannot be read: an error, as in grep and rg.
		{"grep", map[string]any{"pattern": "hello", "path": "secret.txt"}},
	} {
		env := u.run(c.applet, c.req)
		if code, _ := env.Metadata["error_code"].(string); code != denied {
			t.Errorf("%s %v: error_code %q, want %s: %s", c.applet, c.req, code, denied, env.ErrorText)
		} else if !strings.Contains(env.ErrorText, "permission") {
			t.Errorf("%s %v: the error does not say why: %s", c.applet, c.req, env.ErrorText)
		}
	}
	if d := diffSnapshots(before, snapshot(t, root)); len(d) > 0 {
		t.Errorf("refused calls changed the workspace: %v", d)
	}
	// A search goes on past what it cannot open, and says what it could not: the file
	// it could not read and the folder it could not list, as rg does on stderr.
	locked := filepath.Join(root, "locked")
	wantHonest := func(what string, env core.Envelope, unreadable float64, lockedAs string) {
		t.Helper()
		data, _ := env.Data.(map[string]any)
		if env.Type != "output" || data == nil {
			t.Fatalf("%s over a tree with unreadable parts: %+v", what, env)
		}
		if n, paths, why := unseen(env); n != 1 || !slices.Equal(paths, []string{lockedAs}) || !slices.Equal(why, []string{"permission denied"}) {
			t.Errorf("%s: unlistable %v, want 1 [%s] for permission denied", what, data["unlistable"], lockedAs)
		}
		if got, _ := data["unreadable"].(float64); got != unreadable {
			t.Errorf("%s: unreadable %v, want %v", what, data["unreadable"], unreadable)
		}
	}
	grepReq := map[string]any{"pattern": "hello", "output_mode": "files_with_matches"}
	env := u.run("grep", grepReq)
	if !strings.Contains(fmt.Sprint(env.Data), "open.txt") {
		t.Errorf("grep over a tree with unreadable parts: %+v", env)
	}
	wantHonest("grep", env, 1, locked)
	wantHonest("glob", u.run("glob", map[string]any{"pattern": "**/*.txt"}), 0, locked)
	wantHonest("ls depth 2", u.run("ls", map[string]any{"path": ".", "depth": 2}), 0, "locked")
	// The same with an index: one built over the locked folder knows nothing of
	// what is in it, and a search through it still says the folder was not searched.
	if out := u.index(); !strings.Contains(out, "1 folders could not be listed") {
		t.Errorf("agentbox index does not say it met a folder it could not list: %s", out)
	}
	for range 2 { // the first search would start a watcher, the second use it
		wantHonest("grep with an index", u.run("grep", grepReq), 1, locked)
		wantHonest("glob with an index", u.run("glob", map[string]any{"pattern": "**/*.txt"}), 0, locked)
		time.Sleep(200 * time.Millisecond)
	}
	// A folder locked after the build, under a running watcher: it reports the folder
	// changed, and the walk of it says it could not list it.
	if err := os.Chmod(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "secret.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	u.index()
	t.Cleanup(func() {
		for _, pid := range watcherPIDs(root) {
			if n, err := strconv.Atoi(pid); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
	})
	u.run("grep", grepReq) // starts the watcher
	if !waitFor(5*time.Second, func() bool { return len(watcherPIDs(root)) > 0 }) {
		t.Fatal("no watcher started for the index")
	}
	time.Sleep(200 * time.Millisecond) // listening, past its first scan
	if err := os.Chmod(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		wantHonest("grep with a watcher, after a folder was locked", u.run("grep", grepReq), 0, locked)
		wantHonest("glob with a watcher, after a folder was locked", u.run("glob", map[string]any{"pattern": "**/*.txt"}), 0, locked)
		if len(watcherPIDs(root)) == 0 {
			t.Errorf("the watcher stopped when a folder was locked; the searches above did not use it")
		}
	}
}

// TestWhatASearchCannotSeeIsSaid attacks the promise that a walk's blind spots are
// said, never dropped (a red team's findings): links whose target lies in a folder
// that cannot be entered, a folder that can be listed but not entered, more folders
// than are named, a negated glob over a locked folder, and a person's shell: exit 2
// and notes on stderr, even with -q, as ripgrep.
func TestWhatASearchCannotSeeIsSaid(t *testing.T) {
	u := newUnprivileged(t)
	root := u.root
	u.mk("open/a.txt", "hello\n", 0o644)
	u.mk("deep/in/b.txt", "hello\n", 0o644)
	u.mk("peek/w.txt", "hello\n", 0o644)
	u.mk("peek/sub/x.txt", "hello\n", 0o644)
	for _, l := range [][2]string{{"lnk/into", "../deep/in"}, {"lnk/file", "../deep/in/b.txt"}} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(l[0])), 0o777)
		if err := os.Symlink(l[1], filepath.Join(root, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	for i := range walk.MaxUnlistablePaths + 2 {
		u.mk(fmt.Sprintf("many/d%02d/f.txt", i), "hello\n", 0o644)
		u.chmod(fmt.Sprintf("many/d%02d", i), 0o000)
	}
	u.mk("many/a/x/f.txt", "hello\n", 0o644)
	u.chmod("many/a/x", 0o000)
	u.chmod("deep", 0o000) // the links' targets are out of reach
	u.chmod("peek", 0o444) // listed, not entered

	// Path order is a walk's: many/a/x before many/d00, and the rest counted.
	env := u.run("grep", map[string]any{"pattern": "hello", "path": "many"})
	n, paths, _ := unseen(env)
	if n != float64(walk.MaxUnlistablePaths+3) || len(paths) != walk.MaxUnlistablePaths || paths[0] != filepath.Join(root, "many/a/x") {
		t.Errorf("grep over %d locked folders: count %v, paths %q", walk.MaxUnlistablePaths+3, n, paths)
	}
	// A negated glob leaves the folders out whole, as ripgrep does: nothing to report.
	if n, paths, _ := unseen(u.run("grep", map[string]any{"pattern": "hello", "path": "many", "glob": "!d*,!x"})); n != 0 {
		t.Errorf("grep with negated globs over the locked folders still reports %v %q", n, paths)
	}
	// Links followed into a folder that cannot be listed (a folder's and a file's).
	env = u.run("grep", map[string]any{"pattern": "hello", "path": "lnk", "follow": true})
	if n, paths, _ := unseen(env); n != 2 || !slices.Equal(paths, []string{filepath.Join(root, "lnk/file"), filepath.Join(root, "lnk/into")}) {
		t.Errorf("grep following links out of reach: unlistable %v %q: %+v", n, paths, env)
	}
	// A folder that can be listed but not entered: its entries are named, and their
	// size and time are said to be unknown, not shown as 0 and year 1.
	env = u.run("ls", map[string]any{"path": "peek", "long_format": true})
	entries := asList(env.Data.(map[string]any)["entries"])
	if len(entries) != 2 {
		t.Fatalf("ls of a folder listed but not entered: %+v", env)
	}
	for _, e := range entries {
		if m := e.(map[string]any); m["unknown"] != true || m["modified"] != nil {
			t.Errorf("ls of a folder listed but not entered: %v is not marked unknown", m)
		}
	}
	if out, errOut, _ := u.shell("ls", "-l", "peek"); strings.Contains(out, "0001-01-01") || !strings.Contains(errOut, "could not be examined") {
		t.Errorf("ls -l of a folder listed but not entered:\n%s%s", out, errOut)
	}
	// At a shell: exit 2, and the notes say what was not searched, with -q too.
	for _, args := range [][]string{{"grep", "hello", "."}, {"grep", "-q", "nothing-matches-this", "."}, {"grep", "-l", "hello", "many", "open"}} {
		out, errOut, code := u.shell(args...)
		if code != 2 || !strings.Contains(errOut, "not searched (permission denied)") {
			t.Errorf("agentbox %v: exit %d, stderr %q (stdout %q); want 2 and a note", args, code, errOut, out)
		}
	}
	// -q with a match: its answer is known, so 0, as ripgrep.
	if _, _, code := u.shell("grep", "-q", "hello", "."); code != 0 {
		t.Errorf("grep -q that matched past a locked folder: exit %d, want 0", code)
	}
	// ls -R names a folder it could not open as typed, as ls does.
	if _, errOut, _ := u.shell("ls", "-R", "many"); !strings.Contains(errOut, "many/a/x") {
		t.Errorf("ls -R many: the note does not name many/a/x: %q", errOut)
	}
}
