package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/agentbox/agentbox/core"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type echoCmd struct {
	Msg   string `json:"msg" arg:"" optional:"" help:"what to echo"`
	Panic bool   `json:"panic"`
	Fail  bool   `json:"fail"`
	Bad   bool   `json:"bad"`
}

func (c *echoCmd) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	if c.Panic {
		panic("boom")
	}
	if c.Fail {
		return nil, core.Errorf(core.CodeNotFound, "nothing here; try elsewhere")
	}
	if c.Bad {
		return nil, core.Errorf(core.CodeInvalidParams, "msg and bad do not go together")
	}
	return &core.Result{Data: map[string]string{"msg": c.Msg}}, nil
}

var testSpecs = []core.Spec{{Name: "echo", Aliases: []string{"say", "Echo_Tool"}, Summary: "echo", New: func() core.Command { return &echoCmd{} }}}

func runMain(t *testing.T, args []string, stdin string, tty bool) (int, map[string]any, string, string) {
	t.Helper()
	dir := realTemp(t)
	var out, errb bytes.Buffer
	env := map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state"), "HOME": dir}
	host := Host{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return dir, nil },
		Now: time.Now, StdinIsTerminal: tty, Executable: "/bin/agentbox",
	}
	code := Main(args, testSpecs, host)
	var envl map[string]any
	_ = json.Unmarshal(out.Bytes(), &envl)
	return code, envl, out.String(), errb.String()
}

func TestMainDispatch(t *testing.T) {
	for _, args := range [][]string{{"agentbox", "echo"}, {"/usr/bin/echo"}, {"say"}, {"ab-echo"}, {"agentbox-say"}, {"ECHO"}, {"agentbox", "Echo_Tool"}} {
		code, env, out, _ := runMain(t, args, `{"msg":"hi"}`, false)
		if code != 0 || env["type"] != "output" {
			t.Errorf("%v: code %d, out %s", args, code, out)
		}
	}
	code, _, _, stderr := runMain(t, []string{"agentbox", "ecoh"}, "", true)
	if code != ExitUsage || !strings.Contains(stderr, `did you mean "echo"`) {
		t.Errorf("misspelt applet at a terminal: %d %q", code, stderr)
	}
	code, envl, out, stderr := runMain(t, []string{"agentbox", "ecoh"}, "{}", false)
	if code != ExitUsage || envl["type"] != "error" || !strings.Contains(out, `"closest":["echo"]`) || stderr != "" {
		t.Errorf("misspelt applet in JSON mode: %d %s %q", code, out, stderr)
	}
}

func TestMainModes(t *testing.T) {
	// Arguments make it shell mode: text out.
	code, _, out, _ := runMain(t, []string{"agentbox", "echo", "hello"}, "", false)
	if code != 0 || !strings.Contains(out, `"msg": "hello"`) {
		t.Errorf("shell mode: %d %q", code, out)
	}
	// Global flags do not count as arguments: still JSON mode, text out.
	code, _, out, _ = runMain(t, []string{"agentbox", "echo", "--text", "--session", "s1"}, `{"msg":"x"}`, false)
	if code != 0 || strings.HasPrefix(out, "{\"type\"") || !strings.Contains(out, `"msg": "x"`) {
		t.Errorf("--text in JSON mode: %d %q", code, out)
	}
	// --json in shell mode gives the envelope.
	code, env, _, _ := runMain(t, []string{"agentbox", "echo", "hi", "--json"}, "", false)
	if code != 0 || env["data"].(map[string]any)["msg"] != "hi" {
		t.Errorf("--json: %d %v", code, env)
	}
	// A terminal on stdin with no arguments is shell mode.
	code, _, out, _ = runMain(t, []string{"agentbox", "echo"}, "", true)
	if code != 0 || !strings.Contains(out, `"msg": ""`) {
		t.Errorf("tty: %d %q", code, out)
	}
}

func TestMainErrors(t *testing.T) {
	code, env, _, _ := runMain(t, []string{"echo"}, `{"fail":true}`, false)
	md := env["metadata"].(map[string]any)
	if code != ExitToolError || env["type"] != "error" || md["error_code"] != "not_found" || env["error_text"] != "nothing here; try elsewhere" {
		t.Errorf("tool error: %d %v", code, env)
	}
	code, env, out, _ := runMain(t, []string{"echo"}, `{"panic":true}`, false)
	if code != ExitToolError || env["metadata"].(map[string]any)["error_code"] != "internal" || strings.Contains(out, "goroutine") {
		t.Errorf("panic: %d %s", code, out)
	}
	// An invalid request found while running is a usage error too, as one found
	// before (the README's 2; it was 1).
	code, env, _, _ = runMain(t, []string{"echo"}, `{"bad":true}`, false)
	if code != ExitUsage || env["metadata"].(map[string]any)["error_code"] != "invalid_params" {
		t.Errorf("invalid request found while running: %d %v", code, env)
	}
	code, env, _, _ = runMain(t, []string{"echo"}, `{"msg":`, false)
	if code != ExitUsage || env["metadata"].(map[string]any)["error_code"] != "invalid_params" {
		t.Errorf("malformed: %d %v", code, env)
	}
	code, _, _, stderr := runMain(t, []string{"echo", "--bogus"}, ``, false)
	if code != ExitUsage || !strings.Contains(stderr, "unknown flag --bogus") {
		t.Errorf("bad flag: %d %q", code, stderr)
	}
	code, _, _, stderr = runMain(t, []string{"echo", "--mode", "yolo", "x"}, ``, false)
	if code != ExitUsage || !strings.Contains(stderr, "unknown permission mode") {
		t.Errorf("bad mode: %d %q", code, stderr)
	}
	code, env, _, _ = runMain(t, []string{"echo", "--session", "../evil"}, `{}`, false)
	if code != ExitUsage || !strings.Contains(env["error_text"].(string), "session id") {
		t.Errorf("bad session: %d %v", code, env)
	}
}

func TestInstallLinks(t *testing.T) {
	dir := realTemp(t)
	exe := filepath.Join(dir, "agentbox")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	links := filepath.Join(dir, "bin")
	os.MkdirAll(links, 0o755)
	os.WriteFile(filepath.Join(links, "ab-echo"), []byte("mine"), 0o644) // a foreign file
	sys := filepath.Join(dir, "usr-bin")
	os.MkdirAll(sys, 0o755)
	os.WriteFile(filepath.Join(sys, "fail"), []byte("#!/bin/sh\nexit 1\n"), 0o755) // the system's "fail"
	env := map[string]string{"PATH": links + ":" + sys}
	specs := append(append([]core.Spec(nil), testSpecs...), core.Spec{Name: "fail", Summary: "fail", New: func() core.Command { return &echoCmd{} }})
	var out bytes.Buffer
	host := Host{Stdout: &out, Stderr: &out, Getenv: func(k string) string { return env[k] }, Executable: exe, Now: time.Now}
	if code := Main([]string{"agentbox", "install", "--links", links}, specs, host); code != 0 {
		t.Fatalf("install: %d %s", code, out.String())
	}
	// echo is a shell builtin and fail a command on PATH: both are left out, and said so.
	for _, name := range []string{"echo", "fail"} {
		if _, err := os.Lstat(filepath.Join(links, name)); err == nil {
			t.Errorf("%s was linked, shadowing the system's", name)
		}
	}
	if !strings.Contains(out.String(), "echo (a shell builtin)") || !strings.Contains(out.String(), "fail (shadows "+filepath.Join(sys, "fail")+")") || !strings.Contains(out.String(), "--prefix") {
		t.Errorf("the report does not say what was left out and why: %s", out.String())
	}
	// --force shadows them, for an agent-only folder.
	out.Reset()
	if code := Main([]string{"agentbox", "install", "--links", links, "--force"}, specs, host); code != 0 {
		t.Fatalf("install --force: %d %s", code, out.String())
	}
	if dest, _ := os.Readlink(filepath.Join(links, "echo")); dest != exe {
		t.Errorf("echo link -> %q", dest)
	}
	// Again under a prefix: the foreign file under the prefix is never replaced.
	out.Reset()
	code := Main([]string{"agentbox", "install", "--links", links, "--prefix", "ab-"}, specs, host)
	if code != ExitToolError || !strings.Contains(out.String(), "skipped") {
		t.Errorf("prefix over a foreign file: %d %s", code, out.String())
	}
	if b, _ := os.ReadFile(filepath.Join(links, "ab-echo")); string(b) != "mine" {
		t.Errorf("foreign file replaced: %q", b)
	}
	if dest, _ := os.Readlink(filepath.Join(links, "ab-fail")); dest != exe {
		t.Errorf("ab-fail link -> %q: a prefixed name shadows nothing", dest)
	}
	// A plain rerun keeps its own links but removes those an earlier --force made that
	// hide a command: they are reported, not kept in silence.
	out.Reset()
	if code := Main([]string{"agentbox", "install", "--links", links}, specs, host); code != 0 || !strings.Contains(out.String(), "kept") || !strings.Contains(out.String(), "removed") {
		t.Errorf("reinstall: %d %s", code, out.String())
	}
	for _, name := range []string{"echo", "fail"} {
		if _, err := os.Lstat(filepath.Join(links, name)); err == nil {
			t.Errorf("a rerun without --force kept %s, which shadows the system's", name)
		}
	}
	// A prefix is a name prefix: one with a path separator would put links elsewhere.
	out.Reset()
	for _, bad := range []string{"../", "a/b", ".."} {
		if code := Main([]string{"agentbox", "install", "--links", links, "--prefix", bad}, specs, host); code != ExitUsage {
			t.Errorf("--prefix %q: exit %d, want a usage error: %s", bad, code, out.String())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("a bad prefix left links beside the folder: %v", ents)
	}
}

// In JSON mode an unknown applet is an envelope on stdout, with the closest names.
func TestUnknownAppletEnvelope(t *testing.T) {
	specs := []core.Spec{{Name: "read"}, {Name: "grep"}, {Name: "glob"}}
	for _, tc := range []struct {
		name    string
		closest string
	}{{"raed", `"closest":["read"]`}, {"gerp", `"closest":["grep"`}, {"nosuchapplet", `"closest":[]`}} {
		var out, errOut bytes.Buffer
		code := Main([]string{"agentbox", tc.name}, specs, Host{Stdin: strings.NewReader("{}"), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }})
		if code != ExitUsage || !strings.Contains(out.String(), `"error_code":"invalid_params"`) || !strings.Contains(out.String(), tc.closest) || errOut.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %s, stderr %s", tc.name, code, out.String(), errOut.String())
		}
	}
}

// realTemp is a temporary folder by its real path (macOS's /var is a link).
func realTemp(t *testing.T) string {
	d := t.TempDir()
	r, err := filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// `agentbox index DIR` builds grep's index in the cache folder and says what it holds;
// --remove deletes it; a stray flag is a usage error.
func TestIndexCommand(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	env := map[string]string{"XDG_CACHE_HOME": cache}
	var out bytes.Buffer
	host := Host{Stdout: &out, Stderr: &out, Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return dir, nil }, Now: time.Now}
	if code := Main([]string{"agentbox", "index", dir}, testSpecs, host); code != 0 || !strings.Contains(out.String(), "indexed "+dir) {
		t.Fatalf("index: %d %s", code, out.String())
	}
	if m, _ := filepath.Glob(filepath.Join(cache, "agentbox", "index", "*", "meta.json")); len(m) != 1 {
		t.Fatalf("want one index in the cache folder, got %v", m)
	}
	out.Reset()
	if code := Main([]string{"agentbox", "index", "--remove"}, testSpecs, host); code != 0 || !strings.Contains(out.String(), "removed") {
		t.Fatalf("index --remove: %d %s", code, out.String())
	}
	if m, _ := filepath.Glob(filepath.Join(cache, "agentbox", "index", "*", "meta.json")); len(m) != 0 {
		t.Fatalf("the index is still there: %v", m)
	}
	if code := Main([]string{"agentbox", "index", "--frobnicate"}, testSpecs, host); code != ExitUsage {
		t.Fatalf("a stray flag: exit %d, want %d", code, ExitUsage)
	}

	// Without DIR, the workspace roots grep keys its indexes by: AGENTBOX_ROOT's.
	other := t.TempDir()
	env["AGENTBOX_ROOT"] = other
	out.Reset()
	if code := Main([]string{"agentbox", "index"}, testSpecs, host); code != 0 || !strings.Contains(out.String(), "indexed "+other) {
		t.Fatalf("index with AGENTBOX_ROOT: %d %s", code, out.String())
	}
	// A folder that is not there, or a file: an error envelope with --json, exit 1.
	for _, bad := range []string{filepath.Join(dir, "missing"), filepath.Join(dir, "a.txt")} {
		out.Reset()
		code := Main([]string{"agentbox", "index", "--json", bad}, testSpecs, host)
		var env struct {
			Type      string `json:"type"`
			ErrorText string `json:"error_text"`
		}
		if code != ExitToolError || json.Unmarshal(out.Bytes(), &env) != nil || env.Type != "error" || !strings.Contains(env.ErrorText, "not a directory") {
			t.Fatalf("index --json %s: exit %d, %s", bad, code, out.String())
		}
	}
}

// signalledCmd gets a SIGTERM while it runs and then finishes: its work done (a write
// that completed) or cut short (partial).
type signalledCmd struct {
	Partial bool `json:"partial"`
}

func (c *signalledCmd) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	<-env.SignalsReady
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		return nil, core.Errorf(core.CodeInternal, "the signal did not cancel the call")
	}
	return &core.Result{Data: map[string]bool{"done": !c.Partial}, Interrupted: c.Partial}, nil
}

// A call that finished its work although a signal came answers with exit status 0, as
// its envelope says (red team: a write that completed answered "output" with 130, so a
// harness retried it); one whose output the signal cut short exits 130.
func TestSignalAfterTheWorkIsDone(t *testing.T) {
	specs := []core.Spec{{Name: "signalled", Summary: "signalled", New: func() core.Command { return &signalledCmd{} }}}
	for _, c := range []struct {
		req  string
		want int
	}{{`{}`, 0}, {`{"partial":true}`, ExitInterrupted}} {
		dir := realTemp(t)
		var out, errb bytes.Buffer
		host := Host{
			Stdin: strings.NewReader(c.req), Stdout: &out, Stderr: &errb, Signals: true,
			Getenv: func(k string) string {
				return map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state"), "HOME": dir}[k]
			},
			Getwd: func() (string, error) { return dir, nil }, Now: time.Now, Executable: "/bin/agentbox",
		}
		if code := Main([]string{"agentbox", "signalled"}, specs, host); code != c.want || !strings.Contains(out.String(), `"type":"output"`) {
			t.Errorf("%s: exit %d, want %d; %s%s", c.req, code, c.want, out.String(), errb.String())
		}
	}
}
