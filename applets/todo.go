package applets

import (
	"context"
	"fmt"

	"github.com/agentbox/agentbox/core"
)

// TodoItem is one entry of the session's todo list (reference 002's locked todo tool).
type TodoItem struct {
	ID         string `json:"id,omitempty" help:"optional stable id; unique within the list"`
	Content    string `json:"content" alias:"text,title" schema:"required,minLength=1" help:"what to do, imperative (\"Run the tests\")"`
	Status     string `json:"status" enum:"pending,in_progress,completed" schema:"required" help:"pending, in_progress or completed"`
	ActiveForm string `json:"active_form,omitempty" alias:"activeForm" help:"present-continuous form shown while in progress (\"Running the tests\")"`
}

// Todo replaces or reads the session's todo list.
type Todo struct {
	Todos                   []TodoItem `json:"todos" alias:"items" type:"json" schema:"maxItems=200" help:"the whole new list (it replaces the old one); omit to read the current list"`
	AllowMultipleInProgress bool       `json:"allow_multiple_in_progress" help:"allow more than one item in progress at once"`
}

// TodoList is what todo returns.
type TodoList struct {
	Todos      []TodoItem `json:"todos"`
	Pending    int        `json:"pending"`
	InProgress int        `json:"in_progress"`
	Completed  int        `json:"completed"`
}

const todoFile = "todo.json"

// Run implements core.Command.
func (t *Todo) Run(ctx context.Context, env *core.Env) (*core.Result, error) {
	var list TodoList
	err := env.Session.WithLock(ctx, "todo", func() error {
		if t.Todos == nil {
			return env.Session.LoadJSON(todoFile, &list)
		}
		if err := validateTodos(t.Todos, t.AllowMultipleInProgress); err != nil {
			return err
		}
		list.Todos = t.Todos
		return env.Session.SaveJSON(todoFile, list)
	})
	if err != nil {
		return nil, err
	}
	if list.Todos == nil {
		list.Todos = []TodoItem{}
	}
	list.Pending, list.InProgress, list.Completed = 0, 0, 0
	for _, it := range list.Todos {
		switch it.Status {
		case "pending":
			list.Pending++
		case "in_progress":
			list.InProgress++
		case "completed":
			list.Completed++
		}
	}
	return &core.Result{Data: list}, nil
}

func validateTodos(items []TodoItem, multi bool) error {
	ids, contents := map[string]int{}, map[string]int{}
	inProgress := 0
	for i, it := range items {
		if it.ID != "" {
			if j, dup := ids[it.ID]; dup {
				return core.Errorf(core.CodeInvalidParams, "todos[%d] and todos[%d] share the id %q; ids must be unique", j, i, it.ID)
			}
			ids[it.ID] = i
		}
		if j, dup := contents[it.Content]; dup {
			return core.Errorf(core.CodeInvalidParams, "todos[%d] and todos[%d] are the same item (%q); merge them", j, i, it.Content)
		}
		contents[it.Content] = i
		if it.Status == "in_progress" {
			inProgress++
		}
	}
	if inProgress > 1 && !multi {
		return core.Errorf(core.CodeInvalidParams, "%d items are in_progress; keep one in progress at a time (finish or pause the others), or set allow_multiple_in_progress", inProgress)
	}
	return nil
}

// RenderText implements core.TextRenderer.
func (l TodoList) RenderText(p *core.Printer) {
	if len(l.Todos) == 0 {
		p.Println(p.Dim("The todo list is empty."))
		return
	}
	for _, it := range l.Todos {
		switch it.Status {
		case "completed":
			p.Printf("%s %s\n", p.OK("[x]"), p.Dim(it.Content))
		case "in_progress":
			text := it.Content
			if it.ActiveForm != "" {
				text = it.ActiveForm
			}
			p.Printf("%s %s\n", p.Warn("[~]"), text)
		default:
			p.Printf("[ ] %s\n", it.Content)
		}
	}
	p.Println(p.Dim(fmt.Sprintf("%d completed, %d in progress, %d pending", l.Completed, l.InProgress, l.Pending)))
}
