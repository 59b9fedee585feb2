package core

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Params describes an applet's parameter struct: its JSON fields, their other-dialect
// names, defaults and constraints. It is derived once from the struct tags (see
// Command), so the JSON Schema, the kong flags, the prompt text and the validation all
// read the same source.
type Params struct {
	Type   reflect.Type
	Fields []*Field
	byName map[string]*Field // canonical names and aliases

	once   sync.Once
	schema map[string]any
}

// Field is one JSON field of a parameter struct.
type Field struct {
	Name        string
	Aliases     []string
	Index       []int
	Type        reflect.Type
	Help        string
	Default     string
	HasDefault  bool
	Enum        []string
	Required    bool
	Constraints map[string]string
	Elem        *Params // for structs and slices of structs
}

var paramsCache sync.Map // reflect.Type -> *Params

// ParamsOf returns the description of a parameter struct (a pointer to a struct, or a
// struct type).
func ParamsOf(v any) *Params {
	t := reflect.TypeOf(v)
	if rt, ok := v.(reflect.Type); ok {
		t = rt
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return paramsOfType(t)
}

func paramsOfType(t reflect.Type) *Params {
	if p, ok := paramsCache.Load(t); ok {
		return p.(*Params)
	}
	// Sized for a name and an alias or so per field: growing the map field by field
	// was a measurable part of decoding a request.
	p := &Params{Type: t, byName: make(map[string]*Field, 2*t.NumField())}
	collectFields(p, t, nil)
	actual, _ := paramsCache.LoadOrStore(t, p)
	return actual.(*Params)
}

func collectFields(p *Params, t reflect.Type, index []int) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("json") == "" {
			collectFields(p, sf.Type, idx)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || name == "" {
			continue
		}
		f := &Field{Name: name, Index: idx, Type: sf.Type, Help: sf.Tag.Get("help")}
		if a := sf.Tag.Get("alias"); a != "" {
			f.Aliases = strings.Split(a, ",")
		}
		f.Default, f.HasDefault = sf.Tag.Lookup("default")
		if e := sf.Tag.Get("enum"); e != "" {
			f.Enum = strings.Split(e, ",")
		}
		_, f.Required = sf.Tag.Lookup("required")
		if c := sf.Tag.Get("schema"); c != "" {
			f.Constraints = map[string]string{}
			for _, kv := range strings.Split(c, ",") {
				k, v, _ := strings.Cut(kv, "=")
				f.Constraints[k] = v
			}
			// schema:"required" makes a field required in the schema only, for
			// parameters that shell mode fills another way (write's content from stdin).
			if _, ok := f.Constraints["required"]; ok {
				f.Required = true
				delete(f.Constraints, "required")
			}
		}
		et := sf.Type
		for et.Kind() == reflect.Pointer || et.Kind() == reflect.Slice {
			et = et.Elem()
		}
		if et.Kind() == reflect.Struct {
			f.Elem = paramsOfType(et)
		}
		p.Fields = append(p.Fields, f)
		p.byName[name] = f
		for _, a := range f.Aliases {
			p.byName[a] = f
		}
	}
}

// Lookup finds a field by its canonical name or an alias.
func (p *Params) Lookup(name string) *Field { return p.byName[name] }

// AcceptedNames lists every accepted JSON name, as a model-readable string.
func (p *Params) AcceptedNames() string {
	var parts []string
	for _, f := range p.Fields {
		s := f.Name
		if len(f.Aliases) > 0 {
			s += " (also " + strings.Join(f.Aliases, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// Schema returns the JSON Schema (draft 2020-12) of the parameters, with canonical names.
func (p *Params) Schema() map[string]any {
	p.once.Do(p.build)
	return p.schema
}

func (p *Params) build() { p.schema = p.objectSchema() }

func (p *Params) objectSchema() map[string]any {
	props := map[string]any{}
	var required []string
	for _, f := range p.Fields {
		props[f.Name] = f.schema()
		if f.Required {
			required = append(required, f.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = toAnySlice(required)
	}
	return s
}

func (f *Field) schema() map[string]any {
	s := typeSchema(f.Type, f.Elem)
	if f.Help != "" {
		s["description"] = f.Help
	}
	if f.HasDefault {
		if v, err := parseDefault(f.Type, f.Default); err == nil {
			s["default"] = v
		}
	}
	if len(f.Enum) > 0 {
		target := s
		if s["type"] == "array" {
			target = s["items"].(map[string]any)
		}
		target["enum"] = toAnySlice(f.Enum)
	}
	for k, v := range f.Constraints {
		key := map[string]string{"min": "minimum", "max": "maximum"}[k]
		if key == "" {
			key = k
		}
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			s[key] = n
		} else {
			s[key] = v
		}
	}
	return s
}

func typeSchema(t reflect.Type, elem *Params) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Struct && elem != nil {
			return map[string]any{"type": "array", "items": elem.objectSchema()}
		}
		return map[string]any{"type": "array", "items": typeSchema(t.Elem(), nil)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem(), nil)}
	case reflect.Struct:
		if elem != nil {
			return elem.objectSchema()
		}
	}
	return map[string]any{}
}

func parseDefault(t reflect.Type, s string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return s, nil
	case reflect.Bool:
		return strconv.ParseBool(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.ParseInt(s, 10, 64)
	case reflect.Float32, reflect.Float64:
		return strconv.ParseFloat(s, 64)
	case reflect.Slice:
		if s == "" {
			return []any{}, nil
		}
		var out []any
		for _, part := range strings.Split(s, ",") {
			v, err := parseDefault(t.Elem(), part)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no default for %s", t)
}

func toAnySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Validate checks a canonical JSON value (as decoded with UseNumber) against the
// parameters and returns an invalid_params error that names the failing field. It
// checks the same subset of JSON Schema that Schema emits (types, enum, minimum and
// maximum, minLength and maxLength, pattern, minItems and maxItems, required,
// additionalProperties false) straight from the Field descriptions: a general
// validator compiled per process cost more than the rest of a call (see validate.go).
func (p *Params) Validate(v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return Errorf(CodeInvalidParams, "invalid parameters: the request must be one JSON object")
	}
	if msg := p.validateObject(obj, ""); msg != "" {
		return Errorf(CodeInvalidParams, "invalid parameters: %s. Fix the field and call again; accepted fields: %s", msg, p.AcceptedNames())
	}
	return nil
}

// ApplyDefaults adds the default of every missing field to obj, recursively.
func (p *Params) ApplyDefaults(obj map[string]any) {
	for _, f := range p.Fields {
		v, present := obj[f.Name]
		if !present {
			if f.HasDefault {
				if d, err := parseDefault(f.Type, f.Default); err == nil {
					obj[f.Name] = d
				}
			}
			continue
		}
		if f.Elem == nil {
			continue
		}
		switch vv := v.(type) {
		case map[string]any:
			f.Elem.ApplyDefaults(vv)
		case []any:
			for _, item := range vv {
				if m, ok := item.(map[string]any); ok {
					f.Elem.ApplyDefaults(m)
				}
			}
		}
	}
}

// Canonicalize renames dialect aliases to canonical names, recursively, and rejects
// unknown fields and fields given twice under two names.
func (p *Params) Canonicalize(obj map[string]any, path string) error {
	for key, v := range obj {
		f := p.byName[key]
		if f == nil {
			return Errorf(CodeInvalidParams, "unknown field %q%s; accepted fields: %s", key, where(path), p.AcceptedNames())
		}
		if key != f.Name {
			if _, dup := obj[f.Name]; dup {
				return Errorf(CodeInvalidParams, "fields %q and %q%s name the same parameter; pass only one of them", key, f.Name, where(path))
			}
			delete(obj, key)
			obj[f.Name] = v
		}
		if f.Elem == nil {
			continue
		}
		switch vv := v.(type) {
		case map[string]any:
			if err := f.Elem.Canonicalize(vv, join(path, f.Name)); err != nil {
				return err
			}
		case []any:
			for i, item := range vv {
				if m, ok := item.(map[string]any); ok {
					if err := f.Elem.Canonicalize(m, fmt.Sprintf("%s[%d]", join(path, f.Name), i)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func where(path string) string {
	if path == "" {
		return ""
	}
	return " in " + path
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// ToJSONValue converts a filled parameter struct into the JSON value the schema
// validates, leaving out zero-valued fields (shell mode sets only what was given).
func ToJSONValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := decodeNumber(b, &out); err != nil {
		return nil, err
	}
	if m, ok := out.(map[string]any); ok {
		dropZero(m)
	}
	return out, nil
}

func dropZero(m map[string]any) {
	for k, v := range m {
		switch vv := v.(type) {
		case nil:
			delete(m, k)
		case string:
			if vv == "" {
				delete(m, k)
			}
		case bool:
			if !vv {
				delete(m, k)
			}
		case json.Number:
			if vv == "0" {
				delete(m, k)
			}
		case []any:
			if len(vv) == 0 {
				delete(m, k)
			}
		case map[string]any:
			if len(vv) == 0 {
				delete(m, k)
			}
		}
	}
}

// OutputSchema describes the JSON a result type encodes to, for MCP's outputSchema and
// the json catalog. Several types (an applet whose actions return different shapes)
// merge into one object whose properties are the union; a property the types disagree
// on accepts anything. Nothing is required and other properties are allowed, because
// an error result's structured content (error_code, error_text) must validate too. A
// nil-able Go value (pointer, slice, map) may encode as null, so its schema allows it.
func OutputSchema(types ...any) map[string]any {
	props := map[string]any{}
	for _, v := range types {
		t := reflect.TypeOf(v)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			continue
		}
		for name, s := range structProps(t, map[reflect.Type]bool{}) {
			if prev, ok := props[name]; ok && !sameJSON(prev, s) {
				props[name] = map[string]any{}
				continue
			}
			props[name] = s
		}
	}
	return map[string]any{"type": "object", "properties": props}
}

var (
	timeType = reflect.TypeOf(time.Time{})
	rawType  = reflect.TypeOf(json.RawMessage{})
)

func structProps(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	props := map[string]any{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range structProps(ft, seen) {
					props[k] = v
				}
				continue
			}
		}
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		props[name] = outputType(sf.Type, seen)
	}
	return props
}

func outputType(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	var s map[string]any
	switch {
	case t == timeType:
		s = map[string]any{"type": "string", "format": "date-time"}
	case t == rawType || t.Kind() == reflect.Interface:
		return map[string]any{}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		s = map[string]any{"type": "string", "contentEncoding": "base64"}
		nullable = true
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		s = map[string]any{"type": "array", "items": outputType(t.Elem(), seen)}
		nullable = nullable || t.Kind() == reflect.Slice
	case t.Kind() == reflect.Map:
		s = map[string]any{"type": "object", "additionalProperties": outputType(t.Elem(), seen)}
		nullable = true
	case t.Kind() == reflect.Struct:
		if seen[t] {
			return map[string]any{"type": "object"}
		}
		seen[t] = true
		s = map[string]any{"type": "object", "properties": structProps(t, seen)}
		delete(seen, t)
	default:
		s = typeSchema(t, nil)
		if len(s) == 0 {
			return s
		}
	}
	if nullable {
		s["type"] = []any{s["type"], "null"}
	}
	return s
}
