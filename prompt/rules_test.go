package prompt_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/prompt"
)

// geminiName is Gemini's function-name rule: a letter or underscore first, then
// letters, digits, underscores, dots, colons or dashes, at most 64 in all.
var geminiName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)

// The providers' documented rules, as regexps: the oracle for the validators.
var (
	toolNameRule    = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	geminiParamRule = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`)
)

func TestNameValidatorsMatchTheRules(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, s := range []string{"", "a", "_", "-", "9", "9a", "a9", "read_file", "web-fetch", "a.b", "a b", "é", "a\n",
		long, long + "a", "_" + long[1:], "-" + long, "Grep", "ab:c", "\x00"} {
		if got, want := prompt.ValidToolName(s), toolNameRule.MatchString(s); got != want {
			t.Errorf("ValidToolName(%q) = %v, the rule says %v", s, got, want)
		}
		if got, want := prompt.ValidGeminiParam(s), geminiParamRule.MatchString(s); got != want {
			t.Errorf("ValidGeminiParam(%q) = %v, the rule says %v", s, got, want)
		}
	}
}

func FuzzNameValidators(f *testing.F) {
	f.Add("read_file")
	f.Add("9-a")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := prompt.ValidToolName(s), toolNameRule.MatchString(s); got != want {
			t.Errorf("ValidToolName(%q) = %v, the rule says %v", s, got, want)
		}
		if got, want := prompt.ValidGeminiParam(s), geminiParamRule.MatchString(s); got != want {
			t.Errorf("ValidGeminiParam(%q) = %v, the rule says %v", s, got, want)
		}
	})
}

// TestSchemasFollowProviderRules renders every dialect in every format (and every
// strict variant) and checks each emitted tool against the provider's documented rules:
// the tool-name pattern and length, the JSON Schema keywords the provider takes, the
// strict-mode rules (additionalProperties false everywhere; for OpenAI every property
// required and the optional ones nullable), and Gemini's OpenAPI subset for the legacy
// parameters field (upper-case types, parameter names, no additionalProperties).
func TestSchemasFollowProviderRules(t *testing.T) {
	for _, dialect := range core.NewTable(applets.All).Dialects() {
		tools, err := prompt.Catalog(applets.All, dialect, nil)
		if err != nil {
			t.Fatal(err)
		}
		canonical := map[string]map[string]any{}
		for _, tool := range tools {
			canonical[tool.Name] = tool.InputSchema
		}
		for _, format := range prompt.Formats {
			if format == "markdown" {
				continue
			}
			for _, strict := range []bool{false, true} {
				if strict && !slices.Contains(prompt.StrictFormats, format) {
					if _, err := prompt.Render(tools, format, true); err == nil {
						t.Errorf("%s: strict accepted for a format without a strict variant", format)
					}
					continue
				}
				out, err := prompt.Render(tools, format, strict)
				if err != nil {
					t.Fatalf("%s %s strict=%v: %v", dialect, format, strict, err)
				}
				var doc map[string]any
				if err := json.Unmarshal(out, &doc); err != nil {
					t.Fatalf("%s %s: not JSON: %v", dialect, format, err)
				}
				for _, tool := range toolsOf(t, format, doc) {
					where := fmt.Sprintf("%s/%s strict=%v %v", dialect, format, strict, tool["name"])
					checkTool(t, where, format, strict, tool, canonical[fmt.Sprint(tool["name"])])
				}
			}
		}
	}
}

// toolsOf finds the tool objects inside a rendered document, each reduced to name,
// description, schema (under the key "schema") and, for strict variants, strict.
func toolsOf(t *testing.T, format string, doc map[string]any) []map[string]any {
	var out []map[string]any
	list := func(v any) []any { l, _ := v.([]any); return l }
	for _, item := range list(doc["tools"]) {
		m := item.(map[string]any)
		switch format {
		case "openai":
			if m["type"] != "function" {
				t.Errorf("openai tool without type function: %v", m)
			}
			fn := m["function"].(map[string]any)
			out = append(out, map[string]any{"name": fn["name"], "description": fn["description"], "schema": fn["parameters"], "strict": fn["strict"]})
		case "openai-responses":
			out = append(out, map[string]any{"name": m["name"], "description": m["description"], "schema": m["parameters"], "strict": m["strict"], "type": m["type"]})
		case "anthropic":
			out = append(out, map[string]any{"name": m["name"], "description": m["description"], "schema": m["input_schema"], "strict": m["strict"]})
		case "gemini", "gemini-legacy":
			for _, fd := range list(m["functionDeclarations"]) {
				f := fd.(map[string]any)
				s := f["parametersJsonSchema"]
				if format == "gemini-legacy" {
					s = f["parameters"]
				}
				out = append(out, map[string]any{"name": f["name"], "description": f["description"], "schema": s})
			}
		case "mcp":
			out = append(out, map[string]any{"name": m["name"], "description": m["description"], "schema": m["inputSchema"], "output": m["outputSchema"], "annotations": m["annotations"]})
		case "json":
			out = append(out, map[string]any{"name": m["name"], "description": m["description"], "schema": m["input_schema"], "output": m["output_schema"], "kind": m["kind"], "command": m["command"]})
		}
	}
	if len(out) == 0 {
		t.Errorf("%s: no tools found", format)
	}
	return out
}

func checkTool(t *testing.T, where, format string, strict bool, tool map[string]any, canonical map[string]any) {
	name, _ := tool["name"].(string)
	if format == "gemini" || format == "gemini-legacy" {
		if !geminiName.MatchString(name) {
			t.Errorf("%s: name breaks Gemini's rule", where)
		}
	} else if !prompt.ValidToolName(name) {
		t.Errorf("%s: name breaks ^[a-zA-Z0-9_-]{1,64}$", where)
	}
	if d, _ := tool["description"].(string); d == "" {
		t.Errorf("%s: no description", where)
	}
	if strict && tool["strict"] != true {
		t.Errorf("%s: strict variant without strict: true", where)
	}
	if format == "json" {
		if k, _ := tool["kind"].(string); !slices.Contains([]string{"read", "edit", "search", "execute", "think", "fetch", "other"}, k) {
			t.Errorf("%s: ACP kind %q", where, k)
		}
		if c, _ := tool["command"].(string); c == "" {
			t.Errorf("%s: no command", where)
		}
	}
	if format == "mcp" || format == "json" {
		if o, _ := tool["output"].(map[string]any); o["type"] != "object" {
			t.Errorf("%s: output schema is not an object schema", where)
		}
	}
	if format == "mcp" {
		a, _ := tool["annotations"].(map[string]any)
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := a[k].(bool); !ok {
				t.Errorf("%s: annotation %s not set explicitly", where, k)
			}
		}
	}
	schema, _ := tool["schema"].(map[string]any)
	if schema == nil {
		if format == "gemini-legacy" && len(canonical["properties"].(map[string]any)) == 0 {
			return // a tool without parameters leaves them out
		}
		t.Errorf("%s: no schema", where)
		return
	}
	wantObject := "object"
	if format == "gemini-legacy" {
		wantObject = "OBJECT"
	}
	if schema["type"] != wantObject {
		t.Errorf("%s: root schema type %v, want %s", where, schema["type"], wantObject)
	}
	checkNode(t, where, format, strict, schema, "")
}

var geminiTypes = []any{"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}

func checkNode(t *testing.T, where, format string, strict bool, s map[string]any, path string) {
	allowed := prompt.KeywordsFor(format, strict)
	for k := range s {
		if allowed != nil && !allowed[k] {
			t.Errorf("%s: %s uses keyword %q, which %s (strict=%v) does not take", where, pathOr(path), k, format, strict)
		}
	}
	isObject := s["type"] == "object" || s["type"] == "OBJECT" || slices.Contains(asList(s["type"]), "object")
	if format == "gemini-legacy" {
		if !slices.Contains(geminiTypes, s["type"]) {
			t.Errorf("%s: %s type %v is not one of Gemini's", where, pathOr(path), s["type"])
		}
		if isObject && len(asMap(s["properties"])) == 0 {
			t.Errorf("%s: %s is an OBJECT without properties", where, pathOr(path))
		}
	}
	props := asMap(s["properties"])
	if isObject && strict {
		if s["additionalProperties"] != false {
			t.Errorf("%s: %s lacks additionalProperties false", where, pathOr(path))
		}
		if format != "anthropic" {
			req := asList(s["required"])
			for name, ps := range props {
				if !slices.Contains(req, any(name)) {
					t.Errorf("%s: %s.%s is not required (OpenAI strict requires every property)", where, pathOr(path), name)
				}
				_ = ps
			}
		}
	}
	if isObject && s["additionalProperties"] != nil && s["additionalProperties"] != false && strict {
		t.Errorf("%s: %s is a free-form map, which strict mode cannot take", where, pathOr(path))
	}
	for name, ps := range props {
		if format == "gemini-legacy" && !prompt.ValidGeminiParam(name) {
			t.Errorf("%s: parameter %q breaks Gemini's parameter-name rule", where, name)
		}
		if format == "anthropic" && strict && !regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`).MatchString(name) {
			t.Errorf("%s: property %q breaks Anthropic's property-name rule", where, name)
		}
		checkNode(t, where, format, strict, ps.(map[string]any), path+"."+name)
	}
	if items, ok := s["items"].(map[string]any); ok {
		checkNode(t, where, format, strict, items, path+"[]")
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		checkNode(t, where, format, strict, ap, path+"{}")
	}
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asList(v any) []any         { l, _ := v.([]any); return l }
func pathOr(p string) string {
	if p == "" {
		return "the root"
	}
	return p[1:]
}
