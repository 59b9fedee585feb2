package applets

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core/coretest"
)

// A raw stdio client: bad lines get the JSON-RPC errors the specification names, and
// the server keeps serving the lines after them (issue 17: one bad line stopped it).
func TestMCPBadFramesKeepServing(t *testing.T) {
	env := coretest.Env(t, "mcp")
	env.Specs = All
	huge := `{"jsonrpc":"2.0","id":99,"method":"ping","params":{"x":"` + strings.Repeat("a", MCPMaxFrame) + `"}}`
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json`,
		`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":8}`,
		huge,
		``,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}
	out := &syncBuffer{}
	pr, pw := io.Pipe()
	env.Stdin, env.Stdout = pr, out
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := (&MCP{}).Run(ctx, env); done <- err }()
	go func() { _, _ = pw.Write([]byte(strings.Join(lines, "\n") + "\n")) }()
	// A real client keeps stdin open while it waits for its replies.
	for !strings.Contains(out.String(), `"id":2,`) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	pw.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the server stopped with an error: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the server did not end when stdin closed")
	}
	type reply struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	byID := map[string]reply{}
	var nullErrors []int
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("a reply is not JSON: %.200s", l)
		}
		if string(r.ID) == "null" && r.Error != nil {
			nullErrors = append(nullErrors, r.Error.Code)
			continue
		}
		byID[string(r.ID)] = r
	}
	if r := byID["7"]; r.Error == nil || r.Error.Code != rpcInvalidRequest {
		t.Errorf("jsonrpc 1.0: %+v", r)
	}
	if r := byID["8"]; r.Error == nil || r.Error.Code != rpcInvalidRequest {
		t.Errorf("no method: %+v", r)
	}
	if len(nullErrors) != 2 || nullErrors[0] != rpcParseError || nullErrors[1] != rpcInvalidRequest {
		t.Errorf("not json / oversized: %v, want [-32700 -32600]", nullErrors)
	}
	if r := byID["2"]; r.Error != nil || !strings.Contains(string(r.Result), `"name":"read"`) {
		t.Errorf("tools/list after the bad lines: %.300s", r.Result)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
