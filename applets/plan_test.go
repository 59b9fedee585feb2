package applets

import (
	"strings"
	"testing"
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
