// Package todo is the model of an agent's todo list (reference 002's locked `todo` tool):
// a short ordered list of items, each pending, in progress or completed, replaced as a
// whole on every write. Validation catches what models get wrong — duplicate items, two
// things in progress at once, unknown statuses — with messages that say how to fix the
// call; Count tallies the items by status (the todo applet renders the checklist).
package todo

import (
	"fmt"
	"strings"
)

// Statuses.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Completed  = "completed"
)

// MaxItems bounds a list: a todo list is a working checklist, not a backlog.
const MaxItems = 200

// Item is one entry.
type Item struct {
	ID         string `json:"id,omitempty"`
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"active_form,omitempty"` // "Running the tests", shown while in progress
}

// Counts is how many items are in each status.
type Counts struct {
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
}

// Count tallies items by status.
func Count(items []Item) Counts {
	var c Counts
	for _, it := range items {
		switch it.Status {
		case Pending:
			c.Pending++
		case InProgress:
			c.InProgress++
		case Completed:
			c.Completed++
		}
	}
	return c
}

// ValidationError is a list that was refused; Index is the offending item (0-based).
type ValidationError struct {
	Index int
	Msg   string
}

func (e *ValidationError) Error() string { return e.Msg }

// Validate checks a whole new list: non-empty one-line contents, known statuses, unique
// ids and contents, and at most one item in progress unless allowMulti.
func Validate(items []Item, allowMulti bool) error {
	if len(items) > MaxItems {
		return &ValidationError{Index: MaxItems, Msg: fmt.Sprintf("the list has %d items, more than %d; keep the list to the work at hand and merge small items", len(items), MaxItems)}
	}
	ids, contents := map[string]int{}, map[string]int{}
	inProgress := -1
	for i, it := range items {
		content := strings.TrimSpace(it.Content)
		switch {
		case content == "":
			return &ValidationError{i, fmt.Sprintf("todos[%d] has no content; say what to do, e.g. \"Run the tests\"", i)}
		case strings.ContainsAny(content, "\r\n"):
			return &ValidationError{i, fmt.Sprintf("todos[%d]'s content must be one line", i)}
		}
		switch it.Status {
		case Pending, InProgress, Completed:
		default:
			return &ValidationError{i, fmt.Sprintf("todos[%d] has status %q; use pending, in_progress or completed", i, it.Status)}
		}
		if it.ID != "" {
			if j, dup := ids[it.ID]; dup {
				return &ValidationError{i, fmt.Sprintf("todos[%d] and todos[%d] share the id %q; ids must be unique", j, i, it.ID)}
			}
			ids[it.ID] = i
		}
		if j, dup := contents[content]; dup {
			return &ValidationError{i, fmt.Sprintf("todos[%d] and todos[%d] are the same item (%q); merge them", j, i, content)}
		}
		contents[content] = i
		if it.Status == InProgress {
			if inProgress >= 0 && !allowMulti {
				return &ValidationError{i, fmt.Sprintf("todos[%d] and todos[%d] are both in_progress; keep one in progress at a time (mark the other pending or completed), or set allow_multiple_in_progress", inProgress, i)}
			}
			inProgress = i
		}
	}
	return nil
}
