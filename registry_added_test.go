package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/cli"
	"github.com/agentbox/agentbox/core"
)

// peek is an applet that exists only in this test's table: it reads a file through the
// gate and reports its size.
type peek struct {
	Path string `json:"path" arg:"" help:"the file to peek at"`
}

type peekResult struct {
	Size int `json:"size"`
}

func (p *peek) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	path, err := env.Resolve(p.Path)
	if err != nil {
		return nil, err
	}
	if _, err := env.Authorize(ctx, core.Request{Capability: core.CapFSRead, Target: path.Abs, Summary: "peek at " + path.Abs}); err != nil {
		return nil, err
	}
	b, err := env.WS.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &core.Result{Data: peekResult{Size: len(b)}}, nil
}

// TestAppletAddedToTable: the table is the only registry (issue 21.1). An applet added
// the documented way, one table row, works everywhere the table reaches: help, prompt,
// mcp, permit check, and a config rule that names it, with no list elsewhere to update.
func TestAppletAddedToTable(t *testing.T) {
	// docs/architecture.md's "Adding an applet" names every field this row sets, and the
	// generator; a field the table gains must be documented there too.
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, howTo, _ := strings.Cut(string(doc), "## Adding an applet")
	for _, field := range []string{"`Name`", "`Kind`", "`Summary`", "`Description`", "`New`", "`Capabilities`", "`Target`", "`ReadOnly`", "`Idempotent`", "`Example`", "`Output`", "`LongRunning`", "applets/registry.go", "testdata/script/NAME.txtar", "scripts/gen"} {
		if !strings.Contains(howTo, field) {
			t.Errorf("docs/architecture.md's \"Adding an applet\" does not mention %s", field)
		}
	}
	table := append(append([]core.Spec(nil), applets.All...), core.Spec{
		Name: "peek", Kind: core.KindRead, Summary: "Peek at a file's size",
		Description: "Returns the size of a file.", New: func() core.Command { return &peek{} },
		Capabilities: []string{core.CapFSRead}, Target: core.TargetPath, ReadOnly: true, Idempotent: true,
		Example: `{"path":"a.txt"}`, Output: []any{peekResult{}},
	})
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello"), 0o644)
	os.WriteFile(filepath.Join(root, "secret.txt"), []byte("hunter2"), 0o644)
	config := filepath.Join(root, ".config", "agentbox", "config.json")
	os.MkdirAll(filepath.Dir(config), 0o755)
	os.WriteFile(config, []byte(`{"permissions":{"deny":["peek(**/secret.txt)"]}}`), 0o644)
	vars := map[string]string{"HOME": root, "XDG_STATE_HOME": filepath.Join(root, ".state"), "XDG_CONFIG_HOME": filepath.Join(root, ".config"),
		"AGENTBOX_ROOT": root, "AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "default", "PATH": os.Getenv("PATH")}
	run := func(stdin string, args ...string) (int, string) {
		var out bytes.Buffer
		host := cli.Host{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &out,
			Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return root, nil }, Now: time.Now}
		return cli.Main(append([]string{"agentbox"}, args...), table, host), out.String()
	}
	if code, out := run("", "peek", "--help"); code != 0 || !strings.Contains(out, "the file to peek at") {
		t.Errorf("help: %d %s", code, out)
	}
	if code, out := run(`{"format":"json"}`, "prompt"); code != 0 || !strings.Contains(out, `\"name\": \"peek\"`) && !strings.Contains(out, `"name":"peek"`) {
		t.Errorf("prompt does not list peek: %d %.300s", code, out)
	}
	if code, out := run(`{"path":"a.txt"}`, "peek"); code != 0 || !strings.Contains(out, `"size":5`) {
		t.Errorf("peek a.txt: %d %s", code, out)
	}
	// The config rule that names the new applet compiles and holds.
	if code, out := run(`{"path":"secret.txt"}`, "peek"); code == 0 || !strings.Contains(out, "permission_denied") || strings.Contains(out, "hunter2") {
		t.Errorf("peek secret.txt under deny peek(**/secret.txt): %d %s", code, out)
	}
	if code, out := run(`{"action":"check","applet":"peek","target":"secret.txt"}`, "permit"); code != 0 || !strings.Contains(out, `"action":"deny"`) {
		t.Errorf("permit check --applet peek: %d %s", code, out)
	}
	if code, out := run(`{"action":"check","applet":"peek","target":"a.txt"}`, "permit"); code != 0 || !strings.Contains(out, `"action":"allow"`) {
		t.Errorf("permit check --applet peek a.txt: %d %s", code, out)
	}
	// mcp serves it, from the same table.
	env := &core.Env{Specs: table, Getenv: func(k string) string { return vars[k] }}
	server, err := applets.NewMCPServer(env, "peek")
	if err != nil || server == nil {
		t.Errorf("mcp: %v", err)
	}
}
