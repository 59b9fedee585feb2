package applets

import (
	"context"
	"fmt"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/todo"
)

// TodoItem is one entry of the session's todo list (reference 002's locked todo tool).
type TodoItem struct {
	ID         string `json:"id,omitempty" help:"optional stable id; unique within the list"`
	Content    string `json:"content" alias:"text,title" schema:"required,minLength=1,maxLength=4000" help:"what to do, imperative (\"Run the tests\")"`
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
	c := todo.Count(toModel(list.Todos))
	list.Pending, list.InProgress, list.Completed = c.Pending, c.InProgress, c.Completed
	return &core.Result{Data: list}, nil
}

// validateTodos applies core/todo's rules (non-empty one-line contents, known statuses,
// unique ids and contents, one item in progress unless multi).
func validateTodos(items []TodoItem, multi bool) error {
	if err := todo.Validate(toModel(items), multi); err != nil {
		return core.Errorf(core.CodeInvalidParams, "%v", err)
	}
	size := 0
	for _, it := range items {
		size += len(it.ID) + len(it.Content) + len(it.ActiveForm)
	}
	if size > TodoMaxBytes {
		// Every call returns the whole list: it must fit an envelope under 1 MB.
		return core.Errorf(core.CodeTooLarge, "the todo list holds %d bytes of text, more than %d; a todo is a line, not a document: shorten the items (put details in a plan or a file)", size, TodoMaxBytes)
	}
	return nil
}

// TodoMaxBytes bounds the text of a whole todo list (every call returns the list).
const TodoMaxBytes = 256 << 10

func toModel(items []TodoItem) []todo.Item {
	out := make([]todo.Item, len(items))
	for i, it := range items {
		out[i] = todo.Item{ID: it.ID, Content: it.Content, Status: it.Status, ActiveForm: it.ActiveForm}
	}
	return out
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
