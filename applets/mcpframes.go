package applets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
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
//
// A client may send its requests and close stdin without waiting (a script piping a
// session in); the SDK then cancels what is still running and answers nothing more. So
// the filter holds stdin's end back from the SDK until every request it passed on has
// been answered (lineWriter sees the answers go out), or the answers can no longer be
// written, or ctx ends.
type frameFilter struct {
	ctx context.Context
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
			} else {
				for _, msg := range f.check(line) {
					if _, werr := w.Write(append(msg, '\n')); werr != nil {
						return
					}
				}
			}
		}
		line, tooLong = line[:0], false
		if err != nil {
			select {
			case <-f.out.answered():
			case <-f.ctx.Done():
			}
			w.CloseWithError(err)
			return
		}
	}
}

// check returns what of a line may go to the SDK, answering the rest here: the line
// itself, or a batch's good members one by one, each answered on its own line. (MCP
// has no batches since 2025-06-18, and the SDK ends the session on one, as on an empty
// batch or a bad member.)
func (f *frameFilter) check(line []byte) [][]byte {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil // blank lines are no messages
	}
	if trimmed[0] != '[' {
		if f.checkMessage(trimmed) {
			return [][]byte{trimmed}
		}
		return nil
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(trimmed, &batch); err != nil {
		f.reply(nil, rpcParseError, "Parse error: the line is not a JSON array of messages ("+err.Error()+")")
		return nil
	}
	if len(batch) == 0 {
		f.reply(nil, rpcInvalidRequest, "Invalid Request: an empty batch")
		return nil
	}
	var good [][]byte
	for _, m := range batch {
		if f.checkMessage(m) {
			good = append(good, m)
		}
	}
	return good
}

// checkMessage reports whether one message is a JSON-RPC 2.0 object the SDK takes,
// answering it here when not.
func (f *frameFilter) checkMessage(raw []byte) bool {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(raw, &msg); err != nil {
		if json.Valid(raw) {
			f.reply(nil, rpcInvalidRequest, "Invalid Request: a message must be a JSON object")
		} else {
			f.reply(nil, rpcParseError, "Parse error: the line is not JSON ("+err.Error()+")")
		}
		return false
	}
	id := msg["id"]
	if len(id) > 0 && !validID(id) {
		f.reply(nil, rpcInvalidRequest, "Invalid Request: an id must be a string or an integer (the SDK stops on any other)")
		return false
	}
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
	if hasMethod && string(bytes.TrimSpace(id)) == "null" {
		// MCP: a request's id is a string or an integer, never null; the SDK dropped it
		// without a word.
		f.reply(nil, rpcInvalidRequest, "Invalid Request: a request's id must be a string or an integer, not null (leave id out for a notification)")
		return false
	}
	if string(msg["method"]) == `"notifications/cancelled"` {
		// A cancelled request may go unanswered (the specification says it should).
		var params struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(msg["params"], &params) == nil {
			f.out.forget(idKey(params.RequestID))
		}
	}
	if key := idKey(id); hasMethod && key != "" && !f.out.expect(key) {
		// (The SDK answers a reused id with a null id, which would leave it pending.)
		f.reply(id, rpcInvalidRequest, "Invalid Request: a request with this id is still running; give each request its own id")
		return false
	}
	return true
}

// idKey is a request id in one spelling ("" for none or null), so that an answer's
// id, as the SDK writes it, is found among the pending ones.
func idKey(id json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(id))
	d.UseNumber()
	if len(id) == 0 || d.Decode(&v) != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return "s" + v
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return "n" + strconv.FormatInt(n, 10)
		}
	}
	return ""
}

// validID: a JSON-RPC id is a string, an integer or null.
func validID(id json.RawMessage) bool {
	return string(bytes.TrimSpace(id)) == "null" || idKey(id) != ""
}

func (f *frameFilter) reply(id json.RawMessage, code int, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
	f.out.writeOwn(append(b, '\n'))
}

// lineWriter serialises whole lines from the SDK and the frame filter onto one stream,
// so a reply of one never lands inside a message of the other.
// It also keeps the ids of the requests passed to the SDK that it has not yet seen
// answered.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	buf     []byte // an SDK message not yet whole
	own     []byte // the filter's answers, waiting for buf to be empty
	pending map[string]int
	// cancelled are the requests the client cancelled while they ran: their answers,
	// if the SDK still writes one, are dropped.
	cancelled map[string]bool
	broken    bool          // a write failed: no answer can go out any more
	idle      chan struct{} // closed, when asked for, once nothing is pending
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		out := l.buf[:i+1]
		if len(l.pending) > 0 || len(l.cancelled) > 0 {
			out = nil
			for _, line := range bytes.SplitAfter(l.buf[:i+1], []byte("\n")) {
				if !l.sawAnswer(bytes.TrimSuffix(line, []byte("\n"))) {
					out = append(out, line...)
				}
			}
		}
		if _, err := l.w.Write(out); err != nil {
			l.broken = true
			l.notify()
			return 0, err
		}
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
		l.flushOwn()
	}
	return len(p), nil
}

// writeOwn writes a whole line of the frame filter's: an answer to a line the SDK never
// saw, so it answers none of the requests the SDK holds (a refused duplicate id is not
// the answer to the request with that id still running).
func (l *lineWriter) writeOwn(line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.own = append(l.own, line...)
	l.flushOwn()
}

// flushOwn writes the filter's lines, unless a message of the SDK's is half written.
func (l *lineWriter) flushOwn() {
	if len(l.buf) > 0 || len(l.own) == 0 {
		return
	}
	if _, err := l.w.Write(l.own); err != nil {
		l.broken = true
		l.notify()
	}
	l.own = l.own[:0]
}

// expect records a request passed on; false when one with that id is still pending.
func (l *lineWriter) expect(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending[key] > 0 {
		return false
	}
	if l.pending == nil {
		l.pending = map[string]int{}
	}
	l.pending[key]++
	delete(l.cancelled, key) // a new request of an old id is answered
	return true
}

// forget takes a cancelled request off the pending ones.
func (l *lineWriter) forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending[key] > 0 {
		if l.cancelled == nil {
			l.cancelled = map[string]bool{}
		}
		l.cancelled[key] = true
	}
	delete(l.pending, key)
	l.notify()
}

// sawAnswer takes the request a written line answers off the pending ones.
// It reports whether the line is to be dropped: the answer to a request the client
// cancelled, which the specification says goes unanswered (the SDK sometimes sent an
// error with code 0, which JSON-RPC has not, and sometimes nothing).
func (l *lineWriter) sawAnswer(line []byte) (drop bool) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method != "" {
		return false // not an answer: a notification or a request of the server's own
	}
	key := idKey(msg.ID)
	if l.cancelled[key] {
		delete(l.cancelled, key)
		return true
	}
	if l.pending[key] > 0 {
		if l.pending[key]--; l.pending[key] == 0 {
			delete(l.pending, key)
		}
		l.notify()
	}
	return false
}

// answered is closed once every request passed on has been answered, or no answer
// can be written any more.
func (l *lineWriter) answered() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.idle == nil {
		l.idle = make(chan struct{})
	}
	l.notify()
	return l.idle
}

func (l *lineWriter) notify() {
	if l.idle != nil && (len(l.pending) == 0 || l.broken) {
		select {
		case <-l.idle:
		default:
			close(l.idle)
		}
	}
}

func (l *lineWriter) Close() error { return nil }
