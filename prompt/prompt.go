// Package prompt renders the applet table for models: the tool descriptions and JSON
// Schemas in each provider's wire shape, and the "Available tools" section of a system
// prompt. It takes []core.Spec as an argument, so it never imports the applets, and
// everything it prints comes from the same struct tags and constants the code enforces.
package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentbox/agentbox/core"
)

// Formats lists the supported output formats. gemini uses parametersJsonSchema (JSON
// Schema); gemini-legacy the older parameters field, in Gemini's OpenAPI subset.
var Formats = []string{"markdown", "json", "openai", "openai-responses", "anthropic", "gemini", "gemini-legacy", "mcp"}

// StrictFormats are the formats with a strict variant (see Strict).
var StrictFormats = []string{"openai", "openai-responses", "anthropic"}

// Tool is one tool as the catalog describes it.
type Tool struct {
	Name         string         `json:"name"`
	Applet       string         `json:"applet"`
	Kind         core.Kind      `json:"kind"`
	Description  string         `json:"description"`
	Snippet      string         `json:"snippet"`
	Guidelines   []string       `json:"guidelines,omitempty"`
	InputSchema  map[string]any `json:"input_schema"`
	OutputSchema map[string]any `json:"output_schema"`
	Capabilities []string       `json:"capabilities"`
	Annotations  Annotations    `json:"annotations"`
	// Command is exactly what runs the tool with its arguments as JSON on stdin.
	Command string `json:"command"`
	// Ref is the applet and dialect entry behind the tool (mcp dispatches on it).
	Ref core.ToolRef `json:"-"`
}

// Annotations are MCP's tool hints, set explicitly for every tool.
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// Catalog builds the tools of a dialect ("" or "agentbox": agentbox's own names),
// keeping only the named ones when names is not empty (a name may be the dialect's or
// an applet's; an unknown name is an error that lists the dialect's tools).
func Catalog(specs []core.Spec, dialect string, names []string) ([]Tool, error) {
	table := core.NewTable(specs)
	refs, err := table.DialectTools(dialect)
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		var selected []core.ToolRef
		seen := map[string]bool{}
		for _, n := range names {
			n = strings.TrimSpace(n)
			ref := pick(refs, n)
			if ref == nil {
				var known []string
				for _, r := range refs {
					if !r.Spec.Stdio {
						known = append(known, r.Name())
					}
				}
				return nil, core.Errorf(core.CodeInvalidParams, "unknown tool %q; known tools: %s", n, strings.Join(known, ", "))
			}
			if !seen[ref.Name()] {
				seen[ref.Name()] = true
				selected = append(selected, *ref)
			}
		}
		refs = selected
	}
	tools := make([]Tool, 0, len(refs))
	for _, r := range refs {
		s := r.Spec
		if s.Stdio {
			continue // a server (mcp) is no tool a model can call
		}
		desc, snippet := s.Description, s.Summary
		if r.Tool != nil && r.Tool.Description != "" {
			desc = r.Tool.Description
		}
		if r.Tool != nil && r.Tool.Summary != "" {
			snippet = r.Tool.Summary
		}
		if desc == "" {
			desc = snippet
		}
		caps := s.Capabilities
		if caps == nil {
			caps = []string{}
		}
		in, err := r.InputSchema()
		if err != nil {
			return nil, core.Errorf(core.CodeInternal, "%v", err)
		}
		tools = append(tools, Tool{
			Name: r.Name(), Applet: s.Name, Kind: s.Kind, Description: desc, Snippet: snippet, Guidelines: s.Guidelines,
			InputSchema: in, OutputSchema: core.OutputSchema(s.Output...), Capabilities: caps,
			Annotations: Annotations{ReadOnlyHint: s.ReadOnly, DestructiveHint: s.Destructive, IdempotentHint: s.Idempotent, OpenWorldHint: s.OpenWorld},
			Command:     r.Command(), Ref: r,
		})
	}
	return tools, nil
}

// aliasFor returns another name the applet accepts for a parameter, one that fits
// Gemini's parameter-name rule (grep's -i is also case_insensitive), or "".
func (t Tool) aliasFor(name string) string {
	if t.Ref.Spec == nil {
		return ""
	}
	f := core.ParamsOf(t.Ref.Spec.New()).Lookup(name)
	if f == nil {
		return ""
	}
	for _, a := range f.Aliases {
		if ValidGeminiParam(a) {
			return a
		}
	}
	return ""
}

// pick finds a tool by its dialect name (exactly, then ignoring case), or by the name or
// alias of the applet behind it.
func pick(refs []core.ToolRef, name string) *core.ToolRef {
	for i := range refs {
		if refs[i].Name() == name {
			return &refs[i]
		}
	}
	for i := range refs {
		if strings.EqualFold(refs[i].Name(), name) {
			return &refs[i]
		}
	}
	for i := range refs {
		s := refs[i].Spec
		if s.Name == name || slices.Contains(s.Aliases, name) {
			return &refs[i]
		}
	}
	return nil
}

// Render writes tools in a format; strict gives the provider's strict variant (see
// Strict), for the formats in StrictFormats.
func Render(tools []Tool, format string, strict bool) ([]byte, error) {
	if strict && !slices.Contains(StrictFormats, format) {
		return nil, core.Errorf(core.CodeInvalidParams, "format %s has no strict variant; strict applies to %s", format, strings.Join(StrictFormats, ", "))
	}
	schema := func(t Tool) map[string]any {
		if strict {
			return Strict(t.InputSchema, format)
		}
		return t.InputSchema
	}
	var v any
	switch format {
	case "markdown":
		return Markdown(tools), nil
	case "json":
		v = map[string]any{"tools": tools}
	case "openai":
		out := []any{}
		for _, t := range tools {
			fn := map[string]any{"name": t.Name, "description": t.Description, "parameters": schema(t)}
			if strict {
				fn["strict"] = true
			}
			out = append(out, map[string]any{"type": "function", "function": fn})
		}
		v = map[string]any{"tools": out}
	case "openai-responses":
		out := []any{}
		for _, t := range tools {
			fn := map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": schema(t)}
			if strict {
				fn["strict"] = true
			}
			out = append(out, fn)
		}
		v = map[string]any{"tools": out}
	case "anthropic":
		out := []any{}
		for _, t := range tools {
			tool := map[string]any{"name": t.Name, "description": t.Description, "input_schema": schema(t)}
			if strict {
				tool["strict"] = true
			}
			out = append(out, tool)
		}
		v = map[string]any{"tools": out}
	case "gemini":
		out := []any{}
		for _, t := range tools {
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "parametersJsonSchema": GeminiJSONSchema(t.InputSchema)})
		}
		v = map[string]any{"tools": []any{map[string]any{"functionDeclarations": out}}}
	case "gemini-legacy":
		out := []any{}
		for _, t := range tools {
			fn := map[string]any{"name": t.Name, "description": t.Description}
			// Gemini refuses an OBJECT without properties; a tool without parameters
			// leaves parameters out.
			if props, _ := t.InputSchema["properties"].(map[string]any); len(props) > 0 {
				fn["parameters"] = GeminiSchema(t.InputSchema, t.aliasFor)
			}
			out = append(out, fn)
		}
		v = map[string]any{"tools": []any{map[string]any{"functionDeclarations": out}}}
	case "mcp":
		out := []any{}
		for _, t := range tools {
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.InputSchema, "outputSchema": t.OutputSchema, "annotations": t.Annotations})
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

// MarkdownSearch renders the result of a tool search as Markdown: each matching tool
// with its description and its input schema, which is what a model needs to call it.
func MarkdownSearch(tools []Tool, query string) []byte {
	var b bytes.Buffer
	if len(tools) == 0 {
		fmt.Fprintf(&b, "No tool matches %q; search with other words, or list them all with prompt --format markdown.\n", query)
		return b.Bytes()
	}
	fmt.Fprintf(&b, "Tools matching %q:\n", query)
	for _, t := range tools {
		var schema bytes.Buffer
		enc := json.NewEncoder(&schema)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(t.InputSchema)
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\nInput schema:\n\n```json\n%s```\n", t.Name, t.Description, schema.String())
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
		out := []Tool{}
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
	out := []Tool{}
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
