package applets

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

// FuzzParsePlan: the plan parser never panics, and whatever it accepts renders back to a
// file it parses to the same plan.
func FuzzParsePlan(f *testing.F) {
	f.Add("# T\n\n- **ID**: plan-001\n- **Status**: draft\n- **Created**: 2026-01-01\n\n## Steps\n\n1. [ ] a\n   Notes: n\n2. [x] b\n")
	f.Add("# T\n- **ID**: plan-002\n- **Status**: active\n## Steps\n1. [~] only\n")
	f.Add("not a plan")
	f.Add("# T\n- **ID**: x\n- **Status**: weird\n## Steps\n")
	f.Fuzz(func(t *testing.T, text string) {
		d, err := parsePlan(text, "plan.md")
		if err != nil {
			if !strings.Contains(err.Error(), "plan.md") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		again, err := parsePlan(renderPlan(d), "plan.md")
		if err != nil {
			t.Fatalf("a rendered plan does not parse: %v\n%s", err, renderPlan(d))
		}
		if renderPlan(again) != renderPlan(d) {
			t.Fatalf("render/parse is not stable:\n%s\n---\n%s", renderPlan(d), renderPlan(again))
		}
	})
}

func TestPlanProgress(t *testing.T) {
	d := &PlanDoc{Steps: []PlanItem{{Status: "completed"}, {Status: "completed"}, {Status: "in_progress"}, {Status: "pending"}, {Status: "pending"}, {Status: "pending"}}}
	if got := progress(d); got != "2 completed, 1 in progress, 3 pending" {
		t.Errorf("progress = %q", got)
	}
}

// Nothing silently ignored (issue 17): without an action, the fields decide it and the
// result says so; a field the action does not use is an error naming it.
func TestPlanActionInferred(t *testing.T) {
	env := coretest.Env(t, "plan")
	call := func(req string) (PlanResult, *core.Error) {
		res, err := coretest.Call(t, env, &Plan{}, req)
		if err != nil {
			return PlanResult{}, err
		}
		return res.Data.(PlanResult), nil
	}
	r, err := call(`{"title":"Ship it","steps":[{"description":"one"},{"description":"two"}]}`)
	if err != nil || r.Action != "create" || r.Plan == nil || r.Plan.ID != "plan-001" || !strings.Contains(r.Inferred, "create") {
		t.Fatalf("title + steps: %+v %v", r, err)
	}
	if r, err := call(`{"plan_id":"plan-001","step":1,"status":"completed"}`); err != nil || r.Action != "update_step" || r.Plan.Steps[0].Status != "completed" || r.Inferred == "" {
		t.Errorf("plan_id + step + status: %+v %v", r, err)
	}
	if r, err := call(`{"plan_id":"plan-001"}`); err != nil || r.Action != "read" || r.Inferred == "" {
		t.Errorf("plan_id alone: %+v %v", r, err)
	}
	if r, err := call(`{}`); err != nil || r.Action != "list" || r.Inferred != "" {
		t.Errorf("nothing: %+v %v", r, err)
	}
	for req, field := range map[string]string{
		`{"action":"list","title":"x"}`:                                    "title",
		`{"action":"read","plan_id":"plan-001","step":2}`:                  "step",
		`{"plan_id":"plan-001","step":1,"status":"completed","title":"t"}`: "title",
		`{"step":1,"status":"completed"}`:                                  "plan_id",
	} {
		if _, err := call(req); err == nil || err.Code != core.CodeInvalidParams || !strings.Contains(err.Message, field) {
			t.Errorf("%s: %v, want invalid_params naming %s", req, err, field)
		}
	}
}

// Plan's lock lives in agentbox's state folder: creating and updating a plan leaves
// nothing but the plan in the user's tree (issue 21: it left .NAME.lock files).
func TestPlanLeavesNoLockFile(t *testing.T) {
	env := coretest.Env(t, "plan")
	for _, req := range []string{
		`{"action":"create","title":"Ship it","steps":[{"description":"one"}]}`,
		`{"action":"update_step","plan_id":"plan-001","step":1,"status":"completed"}`,
		`{"action":"update","plan_id":"plan-001","title":"Ship it now","steps":[{"description":"one"}]}`,
	} {
		if _, err := coretest.Call(t, env, &Plan{}, req); err != nil {
			t.Fatalf("%s: %v", req, err)
		}
	}
	var files []string
	_ = filepath.WalkDir(coretest.Root(env), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(coretest.Root(env), p)
			files = append(files, rel)
		}
		return nil
	})
	if len(files) != 1 || !strings.HasSuffix(files[0], "plan-001.md") {
		t.Errorf("the workspace holds %v, want only the plan", files)
	}
}

// TestPlanCreateReturnsWhatItSaves: a step whose description or notes hold line breaks
// and lines that look like steps or headings is saved so that it reads back as returned
// (a red team's notes made the saved plan unreadable, and a description came back
// unlike the file).
func TestPlanCreateReturnsWhatItSaves(t *testing.T) {
	env := coretest.Env(t, "plan")
	res, err := coretest.Call(t, env, &Plan{}, `{"action":"create","title":"T\nx","steps":[{"description":"s1\n2. [x] fake step","notes":"n1\n2. [x] injected\n\n## Steps\n  3. [~] x"},{"description":"two"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	created := res.Data.(PlanResult).Plan
	res, err = coretest.Call(t, env, &Plan{}, `{"action":"read","plan_id":"plan-001"}`)
	if err != nil {
		t.Fatalf("the saved plan cannot be read: %v", err)
	}
	read := res.Data.(PlanResult).Plan
	if len(read.Steps) != 2 || read.Title != created.Title {
		t.Fatalf("read back %+v, created %+v", read, created)
	}
	for i := range read.Steps {
		if read.Steps[i] != created.Steps[i] {
			t.Errorf("step %d: created %+v, read back %+v", i+1, created.Steps[i], read.Steps[i])
		}
	}
}

// TestPlanUpdateKeepsProgress: overwriting a plan to add a step keeps the status of the
// steps it already had and the plan's status (a red team's update reset a half-done plan
// to pending and draft); a plan too large for an envelope is refused when written, and
// a todo list likewise.
func TestPlanUpdateKeepsProgress(t *testing.T) {
	env := coretest.Env(t, "plan")
	for _, req := range []string{
		`{"action":"create","title":"T","status":"active","steps":[{"description":"one","notes":"n"},{"description":"two"}]}`,
		`{"action":"update_step","plan_id":"plan-001","step":1,"status":"completed"}`,
	} {
		if _, err := coretest.Call(t, env, &Plan{}, req); err != nil {
			t.Fatal(err)
		}
	}
	res, err := coretest.Call(t, env, &Plan{}, `{"action":"update","plan_id":"plan-001","title":"T","steps":[{"description":"zero"},{"description":"one"},{"description":"two"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Data.(PlanResult).Plan
	if d.Status != "active" || d.Steps[0].Status != "pending" || d.Steps[1].Status != "completed" || d.Steps[1].Notes != "n" || d.Steps[2].Status != "pending" {
		t.Fatalf("progress not kept: %+v", d)
	}
	big := `{"action":"create","title":"Big","steps":[{"description":"` + strings.Repeat("x", 300<<10) + `"}]}`
	if _, err := coretest.Call(t, env, &Plan{}, big); err == nil || err.Code != core.CodeTooLarge {
		t.Errorf("a 300 KB plan: %v", err)
	}
	items := make([]string, 100)
	for i := range items {
		items[i] = `{"content":"` + strings.Repeat("é", 1500) + string(rune('a'+i%26)) + strings.Repeat("z", i) + `","status":"pending"}`
	}
	if _, err := coretest.Call(t, env, &Todo{}, `{"todos":[`+strings.Join(items, ",")+`]}`); err == nil || err.Code != core.CodeTooLarge {
		t.Errorf("a 300 KB todo list: %v", err)
	}
}
