package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/cli"
	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/prompt"
	"github.com/google/jsonschema-go/jsonschema"
)

// dialectCall is one call of a dialect's tool, shaped like the schema that dialect shows
// the model, and what its result must contain.
type dialectCall struct {
	setup map[string]string // workspace files
	req   string            // arguments, with $SERVER for the test server's URL
	want  []string          // substrings of the envelope's data
	check func(t *testing.T, root string)
}

// dialectCalls covers every tool of every dialect other than agentbox's own (whose
// applets the rest of the suite drives), keyed "dialect/tool".
var dialectCalls = map[string]dialectCall{
	"ref002/read":        {setup: files("a.txt", "one\ntwo\nthree\n"), req: `{"file_path":"a.txt","offset":1,"limit":1}`, want: []string{`2\ttwo`}},
	"ref002/write":       {req: `{"file_path":"new.txt","content":"hi\n"}`, check: fileIs("new.txt", "hi\n")},
	"ref002/edit":        {setup: files("a.txt", "one\n"), req: `{"file_path":"a.txt","old_string":"one","new_string":"uno"}`, check: fileIs("a.txt", "uno\n")},
	"ref002/glob":        {setup: files("d/x.go", ""), req: `{"pattern":"**/*.go"}`, want: []string{"x.go"}},
	"ref002/grep":        {setup: files("a.txt", "needle\n"), req: `{"pattern":"needle","output_mode":"content"}`, want: []string{"a.txt:1:needle"}},
	"ref002/bash":        {req: `{"command":"echo hi-there"}`, want: []string{"hi-there"}},
	"ref002/todo":        {req: `{"todos":[{"content":"Run tests","status":"in_progress"}]}`, want: []string{`"in_progress":1`}},
	"ref002/question":    {req: `{"questions":[{"question":"Which DB?","header":"DB","options":[{"label":"SQLite","description":"small"},{"label":"Postgres"}],"multi_select":false}]}`, want: []string{`"answers":[["SQLite"]]`}},
	"ref002/task":        {req: `{"description":"greet","prompt":"say hi-from-task"}`, want: []string{`"answer":"hi-from-task"`, `"format":"claude"`}},
	"ref002/web_search":  {req: `{"query":"go","max_results":1}`, want: []string{`"title":"A"`}},
	"ref002/web_fetch":   {req: `{"url":"$SERVER/page"}`, want: []string{`"title":"The Title"`}},
	"ref002/skill":       {setup: skillFiles, req: `{"name":"deploy"}`, want: []string{"Run make deploy."}},
	"ref002/tool_search": {req: `{"query":"select:question","max_results":1}`, want: []string{`"name":"question"`, `"command":"agentbox question --dialect ref002"`}},
	"ref002/apply_patch": {setup: files("a.txt", "one\n"), req: `{"input":"*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch"}`, check: fileIs("a.txt", "uno\n")},

	"ref000/read_file":           {setup: files("a.txt", "one\ntwo\nthree\n"), req: `{"file_path":"a.txt","offset":2,"limit":1}`, want: []string{`3\tthree`}},
	"ref000/write_file":          {req: `{"file_path":"sub/new.txt","content":"hi\n","create_directories":true}`, check: fileIs("sub/new.txt", "hi\n")},
	"ref000/edit_file":           {setup: files("a.txt", "x x\n"), req: `{"file_path":"a.txt","old_string":"x","new_string":"y","replace_all":true}`, check: fileIs("a.txt", "y y\n")},
	"ref000/multi_edit":          {setup: files("a.txt", "a b\n"), req: `{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"A"},{"old_string":"b","new_string":"B"}]}`, check: fileIs("a.txt", "A B\n")},
	"ref000/ls":                  {setup: files("d/x.go", ""), req: `{"path":".","long_format":false,"sort_by":"name"}`, want: []string{`"name":"d"`}},
	"ref000/glob":                {setup: files("d/x.go", ""), req: `{"pattern":"**/*.go","limit":5}`, want: []string{"x.go"}},
	"ref000/grep":                {setup: files("a.txt", "Needle\n"), req: `{"pattern":"needle","-i":true,"output_mode":"count"}`, want: []string{"a.txt:1"}},
	"ref000/bash":                {req: `{"command":"echo $FOO","env":{"FOO":"bar-baz"},"timeout":10000}`, want: []string{"bar-baz"}},
	"ref000/web_search":          {req: `{"query":"go"}`, want: []string{`"url":"https://a.example"`}},
	"ref000/list_skills":         {setup: skillFiles, req: `{}`, want: []string{`"name":"deploy"`}},
	"ref000/ask_user_questions":  {req: `{"questions":[{"text":"Which DB?","type":"SingleChoice","choices":["SQLite","Postgres"],"required":true}]}`, want: []string{`"answers":[["SQLite"]]`}},
	"ref000/ask_for_permissions": {req: `{"target_type":"path","target":"notes.md","level":"write","description":"Write notes"}`, want: []string{`"granted":true`}},
	"ref000/markdown_plan":       {req: `{"title":"Refactor","steps":[{"description":"Extract","notes":"careful"},{"description":"Test"}],"status":"active"}`, want: []string{`"id":"plan-001"`}, check: fileHas(".agentbox/plans/plan-001.md", "Refactor")},
	"ref000/update_plan_step":    {setup: planFiles, req: `{"plan_id":"plan-001","step":1,"status":"completed"}`, check: fileHas(".agentbox/plans/plan-001.md", "[x]")},
	"ref000/list_plans":          {setup: planFiles, req: `{}`, want: []string{`"id":"plan-001"`}},
	"ref000/read_plan":           {setup: planFiles, req: `{"plan_id":"plan-001"}`, want: []string{"Refactor"}},

	// The note's offset is Claude Code's: the 1-based line to go on from (it named the
	// line just read, which would have shown it again).
	"claude/Read":  {setup: files("a.txt", "one\ntwo\nthree\n"), req: `{"file_path":"a.txt","offset":2,"limit":1}`, want: []string{`2\ttwo`, `Use offset=3 to read beyond line 2`}},
	"claude/Write": {req: `{"file_path":"new.txt","content":"hi\n"}`, check: fileIs("new.txt", "hi\n")},
	"claude/Edit":  {setup: files("a.txt", "one\n"), req: `{"file_path":"a.txt","old_string":"one","new_string":"uno","replace_all":false}`, check: fileIs("a.txt", "uno\n")},
	// Claude Code applies MultiEdit's edits in order, each to the result of the one before.
	"claude/MultiEdit":       {setup: files("a.txt", "x = 1\ny b\n"), req: `{"file_path":"a.txt","edits":[{"old_string":"x = 1","new_string":"x = 2"},{"old_string":"x = 2","new_string":"x = 3"},{"old_string":"b","new_string":"B","replace_all":true}]}`, check: fileIs("a.txt", "x = 3\ny B\n")},
	"claude/LS":              {setup: files("d/x.go", ""), req: `{"path":"d"}`, want: []string{`"name":"x.go"`}},
	"claude/Glob":            {setup: files("d/x.go", ""), req: `{"pattern":"*.go","path":"d"}`, want: []string{"x.go"}},
	"claude/Grep":            {setup: files("a.txt", "x\nneedle\n"), req: `{"pattern":"needle","output_mode":"content","-n":true,"-B":1,"head_limit":10}`, want: []string{"a.txt:2:needle", "a.txt-1-x"}},
	"claude/Task":            {req: `{"description":"greet","prompt":"say hi-from-Task","subagent_type":"general-purpose"}`, want: []string{`"answer":"hi-from-Task"`}},
	"claude/Bash":            {req: `{"command":"echo hi-there","description":"Say hi","timeout":10000}`, want: []string{"hi-there"}},
	"claude/BashOutput":      {req: `{"bash_id":"$JOB"}`, want: []string{"bg-out"}},
	"claude/KillShell":       {req: `{"shell_id":"$JOB"}`, want: []string{`"job"`}},
	"claude/WebFetch":        {req: `{"url":"$SERVER/page","prompt":"What is the title?"}`, want: []string{"# Hello"}},
	"claude/WebSearch":       {req: `{"query":"go"}`, want: []string{`"title":"A"`}},
	"claude/TodoWrite":       {req: `{"todos":[{"content":"Run tests","status":"in_progress","activeForm":"Running tests"},{"content":"Ship","status":"pending","activeForm":"Shipping"}]}`, want: []string{`"active_form":"Running tests"`, `"pending":1`}},
	"claude/Skill":           {setup: skillFiles, req: `{"skill":"deploy"}`, want: []string{"Run make deploy."}},
	"claude/AskUserQuestion": {req: `{"questions":[{"question":"Which DB?","header":"DB","options":[{"label":"SQLite","description":"small"},{"label":"Postgres","description":"big"}],"multiSelect":false}]}`, want: []string{`"answers":[["SQLite"]]`}},
}

var (
	skillFiles = files(".agentbox/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploy the service\n---\nRun make deploy.\n")
	planFiles  = files(".agentbox/plans/plan-001.md", "# Refactor\n\n**ID:** plan-001\n**Status:** active\n**Created:** 2025-01-01\n\n## Steps\n\n1. [ ] Extract\n2. [ ] Test\n")
)

func files(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func fileIs(name, want string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", name, b, err, want)
		}
	}
}

func fileHas(name, want string) func(*testing.T, string) {
	return func(t *testing.T, root string) {
		if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s = %q (%v), want it to contain %q", name, b, err, want)
		}
	}
}

// runCommand runs a catalog command line in process, with req on stdin.
func runCommand(t *testing.T, command, req, root string, vars map[string]string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	host := cli.Host{
		Stdin: strings.NewReader(req), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(k string) string { return vars[k] },
		Getwd:  func() (string, error) { return root, nil },
		Now:    time.Now,
	}
	code := cli.Main(strings.Fields(command), applets.All, host)
	return code, stdout.String() + stderr.String()
}

// TestEveryDialectToolRuns drives every tool of every dialect exactly as a harness would:
// it takes the tool's command from the json catalog, sends a call shaped like the
// tool's schema in that dialect (and checks the call against the schema), and checks
// that the applet did the work.
func TestEveryDialectToolRuns(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>The Title</title></head><body><h1>Hello</h1></body></html>`)
	})
	mux.HandleFunc("/searx", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results":[{"title":"A","url":"https://a.example","content":"first"}]}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	fakeAgent, err := filepath.Abs("testdata/task/fake-agent")
	if err != nil {
		t.Fatal(err)
	}
	table := core.NewTable(applets.All)
	covered := map[string]bool{}
	for _, dialect := range table.Dialects()[1:] {
		tools, err := prompt.Catalog(applets.All, dialect, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			key := dialect + "/" + tool.Name
			covered[key] = true
			c, ok := dialectCalls[key]
			if !ok {
				t.Errorf("%s has no call in dialectCalls; add one", key)
				continue
			}
			t.Run(key, func(t *testing.T) {
				root := t.TempDir()
				root, _ = filepath.EvalSymlinks(root)
				for name, content := range c.setup {
					p := filepath.Join(root, name)
					os.MkdirAll(filepath.Dir(p), 0o755)
					if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				vars := map[string]string{
					"HOME": root, "XDG_STATE_HOME": filepath.Join(root, ".state"), "XDG_CONFIG_HOME": filepath.Join(root, ".config"),
					"AGENTBOX_ROOT": root, "AGENTBOX_SESSION": "dialects", "AGENTBOX_HEADLESS": "1", "AGENTBOX_MODE": "bypass",
					"AGENTBOX_FETCH_ALLOW_HOSTS": "127.0.0.1", "AGENTBOX_SEARCH_PROVIDERS": "searxng=" + srv.URL + "/searx",
					"AGENTBOX_ASK_ANSWERS": `[["SQLite"]]`, "PATH": os.Getenv("PATH"), "AGENTBOX_TASK_COMMAND": fakeAgent,
				}
				req := strings.ReplaceAll(c.req, "$SERVER", srv.URL)
				if strings.Contains(req, "$JOB") {
					code, out := runCommand(t, "agentbox bash", `{"command":"echo bg-out; sleep 30","run_in_background":true}`, root, vars)
					var env struct {
						Data struct{ Job struct{ ID string } }
					}
					if json.Unmarshal([]byte(out), &env); code != 0 || env.Data.Job.ID == "" {
						t.Fatalf("starting a background job: %d %s", code, out)
					}
					req = strings.ReplaceAll(req, "$JOB", env.Data.Job.ID)
					time.Sleep(200 * time.Millisecond)
					t.Cleanup(func() { runCommand(t, "agentbox bash", `{"action":"kill","job_id":"`+env.Data.Job.ID+`"}`, root, vars) })
				}
				checkAgainstSchema(t, tool.InputSchema, req)
				code, out := runCommand(t, tool.Command, req, root, vars)
				if code != 0 || !strings.HasPrefix(out, `{"type":"output"`) {
					t.Fatalf("%s exited %d: %s", tool.Command, code, out)
				}
				for _, w := range c.want {
					if !strings.Contains(out, w) {
						t.Errorf("output lacks %q: %s", w, out)
					}
				}
				if c.check != nil {
					c.check(t, root)
				}
			})
		}
	}
	for key := range dialectCalls {
		if !covered[key] {
			t.Errorf("dialectCalls has %s, which no dialect offers", key)
		}
	}
}

func checkAgainstSchema(t *testing.T, schema map[string]any, req string) {
	t.Helper()
	b, _ := json.Marshal(schema)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("schema does not resolve: %v", err)
	}
	var v any
	if err := json.Unmarshal([]byte(req), &v); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("the call does not fit the schema the dialect shows: %v", err)
	}
}

// TestStrictCallsDecode: under OpenAI's strict schemas a model sends every parameter and
// null for the ones it does not use. For every tool of every dialect, such a call (the
// tool's example or test call, with null for every other parameter) must decode, null
// meaning "not given".
func TestStrictCallsDecode(t *testing.T) {
	table := core.NewTable(applets.All)
	for _, dialect := range table.Dialects() {
		tools, err := prompt.Catalog(applets.All, dialect, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			req := tool.Ref.Spec.Example
			if tool.Ref.Tool != nil {
				req = strings.ReplaceAll(strings.ReplaceAll(dialectCalls[dialect+"/"+tool.Name].req, "$SERVER", "http://x"), "$JOB", "1")
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(req), &obj); err != nil {
				t.Fatalf("%s/%s: %v", dialect, tool.Name, err)
			}
			strict := prompt.Strict(tool.InputSchema, "openai")
			fillNulls(obj, strict)
			b, _ := json.Marshal(obj)
			checkAgainstSchema(t, strict, string(b))
			if err := core.DecodeDialectRequest(bytes.NewReader(b), tool.Ref.Spec.New(), tool.Ref.Tool); err != nil {
				t.Errorf("%s/%s: a strict call with nulls is refused: %v (%s)", dialect, tool.Name, err, b)
			}
		}
	}
}

// TestDialectSchemasShowEnforcedLimits: a dialect's schema shows, for every parameter,
// the default, limits and allowed values of the applet parameter it stands for (the ones
// the code enforces), so renaming can never drift from the applet.
func TestDialectSchemasShowEnforcedLimits(t *testing.T) {
	table := core.NewTable(applets.All)
	for _, dialect := range table.Dialects()[1:] {
		tools, _ := prompt.Catalog(applets.All, dialect, nil)
		for _, tool := range tools {
			canonical := core.ParamsOf(tool.Ref.Spec.New()).Schema()["properties"].(map[string]any)
			// Map the dialect's names back through the tool itself.
			for name, ps := range tool.InputSchema["properties"].(map[string]any) {
				obj := map[string]any{name: "x"}
				tool.Ref.Tool.ToCanonical(obj, core.ParamsOf(tool.Ref.Spec.New()))
				var canon string
				for k := range obj {
					if _, fixed := tool.Ref.Tool.Fixed[k]; !fixed {
						canon = k
					}
				}
				cs, ok := canonical[canon].(map[string]any)
				if !ok {
					continue // an extra parameter the dialect accepts and drops
				}
				for _, k := range []string{"default", "minimum", "maximum", "enum", "maxItems", "minItems", "pattern", "type"} {
					if !sameJSON(ps.(map[string]any)[k], cs[k]) {
						t.Errorf("%s/%s.%s: %s is %v, the applet's %s enforces %v", dialect, tool.Name, name, k, ps.(map[string]any)[k], canon, cs[k])
					}
				}
			}
		}
	}
}

// fillNulls shapes a call the way a strict model sends it: every property present, null
// where unused, and nothing the strict schema leaves out (free-form maps).
func fillNulls(obj map[string]any, schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	for k := range obj {
		if _, ok := props[k]; !ok {
			delete(obj, k)
		}
	}
	for name, ps := range props {
		v, ok := obj[name]
		if !ok {
			obj[name] = nil
			continue
		}
		sub := ps.(map[string]any)
		switch vv := v.(type) {
		case map[string]any:
			fillNulls(vv, sub)
		case []any:
			if items, ok := sub["items"].(map[string]any); ok {
				for _, it := range vv {
					if m, ok := it.(map[string]any); ok {
						fillNulls(m, items)
					}
				}
			}
		}
	}
}

func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
