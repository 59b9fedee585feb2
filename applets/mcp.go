package applets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/gate"
	"github.com/agentbox/agentbox/core/policy"
	"github.com/agentbox/agentbox/prompt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP serves every applet as a tool over the Model Context Protocol on stdio.
type MCP struct {
	Tools string `json:"tools" help:"comma-separated tools to serve (default: every applet but mcp itself)"`
}

// Run implements core.Command: it serves until the client closes stdin.
func (m *MCP) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	if env.Stdin == nil || env.Stdout == nil {
		return nil, core.Errorf(core.CodeInternal, "mcp needs the process's stdin and stdout")
	}
	// A signal to agentbox (ctx) interrupts the calls running, which stop their
	// commands' trees and answer as interrupted; the server stops once they have (or
	// after mcpStopWait), so no command outlives it and no call goes unanswered.
	calls := &runningCalls{}
	callsCtx, stopCalls := context.WithCancel(ctx)
	defer stopCalls()
	server, err := newMCPServer(env, m.Tools, callsCtx, calls)
	if err != nil {
		return nil, err
	}
	serveCtx, stopServing := context.WithCancel(context.WithoutCancel(ctx))
	defer stopServing()
	stopAfter := context.AfterFunc(ctx, func() {
		calls.wait(mcpStopWait)
		time.Sleep(100 * time.Millisecond) // the answers just made are written
		stopServing()
	})
	defer stopAfter()
	out := &lineWriter{w: env.Stdout}
	pr, pw := io.Pipe()
	go (&frameFilter{ctx: ctx, in: env.Stdin, out: out, max: MCPMaxFrame}).run(pw)
	// The frame filter refuses longer lines itself; the SDK's own bound (16 MiB by
	// default) would end the session on a line between the two.
	transport := &mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: MCPMaxFrame + 1<<20}
	err = server.Run(serveCtx, transport)
	// However the session ended (the client closed stdin, or stopped reading and the
	// answers cannot be written), the calls still running are stopped, with their
	// commands' trees, before the server exits.
	stopCalls()
	calls.wait(mcpStopWait)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return nil, core.Errorf(core.CodeIOError, "mcp server stopped: %v", err)
	}
	return nil, nil
}

// mcpStopWait bounds how long a signalled server waits for its calls to stop.
const mcpStopWait = 15 * time.Second

// runningCalls counts the tool calls in progress, and bounds how many run at once.
type runningCalls struct {
	n     atomic.Int64
	slots chan struct{} // MCPMaxCalls; made by newMCPServer
}

// MCPMaxCalls is how many tool calls one server runs at once; more wait for a free
// slot (a cancel ends the wait), so a client cannot start commands without bound.
const MCPMaxCalls = 16

// wait returns once no call runs, or after max.
func (c *runningCalls) wait(max time.Duration) {
	for deadline := time.Now().Add(max); c.n.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}

// NewMCPServer builds the server: one MCP tool per applet, with the applet's JSON Schema,
// description and annotations. Calls go through the same decoding, validation and Run as
// JSON mode, so an MCP client gets exactly what a subprocess caller gets.
func NewMCPServer(env *core.Env, only string) (*mcp.Server, error) {
	return newMCPServer(env, only, nil, &runningCalls{})
}

// newMCPServer is NewMCPServer whose calls are also interrupted when stop is done.
func newMCPServer(env *core.Env, only string, stop context.Context, calls *runningCalls) (*mcp.Server, error) {
	if calls.slots == nil {
		calls.slots = make(chan struct{}, MCPMaxCalls)
	}
	var names []string // none: the whole catalog, which leaves servers out
	if only != "" {
		names = strings.Split(only, ",")
	}
	tools, err := prompt.Catalog(availableSpecs(env, names), env.Dialect, names)
	if err != nil {
		return nil, err
	}
	// Protocol 2026-07-28 forbids a server's requests (roots/list, elicitation) while it
	// serves a call, asking for multi round-trip answers instead, which these handlers
	// do not make: a client on it would lose its roots and every permission prompt.
	// The versions before it are negotiated instead (every client speaks one of them).
	server := mcp.NewServer(&mcp.Implementation{Name: "agentbox", Version: core.VersionString()},
		&mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}})
	for _, t := range tools {
		destructive, openWorld := t.Annotations.DestructiveHint, t.Annotations.OpenWorldHint
		server.AddTool(&mcp.Tool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint: t.Annotations.ReadOnlyHint, DestructiveHint: &destructive,
				IdempotentHint: t.Annotations.IdempotentHint, OpenWorldHint: &openWorld,
			},
		}, mcpHandler(env, t.Ref, stop, calls))
	}
	return server, nil
}

func mcpHandler(base *core.Env, ref core.ToolRef, stop context.Context, calls *runningCalls) mcp.ToolHandler {
	spec := ref.Spec
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.n.Add(1)
		defer calls.n.Add(-1)
		if stop != nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(stop, cancel)()
		}
		select {
		case calls.slots <- struct{}{}:
			defer func() { <-calls.slots }()
		case <-ctx.Done():
			e := core.Errorf(core.CodeInterrupted, "the call was cancelled while it waited for one of the %d calls running to end", MCPMaxCalls)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: e.Message}},
				StructuredContent: map[string]any{"error_code": string(e.Code), "error_text": e.Message}}, nil
		}
		env := *base
		env.Applet, env.Stdin, env.Stdout, env.Interactive = spec.Name, nil, nil, false
		if ss := req.Session; ss != nil {
			// The client's roots, when it offers them, are the workspace of the call:
			// within the roots a calling agentbox pinned, when there are such.
			if ws := base.WS.Within(clientWorkspace(ctx, ss)); ws != nil {
				defer ws.Close()
				env.WS = ws
				if !ws.Contains(env.Cwd) {
					env.Cwd = ws.Roots[0]
				}
			}
			// A client that can ask its user gets ask's questions and permission
			// prompts as elicitation; without it the headless rule holds.
			if canElicit(ss) {
				env.Elicit = elicitFunc(ss)
				env.Gate = &gate.PolicyGate{Asker: elicitAsker{ss}}
			}
			if tok := req.Params.GetProgressToken(); tok != nil && spec.LongRunning {
				stop := reportProgress(ctx, ss, tok, spec.Name)
				defer stop()
			}
		}
		res, err := runForMCP(ctx, &env, ref, req.Params.Arguments)
		if err != nil {
			e := core.AsError(err)
			// A tool failure is a result with isError, not a protocol error, so the model
			// sees the message and can correct itself.
			return &mcp.CallToolResult{
				IsError:           true,
				Content:           []mcp.Content{&mcp.TextContent{Text: e.Message}},
				StructuredContent: map[string]any{"error_code": string(e.Code), "error_text": e.Message, "details": e.Details},
			}, nil
		}
		var text bytes.Buffer
		core.RenderText(core.NewPrinter(&text, false), res)
		structured := map[string]any{}
		if b, err := json.Marshal(res.Data); err == nil {
			if json.Unmarshal(b, &structured) != nil {
				structured = map[string]any{"result": json.RawMessage(b)}
			}
		}
		if res.Truncated {
			structured["truncated"] = true
			structured["output_path"] = res.OutputPath
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text.String()}}, StructuredContent: structured}, nil
	}
}

func runForMCP(ctx context.Context, env *core.Env, ref core.ToolRef, args json.RawMessage) (res *core.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = core.Errorf(core.CodeInternal, "agentbox hit an internal error (%v); this is a bug in agentbox", r)
		}
	}()
	cmd := ref.Spec.New()
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	if err := core.DecodeDialectRequest(bytes.NewReader(args), cmd, ref.Tool); err != nil {
		return nil, err
	}
	res, err = cmd.Run(ctx, env)
	if err == nil && res == nil {
		res = &core.Result{}
	}
	return res, err
}

// progressEvery is how often a long call reports that it is still running.
var progressEvery = time.Second

// reportProgress sends a progress notification every progressEvery until stop is
// called: the elapsed seconds as progress (the total is unknown).
func reportProgress(ctx context.Context, ss *mcp.ServerSession, token any, name string) (stop func()) {
	done := make(chan struct{})
	start := time.Now()
	go func() {
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				secs := now.Sub(start).Seconds()
				_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: math.Floor(secs),
					Message: fmt.Sprintf("%s running for %.0fs", name, secs),
				})
			}
		}
	}()
	return func() { close(done) }
}

// clientWorkspace builds a workspace from the client's roots (file:// URIs of existing
// directories), or returns nil when the client offers none. Roots are deprecated from
// protocol version 2026-07-28 (SEP-2577) but are what today's clients send; the SDK
// keeps them working through the deprecation window.
func clientWorkspace(ctx context.Context, ss *mcp.ServerSession) *core.Workspace {
	ip := ss.InitializeParams()
	//lint:ignore SA1019 roots are the client's workspace until clients move off them
	if ip == nil || ip.Capabilities == nil || (ip.Capabilities.RootsV2 == nil && !ip.Capabilities.Roots.ListChanged) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	//lint:ignore SA1019 see above
	res, err := ss.ListRoots(ctx, nil)
	if err != nil || res == nil {
		return nil
	}
	var uris []string
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	return core.WorkspaceFromURIs(uris)
}

func canElicit(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}

func elicitFunc(ss *mcp.ServerSession) func(context.Context, string, map[string]any) (string, map[string]any, error) {
	return func(ctx context.Context, message string, schema map[string]any) (string, map[string]any, error) {
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema})
		if err != nil {
			return "", nil, err
		}
		return res.Action, res.Content, nil
	}
}

// elicitAsker asks the client's user for a permission the policy wants asked.
type elicitAsker struct{ ss *mcp.ServerSession }

// AskPermission implements policy.Asker.
func (a elicitAsker) AskPermission(ctx context.Context, p policy.Prompt) (policy.Answer, error) {
	msg := "Allow " + p.Request.Summary + "?"
	if len(p.Parts) > 0 {
		msg += " (" + strings.Join(p.Parts, "; ") + ")"
	}
	schema := map[string]any{"type": "object", "required": []any{"decision"}, "properties": map[string]any{
		"decision": map[string]any{"type": "string", "title": "Permission", "enum": []any{"once", "session", "reject"}, "enumNames": []any{"Allow once", "Allow for this session", "Reject"}},
	}}
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema})
	if err != nil {
		return policy.Reject, err
	}
	if res.Action != "accept" {
		return policy.Reject, nil
	}
	switch res.Content["decision"] {
	case "once":
		return policy.AllowOnce, nil
	case "session":
		return policy.AllowSession, nil
	}
	return policy.Reject, nil
}
