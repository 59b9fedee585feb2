package applets

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/agentbox/agentbox/core"
)

// PlanDir is where plans live, relative to the first workspace root.
const PlanDir = ".agentbox/plans"

// PlanStep is one step given to create or update.
type PlanStep struct {
	Description string `json:"description" alias:"title,step,text" schema:"required,minLength=1" help:"what the step does"`
	Notes       string `json:"notes,omitempty" help:"optional notes for the step"`
}

// Plan manages durable markdown plans (reference 000's markdown_plan, update_plan_step,
// list_plans and read_plan as one applet with actions).
type Plan struct {
	Action string     `json:"action" arg:"" optional:"" enum:"create,update,update_step,list,read" default:"list" help:"create, update (overwrite), update_step, list or read"`
	PlanID string     `json:"plan_id" alias:"id" arg:"" optional:"" help:"the plan (plan-001) for update, update_step and read"`
	Title  string     `json:"title" help:"plan title (create, update)"`
	Steps  []PlanStep `json:"steps" type:"json" help:"the steps (create, update): [{\"description\": \"...\", \"notes\": \"...\"}]"`
	Status string     `json:"status" help:"plan status for create/update (draft, active, completed, abandoned; default draft), or step status for update_step (pending, in_progress, completed, skipped)"`
	Step   int        `json:"step" schema:"min=0" help:"step number, 1-based (update_step)"`
}

// PlanDoc is a parsed plan.
type PlanDoc struct {
	ID      string     `json:"id"`
	Title   string     `json:"title"`
	Status  string     `json:"status"`
	Created string     `json:"created"`
	Steps   []PlanItem `json:"steps"`
	Path    string     `json:"path"`
}

// PlanItem is one step with its status.
type PlanItem struct {
	Description string `json:"description"`
	Notes       string `json:"notes,omitempty"`
	Status      string `json:"status"`
}

// PlanResult is what plan returns.
type PlanResult struct {
	Action   string        `json:"action"`
	Plan     *PlanDoc      `json:"plan,omitempty"`
	Markdown string        `json:"markdown,omitempty"`
	Plans    []PlanSummary `json:"plans,omitempty"`
	Message  string        `json:"message,omitempty"`
}

// PlanSummary is one line of list.
type PlanSummary struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Status   string `json:"status"`
	Created  string `json:"created"`
	Steps    int    `json:"steps"`
	Progress string `json:"progress"`
}

var (
	markers       = map[string]string{"pending": " ", "in_progress": "~", "completed": "x", "skipped": "-"}
	markerStatus  = map[string]string{" ": "pending", "~": "in_progress", "x": "completed", "-": "skipped"}
	planStatuses  = map[string]bool{"draft": true, "active": true, "completed": true, "abandoned": true}
	stepStatuses  = map[string]bool{"pending": true, "in_progress": true, "completed": true, "skipped": true}
	planIDPattern = regexp.MustCompile(`^plan-(\d{3,})$`)
	stepLine      = regexp.MustCompile(`^(\d+)\. \[( |~|x|-)\] (.*)$`)
)

func renderPlan(d *PlanDoc) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n- **ID**: %s\n- **Status**: %s\n- **Created**: %s\n\n## Steps\n\n", d.Title, d.ID, d.Status, d.Created)
	for i, s := range d.Steps {
		fmt.Fprintf(&b, "%d. [%s] %s\n", i+1, markers[s.Status], oneLine(s.Description))
		if s.Notes != "" {
			fmt.Fprintf(&b, "   Notes: %s\n", oneLine(s.Notes))
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// parsePlan reads a plan file; an error names the line that does not fit the format.
func parsePlan(text, path string) (*PlanDoc, error) {
	d := &PlanDoc{Path: path}
	sc := bufio.NewScanner(strings.NewReader(strings.ReplaceAll(text, "\r\n", "\n")))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	n := 0
	bad := func(msg string) error {
		return core.Errorf(core.CodeInvalidParams, "%s line %d: %s; fix the file by hand (or recreate it with plan update), agentbox will not rewrite a plan it cannot read", path, n, msg)
	}
	inSteps := false
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case strings.TrimSpace(l) == "":
		case n == 1:
			if !strings.HasPrefix(l, "# ") {
				return nil, bad("the first line must be the title, `# Title`")
			}
			d.Title = strings.TrimPrefix(l, "# ")
		case strings.HasPrefix(l, "- **ID**: "):
			d.ID = strings.TrimPrefix(l, "- **ID**: ")
		case strings.HasPrefix(l, "- **Status**: "):
			d.Status = strings.TrimPrefix(l, "- **Status**: ")
			if !planStatuses[d.Status] {
				return nil, bad(fmt.Sprintf("unknown plan status %q (draft, active, completed, abandoned)", d.Status))
			}
		case strings.HasPrefix(l, "- **Created**: "):
			d.Created = strings.TrimPrefix(l, "- **Created**: ")
		case l == "## Steps":
			inSteps = true
		case inSteps && strings.HasPrefix(l, "   Notes: ") && len(d.Steps) > 0:
			d.Steps[len(d.Steps)-1].Notes = strings.TrimPrefix(l, "   Notes: ")
		case inSteps:
			m := stepLine.FindStringSubmatch(l)
			if m == nil {
				return nil, bad(fmt.Sprintf("expected a step like `1. [ ] Do this` (markers [ ] [~] [x] [-]), found %q", l))
			}
			if num, _ := strconv.Atoi(m[1]); num != len(d.Steps)+1 {
				return nil, bad(fmt.Sprintf("step %d is out of order (expected %d)", num, len(d.Steps)+1))
			}
			d.Steps = append(d.Steps, PlanItem{Description: m[3], Status: markerStatus[m[2]]})
		default:
			return nil, bad(fmt.Sprintf("unexpected line %q before `## Steps`", l))
		}
	}
	if d.ID == "" || d.Status == "" || !inSteps {
		return nil, core.Errorf(core.CodeInvalidParams, "%s is not a complete plan (it needs `- **ID**:`, `- **Status**:` and a `## Steps` section); fix it by hand or recreate it", path)
	}
	return d, nil
}

func (p *Plan) planPath(env *core.Env, id string) (core.Path, error) {
	if !planIDPattern.MatchString(id) {
		return core.Path{}, core.Errorf(core.CodeInvalidParams, "plan_id %q is not a plan id like plan-001; run plan list to see the plans", id)
	}
	return env.Resolve(filepath.Join(env.WS.Roots[0], PlanDir, id+".md"))
}

func (p *Plan) load(env *core.Env, path core.Path) (*PlanDoc, error) {
	f, _, err := env.WS.OpenRegular(path)
	if err != nil {
		if core.AsError(err).Code == core.CodeNotFound {
			return nil, core.Errorf(core.CodeNotFound, "no plan %s; run plan list to see the plans", strings.TrimSuffix(filepath.Base(path.Abs), ".md"))
		}
		return nil, err
	}
	defer f.Close()
	data, err := readLimited(f, 4<<20)
	if err != nil {
		return nil, err
	}
	return parsePlan(string(data), path.Abs)
}

// Run implements core.Command.
func (p *Plan) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	dir, err := env.Resolve(filepath.Join(env.WS.Roots[0], PlanDir))
	if err != nil {
		return nil, err
	}
	if p.Status != "" && !planStatuses[p.Status] && !stepStatuses[p.Status] {
		return nil, core.Errorf(core.CodeInvalidParams, "unknown status %q: a plan is draft, active, completed or abandoned; a step is pending, in_progress, completed or skipped", p.Status)
	}
	switch p.Action {
	case "create", "update":
		if strings.TrimSpace(p.Title) == "" || len(p.Steps) == 0 {
			return nil, core.Errorf(core.CodeInvalidParams, "plan %s needs a title and at least one step", p.Action)
		}
		status := p.Status
		if status == "" {
			status = "draft"
		}
		if !planStatuses[status] {
			return nil, core.Errorf(core.CodeInvalidParams, "status %q is a step status; a plan's status is draft, active, completed or abandoned", status)
		}
		doc := &PlanDoc{Title: oneLine(p.Title), Status: status, Created: env.Now().Format("2006-01-02")}
		for _, s := range p.Steps {
			doc.Steps = append(doc.Steps, PlanItem{Description: s.Description, Notes: s.Notes, Status: "pending"})
		}
		if err := env.WS.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		// create locks the folder (to allocate the next id); update locks the plan itself,
		// the same lock update_step takes.
		lockOn := dir
		if p.Action == "update" {
			if lockOn, err = p.planPath(env, p.PlanID); err != nil {
				return nil, err
			}
		}
		err := env.WS.WithFileLock(ctx, lockOn, func() error {
			if p.Action == "create" {
				doc.ID = nextPlanID(env, dir)
			} else {
				path, err := p.planPath(env, p.PlanID)
				if err != nil {
					return err
				}
				old, err := p.load(env, path)
				if err != nil {
					return err
				}
				doc.ID, doc.Created = old.ID, old.Created
			}
			path, err := p.planPath(env, doc.ID)
			if err != nil {
				return err
			}
			doc.Path = path.Abs
			_, err = env.WS.WriteAtomic(path, []byte(renderPlan(doc)), core.WriteOptions{CreateDirs: true})
			return err
		})
		if err != nil {
			return nil, err
		}
		return &core.Result{Data: PlanResult{Action: p.Action, Plan: doc, Markdown: renderPlan(doc)}}, nil
	case "update_step":
		if !stepStatuses[p.Status] {
			return nil, core.Errorf(core.CodeInvalidParams, "update_step needs status pending, in_progress, completed or skipped")
		}
		path, err := p.planPath(env, p.PlanID)
		if err != nil {
			return nil, err
		}
		var doc *PlanDoc
		err = env.WS.WithFileLock(ctx, path, func() error {
			d, err := p.load(env, path)
			if err != nil {
				return err
			}
			if p.Step < 1 || p.Step > len(d.Steps) {
				return core.Errorf(core.CodeInvalidParams, "%s has %d steps; step %d does not exist", d.ID, len(d.Steps), p.Step)
			}
			d.Steps[p.Step-1].Status = p.Status
			doc = d
			_, err = env.WS.WriteAtomic(path, []byte(renderPlan(d)), core.WriteOptions{})
			return err
		})
		if err != nil {
			return nil, err
		}
		return &core.Result{Data: PlanResult{Action: p.Action, Plan: doc, Markdown: renderPlan(doc)}}, nil
	case "read":
		path, err := p.planPath(env, p.PlanID)
		if err != nil {
			return nil, err
		}
		doc, err := p.load(env, path)
		if err != nil {
			return nil, err
		}
		return &core.Result{Data: PlanResult{Action: p.Action, Plan: doc, Markdown: renderPlan(doc)}}, nil
	default:
		res := PlanResult{Action: "list", Plans: []PlanSummary{}}
		entries, err := env.WS.ReadDir(dir)
		if err != nil && core.AsError(err).Code != core.CodeNotFound {
			return nil, err
		}
		var ids []string
		for _, e := range entries {
			if id := strings.TrimSuffix(e.Name(), ".md"); planIDPattern.MatchString(id) && strings.HasSuffix(e.Name(), ".md") {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for _, id := range ids {
			path, _ := p.planPath(env, id)
			d, err := p.load(env, path)
			if err != nil {
				res.Plans = append(res.Plans, PlanSummary{ID: id, Status: "unreadable", Progress: core.AsError(err).Message})
				continue
			}
			res.Plans = append(res.Plans, PlanSummary{ID: d.ID, Title: d.Title, Status: d.Status, Created: d.Created, Steps: len(d.Steps), Progress: progress(d)})
		}
		if len(res.Plans) == 0 {
			res.Message = "No plans yet; create one with plan create (title and steps)."
		}
		return &core.Result{Data: res}, nil
	}
}

func nextPlanID(env *core.Env, dir core.Path) string {
	highest := 0
	entries, _ := env.WS.ReadDir(dir)
	for _, e := range entries {
		if m := planIDPattern.FindStringSubmatch(strings.TrimSuffix(e.Name(), ".md")); m != nil {
			if n, _ := strconv.Atoi(m[1]); n > highest {
				highest = n
			}
		}
	}
	return fmt.Sprintf("plan-%03d", highest+1)
}

// progress is reference 000's breakdown: "2 completed, 1 in progress, 3 pending".
func progress(d *PlanDoc) string {
	counts := map[string]int{}
	for _, s := range d.Steps {
		counts[s.Status]++
	}
	var parts []string
	for _, st := range []string{"completed", "in_progress", "pending", "skipped"} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], strings.ReplaceAll(st, "_", " ")))
		}
	}
	if len(parts) == 0 {
		return "no steps"
	}
	return strings.Join(parts, ", ")
}

// RenderText implements core.TextRenderer.
func (r PlanResult) RenderText(p *core.Printer) {
	switch {
	case r.Markdown != "":
		p.Printf("%s", r.Markdown)
	case r.Message != "":
		p.Println(r.Message)
	}
	for _, s := range r.Plans {
		p.Printf("%s  %-10s %s  (%d steps: %s)\n", p.OK(s.ID), s.Status, s.Title, s.Steps, s.Progress)
	}
}
