// Package applets holds one file per applet and the one explicit applet table, All.
// Dispatch, --list, install links, help, man pages, completions, prompt and mcp all
// read All; adding an applet is one file, one table line and one testdata/script file.
package applets

import (
	"fmt"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/textedit"
)

// All is the applet table, in the order --list shows it.
var All = []core.Spec{
	{
		Name: "read", Aliases: []string{"read_file", "Read", "view", "cat"}, Kind: core.KindRead,
		Summary:      "Read a text file with numbered lines (ranges, encodings, honest truncation)",
		Description:  "Reads a text file and returns its lines numbered from 1. By default up to 2000 lines from the start; choose a window with offset+limit (0-based offset), start_line/end_line (1-based, inclusive) or view_range. Lines longer than 2000 characters are cut with a marker; output is capped at 200 KB (max_bytes) and the whole window then goes to a sidecar file named in output_path. Binary files, directories and non-regular files are refused; UTF-8 (with or without BOM), UTF-16 with BOM and CRLF files are read. A missing file gets up to three similar paths from the workspace.",
		Guidelines:   []string{"Read a file before editing it: edit and write refuse to change a file that changed since this session read it.", "For a large file, read the part you need with offset/limit or start_line/end_line."},
		New:          func() core.Command { return &Read{Limit: ReadDefaultLimit, MaxBytes: ReadDefaultMaxOut} },
		Capabilities: []string{core.CapFSRead},
		ReadOnly:     true, Idempotent: true,
		Example: `{"file_path":"main.go","offset":40,"limit":20}`,
	},
	{
		Name: "write", Aliases: []string{"write_file", "Write", "create"}, Kind: core.KindEdit,
		Summary:      "Create or overwrite a file atomically",
		Description:  "Writes the complete content of a file, creating it (and its parent directories, unless create_directories is false) or overwriting it. The write is atomic (temporary file, fsync, rename), keeps an existing file's permissions and writes through a symlink to its target. If this session read the file and it has changed since, the write is refused as a conflict; expected_sha256 gives the same protection to callers without a session.",
		Guidelines:   []string{"Prefer edit for changing part of an existing file; use write for new files or complete rewrites."},
		New:          func() core.Command { return &Write{CreateDirectories: true} },
		Capabilities: []string{core.CapFSWrite},
		Destructive:  true,
		Example:      `{"file_path":"notes/todo.md","content":"# TODO\n"}`,
	},
	{
		Name: "edit", Aliases: []string{"edit_file", "Edit", "multi_edit", "MultiEdit", "str_replace", "replace"}, Kind: core.KindEdit,
		Summary:      "Replace text in a file: exact, whitespace-tolerant or fuzzy; many edits at once",
		Description:  fmt.Sprintf("Replaces old_string with new_string in a file. old_string must match exactly one place (or set replace_all). Matching is exact first, then whitespace-normalised (indentation, trailing blanks and line breaks may differ; the replacement is re-indented to the file), then, with fuzzy_match, Levenshtein similarity of at least fuzzy_threshold (default %.1f). CRLF files, BOMs and final newlines are kept. edits applies up to %d edits atomically: all are matched against the original first, overlaps are refused, and nothing is written unless all match. dry_run reports without writing. Returns a unified diff. An empty old_string creates a missing file.", textedit.DefaultThreshold, textedit.MaxEdits),
		Guidelines:   []string{"Read the file first; copy old_string from what read showed, without the line-number prefix.", "Make old_string unique by including surrounding lines, or set replace_all to change every occurrence."},
		New:          func() core.Command { return &Edit{} },
		Capabilities: []string{core.CapFSRead, core.CapFSWrite},
		Destructive:  true,
		Example:      `{"file_path":"main.go","old_string":"fmt.Println(\"hi\")","new_string":"fmt.Println(\"hello\")"}`,
	},
	{
		Name: "ls", Aliases: []string{"list_directory", "list_dir", "LS"}, Kind: core.KindSearch,
		Summary:     "List a directory (sorting, filtering, long format)",
		Description: fmt.Sprintf("Lists the entries of a directory: directories first (marked with /), sorted by name, size or modification time, hidden entries only with include_hidden, filtered by a glob pattern on the name. depth above 1 gives a tree view (up to %d levels). Entries that .gitignore, .ignore or git's excludes ignore are left out unless respect_gitignore is false; node_modules-like folders are listed but not descended into. long_format adds permissions, size and modification time. At most limit entries (default %d) are returned, with a count of the rest and the whole list in output_path. A file path is an error that points to read.", LsMaxDepth, LsDefaultLimit),
		Guidelines:  []string{"Use ls to see a folder's structure; use glob to find files by pattern across folders."},
		New: func() core.Command {
			return &Ls{Path: ".", SortBy: "name", DirectoriesFirst: true, Limit: LsDefaultLimit, Depth: 1, Respect: true}
		},
		Capabilities: []string{core.CapFSRead},
		ReadOnly:     true, Idempotent: true,
		Example: `{"path":"src","long_format":true,"sort_by":"modified"}`,
	},
	{
		Name: "glob", Aliases: []string{"find_files", "Glob", "file_search"}, Kind: core.KindSearch,
		Summary:      "Find files by glob pattern, newest first",
		Description:  fmt.Sprintf("Finds files whose paths match a glob pattern (** across folders, *, ?, [abc], [!abc], {a,b}) under path, and returns absolute paths sorted by modification time, newest first. Hidden files and folders are skipped unless include_hidden is set or the pattern names them; files that .gitignore, .ignore or git's excludes ignore, and folders such as node_modules, .venv and __pycache__, are skipped unless respect_gitignore is false or the pattern names them. At most limit files (default %d) are returned, with the count of the rest and the whole list in output_path.", GlobDefaultLimit),
		Guidelines:   []string{"Use glob to find files by name or extension instead of running find or ls -R through a shell."},
		New:          func() core.Command { return &Glob{Path: ".", Limit: GlobDefaultLimit, Respect: true} },
		Capabilities: []string{core.CapFSRead},
		ReadOnly:     true, Idempotent: true,
		Example: `{"pattern":"**/*_test.go","path":"."}`,
	},
	{
		Name: "grep", Aliases: []string{"Grep", "grep_files", "search_files", "rg"}, Kind: core.KindSearch,
		Summary:     "Search file contents with a regular expression",
		Description: fmt.Sprintf("Searches the contents of files under path (or one file) with a regular expression in Go's RE2 syntax. output_mode files_with_matches (default) lists matching files, content shows path:line:text with optional context (-A, -B, -C), count gives matches per file. Filter with glob (*.go, src/**/*.ts) or a ripgrep type (go, py, js, ts, rust, ...); -i, word, fixed_strings and multiline change the matching. Hidden files are skipped unless include_hidden; what .gitignore, .ignore or git's excludes ignore, and folders such as node_modules, are skipped unless respect_gitignore is false; binary files are skipped and counted. Lines longer than %d bytes are cut with a marker. At most head_limit entries (default %d) are returned, page with offset; the rest go to output_path. Files are ordered by path, or newest first with sort modified. RE2 differs from PCRE: no backreferences or lookaround, \\b is ASCII-only.", GrepMaxLineChars, GrepDefaultHeadLimit),
		Guidelines:  []string{"Use grep to search file contents instead of running grep or rg through a shell.", "Start with output_mode files_with_matches, then look at content in the files that matter."},
		New: func() core.Command {
			return &Grep{Path: ".", OutputMode: "files_with_matches", LineNumbers: true, HeadLimit: GrepDefaultHeadLimit, Sort: "path", Respect: true}
		},
		Capabilities: []string{core.CapFSRead},
		ReadOnly:     true, Idempotent: true,
		Example: `{"pattern":"func\\s+main","type":"go","output_mode":"content","-C":2}`,
	},
	{
		Name: "bash", Aliases: []string{"Bash", "shell", "exec_shell", "run_command", "run_shell_command", "execute_command"}, Kind: core.KindExecute,
		Summary:     "Run a bash command (timeouts, watchdog, background jobs, persistent working directory)",
		Description: fmt.Sprintf("Runs a command line with bash --noprofile --norc -c and returns stdout and stderr separately, the exit code (or signal), the duration and the working directory it ended in. The timeout is timeout ms (default %d, max %d, at least 1000); on timeout the whole process group, children included, is killed. stdin is empty unless stdin is given. Output is capped at %d KB of stdout and %d KB of stderr: the head and tail are kept and the whole stream goes to a sidecar file. working_dir (absolute) and any cd persist for the session's later calls; env adds variables for one call. Before running, a watchdog parses the line and refuses destructive commands (rm -rf /, mkfs, dd onto disks, chmod -R 777 /, fork bombs, curl | sh, writes to system or shell start-up files), also inside pipes, substitutions, functions and wrappers such as sudo, xargs or bash -c. run_in_background starts a job that outlives this call and returns its job_id; action output reads what it printed since the last read, wait waits for it, input sends to its stdin, kill stops it, list shows all jobs; background_timeout kills a job that runs too long. sandbox workspace-write or read-only confines writes (Landlock) and cuts the network where the kernel allows, and says so when it cannot.", BashDefaultTimeoutMs, BashMaxTimeoutMs, BashStdoutCap>>10, BashStderrCap>>10),
		Guidelines:  []string{"Prefer the dedicated tools (read, grep, glob, ls, edit, write) over cat, grep, find or sed through bash.", "Use run_in_background for servers and long builds, then read their output with action output.", "Quote paths that contain spaces; chain dependent commands with &&."},
		New: func() core.Command {
			return &Bash{TimeoutMs: BashDefaultTimeoutMs, Action: "run", WaitMs: BashDefaultWaitMs, Sandbox: "auto"}
		},
		Capabilities: []string{core.CapShellRun},
		Destructive:  true, OpenWorld: true,
		Example: `{"command":"go test ./...","timeout":300000}`,
	},
	{
		Name: "fetch", Aliases: []string{"web_fetch", "WebFetch", "fetch_url"}, Kind: core.KindFetch,
		Summary:     "Fetch a URL and return readable text (HTML as Markdown)",
		Description: fmt.Sprintf("GETs (or HEADs) an http(s) URL, following up to %d redirects (the chain is reported), and returns the text: HTML turned into Markdown with the page title, text, JSON and XML as they are, decoded from the declared charset. The call times out after timeout_ms (default %d); the text is capped at %d KB with the rest in output_path; a session may fetch %d times. Binary bodies are refused unless download_to saves them into the workspace. Private, loopback, link-local and cloud-metadata addresses are refused, also after a redirect or DNS answer.", FetchMaxRedirects, FetchDefaultTimeoutMs, FetchDefaultMaxBytes/1024, FetchSessionCap),
		Guidelines:  []string{"Use fetch for a known URL instead of curl through a shell."},
		New: func() core.Command {
			return &Fetch{Method: "GET", Format: "markdown", TimeoutMs: FetchDefaultTimeoutMs, MaxBytes: FetchDefaultMaxBytes}
		},
		Capabilities: []string{core.CapNetFetch},
		ReadOnly:     true, OpenWorld: true,
		Example: `{"url":"https://go.dev/doc/effective_go"}`,
	},
	{
		Name: "search", Aliases: []string{"web_search", "WebSearch"}, Kind: core.KindFetch,
		Summary:      "Search the web through the configured provider",
		Description:  fmt.Sprintf("Searches the web and returns results as title, url and snippet (default %d, at most 20). The provider (a SearXNG instance or the Brave Search API) is configured by the host in AGENTBOX_SEARCH_PROVIDERS and stays the same for a session; a call times out after %s and a session may search %d times.", SearchDefaultResults, SearchTimeout, SearchSessionCap),
		Guidelines:   []string{"Search when you need current information you cannot find in the workspace; fetch a result's URL to read it."},
		New:          func() core.Command { return &Search{MaxResults: SearchDefaultResults} },
		Capabilities: []string{core.CapNetFetch},
		ReadOnly:     true, OpenWorld: true,
		Example: `{"query":"go os.Root symlink escape","max_results":5}`,
	},
	{
		Name: "patch", Aliases: []string{"apply_patch", "ApplyPatch"}, Kind: core.KindEdit,
		Summary:      "Apply a multi-file patch (apply_patch format or unified diff), all or nothing",
		Description:  "Applies a patch in the apply_patch format (*** Begin Patch, *** Add File, *** Update File with @@ context, *** Delete File, *** Move to, *** End Patch) or a unified diff (git diff output with renames, new and deleted files). Every hunk of every file is located first (exactly, then ignoring trailing or leading whitespace, then Unicode punctuation look-alikes; never at an ambiguous place); only then are all files written atomically, and a failure part-way rolls back what was written. A failed hunk is reported with the file, the hunk and the nearest lines. dry_run reports without writing. The result lists each file with added and removed lines and a diff.",
		Guidelines:   []string{"Use patch for changes that span several files or many hunks; use edit for a single replacement."},
		New:          func() core.Command { return &Patch{} },
		Capabilities: []string{core.CapFSRead, core.CapFSWrite},
		Destructive:  true,
		Example:      `{"patch":"*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n*** End Patch"}`,
	},
	{
		Name: "plan", Aliases: []string{"markdown_plan", "update_plan_step", "list_plans", "read_plan"}, Kind: core.KindThink,
		Summary:     "Durable markdown plans in the workspace: create, update, update a step, list, read",
		Description: fmt.Sprintf("Keeps plans as markdown files in %s/plan-NNN.md: create (title, steps with notes, status draft/active/completed/abandoned; ids are sequential), update (overwrite plan_id), update_step (plan_id, 1-based step, status pending/in_progress/completed/skipped, any transition), list (each plan with progress such as \"2 completed, 1 in progress, 3 pending\") and read. Updates lock the file, so concurrent agents lose no update; a plan edited by hand into a shape that does not parse is reported with its line, never rewritten.", PlanDir),
		Guidelines:  []string{"For a larger change, create a plan first and mark each step in_progress and completed as you go."},
		New:         func() core.Command { return &Plan{Action: "list"} },
		Example:     `{"action":"update_step","plan_id":"plan-001","step":2,"status":"completed"}`,
	},
	{
		Name: "todo", Aliases: []string{"TodoWrite", "todo_write", "TodoRead"}, Kind: core.KindThink,
		Summary:     "Keep the session's todo list (replace it whole, or read it back)",
		Description: "Keeps a todo list for this session. Each call with todos replaces the whole list (items with content, status pending, in_progress or completed, an optional id and an optional active_form) after checking it: no duplicate ids or items, and at most one item in progress unless allow_multiple_in_progress. A call without todos returns the current list. The result counts the items by status.",
		Guidelines:  []string{"For work with several steps, write a todo list first, keep exactly one item in progress, and mark items completed as soon as they are done."},
		New:         func() core.Command { return &Todo{} },
		Idempotent:  true,
		Example:     `{"todos":[{"content":"Run the tests","status":"in_progress","active_form":"Running the tests"},{"content":"Fix failures","status":"pending"}]}`,
	},
	{
		Name: "skill", Aliases: []string{"list_skills", "Skill"}, Kind: core.KindRead,
		Summary:     "List available skills, or load one skill's instructions",
		Description: "Lists the skills (folders with a SKILL.md) found in the project's .agentbox/skills, .claude/skills and .agents/skills and in the user's config, or loads one skill's body into context with action load.",
		Guidelines:  []string{"Load a skill with skill load NAME when its description matches the task, before starting the task."},
		New:         func() core.Command { return &Skill{Action: "list"} },
		ReadOnly:    true, Idempotent: true,
		Example: `{"action":"load","name":"release-notes"}`,
	},
	{
		Name: "prompt", Aliases: []string{"tools"}, Kind: core.KindOther,
		Summary:     "Print the tool descriptions and JSON Schemas for a model",
		Description: "Renders agentbox's tool catalog for a model: a markdown \"Available tools\" section with guidelines for a system prompt, the full JSON catalog (schemas, capabilities, annotations, the command that runs each tool), or the tools array of OpenAI Chat Completions, OpenAI Responses, Anthropic, Gemini or MCP. The markdown section also lists the available skills. search returns only the tools that best match a query (tool_search). Descriptions and defaults come from the same definitions the tools enforce.",
		New:         func() core.Command { return &Prompt{Format: "markdown", Limit: 5} },
		ReadOnly:    true, Idempotent: true,
		Example: `{"format":"openai","tools":"read,edit"}`,
	},
	{
		Name: "permit", Aliases: []string{"ask_for_permissions", "AskForPermissions", "request_permission"}, Kind: core.KindOther,
		Summary:     "Ask the user for a permission ahead of time; check, list and revoke permissions",
		Description: "request asks the user to grant access to a path (read, write, execute or admin; recursive covers everything below it), a domain or a command, once (the next matching call) or for the session (every matching call); an existing grant or rule that already allows it is reported without asking, and a rule that denies it is reported as not granted. check tells how a would-be call (applet and target, e.g. bash and a whole command line) would be decided and by which rule or mode, without running it. list shows the permission mode, every rule with its origin and the session's grants; revoke drops grants by id (or all). Without a person to ask (headless host) a request fails with needs_input.",
		Guidelines:  []string{"Request a permission before a batch of calls that would each need approval, with a description the user can judge.", "Use permit check to learn whether a command will be allowed before running it.", "When a permission is not granted, do not retry the same call: work around it or ask the user."},
		New:         func() core.Command { return &Permit{Action: "request"} },
		Example:     `{"target_type":"path","target":"/home/user/project/config.yaml","level":"write","description":"Write database configuration","reason":"Save the connection settings you specified"}`,
	},
	{
		Name: "ask", Aliases: []string{"ask_user_questions", "AskUserQuestion", "question", "ask_user"}, Kind: core.KindOther,
		Summary:     "Ask the user structured questions (choices, multiple choice, free text) and wait for the answers",
		Description: "Puts one or more questions to the user and returns one array of answers per question. A question has text and either choices (labels) or options (label + description) for a single or multiple choice (type MultiChoice or multi_select), or none for free text; defaultValue preselects or prefills, required demands an answer. The user may always type an answer of their own. Questions are validated first (empty_choices), answers after (required_field_empty, too_many_selections, unknown_question). On a host with no person to ask (headless) the call fails with needs_input: continue with your best judgement then. Hosts with their own UI pass the answers in AGENTBOX_ASK_ANSWERS.",
		Guidelines:  []string{"Ask when a decision is the user's and guessing would be costly; offer concrete choices.", "Do not ask what the code or the files can tell you.", "When ask fails with needs_input, do not retry: proceed with your best guess and say what you assumed."},
		New:         func() core.Command { return &Ask{} },
		Example:     `{"questions":[{"text":"Which database should we use?","type":"SingleChoice","choices":["PostgreSQL","MySQL","SQLite"],"required":true},{"text":"Any additional requirements?","type":"FreeText"}]}`,
	},
	{
		Name: "mcp", Kind: core.KindOther,
		Summary:     "Serve every applet as a tool over the Model Context Protocol (stdio)",
		Description: "Runs an MCP server on stdin/stdout: tools/list gives every applet with its JSON Schema, description and annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint), and tools/call runs the applet exactly as JSON mode does, returning text content plus structuredContent, and tool failures as isError results.",
		New:         func() core.Command { return &MCP{} },
		Stdio:       true,
		Example:     `{}`,
	},
}
