package applets

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/prompt"
)

// Prompt renders the tool catalog for a model.
type Prompt struct {
	Format string `json:"format" alias:"provider" enum:"markdown,json,openai,openai-responses,anthropic,gemini,mcp" default:"markdown" help:"output shape: markdown (system-prompt section), json (full catalog), or a provider's tools array"`
	Tools  string `json:"tools" help:"comma-separated tool names to include (default: all)"`
}

// PromptOutput carries rendered text (markdown) or a JSON document (every other format).
type PromptOutput struct {
	Format   string          `json:"format"`
	Markdown string          `json:"markdown,omitempty"`
	Document json.RawMessage `json:"document,omitempty"`
}

// Run implements core.Command.
func (p *Prompt) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	var names []string
	if p.Tools != "" {
		names = strings.Split(p.Tools, ",")
	}
	tools, err := prompt.Catalog(env.Specs, names)
	if err != nil {
		return nil, err
	}
	out, err := prompt.Render(tools, p.Format)
	if err != nil {
		return nil, err
	}
	if p.Format == "markdown" {
		return &core.Result{Data: PromptOutput{Format: p.Format, Markdown: string(out)}}, nil
	}
	return &core.Result{Data: PromptOutput{Format: p.Format, Document: json.RawMessage(out)}}, nil
}

// RenderText implements core.TextRenderer: the document alone, ready to paste or pipe.
func (o PromptOutput) RenderText(p *core.Printer) {
	if o.Markdown != "" {
		p.Printf("%s", o.Markdown)
		return
	}
	p.Printf("%s", o.Document)
}
