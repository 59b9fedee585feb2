package core

import (
	"encoding/json"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/agentbox/agentbox/core/suggest"
)

// Version is set at build time with -ldflags "-X github.com/agentbox/agentbox/core.Version=v1.2.3";
// otherwise the module version from the build info is used.
var Version = ""

// VersionString reports the build's version.
func VersionString() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// RenderText prints a result the way text mode does.
func RenderText(p *Printer, res *Result) {
	switch d := res.Data.(type) {
	case TextRenderer:
		d.RenderText(p)
	case string:
		p.Printf("%s", d)
		if !strings.HasSuffix(d, "\n") {
			p.Println()
		}
	case nil:
	default:
		b, _ := json.MarshalIndent(d, "", "  ")
		p.Printf("%s\n", b)
	}
	if res.Truncated && res.OutputPath != "" {
		p.Note("[output truncated; the whole output is in " + res.OutputPath + "]")
	}
}

// Table is the applet table with its lookups. Lookups scan the table: about a hundred
// names compare in a microsecond, where indexing them in maps cost every call tens.
type Table struct {
	Specs []Spec
}

// NewTable wraps the applet table.
func NewTable(specs []Spec) *Table { return &Table{Specs: specs} }

// exact finds an applet by its exact name or alias.
func (t *Table) exact(name string) *Spec {
	for i := range t.Specs {
		if s := &t.Specs[i]; s.Name == name || slices.Contains(s.Aliases, name) {
			return s
		}
	}
	return nil
}

// Lookup finds an applet by name or alias, exactly or ignoring case.
func (t *Table) Lookup(name string) *Spec {
	if s := t.exact(name); s != nil {
		return s
	}
	for i := range t.Specs {
		s := &t.Specs[i]
		if strings.EqualFold(s.Name, name) || slices.ContainsFunc(s.Aliases, func(a string) bool { return strings.EqualFold(a, name) }) {
			return s
		}
	}
	return nil
}

// ResolveArgv0 is ByArgv0 in a dialect: a link named after a dialect's tool
// (update_plan_step, with AGENTBOX_DIALECT=ref000) runs that tool.
func (t *Table) ResolveArgv0(dialect, argv0 string) *ToolRef {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	if base == "agentbox" || strings.HasPrefix(base, "agentbox.") {
		return nil
	}
	if dialect != DialectAgentbox {
		if ref, _ := t.Resolve(dialect, base); ref != nil && ref.Tool != nil {
			return ref
		}
	}
	if s := t.ByArgv0(argv0); s != nil {
		return &ToolRef{Spec: s}
	}
	return nil
}

// ByArgv0 finds the applet a program name stands for: `read`, `Read`, `read_file`, or
// a prefixed link such as `agentbox-read` or `ab-read`. `agentbox` itself is no applet.
func (t *Table) ByArgv0(argv0 string) *Spec {
	base := filepath.Base(argv0)
	base = strings.TrimSuffix(base, ".exe")
	if base == "agentbox" || strings.HasPrefix(base, "agentbox.") {
		return nil
	}
	if s := t.Lookup(base); s != nil {
		return s
	}
	for i := 0; i < len(base); i++ {
		if base[i] == '-' {
			if s := t.Lookup(base[i+1:]); s != nil {
				return s
			}
		}
	}
	return nil
}

// Closest returns up to n applet names nearest to name (by the edit distance of the
// name or an alias, at most a third of the name's length, and at least 2), best first.
func (t *Table) Closest(name string, n int) []string {
	type cand struct {
		applet string
		d      int
	}
	var cands []cand
	limit := max(2, len(name)/3)
	lower := strings.ToLower(name)
	for _, s := range t.Specs {
		best := limit + 1
		for _, a := range append([]string{s.Name}, s.Aliases...) {
			d := suggest.EditDistance(lower, strings.ToLower(a))
			if strings.HasPrefix(strings.ToLower(a), lower) || strings.HasPrefix(lower, strings.ToLower(a)) {
				d = min(d, limit)
			}
			best = min(best, d)
		}
		if best <= limit {
			cands = append(cands, cand{s.Name, best})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].d < cands[j].d })
	var out []string
	for _, c := range cands {
		if len(out) == n {
			break
		}
		out = append(out, c.applet)
	}
	return out
}
