package prompt

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Providers accept different subsets of JSON Schema. The catalog's schemas use what the
// validator in core understands (type, properties, required, additionalProperties,
// items, enum, description, default, minimum, maximum, minLength, maxLength, minItems,
// maxItems, pattern); the functions here rewrite them for a provider's documented rules.
// A keyword a provider does not take is not lost: it becomes a sentence of the
// description ("Default: 2000. Minimum: 1."), so the model still reads the limit that
// the code enforces, and the applet still checks it.

// Keyword sets, by the providers' documentation.
var (
	// OpenAI function calling with strict: true (Structured Outputs): every object has
	// additionalProperties false and lists every property in required; an optional
	// parameter is made nullable instead.
	openAIStrictKeywords = set("type", "properties", "required", "additionalProperties", "items", "enum", "description", "anyOf", "$ref", "$defs", "const")
	// Anthropic strict tool use: additionalProperties false on every object; no numeric,
	// string-length or array-size constraints.
	anthropicStrictKeywords = set("type", "properties", "required", "additionalProperties", "items", "enum", "description", "anyOf", "allOf", "$ref", "$defs", "const", "format")
	// Gemini parametersJsonSchema: the JSON Schema subset Gemini documents.
	geminiJSONKeywords = set("$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum", "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf", "properties", "additionalProperties", "required", "propertyOrdering")
	// Gemini's legacy parameters field: its OpenAPI 3.0 Schema object.
	geminiOpenAPIKeywords = set("type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum")
)

// ValidToolName reports whether name fits the tool-name rule OpenAI, Anthropic and MCP
// clients share, ^[a-zA-Z0-9_-]{1,64}$. A loop, not a regexp: a package-level regexp
// with a counted repetition is compiled at every start of every applet.
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isWordByte(c) && c != '-' {
			return false
		}
	}
	return true
}

// ValidGeminiParam reports whether name fits the rule for parameter names in Gemini's
// legacy parameters, ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$.
func ValidGeminiParam(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isWordByte(name[i]) {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// KeywordsFor returns the JSON Schema keywords a format's schemas may use (nil: any).
func KeywordsFor(format string, strict bool) map[string]bool {
	switch {
	case strict && (format == "openai" || format == "openai-responses"):
		return openAIStrictKeywords
	case strict && format == "anthropic":
		return anthropicStrictKeywords
	case format == "gemini":
		return geminiJSONKeywords
	case format == "gemini-legacy":
		return geminiOpenAPIKeywords
	}
	return nil
}

func set(words ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[w] = true
	}
	return m
}

// Strict rewrites an input schema into a provider's strict variant: "openai" or
// "openai-responses" (every property required, optional ones nullable) or "anthropic"
// (required as it was). Free-form maps (bash's env) cannot be expressed under
// additionalProperties false, so they are left out; the rest of the tool works.
func Strict(schema map[string]any, format string) map[string]any {
	openai := format != "anthropic"
	return rewrite(schema, rewriteRules{keep: KeywordsFor(format, true), allRequired: openai, dropMaps: true})
}

// GeminiSchema rewrites an input schema into Gemini's legacy OpenAPI subset: upper-case
// type names, no additionalProperties, no free-form maps, and parameter names that
// start with a letter or underscore (rename supplies another accepted name, an alias
// the applet decodes, for a name such as grep's -i).
func GeminiSchema(schema map[string]any, rename func(string) string) map[string]any {
	return rewrite(schema, rewriteRules{keep: geminiOpenAPIKeywords, upper: true, dropMaps: true, rename: rename, noAdditional: true})
}

// GeminiJSONSchema keeps parametersJsonSchema inside the JSON Schema subset Gemini
// documents.
func GeminiJSONSchema(schema map[string]any) map[string]any {
	return rewrite(schema, rewriteRules{keep: geminiJSONKeywords})
}

type rewriteRules struct {
	keep         map[string]bool
	allRequired  bool // OpenAI strict
	dropMaps     bool
	upper        bool // Gemini's type enum
	noAdditional bool
	rename       func(string) string
}

// notes are the keywords that become description sentences, in this order.
var notes = []struct{ key, label string }{
	{"default", "Default"}, {"minimum", "Minimum"}, {"maximum", "Maximum"},
	{"minLength", "Minimum length"}, {"maxLength", "Maximum length"},
	{"minItems", "Minimum items"}, {"maxItems", "Maximum items"}, {"pattern", "Pattern"},
}

func rewrite(s map[string]any, r rewriteRules) map[string]any {
	out := map[string]any{}
	var moved []string
	for _, n := range notes {
		if v, ok := s[n.key]; ok && !r.keep[n.key] {
			moved = append(moved, fmt.Sprintf("%s: %s.", n.label, noteValue(v)))
		}
	}
	for k, v := range s {
		if !r.keep[k] {
			continue
		}
		switch k {
		case "properties":
			props := map[string]any{}
			for name, ps := range v.(map[string]any) {
				psm := ps.(map[string]any)
				if r.dropMaps && isMap(psm) {
					continue
				}
				props[newName(name, r)] = rewrite(psm, r)
			}
			out[k] = props
		case "items":
			out[k] = rewrite(v.(map[string]any), r)
		case "required":
			var req []any
			for _, n := range v.([]any) {
				if props, ok := s["properties"].(map[string]any); ok && r.dropMaps && isMap(props[n.(string)].(map[string]any)) {
					continue
				}
				req = append(req, newName(n.(string), r))
			}
			if len(req) > 0 {
				out[k] = req
			}
		case "additionalProperties":
			if r.noAdditional {
				continue
			}
			if b, ok := v.(bool); ok {
				out[k] = b
			} else {
				out[k] = rewrite(v.(map[string]any), r)
			}
		case "type":
			if r.upper {
				out[k] = strings.ToUpper(fmt.Sprint(v))
			} else {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	if len(moved) > 0 {
		d, _ := out["description"].(string)
		if d != "" && !strings.HasSuffix(d, ".") {
			d += "."
		}
		if d != "" {
			d += " "
		}
		out["description"] = d + strings.Join(moved, " ")
	}
	if out["type"] == "object" && r.keep["additionalProperties"] && !r.noAdditional && r.dropMaps {
		out["additionalProperties"] = false
	}
	if r.allRequired && out["type"] == "object" {
		props, _ := out["properties"].(map[string]any)
		required := map[string]bool{}
		for _, n := range asList(out["required"]) {
			required[n] = true
		}
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
			if !required[n] {
				props[n] = nullable(props[n].(map[string]any))
			}
		}
		sort.Strings(names)
		all := make([]any, len(names))
		for i, n := range names {
			all[i] = n
		}
		out["required"] = all
		out["additionalProperties"] = false
	}
	return out
}

func newName(name string, r rewriteRules) string {
	if r.rename != nil && r.upper && !ValidGeminiParam(name) {
		if n := r.rename(name); n != "" {
			return n
		}
	}
	return name
}

// nullable lets an optional parameter be null, which the applets read as "not given".
func nullable(s map[string]any) map[string]any {
	switch t := s["type"].(type) {
	case string:
		s["type"] = []any{t, "null"}
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(t, "null")
		}
	}
	if e, ok := s["enum"].([]any); ok && !slices.Contains(e, nil) {
		s["enum"] = append(append([]any(nil), e...), nil)
	}
	return s
}

func isMap(s map[string]any) bool {
	_, ok := s["additionalProperties"].(map[string]any)
	return ok && s["type"] == "object" && s["properties"] == nil
}

func asList(v any) []string {
	var out []string
	for _, x := range asAnySlice(v) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

func asAnySlice(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return nil
}

func noteValue(v any) string {
	switch vv := v.(type) {
	case string:
		if vv == "" {
			return `""`
		}
		return vv
	case []any:
		if len(vv) == 0 {
			return "none"
		}
	}
	return fmt.Sprint(v)
}
