package applets

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPServerInMemory lists and calls tools through the Go SDK's client over an
// in-memory transport.
func TestMCPServerInMemory(t *testing.T) {
	env := coretest.Env(t, "mcp")
	env.Specs = All
	writeFile(t, env, "a.txt", "alpha\n")
	ctx := context.Background()
	cs := connectMCP(t, env)
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

// TestMCPToolSearch: an MCP client asks for tools by query through the server's own
// tools (prompt with search in agentbox's names, tool_search in reference 002's) and gets
// the best matches as a tools/list-shaped document with their input schemas.
func TestMCPToolSearch(t *testing.T) {
	for _, c := range []struct{ dialect, tool string }{{"", "prompt"}, {"ref002", "tool_search"}} {
		env := coretest.Env(t, "mcp")
		env.Specs, env.Dialect = All, c.dialect
		ctx := context.Background()
		cs := connectMCP(t, env)
		args := map[string]any{"search": "find files by glob pattern", "format": "mcp", "limit": 2}
		if c.tool == "tool_search" {
			args = map[string]any{"query": "find files by glob pattern", "max_results": 2}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
		doc, _ := res.StructuredContent.(map[string]any)["document"].(map[string]any)
		tools, _ := doc["tools"].([]any)
		if len(tools) == 0 || len(tools) > 2 {
			t.Fatalf("%s: %d tools: %+v", c.tool, len(tools), res.StructuredContent)
		}
		first := tools[0].(map[string]any)
		schema := first["inputSchema"]
		if schema == nil {
			schema = first["input_schema"]
		}
		if first["name"] != "glob" || schema == nil {
			t.Errorf("%s: best match %v (schema %v), want glob with its schema", c.tool, first["name"], schema)
		}
	}
}

// connectMCP serves env's applets over in-memory transports and returns a connected
// client session; both ends close when the test ends.
func connectMCP(t *testing.T, env *core.Env) *mcp.ClientSession {
	t.Helper()
	return connectMCPClient(t, env, mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil))
}

// connectMCPClient is connectMCP with the caller's client (one that offers roots).
func connectMCPClient(t *testing.T, env *core.Env, client *mcp.Client) *mcp.ClientSession {
	t.Helper()
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
	t.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A client's roots are the workspace of its calls, but only inside roots a calling
// agentbox pinned: a nested `agentbox mcp` a script of the model's spoke to, offering
// roots file:///, wrote outside the workspace (red team, session 35).
func TestMCPClientRootsWithinPinnedRoots(t *testing.T) {
	for _, pinned := range []bool{false, true} {
		env := coretest.Env(t, "mcp")
		env.Specs = All
		env.WS.Explicit = pinned
		outside := filepath.Join(t.TempDir(), "escaped.txt")
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		//lint:ignore SA1019 roots are what this test is about (see clientWorkspace)
		client.AddRoots(&mcp.Root{URI: "file:///", Name: "everything"})
		cs := connectMCPClient(t, env, client)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"file_path": outside, "content": "x\n"}})
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(outside)
		if written := statErr == nil; written == pinned {
			t.Errorf("pinned %v: written %v: %s", pinned, written, res.Content[0].(*mcp.TextContent).Text)
		}
	}
}

// TestMCPBoundsConcurrentCalls: at most MCPMaxCalls tool calls run at once; the rest
// wait their turn and all are answered.
func TestMCPBoundsConcurrentCalls(t *testing.T) {
	env := coretest.Env(t, "mcp")
	env.Specs = All
	cs := connectMCP(t, env)
	dir := t.TempDir()
	cmd := `touch ` + dir + `/$$; ls ` + dir + ` | wc -l; sleep 0.4; rm ` + dir + `/$$`
	n := MCPMaxCalls + 6
	most := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": cmd}})
			if err != nil || res.IsError {
				t.Errorf("call: %v %+v", err, res)
				most <- 0
				return
			}
			k, _ := strconv.Atoi(strings.TrimSpace(res.StructuredContent.(map[string]any)["stdout"].(string)))
			most <- k
		})
	}
	wg.Wait()
	close(most)
	top := 0
	for k := range most {
		top = max(top, k)
	}
	if top > MCPMaxCalls || top < 2 {
		t.Fatalf("%d calls ran at once, want 2 to %d", top, MCPMaxCalls)
	}
}
