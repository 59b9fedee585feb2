package applets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

// TestExtractAnswer: each known agent's output, as its documentation and its public
// parsers show it, gives the final message; anything else is the text itself.
func TestExtractAnswer(t *testing.T) {
	cases := []struct{ name, out, answer, format, agentErr string }{
		{"claude json", `{"type":"result","subtype":"success","is_error":false,"duration_ms":2100,"result":"The loader is in config.go:42.","session_id":"abc","total_cost_usd":0.01}`, "The loader is in config.go:42.", "claude", ""},
		{"claude stream-json", "{\"type\":\"system\",\"subtype\":\"init\"}\n{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"looking\"}]}}\n{\"type\":\"result\",\"subtype\":\"success\",\"result\":\"done: 3 files\"}\n", "done: 3 files", "claude", ""},
		{"codex exec --json", "{\"type\":\"thread.started\",\"thread_id\":\"th_1\"}\n{\"type\":\"turn.started\"}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"reasoning\",\"text\":\"**Thinking**\"}}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":\"command_execution\",\"command\":\"ls\",\"aggregated_output\":\"a\"}}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"item_2\",\"type\":\"agent_message\",\"text\":\"first\"}}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"item_3\",\"type\":\"agent_message\",\"text\":\"All tests pass.\"}}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":10,\"output_tokens\":5}}\n", "All tests pass.", "codex", ""},
		{"codex legacy events", "{\"id\":\"0\",\"msg\":{\"type\":\"task_started\"}}\n{\"id\":\"0\",\"msg\":{\"type\":\"agent_message\",\"message\":\"Fixed the bug.\"}}\n{\"id\":\"0\",\"msg\":{\"type\":\"task_complete\"}}\n", "Fixed the bug.", "codex", ""},
		{"gemini json", `{"response":"Two callers: a.go and b.go.","stats":{"models":{}}}`, "Two callers: a.go and b.go.", "gemini", ""},
		{"opencode run --format json", "{\"type\":\"step_start\",\"part\":{\"type\":\"step-start\"}}\n{\"type\":\"text\",\"part\":{\"type\":\"text\",\"text\":\"Let me look.\"}}\n{\"type\":\"tool_use\",\"part\":{\"tool\":\"read\"}}\n{\"type\":\"step_finish\",\"part\":{\"reason\":\"tool-calls\"}}\n{\"type\":\"step_start\",\"part\":{}}\n{\"type\":\"text\",\"part\":{\"type\":\"text\",\"text\":\"It is \"}}\n{\"type\":\"text\",\"part\":{\"type\":\"text\",\"text\":\"in main.go.\"}}\n{\"type\":\"step_finish\",\"part\":{\"reason\":\"stop\"}}\n", "It is in main.go.", "opencode", ""},
		{"plain text", "The answer is 42.\n", "The answer is 42.", "text", ""},
		{"text with a JSON line", "result:\n{\"a\":1}\n", "result:\n{\"a\":1}", "text", ""},
		{"broken JSON", `{"type":"result","result":`, `{"type":"result","result":`, "text", ""},
		{"empty", "  \n", "", "text", ""},
		{"a JSON object of another shape", `{"answer":"x"}`, `{"answer":"x"}`, "text", ""},
		// claude's failures are said, not passed off as answers (red team, session 34)
		{"claude out of turns", `{"type":"result","subtype":"error_max_turns","is_error":true,"duration_ms":9}`, "", "claude", "error_max_turns"},
		{"claude error with a message", "{\"type\":\"system\"}\n{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"result\":\"API error\"}\n", "API error", "claude", "is_error"},
	}
	for _, c := range cases {
		answer, format, agentErr := extractAnswer(c.out)
		if answer != c.answer || format != c.format || agentErr != c.agentErr {
			t.Errorf("%s: got (%q, %s, %q), want (%q, %s, %q)", c.name, answer, format, agentErr, c.answer, c.format, c.agentErr)
		}
	}
}

func TestChildSessionID(t *testing.T) {
	if got := childSessionID("s1", 3); got != "s1.task-3" {
		t.Errorf("got %q", got)
	}
	long := strings.Repeat("a", 128)
	got := childSessionID(long, 12)
	if len(got) > 128 || !strings.HasSuffix(got, ".task-12") {
		t.Errorf("a long parent id gives %q (%d bytes)", got, len(got))
	}
	if _, err := core.NewSession(t.TempDir(), got, nil); err != nil {
		t.Errorf("the derived id is not a valid session id: %v", err)
	}
	// Two long parents that differ only at their start get children of their own (a
	// red team's two parents shared one child session, and one read the other's todos).
	a, b := childSessionID(strings.Repeat("d", 125), 1), childSessionID(strings.Repeat("d", 128), 1)
	if a == b || len(a) > 128 || len(b) > 128 {
		t.Errorf("long parents share %q / %q", a, b)
	}
	if _, err := core.NewSession(t.TempDir(), b, nil); err != nil {
		t.Errorf("the derived id is not a valid session id: %v", err)
	}
}

// TestTaskConfig: the command comes from the environment, the manifest or the user
// config (a string split like a shell, or an array), never a project config; a bad
// section is an error that names the file.
func TestTaskConfig(t *testing.T) {
	env := coretest.Env(t, "task")
	vars := map[string]string{}
	base := env.Getenv
	env.Getenv = func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return base(k)
	}
	root := coretest.Root(env)
	write := func(path, body string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, ".agentbox", "config.json"), `{"task":{"command":"sh -c 'touch pwned'"}}`)
	if _, ok, err := loadTaskConfig(env); ok || err != nil {
		t.Fatalf("a project config configured the agent: ok %v, err %v", ok, err)
	}
	if taskAvailable(env) {
		t.Error("task is offered with no agent configured")
	}
	_, cerr := coretest.Call(t, env, &Task{Action: "run"}, `{"prompt":"x"}`)
	if cerr == nil || cerr.Code != core.CodeInvalidParams || !strings.Contains(cerr.Message, "AGENTBOX_TASK_COMMAND") {
		t.Fatalf("not configured: %v", cerr)
	}

	user := filepath.Join(base("HOME"), ".config", "agentbox", "config.json")
	write(user, `{"task":{"command":"my-agent --flag 'two words' {prompt}","max_depth":3}}`)
	cfg, ok, err := loadTaskConfig(env)
	if !ok || err != nil || strings.Join(cfg.argv, "|") != "my-agent|--flag|two words|{prompt}" || cfg.MaxDepth != 3 || cfg.MaxAtOnce != TaskDefaultMaxAtOnce {
		t.Fatalf("user config: %+v ok %v err %v", cfg, ok, err)
	}
	manifest := filepath.Join(root, "manifest.json")
	write(manifest, `{"task":{"command":["claude","-p"]}}`)
	vars["AGENTBOX_MANIFEST"] = manifest
	if cfg, _, _ := loadTaskConfig(env); strings.Join(cfg.argv, " ") != "claude -p" || cfg.MaxDepth != TaskDefaultMaxDepth {
		t.Errorf("the manifest comes before the user config: %+v", cfg)
	}
	vars[taskCommandVar] = "codex exec --json"
	if cfg, _, _ := loadTaskConfig(env); strings.Join(cfg.argv, " ") != "codex exec --json" {
		t.Errorf("AGENTBOX_TASK_COMMAND comes first: %+v", cfg)
	}
	write(manifest, `{"task":{"comand":["claude"]}}`)
	if _, _, err := loadTaskConfig(env); err == nil || !strings.Contains(err.Error(), manifest) || !strings.Contains(err.Error(), "known keys") {
		t.Errorf("a misspelt key: %v", err)
	}
	write(manifest, `{"task":{"command":42}}`)
	if _, _, err := loadTaskConfig(env); err == nil || !strings.Contains(err.Error(), "string or an array") {
		t.Errorf("a command of the wrong type: %v", err)
	}
	// A limit that cannot be is refused, not replaced by the default (red team: max_depth
	// 0 allowed two levels), and so is a default timeout over the maximum.
	for body, want := range map[string]string{
		`{"task":{"command":["claude"],"max_depth":0}}`:                             "task.max_depth",
		`{"task":{"command":["claude"],"max_running":-1}}`:                          "task.max_running",
		`{"task":{"command":["claude"],"timeout_ms":90000,"max_timeout_ms":60000}}`: "more than its max_timeout_ms",
	} {
		write(manifest, body)
		if _, _, err := loadTaskConfig(env); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), manifest) {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// TestTaskCommandLine: the prompt goes to stdin from a file, or replaces {prompt}; the
// words are quoted so a prompt is never read as shell syntax.
func TestTaskCommandLine(t *testing.T) {
	env := coretest.Env(t, "task")
	task := &Task{Prompt: "it's $(rm -rf /) `x`", SubagentType: "explorer"}
	line, stdin, err := task.commandLine(env, []string{"agent", "--type", "{agent}"})
	if err != nil || line != "exec 'agent' '--type' 'explorer'" || stdin == "" {
		t.Fatalf("stdin form: %q %q %v", line, stdin, err)
	}
	if b, _ := os.ReadFile(stdin); string(b) != task.Prompt {
		t.Errorf("the prompt file holds %q", b)
	}
	line, stdin, err = task.commandLine(env, []string{"gemini", "-p", "{prompt}"})
	if err != nil || stdin != "" || line != `exec 'gemini' '-p' 'it'\''s $(rm -rf /) `+"`x`'" {
		t.Fatalf("argument form: %q %q %v", line, stdin, err)
	}
	task.Prompt = strings.Repeat("x", taskPromptArgMax+1)
	if _, _, err := task.commandLine(env, []string{"gemini", "-p", "{prompt}"}); err == nil || core.AsError(err).Code != core.CodeTooLarge {
		t.Errorf("an over-long {prompt} argument: %v", err)
	}
}
