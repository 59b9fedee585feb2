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
	Format string `json:"format" alias:"provider" enum:"markdown,json,openai,openai-responses,anthropic,gemini,gemini-legacy,mcp" default:"markdown" help:"output shape: markdown (system-prompt section), json (full catalog), or a provider's tools array"`
	Tools  string `json:"tools" help:"comma-separated tool names to include (default: all)"`
	Search string `json:"search" alias:"query" schema:"maxLength=1024" help:"return only the tools that best match this query (tool_search); select:read,edit picks by name"`
	Limit  int    `json:"limit" default:"5" schema:"min=1" help:"with search: at most this many tools"`
	Strict bool   `json:"strict" help:"the provider's strict schema variant (openai, openai-responses: every property required, optional ones nullable; anthropic: strict: true with its schema subset)"`
	// Dialect is a JSON field only: on the command line --dialect is the global flag,
	// which reaches the applet as env.Dialect.
	Dialect string `json:"dialect" enum:"agentbox,ref002,ref000,claude," default:"" hidden:"" help:"tool and parameter names: agentbox's own, ref002 (locked ids: read, question, web_fetch, ...), ref000 (read_file, update_plan_step, ...) or claude (Read, Edit, TodoWrite, ...); the command in the json catalog runs each tool in it"`
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
	dialect := p.Dialect
	if dialect == "" {
		dialect = env.Dialect
	}
	tools, err := prompt.Catalog(availableSpecs(env, names), dialect, names)
	if err != nil {
		return nil, err
	}
	if p.Search != "" {
		tools = prompt.Search(tools, p.Search, p.Limit)
	}
	var out []byte
	if p.Format == "markdown" && p.Search != "" {
		// tool_search: the matching tools with the schemas a model needs to call them.
		out = prompt.MarkdownSearch(tools, p.Search)
	} else if p.Format == "markdown" {
		var skills []prompt.Skill
		for _, s := range discoverSkills(env).Skills {
			skills = append(skills, prompt.Skill{Name: s.Name, Description: s.Description})
		}
		out = prompt.MarkdownWithSkills(tools, skills)
	} else if out, err = prompt.Render(tools, p.Format, p.Strict); err != nil {
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

// availableSpecs is the table as a catalog offers it: an applet that cannot work here
// (task with no agent configured) is left out, unless the caller names tools.
func availableSpecs(env *core.Env, names []string) []core.Spec {
	if len(names) > 0 {
		return env.Specs
	}
	out := make([]core.Spec, 0, len(env.Specs))
	for _, s := range env.Specs {
		if s.Available == nil || s.Available(env) {
			out = append(out, s)
		}
	}
	return out
}
