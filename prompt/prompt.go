// Package prompt renders the applet table for models: the tool descriptions and JSON
// Schemas in each provider's wire shape, and the "Available tools" section of a system
// prompt. It takes []core.Spec as an argument, so it never imports the applets, and
// everything it prints comes from the same struct tags and constants the code enforces.
package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentbox/agentbox/core"
)

// Formats lists the supported output formats.
var Formats = []string{"markdown", "json", "openai", "openai-responses", "anthropic", "gemini", "mcp"}

// Tool is one tool as the catalog describes it.
type Tool struct {
	Name         string         `json:"name"`
	Kind         core.Kind      `json:"kind"`
	Description  string         `json:"description"`
	Snippet      string         `json:"snippet"`
	Guidelines   []string       `json:"guidelines,omitempty"`
	InputSchema  map[string]any `json:"input_schema"`
	Capabilities []string       `json:"capabilities"`
	Annotations  Annotations    `json:"annotations"`
	Command      string         `json:"command"`
}

// Annotations are MCP's tool hints, set explicitly for every tool.
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// Catalog builds the tools for specs, keeping only the named ones when names is not
// empty (an unknown name is an error that lists the known ones).
func Catalog(specs []core.Spec, names []string) ([]Tool, error) {
	table := core.NewTable(specs)
	selected := specs
	if len(names) > 0 {
		selected = nil
		seen := map[string]bool{}
		for _, n := range names {
			s := table.Lookup(strings.TrimSpace(n))
			if s == nil {
				var known []string
				for _, sp := range specs {
					known = append(known, sp.Name)
				}
				return nil, core.Errorf(core.CodeInvalidParams, "unknown tool %q; known tools: %s", n, strings.Join(known, ", "))
			}
			if !seen[s.Name] {
				seen[s.Name] = true
				selected = append(selected, *s)
			}
		}
	}
	tools := make([]Tool, 0, len(selected))
	for _, s := range selected {
		if s.Stdio {
			continue // a server (mcp) is no tool a model can call
		}
		desc := s.Description
		if desc == "" {
			desc = s.Summary
		}
		caps := s.Capabilities
		if caps == nil {
			caps = []string{}
		}
		tools = append(tools, Tool{
			Name: s.Name, Kind: s.Kind, Description: desc, Snippet: s.Summary, Guidelines: s.Guidelines,
			InputSchema: core.ParamsOf(s.New()).Schema(), Capabilities: caps,
			Annotations: Annotations{ReadOnlyHint: s.ReadOnly, DestructiveHint: s.Destructive, IdempotentHint: s.Idempotent, OpenWorldHint: s.OpenWorld},
			Command:     "agentbox " + s.Name,
		})
	}
	return tools, nil
}

// Render writes tools in a format.
func Render(tools []Tool, format string) ([]byte, error) {
	var v any
	switch format {
	case "markdown":
		return Markdown(tools), nil
	case "json":
		v = map[string]any{"tools": tools}
	case "openai":
		var out []any
		for _, t := range tools {
			out = append(out, map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.InputSchema}})
		}
		v = map[string]any{"tools": out}
	case "openai-responses":
		var out []any
		for _, t := range tools {
			out = append(out, map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": t.InputSchema})
		}
		v = map[string]any{"tools": out}
	case "anthropic":
		var out []any
		for _, t := range tools {
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.InputSchema})
		}
		v = map[string]any{"tools": out}
	case "gemini":
		var out []any
		for _, t := range tools {
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "parametersJsonSchema": t.InputSchema})
		}
		v = map[string]any{"tools": []any{map[string]any{"functionDeclarations": out}}}
	case "mcp":
		var out []any
		for _, t := range tools {
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.InputSchema, "annotations": t.Annotations})
		}
		v = map[string]any{"tools": out}
	default:
		return nil, core.Errorf(core.CodeInvalidParams, "unknown format %q; use one of %s", format, strings.Join(Formats, ", "))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, core.Errorf(core.CodeInternal, "encoding the %s catalog: %v", format, err)
	}
	return buf.Bytes(), nil
}

// Markdown renders the "Available tools" and "Guidelines" sections of a system prompt
// (reference 001): one line per tool, then the tools' guidelines, each once.
func Markdown(tools []Tool) []byte {
	var b bytes.Buffer
	b.WriteString("Available tools:\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "- %s: %s\n", t.Name, t.Snippet)
	}
	var guides []string
	seen := map[string]bool{}
	for _, t := range tools {
		for _, g := range t.Guidelines {
			if !seen[g] {
				seen[g] = true
				guides = append(guides, g)
			}
		}
	}
	if len(guides) > 0 {
		b.WriteString("\nGuidelines:\n")
		for _, g := range guides {
			fmt.Fprintf(&b, "- %s\n", g)
		}
	}
	return b.Bytes()
}

// Search ranks tools for a query (reference 002's tool_search over agentbox's own
// table): "select:read,edit" picks tools by name; otherwise every query word found in a
// tool's name (weight 3), summary (2) or description (1) adds to its score. At most n
// tools with a positive score are returned, best first.
func Search(tools []Tool, query string, n int) []Tool {
	query = strings.ToLower(strings.TrimSpace(query))
	if names, ok := strings.CutPrefix(query, "select:"); ok {
		var out []Tool
		for _, name := range strings.Split(names, ",") {
			for _, t := range tools {
				if t.Name == strings.TrimSpace(name) {
					out = append(out, t)
				}
			}
		}
		return out
	}
	type scored struct {
		t     Tool
		score int
	}
	var ranked []scored
	for _, t := range tools {
		score := 0
		for _, w := range strings.Fields(query) {
			if len(w) < 3 || stopWords[w] {
				continue
			}
			switch {
			case strings.Contains(t.Name, w):
				score += 3
			case strings.Contains(strings.ToLower(t.Snippet), w):
				score += 2
			case strings.Contains(strings.ToLower(t.Description), w):
				score++
			}
		}
		if score > 0 {
			ranked = append(ranked, scored{t, score})
		}
	}
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].score > ranked[j].score })
	var out []Tool
	for i := 0; i < len(ranked) && i < n; i++ {
		out = append(out, ranked[i].t)
	}
	return out
}

// Skill is a one-line skill for the markdown prompt.
type Skill struct{ Name, Description string }

// MarkdownWithSkills appends an "Available skills" section (loaded on demand with the
// skill tool) to the markdown prompt.
func MarkdownWithSkills(tools []Tool, skills []Skill) []byte {
	out := Markdown(tools)
	if len(skills) == 0 {
		return out
	}
	var b bytes.Buffer
	b.Write(out)
	b.WriteString("\nAvailable skills (load one with the skill tool before using it):\n")
	for _, s := range skills {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, s.Description)
	}
	return b.Bytes()
}

var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "from": true, "into": true, "that": true, "this": true}
