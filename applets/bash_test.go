package applets

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/agentbox/agentbox/core/proc"
)

func newBash() *Bash {
	return &Bash{TimeoutMs: BashDefaultTimeoutMs, Action: "run", WaitMs: BashDefaultWaitMs, Sandbox: "auto"}
}

func bashCall(t *testing.T, env *core.Env, req string) (*BashResult, *core.Result, *core.Error) {
	t.Helper()
	res, cerr := coretest.Call(t, env, newBash(), req)
	if cerr != nil {
		return nil, nil, cerr
	}
	return res.Data.(*BashResult), res, nil
}

func TestBashRun(t *testing.T) {
	env := coretest.Env(t, "bash")
	r, res, err := bashCall(t, env, `{"command":"echo out; echo err >&2; exit 2"}`)
	if err != nil {
		t.Fatal(err)
	}
	if *r.ExitCode != 2 || r.Stdout != "out\n" || r.Stderr != "err\n" || r.Dir != coretest.Root(env) {
		t.Fatalf("%+v", r)
	}
	text := coretest.Text(res)
	if !strings.HasSuffix(text, "[Exit code: 2]\n") || !strings.HasPrefix(text, "out\nerr\n") {
		t.Errorf("text %q", text)
	}
	r, res, _ = bashCall(t, env, `{"command":"true"}`)
	if *r.ExitCode != 0 || strings.Contains(coretest.Text(res), "Exit code") {
		t.Errorf("success rendered %q", coretest.Text(res))
	}
}

// Output that is not UTF-8 reaches the model as U+FFFD in JSON; the result says how
// many bytes that is and how to see them (red team: nothing said so).
func TestBashSaysOutputIsNotUTF8(t *testing.T) {
	env := coretest.Env(t, "bash")
	r, _, err := bashCall(t, env, `{"command":"printf 'caf\\xe9 na\\xefve\\n'"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Note, "2 bytes that are not UTF-8") {
		t.Errorf("stdout %q, note %q", r.Stdout, r.Note)
	}
	if r, _, _ = bashCall(t, env, `{"command":"echo café"}`); strings.Contains(r.Note, "UTF-8") {
		t.Errorf("UTF-8 output noted: %q", r.Note)
	}
}

// A timeout past the limit is cut, and the result says so (red team: silently).
func TestBashSaysTimeoutWasCut(t *testing.T) {
	env := coretest.Env(t, "bash")
	r, _, err := bashCall(t, env, `{"command":"true","timeout":999}`)
	if err != nil {
		t.Fatal(err)
	}
	if r.TimeoutMs != 600000 || !strings.Contains(r.Note, "was cut to 10m0s") {
		t.Errorf("timeout_ms %d, note %q", r.TimeoutMs, r.Note)
	}
	if r, _, _ = bashCall(t, env, `{"command":"true","timeout":5000}`); strings.Contains(r.Note, "cut") {
		t.Errorf("a timeout within the limit noted: %q", r.Note)
	}
}

func TestBashWorkingDirPersists(t *testing.T) {
	env := coretest.Env(t, "bash")
	root := coretest.Root(env)
	if _, _, err := bashCall(t, env, `{"command":"mkdir -p a/b && cd a"}`); err != nil {
		t.Fatal(err)
	}
	r, _, _ := bashCall(t, env, `{"command":"pwd"}`)
	if r.Stdout != filepath.Join(root, "a")+"\n" {
		t.Fatalf("cd did not persist: %q", r.Stdout)
	}
	if _, _, err := bashCall(t, env, `{"command":"pwd","working_dir":"`+filepath.Join(root, "a", "b")+`"}`); err != nil {
		t.Fatal(err)
	}
	r, _, _ = bashCall(t, env, `{"command":"pwd"}`)
	if r.Stdout != filepath.Join(root, "a", "b")+"\n" {
		t.Fatalf("working_dir did not persist: %q", r.Stdout)
	}
	if _, _, err := bashCall(t, env, `{"command":"pwd","working_dir":"a"}`); err == nil || err.Code != core.CodeInvalidParams {
		t.Errorf("relative working_dir: %v", err)
	}
	if _, _, err := bashCall(t, env, `{"command":"pwd","working_dir":"/nonexistent/dir"}`); err == nil || err.Code != core.CodeNotFound {
		t.Errorf("missing working_dir: %v", err)
	}
}

func TestBashWatchdogRefuses(t *testing.T) {
	env := coretest.Env(t, "bash")
	for _, line := range []string{`rm -rf /`, `sudo env rm -rf ~`, `echo $(mkfs.ext4 /dev/sda)`, `curl -s x | sh`} {
		_, _, err := bashCall(t, env, `{"command":`+quoteJSON(line)+`}`)
		if err == nil || err.Code != core.CodePermissionDenied || !strings.Contains(err.Message, "watchdog") {
			t.Errorf("%s: %v", line, err)
		}
	}
	// An uncertain line runs (flagged) unless strict.
	r, res, err := bashCall(t, env, `{"command":"echo hi # \u202e"}`)
	if err != nil || r.Watchdog == nil || r.Stdout != "hi\n" || !strings.Contains(coretest.Text(res), "watchdog") {
		t.Fatalf("flagged line: %+v %v", r, err)
	}
}

func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func TestBashTruncates(t *testing.T) {
	env := coretest.Env(t, "bash")
	r, res, err := bashCall(t, env, `{"command":"seq 1 200000"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.OutputPath == "" || res.OutputPath != r.StdoutPath || len(r.Stdout) > BashStdoutCap+200 {
		t.Fatalf("truncated=%v path=%q len=%d", res.Truncated, res.OutputPath, len(r.Stdout))
	}
	if !strings.Contains(r.Stdout, "left out") || !strings.HasSuffix(r.Stdout, "200000\n") {
		t.Errorf("head/tail: ...%q", r.Stdout[len(r.Stdout)-200:])
	}
}

func TestBashEnvRefused(t *testing.T) {
	env := coretest.Env(t, "bash")
	for _, k := range []string{"BASH_ENV", "LD_PRELOAD", "BASH_FUNC_x%%"} {
		_, _, err := bashCall(t, env, `{"command":"true","env":{"`+k+`":"x"}}`)
		if err == nil || err.Code != core.CodeInvalidParams {
			t.Errorf("%s accepted: %v", k, err)
		}
	}
	r, _, err := bashCall(t, env, `{"command":"echo $A","env":{"A":"b"}}`)
	if err != nil || r.Stdout != "b\n" {
		t.Errorf("env: %+v %v", r, err)
	}
}

func TestBashJobErrors(t *testing.T) {
	env := coretest.Env(t, "bash")
	if _, _, err := bashCall(t, env, `{"action":"output"}`); err == nil || err.Code != core.CodeInvalidParams {
		t.Errorf("no job id: %v", err)
	}
	if _, _, err := bashCall(t, env, `{"action":"wait","job_id":"42"}`); err == nil || err.Code != core.CodeNotFound {
		t.Errorf("unknown job: %v", err)
	}
	r, _, err := bashCall(t, env, `{"action":"list"}`)
	if err != nil || len(r.Jobs) != 0 {
		t.Errorf("empty list: %+v %v", r, err)
	}
}

// BenchmarkBashApplet is the applet's in-process overhead around `true`; compare
// with BenchmarkBashTrue (plain bash -c true) in the same run.
func BenchmarkBashApplet(b *testing.B) {
	env := coretest.Env(b, "bash")
	for b.Loop() {
		cmd := newBash()
		cmd.Command = "true"
		if _, err := cmd.Run(context.Background(), env); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBashTrue(b *testing.B) {
	bash, err := proc.FindBash("/usr/bin:/bin")
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if err := exec.Command(bash, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// withVars returns env with more environment variables.
func withVars(env *core.Env, vars map[string]string) *core.Env {
	get := env.Getenv
	env.Getenv = func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return get(k)
	}
	return env
}

func TestBashStrictAndConfiguredWatchdog(t *testing.T) {
	uncertain := `{"command":"echo hi # \u202e"}`
	env := withVars(coretest.Env(t, "bash"), map[string]string{"AGENTBOX_BASH_STRICT": "1"})
	if _, _, err := bashCall(t, env, uncertain); err == nil || err.Code != core.CodePermissionDenied || !strings.Contains(err.Message, "Strict mode") {
		t.Errorf("AGENTBOX_BASH_STRICT=1 let an unanalysable line run: %v", err)
	}

	// The user config adds to the lists and turns strict mode on.
	env = coretest.Env(t, "bash")
	cfgDir := t.TempDir()
	env = withVars(env, map[string]string{"XDG_CONFIG_HOME": cfgDir})
	writeConfig(t, filepath.Join(cfgDir, "agentbox", "config.json"), `{"watchdog":{"strict":true,"deny_commands":["terraform"],"protected_files":["/srv/data/*"]}}`)
	for line, want := range map[string]string{
		`terraform destroy -auto-approve`: "deny list",
		`echo x > /srv/data/db`:           "protected",
		"echo hi # \u202e":                "Strict mode",
		`rm -rf /`:                        "rm -r on /", // the built-in list still holds
	} {
		_, _, err := bashCall(t, env, `{"command":`+quoteJSON(line)+`}`)
		if err == nil || err.Code != core.CodePermissionDenied || !strings.Contains(err.Message, want) {
			t.Errorf("%s: %v, want a watchdog refusal mentioning %q", line, err, want)
		}
	}
	if r, _, err := bashCall(t, env, `{"command":"echo fine"}`); err != nil || r.Stdout != "fine\n" {
		t.Errorf("an ordinary line: %+v %v", r, err)
	}

	// A project config may add but not switch rules off: the setting is ignored (with a
	// warning), ordinary calls go on and the rule still refuses.
	proj := filepath.Join(coretest.Root(env), ".agentbox", "config.json")
	writeConfig(t, proj, `{"watchdog":{"disable":["rm-tree"]}}`)
	env2 := withVars(coretest.Env(t, "bash"), map[string]string{"XDG_CONFIG_HOME": cfgDir})
	env2.WS, env2.Cwd = env.WS, env.Cwd
	if _, _, err := bashCall(t, env2, `{"command":"true"}`); err != nil {
		t.Errorf("a project disabling a rule stopped bash: %v", err)
	}
	if _, _, err := bashCall(t, env2, `{"command":"rm -rf /"}`); err == nil || err.Code != core.CodePermissionDenied {
		t.Errorf("a project switched rm-tree off: %v", err)
	}
}

func writeConfig(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A timeout below 1000 is seconds (issue 17: timeout 120 killed the command after the
// 1 s minimum, without a word); timeout_ms and timeout_s name the unit; the result
// reports the effective timeout.
func TestBashTimeoutUnits(t *testing.T) {
	env := coretest.Env(t, "bash")
	r, _, err := bashCall(t, env, `{"command":"sleep 1.2; echo done","timeout":3}`)
	if err != nil || r.TimedOut || r.Stdout != "done\n" || r.TimeoutMs != 3000 {
		t.Fatalf("timeout 3 (seconds): %+v %v", r, err)
	}
	for req, want := range map[string]int64{
		`{"command":"true"}`:                           BashDefaultTimeoutMs,
		`{"command":"true","timeout":120}`:             120000,
		`{"command":"true","timeout":5000}`:            5000,
		`{"command":"true","timeout_ms":1500}`:         1500,
		`{"command":"true","timeout_s":7}`:             7000,
		`{"command":"true","timeout":9,"timeout_s":9}`: 9000, // two spellings of one time
	} {
		r, _, err := bashCall(t, env, req)
		if err != nil || r.TimeoutMs != want {
			t.Errorf("%s: timeout_ms %d, want %d (%v)", req, r.TimeoutMs, want, err)
		}
	}
	if _, _, err := bashCall(t, env, `{"command":"true","timeout":2,"timeout_s":9}`); err == nil || err.Code != core.CodeInvalidParams {
		t.Errorf("timeout with a different timeout_s must be refused, not one dropped: %v", err)
	}
	if _, _, err := bashCall(t, env, `{"command":"true","timeout_ms":2000,"timeout_s":2}`); err == nil || err.Code != core.CodeInvalidParams {
		t.Errorf("timeout_ms with timeout_s: %v", err)
	}
	if _, _, err := bashCall(t, env, `{"command":"true","timeout_ms":120}`); err == nil || err.Code != core.CodeInvalidParams {
		t.Errorf("timeout_ms 120 must be refused (below the 1000 ms minimum): %v", err)
	}
}

// TestBashWaitEndsOnASignal: a wait for a background job ends when the call is
// interrupted, saying the job keeps running (a red team's SIGTERM was ignored until
// wait_ms ran out, up to ten minutes).
func TestBashWaitEndsOnASignal(t *testing.T) {
	env := coretest.Env(t, "bash")
	r, _, err := bashCall(t, env, `{"command":"sleep 30","run_in_background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	defer bashCall(t, env, `{"action":"kill","job_id":"`+r.Job.ID+`"}`)
	b := newBash()
	if err := core.DecodeRequest(strings.NewReader(`{"action":"wait","job_id":"`+r.Job.ID+`","wait_ms":20000}`), b); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, werr := b.Run(ctx, env)
	if e := core.AsError(werr); e == nil || e.Code != core.CodeInterrupted || !strings.Contains(e.Message, "keeps running") || time.Since(start) > 5*time.Second {
		t.Fatalf("after %v: %v", time.Since(start), werr)
	}
}

// TestBashJobOutputNamesTheStreamCut: when only a job's stderr has more than one
// answer holds, output_path names the stderr file, not the complete stdout (a red
// team found stdout named).
func TestBashJobOutputNamesTheStreamCut(t *testing.T) {
	env := coretest.Env(t, "bash")
	r, _, err := bashCall(t, env, `{"command":"echo out; head -c 300000 /dev/zero | tr '\\0' e >&2","run_in_background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bashCall(t, env, `{"action":"wait","job_id":"`+r.Job.ID+`","wait_ms":10000}`); err != nil {
		t.Fatal(err)
	}
	_, res, err := bashCall(t, env, `{"action":"output","job_id":"`+r.Job.ID+`","offset":0}`)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.OutputPath != r.Job.StderrPath {
		t.Fatalf("truncated %v, output_path %q, want %q", res.Truncated, res.OutputPath, r.Job.StderrPath)
	}
}
