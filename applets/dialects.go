package applets

import (
	"fmt"

	"github.com/agentbox/agentbox/core"
)

// The dialects: other agents' tool names and parameter spellings for agentbox's applets
// (see core.DialectTool). Each applet's row in All points at its list here.
//
//	ref002  reference 002's locked tool ids (read, write, edit, glob, grep, bash, todo,
//	        question, web_search, web_fetch, skill, tool_search) plus apply_patch and task
//	ref000  reference 000's tools (read_file, write_file, edit_file, multi_edit, ls, glob,
//	        grep, bash, web_search, list_skills, ask_user_questions, ask_for_permissions,
//	        markdown_plan, update_plan_step, list_plans, read_plan)
//	claude  Claude Code's tools (Read, Write, Edit, MultiEdit, LS, Glob, Grep, Bash,
//	        BashOutput, KillShell, TodoWrite, AskUserQuestion, WebFetch, WebSearch, Skill,
//	        Task)
//
// A tool that is an applet with a fixed action carries its own summary and description,
// written from the same constants as the applet's.
const (
	DialectRef002 = "ref002"
	DialectRef000 = "ref000"
	DialectClaude = "claude"
)

var readDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "read"},
	{Dialect: DialectRef000, Name: "read_file", Params: []string{"file_path", "offset", "limit"}},
	// Claude Code's offset is the 1-based line to start at, which is read's start_line.
	{Dialect: DialectClaude, Name: "Read", Params: []string{"file_path", "offset=start_line", "limit"},
		Help:        map[string]string{"offset": "the line number to start reading from, 1-based; give it (with limit) only when the file is too large to read at once"},
		Description: fmt.Sprintf("Reads a text file and returns its lines numbered from 1. By default up to %d lines from the start; for a large file give offset (the 1-based line to start at) and limit. Lines longer than %d characters are cut with a marker; output is capped at %d KB and the whole window then goes to a sidecar file named in output_path. Binary files, directories and non-regular files are refused; UTF-8 (with or without BOM), UTF-16 with BOM and CRLF files are read. A missing file gets up to three similar paths from the workspace.", ReadDefaultLimit, ReadMaxLineChars, ReadDefaultMaxOut/1024)},
}

var writeDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "write"},
	{Dialect: DialectRef000, Name: "write_file", Params: []string{"file_path", "content", "create_directories"}},
	{Dialect: DialectClaude, Name: "Write", Params: []string{"file_path", "content"}},
}

var editDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "edit"},
	{Dialect: DialectRef000, Name: "edit_file", Params: []string{"file_path", "old_string!", "new_string!", "replace_all", "fuzzy_match", "fuzzy_threshold"}},
	{Dialect: DialectRef000, Name: "multi_edit", Params: []string{"file_path", "edits!", "dry_run"}},
	{Dialect: DialectClaude, Name: "Edit", Params: []string{"file_path", "old_string!", "new_string!", "replace_all"}},
	{Dialect: DialectClaude, Name: "MultiEdit", Fixed: map[string]any{"sequential": true}, Params: []string{"file_path", "edits!", "edits.old_string", "edits.new_string", "edits.replace_all"}},
}

var lsDialects = []core.DialectTool{
	{Dialect: DialectRef000, Name: "ls", Params: []string{"path", "long_format", "include_hidden", "pattern", "sort_by", "reverse", "directories_first"}},
	{Dialect: DialectClaude, Name: "LS", Params: []string{"path"}},
}

var globDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "glob"},
	{Dialect: DialectRef000, Name: "glob", Params: []string{"pattern", "path", "limit", "include_hidden"}},
	{Dialect: DialectClaude, Name: "Glob", Params: []string{"pattern", "path"}},
}

var grepDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "grep"},
	{Dialect: DialectRef000, Name: "grep", Params: []string{"pattern", "path", "glob", "type", "output_mode", "-i", "-A", "-B", "-C", "-n", "multiline"}},
	{Dialect: DialectClaude, Name: "Grep", Params: []string{"pattern", "path", "glob", "type", "output_mode", "-i", "-n", "-A", "-B", "-C", "multiline", "head_limit", "offset"}},
}

var bashDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "bash"},
	{Dialect: DialectRef000, Name: "bash", Params: []string{"command!", "timeout", "working_dir", "run_in_background", "background_timeout", "env"}},
	{Dialect: DialectClaude, Name: "Bash", Params: []string{"command!", "timeout", "run_in_background"},
		Extra: []core.ExtraParam{{Name: "description", Type: "string", Help: "a short description of what the command does (for the transcript; agentbox does not use it)"}}},
	{Dialect: DialectClaude, Name: "BashOutput", Fixed: map[string]any{"action": "output"}, Params: []string{"bash_id!=job_id"},
		Summary:     "Read the new output of a background shell",
		Description: "Returns what a background command started with Bash run_in_background printed since the last read (stdout and stderr), and whether it is still running."},
	{Dialect: DialectClaude, Name: "KillShell", Fixed: map[string]any{"action": "kill"}, Params: []string{"shell_id!=job_id"},
		Summary:     "Stop a background shell",
		Description: "Kills a background command started with Bash run_in_background (its whole process group) and returns its final state."},
}

var fetchDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "web_fetch"},
	{Dialect: DialectClaude, Name: "WebFetch", Params: []string{"url"},
		Extra: []core.ExtraParam{{Name: "prompt", Type: "string", Help: "what you want to learn from the page; agentbox returns the page's text (HTML as Markdown), so read the answer from it yourself"}}},
}

var searchDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "web_search", Params: []string{"query", "max_results"}},
	{Dialect: DialectRef000, Name: "web_search", Params: []string{"query"}},
	{Dialect: DialectClaude, Name: "WebSearch", Params: []string{"query"}},
}

var patchDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "apply_patch", Params: []string{"input!=patch", "dry_run"}},
}

var planDialects = []core.DialectTool{
	{Dialect: DialectRef000, Name: "markdown_plan", Fixed: map[string]any{"action": "create"}, Params: []string{"plan_id", "title!", "steps!", "status"},
		Help: map[string]string{
			"plan_id": "the plan to overwrite (plan-001); omit it to create a new plan",
			"status":  "the plan's status: draft (default), active, completed or abandoned",
		},
		Summary:     "Create a markdown plan, or overwrite one",
		Description: fmt.Sprintf("Writes a durable markdown plan to %s/plan-NNN.md: a title, numbered steps (each pending at first, with optional notes) and a status (draft, active, completed or abandoned). Without plan_id a new plan gets the next sequential id; with plan_id that plan is overwritten. Returns the plan and its markdown.", PlanDir)},
	{Dialect: DialectRef000, Name: "update_plan_step", Fixed: map[string]any{"action": "update_step"}, Params: []string{"plan_id!", "step!", "status!"},
		Help:        map[string]string{"status": "the step's new status: pending, in_progress, completed or skipped"},
		Summary:     "Set the status of one step of a plan",
		Description: fmt.Sprintf("Sets the status of step (1-based) of a plan in %s: pending [ ], in_progress [~], completed [x] or skipped [-]; any transition is allowed. The file is locked while it is updated, so concurrent updates are not lost. A step out of range is an error that says how many steps the plan has.", PlanDir)},
	{Dialect: DialectRef000, Name: "list_plans", Fixed: map[string]any{"action": "list"}, Params: []string{},
		Summary:     "List the plans with their progress",
		Description: fmt.Sprintf("Lists the plans in %s by id: title, status, creation date, number of steps and progress such as \"2 completed, 1 in progress, 3 pending\".", PlanDir)},
	{Dialect: DialectRef000, Name: "read_plan", Fixed: map[string]any{"action": "read"}, Params: []string{"plan_id!"},
		Summary:     "Read a plan's markdown",
		Description: "Returns the full markdown of a plan by id (plan-001); list_plans shows the ids."},
}

var todoDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "todo"},
	{Dialect: DialectClaude, Name: "TodoWrite", Params: []string{"todos!", "todos.content", "todos.status", "todos.activeForm!=active_form", "todos.id"}},
}

var skillDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "skill", Fixed: map[string]any{"action": "load"}, Params: []string{"name!"},
		Summary:     "Load a skill's instructions into context",
		Description: "Loads the body of a discovered skill (a SKILL.md in the project's .agentbox/skills, .claude/skills or .agents/skills, or in the user's config) by name; the system prompt lists the skills with one-line descriptions."},
	{Dialect: DialectRef000, Name: "list_skills", Fixed: map[string]any{"action": "list"}, Params: []string{},
		Summary:     "List the available skills",
		Description: "Lists the skills (folders with a SKILL.md) found in the project's .agentbox/skills, .claude/skills and .agents/skills and in the user's config: name, description and the path of each SKILL.md."},
	{Dialect: DialectClaude, Name: "Skill", Fixed: map[string]any{"action": "load"}, Params: []string{"skill!=name"},
		Summary:     "Load a skill's instructions into context",
		Description: "Loads the body of a discovered skill by name (a SKILL.md in the project's .agentbox/skills, .claude/skills or .agents/skills, or in the user's config) before you start the task it describes."},
}

var promptDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "tool_search", Fixed: map[string]any{"format": "json", "dialect": DialectRef002}, Params: []string{"query!=search", "max_results=limit"},
		Help:        map[string]string{"query": "what you need a tool for, in a few words; select:name1,name2 picks tools by name"},
		Summary:     "Find tools by query and get their schemas",
		Description: "Searches this tool catalog for the tools that best match a query and returns them with their descriptions and input schemas (at most max_results)."},
}

var permitDialects = []core.DialectTool{
	{Dialect: DialectRef000, Name: "ask_for_permissions", Fixed: map[string]any{"action": "request"}, Params: []string{"target_type!", "target!", "level!", "recursive", "description!", "reason"}},
}

var askDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "question", Params: []string{"questions!", "questions.question!=text", "questions.header", "questions.options", "questions.multi_select"}},
	{Dialect: DialectRef000, Name: "ask_user_questions", Params: []string{"questions!", "questions.text", "questions.type", "questions.choices", "questions.defaultValue", "questions.required"}},
	{Dialect: DialectClaude, Name: "AskUserQuestion", Params: []string{"questions!", "questions.question!=text", "questions.header", "questions.options", "questions.multiSelect=multi_select"}},
}

var taskDialects = []core.DialectTool{
	{Dialect: DialectRef002, Name: "task"},
	{Dialect: DialectClaude, Name: "Task", Params: []string{"description!", "prompt!", "subagent_type!"}},
}
