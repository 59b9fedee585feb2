package applets

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/gate"
)

// Skill lists and loads skills: folders holding a SKILL.md whose front matter carries a
// name and a description (reference 002's skill, reference 000's list_skills).
type Skill struct {
	Action string `json:"action" arg:"" optional:"" enum:"list,load" default:"list" help:"list the available skills, or load one skill's body"`
	Name   string `json:"name" arg:"" optional:"" alias:"skill,skill_name" schema:"maxLength=256" help:"the skill to load (a name alone loads it: {\"name\": \"deploy\"})"`
}

// SkillInfo describes one discovered skill.
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`
	Source      string `json:"source"`
}

// SkillList is the result of `skill list`.
type SkillList struct {
	Skills []SkillInfo `json:"skills"`
	// Problems lists SKILL.md files that could not be used, one line each.
	Problems []string `json:"problems,omitempty"`
	// Denied counts the skills left out because the permission policy does not allow
	// reading their SKILL.md (neither their name nor their text is shown).
	Denied int `json:"denied,omitempty"`
}

// SkillBody is the result of `skill load`.
type SkillBody struct {
	SkillInfo
	Body string `json:"body"`
}

// skillDirs are the places agents conventionally keep skills, project first: the first
// skill found under a name wins.
func skillDirs(env *core.Env) []skillDir {
	var dirs []skillDir
	for _, r := range env.WS.Roots {
		dirs = append(dirs,
			skillDir{filepath.Join(r, ".agentbox", "skills"), "project"},
			skillDir{filepath.Join(r, ".claude", "skills"), "project"},
			skillDir{filepath.Join(r, ".agents", "skills"), "project"})
	}
	cfg := env.Getenv("XDG_CONFIG_HOME")
	home := env.Getenv("HOME")
	if cfg == "" && home != "" {
		cfg = filepath.Join(home, ".config")
	}
	if cfg != "" {
		dirs = append(dirs, skillDir{filepath.Join(cfg, "agentbox", "skills"), "user"})
	}
	if home != "" {
		dirs = append(dirs,
			skillDir{filepath.Join(home, ".claude", "skills"), "user"},
			skillDir{filepath.Join(home, ".agents", "skills"), "user"})
	}
	return dirs
}

type skillDir struct{ path, source string }

// Run implements core.Command.
func (s *Skill) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	list := discoverSkills(env)
	if s.Name != "" {
		s.Action = "load" // a name means the model wants that skill, not the list
	}
	switch s.Action {
	case "load":
		if s.Name == "" {
			return nil, core.Errorf(core.CodeInvalidParams, "skill load needs a name; run skill list to see the available skills")
		}
		for _, sk := range list.Skills {
			if sk.Name == s.Name {
				_, body, err := readSkill(sk.Path)
				if err != nil {
					return nil, err
				}
				return &core.Result{Data: SkillBody{SkillInfo: sk, Body: body}}, nil
			}
		}
		var names []string
		for _, sk := range list.Skills {
			names = append(names, sk.Name)
		}
		if len(names) == 0 {
			return nil, core.Errorf(core.CodeNotFound, "no skill named %q: no skills are installed (searched %s)", s.Name, searchedDirs(env))
		}
		return nil, core.Errorf(core.CodeNotFound, "no skill named %q; available skills: %s", s.Name, strings.Join(names, ", "))
	default:
		return &core.Result{Data: list}, nil
	}
}

func searchedDirs(env *core.Env) string {
	var ds []string
	for _, d := range skillDirs(env) {
		ds = append(ds, d.path)
	}
	return strings.Join(ds, ", ")
}

func discoverSkills(env *core.Env) SkillList {
	var out SkillList
	seen := map[string]bool{}
	// Every SKILL.md is decided for reading, like a file a walk visits.
	var denied func(abs string, isDir bool) bool
	if g, ok := env.Gate.(*gate.PolicyGate); ok {
		denied = g.ReadFilter(env)
	}
	for _, d := range skillDirs(env) {
		if d.source == "project" {
			// A project's skill folder is the repository's content: it must really be
			// inside the workspace, not a symlink to a folder elsewhere.
			if _, err := env.WS.Resolve("/", d.path); err != nil {
				if core.AsError(err).Code == core.CodeOutsideWorkspace {
					out.Problems = append(out.Problems, fmt.Sprintf("%s: skipped, it leads outside the workspace through a symlink", d.path))
				}
				continue
			}
		}
		ws := core.NewWorkspace(d.path)
		root := core.Path{Abs: ws.Roots[0], Root: ws.Roots[0], Rel: "."}
		entries, err := ws.ReadDir(root)
		if err != nil {
			ws.Close()
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			p := core.Path{Abs: filepath.Join(root.Abs, e.Name(), "SKILL.md"), Root: root.Root, Rel: filepath.Join(e.Name(), "SKILL.md")}
			if denied != nil && (denied(filepath.Dir(p.Abs), true) || denied(p.Abs, false)) {
				out.Denied++
				continue
			}
			f, _, err := ws.OpenRegular(p)
			if err != nil {
				if msg := err.Error(); core.AsError(err).Code != core.CodeNotFound { // a folder without one is no skill
					if !strings.Contains(msg, p.Abs) {
						msg = p.Abs + ": " + msg
					}
					out.Problems = append(out.Problems, msg)
				}
				continue
			}
			data, err := readLimited(f, 1<<20)
			f.Close()
			if err != nil {
				out.Problems = append(out.Problems, fmt.Sprintf("%s: %v", p.Abs, err))
				continue
			}
			meta, _, err := parseFrontMatter(data)
			if err != nil {
				out.Problems = append(out.Problems, fmt.Sprintf("%s: %v", p.Abs, err))
				continue
			}
			if meta["name"] == "" || meta["description"] == "" {
				out.Problems = append(out.Problems, fmt.Sprintf("%s: the front matter needs both name and description", p.Abs))
				continue
			}
			if seen[meta["name"]] {
				continue
			}
			seen[meta["name"]] = true
			out.Skills = append(out.Skills, SkillInfo{Name: meta["name"], Description: meta["description"], Path: p.Abs, Source: d.source})
		}
		ws.Close()
	}
	if out.Skills == nil {
		out.Skills = []SkillInfo{}
	}
	return out
}

func readSkill(abs string) (map[string]string, string, error) {
	ws := core.NewWorkspace(filepath.Dir(abs))
	defer ws.Close()
	f, _, err := ws.OpenRegular(core.Path{Abs: abs, Root: ws.Roots[0], Rel: filepath.Base(abs)})
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	data, err := readLimited(f, 1<<20)
	if err != nil {
		return nil, "", err
	}
	return parseFrontMatter(data)
}

func readLimited(f fs.File, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, core.Errorf(core.CodeTooLarge, "larger than %d bytes", limit)
	}
	return b, nil
}

// parseFrontMatter splits a SKILL.md into its front matter (simple `key: value` lines
// between two `---` lines) and the body.
func parseFrontMatter(data []byte) (map[string]string, string, error) {
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return nil, "", fmt.Errorf("no front matter: the file must start with a line '---', then name: and description: lines, then '---'")
	}
	rest := text[4:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, "", fmt.Errorf("the front matter is not closed by a line '---'")
	}
	meta := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(rest[:end]))
	line := 1
	for sc.Scan() {
		line++
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, "", fmt.Errorf("front matter line %d is not `key: value`: %q", line, l)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		meta[strings.TrimSpace(k)] = v
	}
	body := rest[end+4:]
	body = strings.TrimPrefix(body, "\n")
	return meta, body, nil
}

// RenderText implements core.TextRenderer.
func (l SkillList) RenderText(p *core.Printer) {
	if len(l.Skills) == 0 {
		p.Println("No skills available.")
	}
	for _, s := range l.Skills {
		p.Printf("%s: %s\n  %s\n", p.OK(s.Name), s.Description, p.Dim(s.Path))
	}
	for _, pr := range l.Problems {
		p.Printf("%s %s\n", p.Warn("skipped:"), pr)
	}
}

// RenderText implements core.TextRenderer.
func (b SkillBody) RenderText(p *core.Printer) {
	p.Printf("%s", b.Body)
	if !strings.HasSuffix(b.Body, "\n") {
		p.Println()
	}
}

// ActionFields implements core.ActionFields.
func (s *Skill) ActionFields() (string, map[string][]string) {
	return "skill", map[string][]string{"list": {}, "load": {"name"}}
}

// InferAction implements core.ActionInferrer: a name alone loads that skill.
func (s *Skill) InferAction(present map[string]bool) string {
	if present["name"] {
		return "load"
	}
	return ""
}
