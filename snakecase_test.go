package main

import (
	"regexp"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/prompt"
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// One JSON style (issue 17): every property of every applet's output schema is
// snake_case, in every dialect (the watchdog verdict used to carry Go field names).
func TestOutputSchemasSnakeCase(t *testing.T) {
	for _, dialect := range []string{"agentbox", "ref002", "ref000", "claude"} {
		tools, err := prompt.Catalog(applets.All, dialect, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			walkSchema(tool.OutputSchema, dialect+"/"+tool.Name, func(path, name string) {
				if !snakeCase.MatchString(name) {
					t.Errorf("%s: output property %q is not snake_case", path, name)
				}
			})
		}
	}
}

func walkSchema(s map[string]any, path string, visit func(path, name string)) {
	if props, ok := s["properties"].(map[string]any); ok {
		for name, sub := range props {
			visit(path, name)
			if m, ok := sub.(map[string]any); ok {
				walkSchema(m, path+"."+name, visit)
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if m, ok := s[key].(map[string]any); ok {
			walkSchema(m, path, visit)
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := s[key].([]any); ok {
			for _, x := range list {
				if m, ok := x.(map[string]any); ok {
					walkSchema(m, path, visit)
				}
			}
		}
	}
}

// userKeyed are the envelope fields whose keys are data, not field names: variables,
// counts per status, headers.
var userKeyed = map[string]bool{"env": true, "headers": true, "counts": true, "by_status": true}

// assertSnakeCaseKeys checks every key of an envelope the suite produced (issue 17.9:
// one JSON style, in what is sent as well as in the schemas).
func assertSnakeCaseKeys(t *testing.T, applet, path string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snakeCase.MatchString(k) {
				t.Errorf("%s: envelope key %s.%s is not snake_case", applet, path, k)
			}
			if !userKeyed[k] {
				assertSnakeCaseKeys(t, applet, path+"."+k, e)
			}
		}
	case []any:
		for _, e := range x {
			assertSnakeCaseKeys(t, applet, path+"[]", e)
		}
	}
}
