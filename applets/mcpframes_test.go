package applets

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
		// Under the server's bound but over the SDK's default (16 MiB): it ended the
		// session (red team).
		`{"jsonrpc":"2.0","id":98,"method":"ping","params":{"_meta":{"x":"` + strings.Repeat("a", 20<<20) + `"}}}`,
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
	if r := byID["98"]; r.Error != nil || r.Result == nil {
		t.Errorf("a 20 MiB ping was not answered: %+v", r)
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

// A client that writes its requests and closes stdin at once (a script piping a session
// in) still gets an answer to every request, the slow ones included; and neither an
// empty batch, a batch with bad members, a batch at all (MCP has none since 2025-06-18)
// nor an id of the wrong type stops the server (red team: the SDK ended the session on
// each, and on stdin's end cancelled what was running, answering nothing).
func TestMCPAnswersEveryRequestBeforeStdinEnds(t *testing.T) {
	env := coretest.Env(t, "mcp")
	env.Specs = All
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 0.3; echo slow-done"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`, // refused while 2 runs, and no answer to 2 (the server quit before 2's)
		`[]`,
		`[1,2]`,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":"four","method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"bash","arguments":{"command":"sleep 30"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
	}
	out := &syncBuffer{}
	env.Stdin, env.Stdout = strings.NewReader(strings.Join(lines, "\n")+"\n"), out
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := (&MCP{}).Run(ctx, env); err != nil {
		t.Fatalf("the server stopped with an error: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the server waited for the cancelled request")
	}
	answered := map[string]string{}
	nullErrors := 0
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("a reply is not JSON: %.200s", l)
		}
		if string(r.ID) == "null" {
			if r.Error == nil || r.Error.Code != rpcInvalidRequest {
				t.Errorf("a reply without an id is not Invalid Request: %.200s", l)
			}
			nullErrors++
			continue
		}
		answered[string(r.ID)] = l
	}
	for _, id := range []string{"1", "2", "3", `"four"`, "5"} {
		if answered[id] == "" {
			t.Errorf("request %s got no answer; output:\n%s", id, out.String())
		}
	}
	if a := answered[`"c"`]; a != "" {
		t.Errorf("the cancelled request was answered (the specification says it is not): %s", a)
	}
	if !strings.Contains(answered["2"], "slow-done") {
		t.Errorf("the slow call was not answered with its output: %.300s", answered["2"])
	}
	if nullErrors != 6 { // the empty batch, 1 and 2, id {}, id 1.5 and id null
		t.Errorf("%d Invalid Request replies without an id, want 6; output:\n%s", nullErrors, out.String())
	}
}

// A signal to a server (its context cancelled) while a bash call runs interrupts the
// call: the command's tree is stopped, the call is answered as interrupted, and the
// server ends at once (red team: it kept the command and itself running until the
// command ended on its own, then exited without an answer).
func TestMCPSignalStopsRunningCalls(t *testing.T) {
	env := coretest.Env(t, "mcp")
	env.Specs = All
	pidFile := filepath.Join(t.TempDir(), "pid")
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo $$ > ` + pidFile + `; exec sleep 60"}}}`,
	}
	pr, pw := io.Pipe() // stdin stays open: only the signal ends the server
	defer pw.Close()
	go pw.Write([]byte(strings.Join(lines, "\n") + "\n"))
	out := &syncBuffer{}
	env.Stdin, env.Stdout = pr, out
	ctx, signal := context.WithCancel(context.Background())
	go func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b, _ := os.ReadFile(pidFile); len(b) > 0 {
				break
			}
		}
		signal()
	}()
	start := time.Now()
	if _, err := (&MCP{}).Run(ctx, env); err != nil {
		t.Fatalf("the server stopped with an error: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the server took %v to stop after the signal", d)
	}
	if !strings.Contains(out.String(), `"id":2`) || !strings.Contains(out.String(), "interrupted") {
		t.Errorf("the running call was not answered as interrupted:\n%s", out.String())
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatalf("the command never started: %q", b)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the command (pid %d) outlived the server", pid)
	}
}
