package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "hello.txt"), []byte("hello world\n"), 0o644)
	cmd := exec.Command(node, "testdata/mcp/client.mjs", bin, work)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(work, ".state"), "AGENTBOX_MODE=accept-edits", "AGENTBOX_HEADLESS=1")
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
		Name                  string
		ReadOnly, Destructive bool
		HasSchema             bool
	}
	json.Unmarshal(steps["list"], &list)
	byName := map[string]bool{}
	for _, tool := range list {
		byName[tool.Name] = true
		if !tool.HasSchema {
			t.Errorf("tool %s has no object input schema", tool.Name)
		}
		if tool.Name == "read" && (!tool.ReadOnly || tool.Destructive) {
			t.Errorf("read annotations: %+v", tool)
		}
		if tool.Name == "edit" && (tool.ReadOnly || !tool.Destructive) {
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
		IsError           bool `json:"isError"`
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
}
