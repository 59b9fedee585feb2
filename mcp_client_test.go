package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPWithOfficialTypeScriptClient drives `agentbox mcp` with a client agentbox did
// not write: the official MCP TypeScript SDK (testdata/mcp, installed by .ci/run).
func TestMCPWithOfficialTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; cannot run the TypeScript MCP client")
	}
	if _, err := os.Stat("testdata/mcp/node_modules/@modelcontextprotocol/sdk"); err != nil {
		t.Skip("the MCP TypeScript SDK is not installed; run `npm ci --prefix testdata/mcp` (.ci/run does)")
	}
	bin := agentboxBinary(t)
	work, _ := filepath.EvalSymlinks(t.TempDir())
	serverRoot := t.TempDir() // where the server starts; the client's roots point at work
	os.WriteFile(filepath.Join(work, "hello.txt"), []byte("hello world\n"), 0o644)
	cmd := exec.Command(node, "testdata/mcp/client.mjs", bin, work, serverRoot)
	fake, _ := filepath.Abs("testdata/task/fake-agent")
	cmd.Env = append(os.Environ(), "PATH="+pathWithoutApplets(), "XDG_STATE_HOME="+filepath.Join(work, ".state"), "AGENTBOX_MODE=accept-edits", "AGENTBOX_HEADLESS=1", "AGENTBOX_TASK_COMMAND="+fake)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	steps := map[string]json.RawMessage{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var s struct {
			Step  string          `json:"step"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		steps[s.Step] = s.Value
	}
	var list []struct {
		Name                                         string
		ReadOnly, Destructive, Idempotent, OpenWorld *bool
		HasSchema, HasOutputSchema                   bool
	}
	json.Unmarshal(steps["list"], &list)
	byName := map[string]bool{}
	for _, tool := range list {
		byName[tool.Name] = true
		if !tool.HasSchema || !tool.HasOutputSchema {
			t.Errorf("tool %s lacks an object input or output schema", tool.Name)
		}
		if tool.ReadOnly == nil || tool.Destructive == nil || tool.Idempotent == nil || tool.OpenWorld == nil {
			t.Errorf("tool %s leaves an annotation unset", tool.Name)
			continue
		}
		if tool.Name == "read" && (!*tool.ReadOnly || *tool.Destructive) {
			t.Errorf("read annotations: %+v", tool)
		}
		if tool.Name == "edit" && (*tool.ReadOnly || !*tool.Destructive) {
			t.Errorf("edit annotations: %+v", tool)
		}
	}
	for _, want := range []string{"read", "write", "edit", "glob", "ls"} {
		if !byName[want] {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	if byName["mcp"] {
		t.Error("tools/list offers mcp itself")
	}
	type result struct {
		Thrown            string `json:"thrown"`
		IsError           bool   `json:"isError"`
		Content           []struct{ Text string }
		StructuredContent map[string]any
	}
	get := func(step string) result {
		var r result
		if err := json.Unmarshal(steps[step], &r); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return r
	}
	if r := get("read"); r.IsError || r.StructuredContent["total_lines"] != float64(1) || !strings.Contains(r.Content[0].Text, "hello world") {
		t.Errorf("read: %+v", r)
	}
	if r := get("glob"); r.IsError || r.StructuredContent["total"] != float64(1) {
		t.Errorf("glob: %+v", r)
	}
	if r := get("edit"); r.IsError || !strings.Contains(r.Content[0].Text, "+hello MCP") {
		t.Errorf("edit: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "hello.txt")); string(b) != "hello MCP\n" {
		t.Errorf("edit did not land: %q", b)
	}
	if r := get("missing"); !r.IsError || r.StructuredContent["error_code"] != "not_found" {
		t.Errorf("missing: %+v", r)
	}
	if r := get("invalid"); !r.IsError || !strings.Contains(r.Content[0].Text, "file_path") {
		t.Errorf("invalid: %+v", r)
	}
	if r := get("grep"); r.IsError || !strings.Contains(r.Content[0].Text, "hello.txt:1:hello world") {
		t.Errorf("grep: %+v", r)
	}
	if r := get("bash"); r.IsError || !strings.Contains(r.Content[0].Text, work) || !strings.Contains(r.Content[0].Text, "from-bash") {
		t.Errorf("bash (should run in the client's root %s): %+v", work, r)
	}
	for _, step := range []string{"read", "glob", "grep", "edit", "bash", "missing", "invalid", "ask"} {
		if r := get(step); r.Thrown != "" {
			t.Errorf("%s: the client refused the result (output schema?): %s", step, r.Thrown)
		}
	}
	// ask went to the client's user through elicitation.
	if r := get("ask"); r.IsError || !strings.Contains(string(steps["ask"]), `"source":"elicitation"`) || !strings.Contains(string(steps["ask"]), `[["SQLite"]]`) {
		t.Errorf("ask: %s", steps["ask"])
	}
	if !strings.Contains(string(steps["elicitations"]), "Which database?") || !strings.Contains(string(steps["elicitations"]), `"decision"`) {
		t.Errorf("elicitations: %s", steps["elicitations"])
	}
	var prog struct {
		Result   result
		Progress []struct{ Progress float64 }
	}
	json.Unmarshal(steps["progress"], &prog)
	if prog.Result.IsError || !strings.Contains(prog.Result.Content[0].Text, "slept") || len(prog.Progress) == 0 {
		t.Errorf("progress: %s", steps["progress"])
	}
	var cancel struct {
		Cancelled result
		CancelMs  int
		CancelAt  int64 // ms since the epoch
	}
	json.Unmarshal(steps["cancel"], &cancel)
	if cancel.Cancelled.Thrown == "" || cancel.CancelMs > 1500 {
		t.Errorf("cancel: the call was not cut short: %s", steps["cancel"])
	}
	// The command would touch late.txt 8 s after it started: look 9 s after the cancel.
	if wait := time.Until(time.UnixMilli(cancel.CancelAt).Add(9 * time.Second)); wait > 0 {
		time.Sleep(wait)
	}
	if _, err := os.Stat(filepath.Join(work, "late.txt")); err == nil {
		t.Errorf("the cancelled command kept running and created late.txt")
	}

	// task: progress reports while the subagent works, then its answer (codex's JSON
	// read for the final message); a cancelled task stops its whole tree.
	var task struct {
		Result   result
		Progress []struct{ Progress float64 }
	}
	json.Unmarshal(steps["task"], &task)
	if task.Result.IsError || len(task.Result.Content) == 0 || strings.TrimSpace(task.Result.Content[0].Text) != "rested" || len(task.Progress) == 0 {
		t.Errorf("task: %s", steps["task"])
	}
	var taskCancel struct {
		Cancelled result
		CancelMs  int
	}
	json.Unmarshal(steps["task-cancel"], &taskCancel)
	if taskCancel.Cancelled.Thrown == "" || taskCancel.CancelMs > 2500 {
		t.Errorf("task-cancel: the call was not cut short: %s", steps["task-cancel"])
	}
	assertGone(t, taskPids(t, work))
}
