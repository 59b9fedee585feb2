package core

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The validator walks the Field descriptions that Schema is built from, so the schema
// a model reads and the checks a request meets cannot drift apart. Messages follow the
// JSON Schema keyword names ("limit: minimum: 0 is less than 1") so they read the same
// as a schema validator's would. TestValidateMatchesJSONSchema checks it against
// github.com/google/jsonschema-go on the same inputs.

// validateObject checks obj against p and returns the first problem, or "".
func (p *Params) validateObject(obj map[string]any, path string) string {
	var missing []string
	for _, f := range p.Fields {
		if _, ok := obj[f.Name]; !ok && f.Required {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		q := make([]string, len(missing))
		for i, m := range missing {
			q[i] = strconv.Quote(m)
		}
		return prefix(path) + "required: missing properties: [" + strings.Join(q, " ") + "]"
	}
	for _, f := range p.Fields {
		v, ok := obj[f.Name]
		if !ok {
			continue
		}
		if msg := f.validate(f.Type, v, join(path, f.Name), true); msg != "" {
			return msg
		}
	}
	for k := range obj {
		if p.byName[k] == nil {
			return prefix(path) + fmt.Sprintf("unexpected additional properties [%q]", k)
		}
	}
	return ""
}

func prefix(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

// MaxSafeInteger is the largest integer a request may carry (2^53-1, the largest that
// every JSON reader holds exactly).
const MaxSafeInteger = 1<<53 - 1

// validate checks v against type t; top says whether f's own constraints apply (they
// do to the field's value, and enum also to the items of an array field).
func (f *Field) validate(t reflect.Type, v any, path string, top bool) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want, got := jsonType(t), jsonTypeOf(v)
	if want != "" && got != want && !(want == "number" && got == "integer") {
		return fmt.Sprintf("%s: type: %s has type %q, want %q", path, show(v), got, want)
	}
	switch t.Kind() {
	case reflect.String:
		s := v.(string)
		if msg := f.checkEnum(s, path); msg != "" {
			return msg
		}
		if top {
			n := utf8.RuneCountInString(s)
			if m, ok := f.intConstraint("minLength"); ok && n < m {
				return fmt.Sprintf("%s: minLength: %q contains %d Unicode code points, fewer than %d", path, clip(s, 80), n, m)
			}
			if m, ok := f.intConstraint("maxLength"); ok && n > m {
				return fmt.Sprintf("%s: maxLength: %q contains %d Unicode code points, more than %d", path, clip(s, 80), n, m)
			}
			if pat, ok := f.Constraints["pattern"]; ok {
				re, err := patternRE(pat)
				if err != nil {
					return fmt.Sprintf("%s: pattern %q does not compile: %v", path, pat, err)
				}
				if !re.MatchString(s) {
					return fmt.Sprintf("%s: pattern: %q does not match regular expression %q", path, clip(s, 80), pat)
				}
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if n, _ := number(v); t.Kind() != reflect.Float32 && t.Kind() != reflect.Float64 && (n > MaxSafeInteger || n < -MaxSafeInteger) {
			// Beyond 2^53 a JSON number is no longer exact, and arithmetic on line numbers,
			// offsets and sizes could overflow into negative answers.
			return fmt.Sprintf("%s: %s is out of range: integers are accepted up to %d", path, show(v), int64(MaxSafeInteger))
		}
		if top {
			n, _ := number(v)
			if m, ok := f.Constraints["min"]; ok {
				if lim, err := strconv.ParseFloat(m, 64); err == nil && n < lim {
					return fmt.Sprintf("%s: minimum: %s is less than %s", path, show(v), m)
				}
			}
			if m, ok := f.Constraints["max"]; ok {
				if lim, err := strconv.ParseFloat(m, 64); err == nil && n > lim {
					return fmt.Sprintf("%s: maximum: %s is greater than %s", path, show(v), m)
				}
			}
		}
	case reflect.Slice, reflect.Array:
		items := v.([]any)
		if top {
			if m, ok := f.intConstraint("minItems"); ok && len(items) < m {
				return fmt.Sprintf("%s: minItems: array length %d is less than %d", path, len(items), m)
			}
			if m, ok := f.intConstraint("maxItems"); ok && len(items) > m {
				return fmt.Sprintf("%s: maxItems: array length %d is greater than %d", path, len(items), m)
			}
		}
		for i, item := range items {
			ip := fmt.Sprintf("%s[%d]", path, i)
			if t.Elem().Kind() == reflect.Struct && f.Elem != nil {
				m, ok := item.(map[string]any)
				if !ok {
					return fmt.Sprintf("%s: type: %s has type %q, want \"object\"", ip, show(item), jsonTypeOf(item))
				}
				if msg := f.Elem.validateObject(m, ip); msg != "" {
					return msg
				}
				continue
			}
			if msg := f.validate(t.Elem(), item, ip, false); msg != "" {
				return msg
			}
		}
	case reflect.Map:
		for k, x := range v.(map[string]any) {
			if msg := (&Field{}).validate(t.Elem(), x, path+"."+k, false); msg != "" {
				return msg
			}
		}
	case reflect.Struct:
		if f.Elem != nil {
			return f.Elem.validateObject(v.(map[string]any), path)
		}
	}
	return ""
}

func (f *Field) checkEnum(s, path string) string {
	if len(f.Enum) == 0 {
		return ""
	}
	for _, e := range f.Enum {
		if s == e {
			return ""
		}
	}
	return fmt.Sprintf("%s: enum: %s does not equal any of: [%s]", path, s, strings.Join(f.Enum, " "))
}

func (f *Field) intConstraint(name string) (int, bool) {
	s, ok := f.Constraints[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

var patternCache sync.Map // pattern -> *regexp.Regexp

// patternRE compiles a schema pattern once per process, on first use only.
func patternRE(pat string) (*regexp.Regexp, error) {
	if re, ok := patternCache.Load(pat); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, err
	}
	patternCache.Store(pat, re)
	return re, nil
}

// jsonType is the JSON Schema type a Go type takes ("" = anything).
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map:
		return "object"
	case reflect.Struct:
		return "object"
	}
	return ""
}

// jsonTypeOf is the JSON Schema type of a decoded value; a number with no fraction
// is an integer, as JSON Schema counts it.
func jsonTypeOf(v any) string {
	switch vv := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number, float64, int64, int:
		n, ok := number(vv)
		if ok && n == math.Trunc(n) && !math.IsInf(n, 0) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// show renders a value for a message, briefly.
func show(v any) string {
	switch vv := v.(type) {
	case string:
		return clip(vv, 80)
	case nil:
		return "null"
	case json.Number:
		return vv.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b), 80)
}
