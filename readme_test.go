package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stubOpenAI stands in for the openai package: the model asks for one read, then
// answers with what the tool returned.
const stubOpenAI = `from types import SimpleNamespace as NS
class OpenAI:
    def __init__(self):
        self.turn = 0
        self.chat = NS(completions=NS(create=self.create))
    def create(self, model, messages, tools):
        assert any(t["type"] == "function" and t["function"]["name"] == "read" for t in tools), tools
        assert messages[0]["content"].startswith("Available tools:"), messages[0]
        self.turn += 1
        if self.turn == 1:
            call = NS(id="c1", function=NS(name="read", arguments='{"file_path": "calc/calc.go"}'))
            return NS(choices=[NS(message=NS(content=None, tool_calls=[call]))])
        return NS(choices=[NS(message=NS(content="TOOL RESULT " + messages[-1]["content"], tool_calls=None))])
`

// TestReadmeHarness runs the README's "use it from your agent" harness, as printed, with
// a stub model: the catalog it loads, the tool call it runs through agentbox and the
// envelope it hands back must all work.
func TestReadmeHarness(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed; cannot run the README's harness example")
	}
	bin := agentboxBinary(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Use it from your agent.*?```python\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no python harness under \"Use it from your agent\"")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "harness.py"), m[1], 0o644)
	os.WriteFile(filepath.Join(dir, "openai.py"), []byte(stubOpenAI), 0o644)
	os.MkdirAll(filepath.Join(dir, "calc"), 0o755)
	os.WriteFile(filepath.Join(dir, "calc", "calc.go"), []byte("package calc\n"), 0o644)
	cmd := exec.Command(python, "harness.py")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+pathWithoutApplets(),
		"PYTHONPATH="+dir, "AGENTBOX_ROOT="+dir, "XDG_STATE_HOME="+filepath.Join(dir, ".state"), "AGENTBOX_HEADLESS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the harness failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `TOOL RESULT {"type":"output"`) || !strings.Contains(string(out), `package calc`) {
		t.Errorf("the model did not get read's envelope back:\n%s", out)
	}
}
