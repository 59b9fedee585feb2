package plans

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func fixedStore(t *testing.T) *Store {
	return &Store{Dir: filepath.Join(t.TempDir(), ".agentbox", "plans"),
		Now: func() time.Time { return time.Date(2025, 1, 31, 12, 0, 0, 0, time.UTC) }}
}

func TestCreateRenderAndRoundTrip(t *testing.T) {
	s := fixedStore(t)
	p, err := s.Create("Refactor auth", []Step{
		{Description: "Extract module", Notes: "Watch cycles\nsecond line"},
		{Description: "Add tests"},
	}, Active)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir, "plan-001.md"))
	want := "# Refactor auth\n\n- **ID**: plan-001\n- **Status**: active\n- **Created**: 2025-01-31\n\n## Steps\n\n" +
		"1. [ ] Extract module\n   Notes: Watch cycles\n   second line\n2. [ ] Add tests\n"
	if string(data) != want {
		t.Fatalf("file:\n%s\nwant:\n%s", data, want)
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	back.Steps[0].line, back.Steps[0].markerAt, back.Steps[1].line, back.Steps[1].markerAt = 0, 0, 0, 0
	if !reflect.DeepEqual(back, p) {
		t.Fatalf("round trip:\n%+v\n%+v", back, p)
	}
	p2, _ := s.Create("Second", []Step{{Description: "x"}}, "")
	if p2.ID != "plan-002" || p2.Status != Draft {
		t.Fatalf("second plan %+v", p2)
	}
}

func TestIDsContinueAfterHighestAndIgnoreOtherFiles(t *testing.T) {
	s := fixedStore(t)
	os.MkdirAll(s.Dir, 0o755)
	os.WriteFile(filepath.Join(s.Dir, "plan-007.md"), []byte("# Old\n\n**ID:** plan-007\n\n## Steps\n\n1. [x] done\n"), 0o644)
	os.WriteFile(filepath.Join(s.Dir, "notes.md"), []byte("not a plan"), 0o644)
	os.WriteFile(filepath.Join(s.Dir, "plan-9.md"), []byte("not matched: two digits"), 0o644)
	p, err := s.Create("New", []Step{{Description: "a"}}, "")
	if err != nil || p.ID != "plan-008" {
		t.Fatalf("%+v %v", p, err)
	}
	list, err := s.List()
	if err != nil || len(list) != 2 || list[0].ID != "plan-007" || list[1].ID != "plan-008" {
		t.Fatalf("%+v %v", list, err)
	}
}

func TestUpdateStepKeepsHandEdits(t *testing.T) {
	s := fixedStore(t)
	os.MkdirAll(s.Dir, 0o755)
	hand := "# Ship it\r\n\r\n- **ID**: plan-001\r\n- **Status**: active\r\n- **Created**: 2024-12-01\r\n\r\nSome prose a person wrote.\r\n\r\n## Steps\r\n\r\n1. [ ] first\r\n   - notes: keep me\r\n2) [X] second\r\n"
	os.WriteFile(filepath.Join(s.Dir, "plan-001.md"), []byte(hand), 0o600)
	p, err := s.UpdateStep("1", 1, InProgress)
	if err != nil {
		t.Fatal(err)
	}
	if p.Steps[0].Status != InProgress || p.Steps[0].Notes != "keep me" || p.Steps[1].Status != Done {
		t.Fatalf("%+v", p.Steps)
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir, "plan-001.md"))
	if want := strings.Replace(hand, "1. [ ]", "1. [~]", 1); string(data) != want {
		t.Fatalf("got %q\nwant %q", data, want)
	}
	if fi, _ := os.Stat(filepath.Join(s.Dir, "plan-001.md")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode changed to %v", fi.Mode())
	}
	if _, err := s.UpdateStep("plan-001", 3, Done); err == nil || !strings.Contains(err.Error(), "has 2 steps") {
		t.Errorf("out of range: %v", err)
	}
}

func TestUpdateOverwritesKeepingCreated(t *testing.T) {
	s := fixedStore(t)
	s.Create("A", []Step{{Description: "x"}}, "")
	s.Now = func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) }
	p, err := s.Update("plan-001", "B", []Step{{Description: "y", Status: Done}, {Description: "z"}}, Completed)
	if err != nil || p.Created != "2025-01-31" || p.Title != "B" {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := s.Update("plan-002", "B", []Step{{Description: "y"}}, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("update missing: %v", err)
	}
}

func TestParseErrorsNameTheLineAndNothingIsRewritten(t *testing.T) {
	cases := map[string]string{
		"no title here\n": ":1: expected the title",
		"# T\n\n**ID:** plan-001\n\n## Steps\n\n1. [?] what\n":          ":7: step 1 has an unknown checkbox",
		"# T\n\n**ID:** plan-001\n\n## Steps\n\n1. [ ] a\n3. [ ] c\n":   ":8: step numbered 3",
		"# T\n\n**ID:** plan-001\n**Status:** paused\n":                 ":4: unknown plan status",
		"# T\n\n**ID:** plan-001\n\n## Steps\n\n1. [ ] a\nstray text\n": ":8: unexpected line",
		"# T\n\n## Steps\n1. [ ] a\n":                                   "no `**ID:** plan-NNN`",
	}
	s := fixedStore(t)
	os.MkdirAll(s.Dir, 0o755)
	for content, want := range cases {
		path := filepath.Join(s.Dir, "plan-001.md")
		os.WriteFile(path, []byte(content), 0o644)
		_, err := s.UpdateStep("plan-001", 1, Done)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "plan-001.md") {
			t.Errorf("%q: err = %v, want %q", content, err, want)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("%q was rewritten", content)
		}
		list, _ := s.List()
		if len(list) != 1 || list[0].Error == "" {
			t.Errorf("list does not report the broken file: %+v", list)
		}
	}
}

func TestProgressBreakdown(t *testing.T) {
	c := Counts{Total: 6, Completed: 2, InProgress: 1, Pending: 3}
	if c.String() != "2 completed, 1 in progress, 3 pending" {
		t.Error(c.String())
	}
	if c := (Counts{Total: 3, Pending: 3}); c.String() != "0/3 completed" {
		t.Error(c.String())
	}
	if c := (Counts{Total: 2, Completed: 2}); c.String() != "2/2 completed" {
		t.Error(c.String())
	}
}

func TestValidationAndIDs(t *testing.T) {
	s := fixedStore(t)
	for _, bad := range [][]Step{nil, {{Description: " "}}, {{Description: "a\nb"}}, {{Description: "a", Status: "done"}}} {
		if _, err := s.Create("T", bad, ""); err == nil {
			t.Errorf("accepted steps %+v", bad)
		}
	}
	if _, err := s.Create("T", []Step{{Description: "a"}}, "paused"); err == nil {
		t.Error("accepted a bad plan status")
	}
	for in, want := range map[string]string{"plan-001": "plan-001", "plan-1": "plan-001", "12": "plan-012", "plan-1234": "plan-1234"} {
		if got, err := NormalizeID(in); err != nil || got != want {
			t.Errorf("NormalizeID(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "plan-", "../x", "plan-0", "plan-a"} {
		if _, err := NormalizeID(in); err == nil {
			t.Errorf("NormalizeID(%q) accepted", in)
		}
	}
}

// TestMain lets the concurrency test re-run this binary as a worker process.
func TestMain(m *testing.M) {
	if dir := os.Getenv("PLANS_WORKER_DIR"); dir != "" {
		k, _ := strconv.Atoi(os.Getenv("PLANS_WORKER_K"))
		s := &Store{Dir: dir}
		// Each worker owns steps k and k+8 and cycles them through every status, ending
		// at completed; a lost update would leave some step not completed.
		for round := 0; round < 10; round++ {
			for _, st := range []StepStatus{InProgress, Skipped, Pending, Done} {
				for _, step := range []int{k, k + 8} {
					if _, err := s.UpdateStep("plan-001", step, st); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
				}
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestEightProcessesLoseNoUpdate(t *testing.T) {
	s := fixedStore(t)
	steps := make([]Step, 16)
	for i := range steps {
		steps[i] = Step{Description: fmt.Sprintf("step %d", i+1)}
	}
	if _, err := s.Create("Concurrent", steps, Active); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for k := 1; k <= 8; k++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PLANS_WORKER_DIR="+s.Dir, "PLANS_WORKER_K="+strconv.Itoa(k))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("worker: %v", err)
		}
	}
	p, _, err := s.Read("plan-001")
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range p.Steps {
		if st.Status != Done {
			t.Errorf("step %d is %s: an update was lost", i+1, st.Status)
		}
	}
}
