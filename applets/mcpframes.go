package applets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// MCPMaxFrame is the largest JSON-RPC line the MCP server reads; a longer one is
// discarded with an Invalid Request error, and the server goes on.
const MCPMaxFrame = 64 << 20

// The JSON-RPC 2.0 error codes the specification names for bad frames.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// frameFilter stands between stdin and the MCP SDK's stdio transport: a line that is not
// JSON, not a JSON-RPC 2.0 message, or too long is answered here with the error the
// specification names, instead of reaching the SDK (which ends the session on it), so one
// bad line never stops the server. Valid lines pass through unchanged.
type frameFilter struct {
	in  io.Reader
	out *lineWriter
	max int
}

// run copies the good frames to w until in ends, then closes w.
func (f *frameFilter) run(w *io.PipeWriter) {
	r := bufio.NewReaderSize(f.in, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > f.max {
			tooLong, line = true, line[:0]
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(chunk) > 0 || len(line) > 0 {
			if tooLong {
				f.reply(nil, rpcInvalidRequest, "Invalid Request: the message is larger than the server's limit of 64 MiB")
			} else if ok := f.check(line); ok {
				if !bytes.HasSuffix(line, []byte("\n")) {
					line = append(line, '\n')
				}
				if _, werr := w.Write(line); werr != nil {
					return
				}
			}
		}
		line, tooLong = line[:0], false
		if err != nil {
			w.CloseWithError(err)
			return
		}
	}
}

// check reports whether a line may go to the SDK, answering it here when not.
func (f *frameFilter) check(line []byte) bool {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return false // blank lines are no messages
	}
	if trimmed[0] == '[' {
		return true // a batch: the SDK answers it
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &msg); err != nil {
		f.reply(nil, rpcParseError, "Parse error: the line is not a JSON object ("+err.Error()+")")
		return false
	}
	id := msg["id"]
	if v, ok := msg["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		f.reply(id, rpcInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
		return false
	}
	_, hasMethod := msg["method"]
	_, hasResult := msg["result"]
	_, hasError := msg["error"]
	if !hasMethod && !hasResult && !hasError {
		f.reply(id, rpcInvalidRequest, "Invalid Request: the message has no method (nor result or error)")
		return false
	}
	return true
}

func (f *frameFilter) reply(id json.RawMessage, code int, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	_, _ = f.out.Write(append(b, '\n'))
}

// lineWriter serialises whole lines from the SDK and the frame filter onto one stream,
// so a reply of one never lands inside a message of the other.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		if _, err := l.w.Write(l.buf[:i+1]); err != nil {
			return 0, err
		}
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
	return len(p), nil
}

func (l *lineWriter) Close() error { return nil }
