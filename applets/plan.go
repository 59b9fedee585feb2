package applets

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/plans"
	"github.com/agentbox/agentbox/core/policy"
)

// PlanDir is where plans live, relative to the first workspace root.
const PlanDir = policy.PlanDir

// PlanStep is one step given to create or update.
type PlanStep struct {
	Description string `json:"description" alias:"title,step,text" schema:"required,minLength=1" help:"what the step does"`
	Notes       string `json:"notes,omitempty" help:"optional notes for the step"`
}

// Plan manages durable markdown plans (reference 000's markdown_plan, update_plan_step,
// list_plans and read_plan as one applet with actions).
type Plan struct {
	Action string     `json:"action" arg:"" optional:"" enum:",create,update,update_step,list,read" default:"" help:"create, update (overwrite; steps the plan already has keep their status), update_step, list or read; when omitted it follows from the fields: title and steps create (update with plan_id), plan_id with step and status is update_step, plan_id alone is read, nothing is list"`
	PlanID string     `json:"plan_id" alias:"id" arg:"" optional:"" help:"the plan (plan-001) for update, update_step and read; create with plan_id overwrites that plan, like update"`
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
	// Inferred says how the action followed from the fields when none was given.
	Inferred string `json:"inferred,omitempty"`
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
	// compiled on first use: a regexp compiled at init costs every applet's start-up
	planIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^plan-(\d{3,})$`) })
)

// renderPlan and parsePlan convert between the applet's result type and core/plans, which
// owns the file format (and keeps hand edits: see update_step).
func renderPlan(d *PlanDoc) string { return string(toStore(d).Markdown()) }

func toStore(d *PlanDoc) *plans.Plan {
	sp := &plans.Plan{ID: d.ID, Title: oneLine(d.Title), Status: plans.Status(d.Status), Created: d.Created}
	for _, s := range d.Steps {
		sp.Steps = append(sp.Steps, plans.Step{Description: oneLine(s.Description), Notes: noteLines(s.Notes), Status: plans.StepStatus(s.Status)})
	}
	return sp
}

func fromStore(sp *plans.Plan, path string) *PlanDoc {
	d := &PlanDoc{ID: sp.ID, Title: sp.Title, Status: string(sp.Status), Created: sp.Created, Path: path, Steps: []PlanItem{}}
	for _, s := range sp.Steps {
		d.Steps = append(d.Steps, PlanItem{Description: s.Description, Notes: s.Notes, Status: string(s.Status)})
	}
	return d
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// noteLines is a step's notes as the plan file keeps them: each line trimmed, blank
// lines left out.
func noteLines(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// planError turns a core/plans error into a tool error naming the file.
func planError(err error, path string) error {
	var pe *plans.ParseError
	if errors.As(err, &pe) {
		pe.File = path
		return core.Errorf(core.CodeInvalidParams, "%s; agentbox will not rewrite a plan it cannot read", pe.Error())
	}
	var ie *plans.InputError
	if errors.As(err, &ie) {
		return core.Errorf(core.CodeInvalidParams, "%s", ie.Msg)
	}
	return core.AsError(err)
}

// parsePlan reads a plan file; an error names the file and the line that does not fit.
func parsePlan(text, path string) (*PlanDoc, error) {
	sp, err := plans.Parse([]byte(text))
	if err != nil {
		return nil, planError(err, path)
	}
	return fromStore(sp, path), nil
}

func (p *Plan) planPath(env *core.Env, id string) (core.Path, error) {
	if !planIDPattern().MatchString(id) {
		return core.Path{}, core.Errorf(core.CodeInvalidParams, "plan_id %q is not a plan id like plan-001; run plan list to see the plans", id)
	}
	return env.Resolve(filepath.Join(env.WS.Roots[0], PlanDir, id+".md"))
}

func (p *Plan) load(env *core.Env, path core.Path) (*PlanDoc, error) {
	data, err := p.raw(env, path)
	if err != nil {
		return nil, err
	}
	return parsePlan(string(data), path.Abs)
}

func (p *Plan) raw(env *core.Env, path core.Path) ([]byte, error) {
	// A plan file may be a link to any file of the workspace: reading it is decided
	// like any read, so a read-denied file's content never shows as a plan.
	if _, err := env.Authorize(context.Background(), core.Request{Capability: core.CapFSRead, Target: path.Abs, Summary: "read the plan " + path.Abs}); err != nil {
		return nil, err
	}
	f, _, err := env.WS.OpenRegular(path)
	if err != nil {
		if core.AsError(err).Code == core.CodeNotFound {
			return nil, core.Errorf(core.CodeNotFound, "no plan %s; run plan list to see the plans", strings.TrimSuffix(filepath.Base(path.Abs), ".md"))
		}
		return nil, err
	}
	defer f.Close()
	data, err := readLimited(f, planReadMaxBytes)
	if err != nil && core.AsError(err).Code == core.CodeTooLarge {
		return nil, core.Errorf(core.CodeTooLarge, "the plan %s is larger than %d MiB, more than a plan is read; shorten it by hand, or write a new plan", path.Abs, planReadMaxBytes>>20)
	}
	return data, err
}

// A plan agentbox writes is at most planMaxBytes (it comes back whole in the result,
// which must fit an envelope under 1 MB); one edited by hand is read up to
// planReadMaxBytes.
const (
	planMaxBytes     = 256 << 10
	planReadMaxBytes = 4 << 20
)

// Run implements core.Command.
func (p *Plan) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	inferred, err := p.settleAction()
	if err != nil {
		return nil, err
	}
	res, err := p.run(ctx, env)
	if err == nil && inferred != "" {
		if r, ok := res.Data.(PlanResult); ok {
			r.Inferred = inferred
			res.Data = r
		}
	}
	return res, err
}

// planFields are the fields each action uses; any other field given is an error, never
// silently dropped.
var planFields = map[string][]string{
	"create": {"title", "steps", "status", "plan_id"}, "update": {"title", "steps", "status", "plan_id"},
	"update_step": {"plan_id", "step", "status"}, "read": {"plan_id"}, "list": {},
}

// settleAction infers the action when none is given (saying how), and refuses fields
// the action does not use.
func (p *Plan) settleAction() (string, error) {
	given := map[string]bool{"plan_id": p.PlanID != "", "title": p.Title != "", "steps": len(p.Steps) > 0, "status": p.Status != "", "step": p.Step != 0}
	inferred := ""
	if p.Action == "" {
		switch {
		case given["title"] || given["steps"]:
			p.Action, inferred = "create", "action create, from title and steps"
			if given["plan_id"] {
				p.Action, inferred = "update", "action update, from plan_id with title and steps"
			}
		case given["plan_id"] && (given["step"] || given["status"]):
			p.Action, inferred = "update_step", "action update_step, from plan_id with step and status"
		case given["plan_id"]:
			p.Action, inferred = "read", "action read, from plan_id alone"
		case given["step"] || given["status"]:
			return "", core.Errorf(core.CodeInvalidParams, "step and status update a plan's step, which needs plan_id (and action update_step); run plan with action list to see the plans")
		default:
			p.Action = "list"
		}
	}
	for _, f := range []string{"plan_id", "title", "steps", "status", "step"} {
		if given[f] && !slices.Contains(planFields[p.Action], f) {
			return "", core.Errorf(core.CodeInvalidParams, "plan %s does not use %s; remove it, or choose the action that does (create/update: title, steps, status; update_step: plan_id, step, status; read: plan_id)", p.Action, f)
		}
	}
	return inferred, nil
}

func (p *Plan) run(ctx context.Context, env *core.Env) (*core.Result, error) {
	dir, err := env.Resolve(filepath.Join(env.WS.Roots[0], PlanDir))
	if err != nil {
		return nil, err
	}
	if p.Status != "" && !plans.Status(p.Status).Valid() && !plans.StepStatus(p.Status).Valid() {
		return nil, core.Errorf(core.CodeInvalidParams, "unknown status %q: a plan is draft, active, completed or abandoned; a step is pending, in_progress, completed or skipped", p.Status)
	}
	if p.Action == "create" && p.PlanID != "" {
		// Reference 000's markdown_plan: create with a plan_id overwrites that plan.
		p.Action = "update"
	}
	switch p.Action {
	case "create", "update":
		return p.write(ctx, env, dir)
	case "update_step":
		return p.updateStep(ctx, env)
	case "read":
		return p.read(env)
	default:
		return p.list(env, dir)
	}
}

// write creates a plan (the next id in dir) or overwrites one (update).
func (p *Plan) write(ctx context.Context, env *core.Env, dir core.Path) (*core.Result, error) {
	if strings.TrimSpace(p.Title) == "" || len(p.Steps) == 0 {
		return nil, core.Errorf(core.CodeInvalidParams, "plan %s needs a title and at least one step", p.Action)
	}
	status := p.Status
	if status == "" {
		status = "draft"
	}
	if !plans.Status(status).Valid() {
		return nil, core.Errorf(core.CodeInvalidParams, "status %q is a step status; a plan's status is draft, active, completed or abandoned", status)
	}
	doc := &PlanDoc{Title: oneLine(p.Title), Status: status, Created: env.Now().Format("2006-01-02")}
	for _, s := range p.Steps {
		// As the file will hold them (a step is one line), so the result is what is saved.
		doc.Steps = append(doc.Steps, PlanItem{Description: oneLine(s.Description), Notes: noteLines(s.Notes), Status: "pending"})
	}
	if n := len(renderPlan(doc)); n > planMaxBytes {
		return nil, core.Errorf(core.CodeTooLarge, "the plan would be %d bytes, more than %d; a plan is a list of steps: shorten the descriptions and notes (details belong in files the steps name)", n, planMaxBytes)
	}
	// create locks the folder (to allocate the next id); update locks the plan itself,
	// the same lock update_step takes. The gate sees that target before anything,
	// the folder included, is created.
	lockOn, summary := dir, fmt.Sprintf("create a plan in %s (%s)", dir.Abs, doc.Title)
	if p.Action == "update" {
		var err error
		if lockOn, err = p.planPath(env, p.PlanID); err != nil {
			return nil, err
		}
		summary = fmt.Sprintf("overwrite plan %s (%s)", lockOn.Abs, doc.Title)
	}
	decision, err := env.Authorize(ctx, core.Request{Capability: core.CapFSWrite, Target: lockOn.Abs, Summary: summary})
	if err != nil {
		return nil, err
	}
	if err := env.WS.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	err = env.Session.WithPathLock(ctx, lockOn.Abs, func() error {
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
			keepProgress(doc, old, p.Status == "")
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
	return &core.Result{Data: PlanResult{Action: p.Action, Plan: doc, Markdown: renderPlan(doc)}, Meta: map[string]any{"decision": decision}}, nil
}

// keepProgress carries an overwritten plan's progress into its new version: a step
// whose description the old plan had keeps its status (and its notes, where the new
// step brings none), and the plan its status unless the update gives one. An update
// that adds a step to a half-done plan does not reset it.
func keepProgress(doc, old *PlanDoc, keepStatus bool) {
	used := make([]bool, len(old.Steps))
	for i := range doc.Steps {
		for j, o := range old.Steps {
			if !used[j] && o.Description == doc.Steps[i].Description {
				used[j] = true
				doc.Steps[i].Status = o.Status
				if doc.Steps[i].Notes == "" {
					doc.Steps[i].Notes = o.Notes
				}
				break
			}
		}
	}
	if keepStatus {
		doc.Status = old.Status
	}
}

// updateStep sets one step's status, changing only its marker in the file.
func (p *Plan) updateStep(ctx context.Context, env *core.Env) (*core.Result, error) {
	if !plans.StepStatus(p.Status).Valid() {
		return nil, core.Errorf(core.CodeInvalidParams, "update_step needs status pending, in_progress, completed or skipped")
	}
	path, err := p.planPath(env, p.PlanID)
	if err != nil {
		return nil, err
	}
	decision, err := env.Authorize(ctx, core.Request{Capability: core.CapFSWrite, Target: path.Abs, Summary: fmt.Sprintf("set step %d of %s to %s", p.Step, path.Abs, p.Status)})
	if err != nil {
		return nil, err
	}
	var doc *PlanDoc
	var markdown string
	err = env.Session.WithPathLock(ctx, path.Abs, func() error {
		data, err := p.raw(env, path)
		if err != nil {
			return err
		}
		// Only the step's marker changes; every other byte of a hand-edited plan stays.
		out, sp, err := plans.SetStep(data, p.Step, plans.StepStatus(p.Status))
		if err != nil {
			return planError(err, path.Abs)
		}
		doc, markdown = fromStore(sp, path.Abs), string(out)
		_, err = env.WS.WriteAtomic(path, out, core.WriteOptions{})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &core.Result{Data: PlanResult{Action: p.Action, Plan: doc, Markdown: markdown}, Meta: map[string]any{"decision": decision}}, nil
}

// read returns one plan, parsed and as its file has it.
func (p *Plan) read(env *core.Env) (*core.Result, error) {
	path, err := p.planPath(env, p.PlanID)
	if err != nil {
		return nil, err
	}
	doc, err := p.load(env, path)
	if err != nil {
		return nil, err
	}
	data, err := p.raw(env, path)
	if err != nil {
		return nil, err
	}
	return &core.Result{Data: PlanResult{Action: p.Action, Plan: doc, Markdown: string(data)}}, nil
}

// list summarises every plan in dir with its progress.
func (p *Plan) list(env *core.Env, dir core.Path) (*core.Result, error) {
	res := PlanResult{Action: "list", Plans: []PlanSummary{}}
	entries, err := env.WS.ReadDir(dir)
	if err != nil && core.AsError(err).Code != core.CodeNotFound {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if id := strings.TrimSuffix(e.Name(), ".md"); planIDPattern().MatchString(id) && strings.HasSuffix(e.Name(), ".md") {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		path, err := p.planPath(env, id)
		var d *PlanDoc
		if err == nil {
			d, err = p.load(env, path)
		}
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

func nextPlanID(env *core.Env, dir core.Path) string {
	highest := 0
	entries, _ := env.WS.ReadDir(dir)
	for _, e := range entries {
		id, isMD := strings.CutSuffix(e.Name(), ".md")
		if m := planIDPattern().FindStringSubmatch(id); m != nil && isMD {
			if n, _ := strconv.Atoi(m[1]); n > highest {
				highest = n
			}
		}
	}
	return fmt.Sprintf("plan-%03d", highest+1)
}

// progress is reference 000's breakdown: "2 completed, 1 in progress, 3 pending".
func progress(d *PlanDoc) string {
	if len(d.Steps) == 0 {
		return "no steps"
	}
	return toStore(d).Progress().String()
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
