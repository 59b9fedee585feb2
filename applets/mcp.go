package applets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/agentbox/agentbox/core"
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
	server, err := NewMCPServer(env, m.Tools)
	if err != nil {
		return nil, err
	}
	transport := &mcp.IOTransport{Reader: io.NopCloser(env.Stdin), Writer: nopWriteCloser{env.Stdout}}
	if err := server.Run(ctx, transport); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return nil, core.Errorf(core.CodeIOError, "mcp server stopped: %v", err)
	}
	return nil, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// NewMCPServer builds the server: one MCP tool per applet, with the applet's JSON Schema,
// description and annotations. Calls go through the same decoding, validation and Run as
// JSON mode, so an MCP client gets exactly what a subprocess caller gets.
func NewMCPServer(env *core.Env, only string) (*mcp.Server, error) {
	var names []string // none: the whole catalog, which leaves servers out
	if only != "" {
		names = strings.Split(only, ",")
	}
	tools, err := prompt.Catalog(env.Specs, env.Dialect, names)
	if err != nil {
		return nil, err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "agentbox", Version: core.VersionString()}, nil)
	for _, t := range tools {
		destructive, openWorld := t.Annotations.DestructiveHint, t.Annotations.OpenWorldHint
		server.AddTool(&mcp.Tool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint: t.Annotations.ReadOnlyHint, DestructiveHint: &destructive,
				IdempotentHint: t.Annotations.IdempotentHint, OpenWorldHint: &openWorld,
			},
		}, mcpHandler(env, t.Ref))
	}
	return server, nil
}

func mcpHandler(base *core.Env, ref core.ToolRef) mcp.ToolHandler {
	spec := ref.Spec
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		env := *base
		env.Applet, env.Stdin, env.Stdout, env.Interactive = spec.Name, nil, nil, false
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
