package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/core"
	"github.com/google/jsonschema-go/jsonschema"
)

// TestValidateMatchesJSONSchema checks core's own request validator against a general
// JSON Schema validator (github.com/google/jsonschema-go, which the MCP SDK brings in)
// on every applet's schema: for each field, values of every JSON type and values at
// and beyond each constraint must be accepted or refused by both alike.
func TestValidateMatchesJSONSchema(t *testing.T) {
	for _, spec := range applets.All {
		p := core.ParamsOf(spec.New())
		b, err := json.Marshal(p.Schema())
		if err != nil {
			t.Fatal(err)
		}
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			t.Fatal(err)
		}
		res, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: schema does not resolve: %v", spec.Name, err)
		}
		base := map[string]any{}
		for _, f := range p.Fields {
			if f.Required {
				base[f.Name] = validValue(f)
			}
		}
		check := func(what string, obj map[string]any) {
			t.Helper()
			// Round-trip through JSON with UseNumber, as requests arrive.
			raw, _ := json.Marshal(obj)
			var mine map[string]any
			dec := json.NewDecoder(strings.NewReader(string(raw)))
			dec.UseNumber()
			if err := dec.Decode(&mine); err != nil {
				t.Fatal(err)
			}
			var theirs any
			json.Unmarshal(raw, &theirs)
			ourErr := p.Validate(mine)
			refErr := res.Validate(theirs)
			if (ourErr == nil) != (refErr == nil) {
				t.Errorf("%s %s %s: ours %v, jsonschema-go %v", spec.Name, what, raw, ourErr, refErr)
			}
		}
		check("required only", clone(base))
		check("empty", map[string]any{})
		check("unknown field", with(base, "no_such_field", 1))
		for _, f := range p.Fields {
			for i, v := range probeValues(f) {
				check(fmt.Sprintf("%s#%d", f.Name, i), with(base, f.Name, v))
			}
		}
	}
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func with(m map[string]any, k string, v any) map[string]any {
	out := clone(m)
	out[k] = v
	return out
}

// validValue is a value of the field's type that meets its constraints.
func validValue(f *core.Field) any {
	vals := probeValues(f)
	return vals[0]
}

// probeValues returns a valid value first, then values of other types and at the
// edges of every constraint.
func probeValues(f *core.Field) []any {
	t := f.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	others := []any{nil, true, "x", 1, 1.5, []any{}, map[string]any{}}
	var out []any
	num := func(s string) float64 { n, _ := strconv.ParseFloat(s, 64); return n }
	switch t.Kind() {
	case reflect.String:
		first := "abc"
		if len(f.Enum) > 0 {
			first = f.Enum[0]
		} else if _, ok := f.Constraints["pattern"]; ok {
			first = strings.Repeat("a", 64)
		}
		out = append(out, first, "", "not-an-enum-value", strings.Repeat("é", 3))
	case reflect.Bool:
		out = append(out, true, false)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v := 1.0
		if m, ok := f.Constraints["min"]; ok {
			v = num(m)
		}
		out = append(out, v, 0, -1, 1e9, 2.0, 2.5)
		for _, k := range []string{"min", "max"} {
			if m, ok := f.Constraints[k]; ok {
				out = append(out, num(m)-1, num(m), num(m)+1)
			}
		}
	case reflect.Float64, reflect.Float32:
		out = append(out, 0.5, 0, 1, -1, 2)
		for _, k := range []string{"min", "max"} {
			if m, ok := f.Constraints[k]; ok {
				out = append(out, num(m)-0.01, num(m), num(m)+0.01)
			}
		}
	case reflect.Slice:
		var item any = "a"
		if f.Elem != nil {
			m := map[string]any{}
			for _, g := range f.Elem.Fields {
				if g.Required {
					m[g.Name] = validValue(g)
				}
			}
			item = m
		} else if len(f.Enum) > 0 {
			item = f.Enum[0]
		} else if t.Elem().Kind() != reflect.String {
			item = 1
		}
		out = append(out, []any{item}, []any{}, []any{item, item}, []any{item, item, item, item}, []any{1}, []any{"zz-not-enum"})
		if f.Elem != nil {
			out = append(out, []any{map[string]any{}}, []any{map[string]any{"bogus": 1}})
		}
	case reflect.Map:
		out = append(out, map[string]any{"A": "b"}, map[string]any{"A": 1})
	case reflect.Struct:
		m := map[string]any{}
		if f.Elem != nil {
			for _, g := range f.Elem.Fields {
				if g.Required {
					m[g.Name] = validValue(g)
				}
			}
		}
		out = append(out, m, map[string]any{"bogus": 1})
	default:
		out = append(out, "x")
	}
	return append(out, others...)
}
