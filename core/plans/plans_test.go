package plans

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestRenderAndRoundTrip(t *testing.T) {
	p := &Plan{Title: "Refactor auth", ID: "plan-001", Status: Active, Created: "2025-01-31", Steps: []Step{
		{Description: "Extract module", Notes: "Watch cycles\nsecond line", Status: Pending},
		{Description: "Add tests", Status: Pending},
	}}
	data := p.Markdown()
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
}

func TestSetStepKeepsHandEdits(t *testing.T) {
	hand := "# Ship it\r\n\r\n- **ID**: plan-001\r\n- **Status**: active\r\n- **Created**: 2024-12-01\r\n\r\nSome prose a person wrote.\r\n\r\n## Steps\r\n\r\n1. [ ] first\r\n   - notes: keep me\r\n2) [X] second\r\n"
	out, p, err := SetStep([]byte(hand), 1, InProgress)
	if err != nil {
		t.Fatal(err)
	}
	if p.Steps[0].Status != InProgress || p.Steps[0].Notes != "keep me" || p.Steps[1].Status != Done {
		t.Fatalf("%+v", p.Steps)
	}
	if want := strings.Replace(hand, "1. [ ]", "1. [~]", 1); string(out) != want {
		t.Fatalf("got %q\nwant %q", out, want)
	}
	var ie *InputError
	if _, _, err := SetStep([]byte(hand), 3, Done); !errors.As(err, &ie) || !strings.Contains(err.Error(), "has 2 steps") {
		t.Errorf("out of range: %v", err)
	}
	if _, _, err := SetStep([]byte(hand), 1, "done"); !errors.As(err, &ie) {
		t.Errorf("bad status: %v", err)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	cases := map[string]string{
		"no title here\n": ":1: expected the title",
		"# T\n\n**ID:** plan-001\n\n## Steps\n\n1. [?] what\n":          ":7: step 1 has an unknown checkbox",
		"# T\n\n**ID:** plan-001\n\n## Steps\n\n1. [ ] a\n3. [ ] c\n":   ":8: step numbered 3",
		"# T\n\n**ID:** plan-001\n**Status:** paused\n":                 ":4: unknown plan status",
		"# T\n\n**ID:** plan-001\n\n## Steps\n\n1. [ ] a\nstray text\n": ":8: unexpected line",
		"# T\n\n## Steps\n1. [ ] a\n":                                   "no `**ID:** plan-NNN`",
	}
	for content, want := range cases {
		_, err := Parse([]byte(content))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: err = %v, want a ParseError", content, err)
			continue
		}
		pe.File = "/w/.agentbox/plans/plan-001.md"
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "plan-001.md") {
			t.Errorf("%q: err = %v, want %q and the file", content, err, want)
		}
		if _, _, err := SetStep([]byte(content), 1, Done); !errors.As(err, &pe) {
			t.Errorf("%q: SetStep on a broken plan: %v", content, err)
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

// TestParseWithBOM: a plan an editor saved with a UTF-8 BOM reads (it was refused at its
// title), and a step's marker is still found where the file has it.
func TestParseWithBOM(t *testing.T) {
	data := []byte("\ufeff# T\n\n- **ID**: plan-001\n\n## Steps\n\n1. [ ] one\n")
	p, err := Parse(data)
	if err != nil || p.Title != "T" || len(p.Steps) != 1 {
		t.Fatalf("%+v %v", p, err)
	}
	if at := p.Steps[0].markerAt; string(data[at:at+3]) != "[ ]" {
		t.Errorf("marker at %d: %q", at, data[at:at+3])
	}
}
