// Package plans is the format of the durable markdown plans: one file per plan, plan-NNN.md, in a
// directory the caller chooses (agentbox uses <root>/.agentbox/plans). A plan has a title,
// an id, a status (draft, active, completed, abandoned), a creation date and numbered
// steps, each with a checkbox marker ([ ] pending, [~] in progress, [x] completed,
// [-] skipped) and optional notes:
//
//	# Refactor authentication module
//
//	- **ID**: plan-001
//	- **Status**: active
//	- **Created**: 2025-01-31
//
//	## Steps
//
//	1. [x] Extract auth logic into separate module
//	   Notes: Watch out for circular dependencies
//	2. [ ] Add unit tests for token validation
//
// The files are meant to be read and edited by people too, so the parser accepts what a
// person is likely to write (list-item metadata, blank lines, prose between sections), and
// SetStep changes only the one marker in place, keeping every other byte of a hand-edited
// file. What it cannot understand it reports with the line number and never rewrites.
//
// The package holds no files itself: the plan applet reads and writes through the
// workspace (confinement, a lock per plan, atomic renames), so this is the format alone.
package plans

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// InputError is a request the format refuses (a step out of range, a bad status).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// Status is a plan's status.
type Status string

// Plan statuses.
const (
	Draft     Status = "draft"
	Active    Status = "active"
	Completed Status = "completed"
	Abandoned Status = "abandoned"
)

// Statuses lists the valid plan statuses.
var Statuses = []Status{Draft, Active, Completed, Abandoned}

// StepStatus is a step's status.
type StepStatus string

// Step statuses.
const (
	Pending    StepStatus = "pending"
	InProgress StepStatus = "in_progress"
	Done       StepStatus = "completed"
	Skipped    StepStatus = "skipped"
)

// StepStatuses lists the valid step statuses.
var StepStatuses = []StepStatus{Pending, InProgress, Done, Skipped}

var markers = map[StepStatus]string{Pending: "[ ]", InProgress: "[~]", Done: "[x]", Skipped: "[-]"}

func statusOfMarker(m string) (StepStatus, bool) {
	switch m {
	case "[ ]", "[]":
		return Pending, true
	case "[~]":
		return InProgress, true
	case "[x]", "[X]":
		return Done, true
	case "[-]":
		return Skipped, true
	}
	return "", false
}

// Marker returns the checkbox for a step status.
func (s StepStatus) Marker() string { return markers[s] }

// Valid reports whether s is a known step status.
func (s StepStatus) Valid() bool { _, ok := markers[s]; return ok }

// Valid reports whether s is a known plan status.
func (s Status) Valid() bool {
	for _, v := range Statuses {
		if v == s {
			return true
		}
	}
	return false
}

// Step is one numbered step.
type Step struct {
	Description string     `json:"description"`
	Notes       string     `json:"notes,omitempty"`
	Status      StepStatus `json:"status"`
	line        int        // where the step's line is in the parsed file (1-based)
	markerAt    int        // byte offset of the marker in the parsed file
}

// Plan is a parsed plan file.
type Plan struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Status  Status `json:"status"`
	Created string `json:"created"` // as written, normally YYYY-MM-DD
	Steps   []Step `json:"steps"`
}

// ParseError is a plan file that does not parse.
type ParseError struct {
	File string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	name := e.File
	if name == "" {
		name = "plan"
	}
	return fmt.Sprintf("%s:%d: %s; fix the line by hand (or overwrite the plan with the update action)", name, e.Line, e.Msg)
}

// Parse reads a plan file.
func Parse(data []byte) (*Plan, error) {
	p := &Plan{}
	n, off := 0, 0
	inSteps := false
	var last *Step
	fail := func(format string, args ...any) error {
		return &ParseError{Line: n, Msg: fmt.Sprintf(format, args...)}
	}
	for _, raw := range strings.SplitAfter(string(data), "\n") {
		if raw == "" {
			break
		}
		n++
		lineStart := off
		off += len(raw)
		l := strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r")
		if n == 1 {
			l = strings.TrimPrefix(l, "\ufeff") // an editor's BOM; offsets stay the file's
		}
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			continue
		case p.Title == "" && strings.HasPrefix(t, "# "):
			p.Title = strings.TrimSpace(t[2:])
			if p.Title == "" {
				return nil, fail("the title heading is empty")
			}
			continue
		case p.Title == "":
			return nil, fail("expected the title heading (`# Title`) first, got %q", clip(t))
		}
		if key, val, ok := metadata(t); ok && !inSteps {
			switch key {
			case "id":
				p.ID = val
			case "status":
				p.Status = Status(strings.ToLower(val))
				if !p.Status.Valid() {
					return nil, fail("unknown plan status %q (want draft, active, completed or abandoned)", val)
				}
			case "created":
				p.Created = val
			}
			continue
		}
		if inSteps && last != nil && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
			// Indented under a step is the step's notes, whatever it looks like (a note
			// line reading "2. [x] done" or "## Steps" is still a note).
			addNote(last, t)
			continue
		}
		if strings.HasPrefix(t, "#") {
			inSteps = strings.EqualFold(strings.TrimSpace(strings.TrimLeft(t, "#")), "steps")
			last = nil
			continue
		}
		if !inSteps {
			continue // prose a person added between the header and the steps
		}
		if num, rest, ok := numbered(t); ok {
			want := len(p.Steps) + 1
			if num != want {
				return nil, fail("step numbered %d where step %d was expected; renumber the steps 1, 2, 3, …", num, want)
			}
			if len(rest) < 3 || rest[0] != '[' || !strings.Contains(rest[:min(len(rest), 4)], "]") {
				return nil, fail("step %d has no checkbox; write it as `%d. [ ] description` ([ ] pending, [~] in progress, [x] completed, [-] skipped)", num, num)
			}
			end := strings.IndexByte(rest, ']') + 1
			st, ok := statusOfMarker(rest[:end])
			if !ok {
				return nil, fail("step %d has an unknown checkbox %q; use [ ] pending, [~] in progress, [x] completed or [-] skipped", num, rest[:end])
			}
			desc := strings.TrimSpace(rest[end:])
			if desc == "" {
				return nil, fail("step %d has no description", num)
			}
			p.Steps = append(p.Steps, Step{Description: desc, Status: st, line: n,
				markerAt: lineStart + strings.Index(l, rest[:end])})
			last = &p.Steps[len(p.Steps)-1]
			continue
		}
		return nil, fail("unexpected line in the steps section: %q (steps are `N. [ ] description`, notes are indented under their step)", clip(t))
	}
	if p.Title == "" {
		return nil, &ParseError{Line: max(n, 1), Msg: "the file has no title heading (`# Title`)"}
	}
	if p.ID == "" {
		return nil, &ParseError{Line: max(n, 1), Msg: "the file has no `**ID:** plan-NNN` line"}
	}
	if p.Status == "" {
		p.Status = Draft
	}
	return p, nil
}

// addNote adds a note line (indented under step s) to its notes.
func addNote(s *Step, t string) {
	note := strings.TrimPrefix(t, "- ")
	if k, v, ok := strings.Cut(note, ":"); ok && strings.EqualFold(strings.Trim(k, "* "), "notes") {
		note = strings.TrimSpace(strings.TrimPrefix(v, "**"))
	}
	if s.Notes != "" {
		s.Notes += "\n"
	}
	s.Notes += note
}

// metadata recognises "**ID:** x", "**ID**: x", "- **ID:** x", "ID: x".
func metadata(t string) (key, val string, ok bool) {
	t = strings.TrimPrefix(t, "- ")
	t = strings.TrimPrefix(t, "* ")
	k, v, found := strings.Cut(t, ":")
	if !found {
		return "", "", false
	}
	k = strings.ToLower(strings.Trim(k, "* "))
	v = strings.TrimSpace(strings.TrimPrefix(v, "**"))
	switch k {
	case "id", "status", "created":
		return k, v, true
	}
	return "", "", false
}

func numbered(t string) (int, string, bool) {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i > 6 || i >= len(t) || (t[i] != '.' && t[i] != ')') {
		return 0, "", false
	}
	n, _ := strconv.Atoi(t[:i])
	return n, strings.TrimSpace(t[i+1:]), true
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// SetStep returns data with step n's (1-based) marker changed to status and every other
// byte kept, and the plan it now holds. data must parse; n must exist.
func SetStep(data []byte, n int, status StepStatus) ([]byte, *Plan, error) {
	if !status.Valid() {
		return nil, nil, &InputError{Msg: fmt.Sprintf("step status %q is not one of pending, in_progress, completed, skipped", status)}
	}
	p, err := Parse(data)
	if err != nil {
		return nil, nil, err
	}
	if n < 1 || n > len(p.Steps) {
		return nil, p, &InputError{Msg: fmt.Sprintf("%s has %d steps; step %d does not exist (steps are numbered from 1)", p.ID, len(p.Steps), n)}
	}
	st := &p.Steps[n-1]
	at := st.markerAt
	end := at + bytes.IndexByte(data[at:], ']') + 1
	out := make([]byte, 0, len(data)+1)
	out = append(out, data[:at]...)
	out = append(out, status.Marker()...)
	out = append(out, data[end:]...)
	st.Status = status
	return out, p, nil
}

// Markdown renders the plan in the canonical format.
func (p *Plan) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n- **ID**: %s\n- **Status**: %s\n- **Created**: %s\n\n## Steps\n\n", p.Title, p.ID, p.Status, p.Created)
	for i, s := range p.Steps {
		st := s.Status
		if st == "" {
			st = Pending
		}
		fmt.Fprintf(&b, "%d. %s %s\n", i+1, st.Marker(), s.Description)
		if s.Notes != "" {
			for j, nl := range strings.Split(s.Notes, "\n") {
				if j == 0 {
					fmt.Fprintf(&b, "   Notes: %s\n", nl)
				} else {
					fmt.Fprintf(&b, "   %s\n", nl)
				}
			}
		}
	}
	return b.Bytes()
}

// Counts is a plan's progress.
type Counts struct {
	Total      int `json:"total"`
	Completed  int `json:"completed"`
	InProgress int `json:"in_progress"`
	Pending    int `json:"pending"`
	Skipped    int `json:"skipped"`
}

// Progress counts the steps by status.
func (p *Plan) Progress() Counts {
	c := Counts{Total: len(p.Steps)}
	for _, s := range p.Steps {
		switch s.Status {
		case Done:
			c.Completed++
		case InProgress:
			c.InProgress++
		case Skipped:
			c.Skipped++
		default:
			c.Pending++
		}
	}
	return c
}

// String is "2/6 completed" when all steps share a state class, else a breakdown like
// "2 completed, 1 in progress, 3 pending".
func (c Counts) String() string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(c.Completed, "completed")
	add(c.InProgress, "in progress")
	add(c.Pending, "pending")
	add(c.Skipped, "skipped")
	if len(parts) <= 1 {
		return fmt.Sprintf("%d/%d completed", c.Completed, c.Total)
	}
	return strings.Join(parts, ", ")
}
