package applets

import (
	"context"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core/coretest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServerInMemory lists and calls tools through the Go SDK's client over an
// in-memory transport.
func TestMCPServerInMemory(t *testing.T) {
	env := coretest.Env(t, "mcp")
	env.Specs = All
	writeFile(t, env, "a.txt", "alpha\n")
	server, err := NewMCPServer(env, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		names[tool.Name] = tool
	}
	if names["read"] == nil || names["mcp"] != nil || !names["read"].Annotations.ReadOnlyHint || *names["edit"].Annotations.DestructiveHint != true {
		t.Fatalf("tools/list: %v", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit", Arguments: map[string]any{"path": "a.txt", "old_str": "alpha", "new_str": "beta"}})
	if err != nil || res.IsError {
		t.Fatalf("edit: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "+beta") {
		t.Errorf("edit text: %q", text)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "edit", Arguments: map[string]any{"file_path": "a.txt", "old_string": "gamma", "new_string": "x"}})
	if err != nil || !res.IsError || res.StructuredContent.(map[string]any)["error_code"] != "no_match" {
		t.Fatalf("failed edit must be an isError result: %v %+v", err, res)
	}
}
