package core

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Dialects: other agents' names for agentbox's tools.
//
// Models are trained on particular tool names and parameter spellings (Claude Code's
// Read with file_path, reference 000's update_plan_step, reference 002's locked
// question). A dialect presents agentbox's applets under those names: each DialectTool
// maps one of the dialect's tool names to an applet, optionally with fixed arguments
// (update_plan_step is plan with action update_step) and with renamed parameters in
// both directions (the schema a model sees uses the dialect's names; a call in the
// dialect's shape is translated to the canonical request before decoding).
//
// The dialect tools live in the applet table (Spec.Dialects), so every surface reads one
// source: the front end's dispatch (cli.Main) resolves `agentbox NAME --dialect D` (or
// AGENTBOX_DIALECT=D) through Table.Resolve and Table.ResolveArgv0, and prompt and mcp render the same entries. The "agentbox"
// dialect is the applets under their own names.

// DialectAgentbox is the dialect of agentbox's own names.
const DialectAgentbox = "agentbox"

// DialectTool is one tool of a dialect, as a row of an applet's Spec.Dialects.
type DialectTool struct {
	Dialect string // the dialect's id (ref002, ref000, claude)
	Name    string // the tool's name in that dialect
	// Fixed are canonical arguments the tool always passes (plan's action). A call that
	// gives one of them with another value is refused.
	Fixed map[string]any
	// Params lists the parameters the tool shows, in order: "name" exposes the canonical
	// parameter of that name; "name=canonical" renames; "parent.name=canonical" names a
	// field inside an object or array parameter (the parent is a dialect name listed
	// before); a trailing "!" on the name marks it required in this dialect. An object
	// parameter listed without children exposes all of its fields under their canonical
	// names. Nil exposes every canonical parameter except the fixed ones.
	Params []string
	// Help replaces a parameter's description, keyed by the dialect path ("offset").
	Help map[string]string
	// Extra are the dialect's parameters that agentbox has no use for: they are shown,
	// accepted and dropped before the call runs.
	Extra []ExtraParam
	// Summary and Description replace the applet's when the tool is narrower than the
	// applet (a fixed action); empty keeps the applet's.
	Summary, Description string
}

// ExtraParam is a dialect parameter agentbox accepts and ignores.
type ExtraParam struct {
	Name, Type, Help string
}

// compiled caches each DialectTool's parameter tree (keyed by the table entry's
// address; the table is never copied deeply, so the address is stable).
var compiled sync.Map // *DialectTool -> compiledTool

type compiledTool struct {
	tree *dnode
	err  error
}

// dnode is one parameter of a dialect tool: its dialect name, the canonical field it
// stands for and, for objects, the fields shown inside.
type dnode struct {
	name     string
	canon    string
	required bool
	children []*dnode
}

func (n *dnode) child(name string) *dnode {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// compile parses Params into a tree and checks every name against the applet's
// parameter struct.
func (t *DialectTool) compile(p *Params) (*dnode, error) {
	if c, ok := compiled.Load(t); ok {
		return c.(compiledTool).tree, c.(compiledTool).err
	}
	tree, err := t.build(p)
	compiled.Store(t, compiledTool{tree, err})
	return tree, err
}

func (t *DialectTool) build(p *Params) (*dnode, error) {
	root := &dnode{}
	entries := t.Params
	if entries == nil {
		for _, f := range p.Fields {
			if _, fixed := t.Fixed[f.Name]; !fixed {
				entries = append(entries, f.Name)
			}
		}
	}
	for _, e := range entries {
		left, canon, renamed := strings.Cut(e, "=")
		required := strings.HasSuffix(left, "!")
		left = strings.TrimSuffix(left, "!")
		path := strings.Split(left, ".")
		parent := root
		for _, seg := range path[:len(path)-1] {
			if parent = parent.child(seg); parent == nil {
				return nil, fmt.Errorf("dialect %s tool %s: parameter %q names parent %q before it is listed", t.Dialect, t.Name, e, seg)
			}
		}
		name := path[len(path)-1]
		if !renamed {
			canon = name
		}
		parent.children = append(parent.children, &dnode{name: name, canon: canon, required: required})
	}
	if err := checkNodes(root, p, t); err != nil {
		return nil, err
	}
	return root, nil
}

func checkNodes(n *dnode, p *Params, t *DialectTool) error {
	for _, c := range n.children {
		f := p.Lookup(c.canon)
		if f == nil || f.Name != c.canon {
			return fmt.Errorf("dialect %s tool %s: %q maps to %q, which is no parameter of the applet", t.Dialect, t.Name, c.name, c.canon)
		}
		if len(c.children) > 0 {
			if f.Elem == nil {
				return fmt.Errorf("dialect %s tool %s: %q has fields listed but %q is not an object", t.Dialect, t.Name, c.name, c.canon)
			}
			if err := checkNodes(c, f.Elem, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Schema returns the tool's input schema in the dialect's names, built from the applet's
// canonical schema (so descriptions, defaults and limits are the ones the code enforces).
func (t *DialectTool) Schema(p *Params) (map[string]any, error) {
	root, err := t.compile(p)
	if err != nil {
		return nil, err
	}
	s := dialectObject(root, p, t, "")
	props := s["properties"].(map[string]any)
	for _, x := range t.Extra {
		props[x.Name] = map[string]any{"type": x.Type, "description": x.Help}
	}
	return s, nil
}

func dialectObject(n *dnode, p *Params, t *DialectTool, path string) map[string]any {
	props := map[string]any{}
	var required []any
	for _, c := range n.children {
		f := p.Lookup(c.canon)
		var s map[string]any
		if len(c.children) > 0 {
			obj := dialectObject(c, f.Elem, t, join(path, c.name))
			if typeSchema(f.Type, f.Elem)["type"] == "array" {
				s = f.schema()
				s["items"] = obj
			} else {
				s = obj
				if f.Help != "" {
					s["description"] = f.Help
				}
			}
		} else {
			s = f.schema()
		}
		if h, ok := t.Help[join(path, c.name)]; ok {
			s["description"] = h
		}
		props[c.name] = s
		if c.required || f.Required {
			required = append(required, c.name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// ParamNames lists the tool's top-level parameter names, for error messages.
func (t *DialectTool) ParamNames(p *Params) string {
	root, err := t.compile(p)
	if err != nil {
		return ""
	}
	var names []string
	for _, c := range root.children {
		names = append(names, c.name)
	}
	for _, x := range t.Extra {
		names = append(names, x.Name)
	}
	return strings.Join(names, ", ")
}

// ToCanonical rewrites a request in the dialect's shape into the applet's canonical
// shape, in place: renamed parameters get their canonical names (recursively), extra
// parameters are dropped and the fixed arguments are added. Names the dialect does not
// know are left for the applet's own decoding, which accepts canonical names and
// aliases and refuses the rest.
func (t *DialectTool) ToCanonical(obj map[string]any, p *Params) error {
	root, err := t.compile(p)
	if err != nil {
		return Errorf(CodeInternal, "%v", err)
	}
	for _, x := range t.Extra {
		delete(obj, x.Name)
	}
	if err := renameNodes(obj, root, ""); err != nil {
		return err
	}
	keys := make([]string, 0, len(t.Fixed))
	for k := range t.Fixed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := t.Fixed[k]
		if v, ok := obj[k]; ok && !sameJSON(v, want) {
			return Errorf(CodeInvalidParams, "tool %s always runs with %s=%v; leave %s out (got %v)", t.Name, k, want, k, v)
		}
		obj[k] = want
	}
	return nil
}

func renameNodes(obj map[string]any, n *dnode, path string) error {
	if len(n.children) == 0 {
		return nil
	}
	out := make(map[string]any, len(obj))
	for key, v := range obj {
		name := key
		c := n.child(key)
		if c != nil {
			name = c.canon
		}
		if _, dup := out[name]; dup {
			return Errorf(CodeInvalidParams, "two fields%s name the parameter %q; pass it once", where(path), name)
		}
		if c != nil && len(c.children) > 0 {
			switch vv := v.(type) {
			case map[string]any:
				if err := renameNodes(vv, c, join(path, key)); err != nil {
					return err
				}
			case []any:
				for i, item := range vv {
					if m, ok := item.(map[string]any); ok {
						if err := renameNodes(m, c, fmt.Sprintf("%s[%d]", join(path, key), i)); err != nil {
							return err
						}
					}
				}
			}
		}
		out[name] = v
	}
	for k := range obj {
		delete(obj, k)
	}
	for k, v := range out {
		obj[k] = v
	}
	return nil
}

func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb) || reflect.DeepEqual(a, b)
}

// ToolRef is one tool of a dialect: the applet that runs it and, outside the agentbox
// dialect, the dialect entry that names and shapes it.
type ToolRef struct {
	Spec *Spec
	Tool *DialectTool // nil in the agentbox dialect
}

// Name is the tool's name in its dialect.
func (r ToolRef) Name() string {
	if r.Tool != nil {
		return r.Tool.Name
	}
	return r.Spec.Name
}

// Command is the exact command line that runs the tool with a JSON request on stdin.
func (r ToolRef) Command() string {
	if r.Tool != nil {
		return "agentbox " + r.Tool.Name + " --dialect " + r.Tool.Dialect
	}
	return "agentbox " + r.Spec.Name
}

// InputSchema is the tool's input schema in its dialect's names.
func (r ToolRef) InputSchema() (map[string]any, error) {
	p := ParamsOf(r.Spec.New())
	if r.Tool == nil {
		return p.Schema(), nil
	}
	return r.Tool.Schema(p)
}

// Dialects lists the dialect ids, agentbox's own first, then in the order the table
// first names them.
func (t *Table) Dialects() []string {
	out := []string{DialectAgentbox}
	seen := map[string]bool{DialectAgentbox: true}
	for i := range t.Specs {
		for _, d := range t.Specs[i].Dialects {
			if !seen[d.Dialect] {
				seen[d.Dialect] = true
				out = append(out, d.Dialect)
			}
		}
	}
	return out
}

// DialectTools lists a dialect's tools in table order; an unknown dialect is an error
// naming the known ones.
func (t *Table) DialectTools(dialect string) ([]ToolRef, error) {
	if dialect == "" || dialect == DialectAgentbox {
		refs := make([]ToolRef, 0, len(t.Specs))
		for i := range t.Specs {
			refs = append(refs, ToolRef{Spec: &t.Specs[i]})
		}
		return refs, nil
	}
	var refs []ToolRef
	for i := range t.Specs {
		s := &t.Specs[i]
		for j := range s.Dialects {
			if s.Dialects[j].Dialect == dialect {
				refs = append(refs, ToolRef{Spec: s, Tool: &s.Dialects[j]})
			}
		}
	}
	if refs == nil {
		return nil, Errorf(CodeInvalidParams, "unknown dialect %q; use one of %s", dialect, strings.Join(t.Dialects(), ", "))
	}
	return refs, nil
}

// Resolve finds the tool a name stands for in a dialect: the dialect's own tool names
// first (exactly, then ignoring case), then agentbox's applet names and aliases, so a
// person with AGENTBOX_DIALECT set can still type `agentbox ls`. It returns nil when
// nothing matches, and an error for an unknown dialect.
func (t *Table) Resolve(dialect, name string) (*ToolRef, error) {
	if dialect != "" && dialect != DialectAgentbox {
		refs, err := t.DialectTools(dialect)
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			if r.Tool.Name == name {
				return &r, nil
			}
		}
		for _, r := range refs {
			if strings.EqualFold(r.Tool.Name, name) {
				return &r, nil
			}
		}
	}
	if dialect == "" {
		// No dialect chosen: a name that only a dialect gives a meaning of its own
		// (update_plan_step is plan with action update_step) runs that tool, rather
		// than the bare applet it is an alias of, which would ignore the fixed action.
		if s := t.exact(name); s == nil || s.Name != name {
			if ref := t.fixedTool(name); ref != nil {
				return ref, nil
			}
		}
	}
	if s := t.Lookup(name); s != nil {
		return &ToolRef{Spec: s}, nil
	}
	return nil, nil
}

// fixedTool finds a dialect tool of exactly this name that passes fixed arguments.
func (t *Table) fixedTool(name string) *ToolRef {
	for _, d := range t.Dialects() {
		refs, err := t.DialectTools(d)
		if err != nil {
			continue
		}
		for _, r := range refs {
			if r.Tool != nil && r.Tool.Name == name && len(r.Tool.Fixed) > 0 {
				return &r
			}
		}
	}
	return nil
}

// hintRef finds the applet names an error message tells the model to call: "use
// glob", "run `skill list`", "with edit".
var hintRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\\b(use|run|with|call|try|Use|Run|With|Call|Try) (`?)(read|write|edit|ls|glob|grep|bash|plan|todo|ask|permit|patch|fetch|search|skill)( (list|load|read|create|update_step))?(`?)\\b")
})

// DialectHints rewrites the tool names in an error message for a dialect: a model
// that knows the tools as read_file and list_skills is told to use those, not read and
// skill list. The agentbox dialect, and a name the dialect has no tool for, are left
// as they are.
func (t *Table) DialectHints(dialect, msg string) string {
	if dialect == "" || dialect == DialectAgentbox {
		return msg
	}
	tools, err := t.DialectTools(dialect)
	if err != nil || len(tools) == 0 {
		return msg
	}
	plain := map[string]string{}
	byAction := map[string]string{}
	for _, r := range tools {
		if r.Tool == nil {
			continue
		}
		if a, ok := r.Tool.Fixed["action"].(string); ok {
			byAction[r.Spec.Name+" "+a] = r.Tool.Name
			continue
		}
		if _, seen := plain[r.Spec.Name]; !seen {
			plain[r.Spec.Name] = r.Tool.Name
		}
	}
	return hintRef().ReplaceAllStringFunc(msg, func(m string) string {
		g := hintRef().FindStringSubmatch(m)
		verb, open, applet, action, close := g[1], g[2], g[3], g[5], g[6]
		if name, ok := byAction[applet+" "+action]; ok && action != "" {
			return verb + " " + open + name + close
		}
		if name, ok := plain[applet]; ok {
			return verb + " " + open + name + g[4] + close
		}
		return m
	})
}
