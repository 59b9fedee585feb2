package applets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
	"github.com/agentbox/agentbox/core/textedit"
)

func writeFile(t *testing.T, env *core.Env, name, content string) string {
	t.Helper()
	p := filepath.Join(coretest.Root(env), name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	return b.String()
}

func TestReadWindows(t *testing.T) {
	env := coretest.Env(t, "read")
	writeFile(t, env, "f.txt", numbered(5000))
	cases := []struct {
		req         string
		first, last int
		eof         bool
		note        string
	}{
		{`{"file_path":"f.txt"}`, 1, 2000, false, "Use offset=2000 to read beyond line 2000"},
		{`{"file_path":"f.txt","offset":4990}`, 4991, 5000, true, "End of file: 5000 lines"},
		{`{"file_path":"f.txt","start_line":10,"end_line":12}`, 10, 12, false, "lines 10-12 of 5000"},
		{`{"file_path":"f.txt","view_range":[4999,-1]}`, 4999, 5000, true, "End of file"},
		{`{"file_path":"f.txt","start_line":100,"end_line":3100}`, 100, 3100, false, ""},
		{`{"file_path":"f.txt","offset":6000}`, 6001, 6000, false, "only 5000 lines"},
	}
	for _, c := range cases {
		res, err := coretest.Call(t, env, &Read{}, c.req)
		if err != nil {
			t.Fatalf("%s: %v", c.req, err)
		}
		r := res.Data.(ReadResult)
		if r.StartLine != c.first || r.EndLine != c.last || r.TotalLines != 5000 || (r.EOF != c.eof && c.first <= 5000) || !strings.Contains(r.Note, c.note) {
			t.Errorf("%s: got start %d end %d total %d eof %v note %q", c.req, r.StartLine, r.EndLine, r.TotalLines, r.EOF, r.Note)
		}
		if c.last >= c.first && !strings.HasPrefix(r.Content, fmt.Sprintf("%6d\t", c.first)) {
			t.Errorf("%s: content starts %q", c.req, r.Content[:min(20, len(r.Content))])
		}
	}
}

func TestReadOutputCapSpills(t *testing.T) {
	env := coretest.Env(t, "read")
	writeFile(t, env, "wide.txt", strings.Repeat(strings.Repeat("w", 1500)+"\n", 400))
	res, err := coretest.Call(t, env, &Read{}, `{"file_path":"wide.txt","max_bytes":10000}`)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Data.(ReadResult)
	if !res.Truncated || res.OutputPath == "" || r.EndLine >= 400 || !strings.Contains(r.Note, "Output capped") {
		t.Fatalf("cap: truncated %v path %q end %d note %q", res.Truncated, res.OutputPath, r.EndLine, r.Note)
	}
	spill, _ := os.ReadFile(res.OutputPath)
	if strings.Count(string(spill), "\n") != 400 {
		t.Errorf("sidecar has %d lines, want the whole window of 400", strings.Count(string(spill), "\n"))
	}
	if fi, _ := os.Stat(res.OutputPath); fi.Mode().Perm() != 0o600 {
		t.Errorf("sidecar mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestReadRefusals(t *testing.T) {
	env := coretest.Env(t, "read")
	writeFile(t, env, "pic.png", "not really")
	writeFile(t, env, "ctrl.txt", strings.Repeat("\x01\x02\x03", 100))
	writeFile(t, env, "src/handler.go", "package src\n")
	for req, code := range map[string]core.ErrorCode{
		`{"file_path":"pic.png"}`:     core.CodeBinaryFile,
		`{"file_path":"ctrl.txt"}`:    core.CodeBinaryFile,
		`{"file_path":"src"}`:         core.CodeIsDirectory,
		`{"file_path":"handlr.go"}`:   core.CodeNotFound,
		`{"file_path":"/etc/passwd"}`: core.CodeOutsideWorkspace,
	} {
		_, err := coretest.Call(t, env, &Read{}, req)
		if err == nil || err.Code != code {
			t.Errorf("%s: got %v, want %s", req, err, code)
		}
		if code == core.CodeNotFound && !strings.Contains(err.Message, "src/handler.go") {
			t.Errorf("no suggestion from another folder: %s", err.Message)
		}
	}
}

func TestWriteThenEditRoundTripKeepsFormat(t *testing.T) {
	env := coretest.Env(t, "edit")
	p := writeFile(t, env, "w.txt", "\xef\xbb\xbfalpha\r\nbeta\r\ngamma")
	res, err := coretest.Call(t, env, &Edit{}, `{"file_path":"w.txt","old_string":"beta\ngamma","new_string":"BETA\ngamma"}`)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "\xef\xbb\xbfalpha\r\nBETA\r\ngamma" {
		t.Fatalf("format not kept: %q", got)
	}
	if r := res.Data.(EditResult); r.LineEnding != "crlf" || r.Edits[0].Stage != "exact" {
		t.Errorf("result %+v", r)
	}
	// The session saw the edit's result: a follow-up edit is no conflict.
	if _, err := coretest.Call(t, env, &Edit{}, `{"file_path":"w.txt","old_string":"alpha","new_string":"ALPHA"}`); err != nil {
		t.Fatalf("second edit: %v", err)
	}
	// Someone else changes the file: the next edit is a conflict, nothing written.
	os.WriteFile(p, []byte("other"), 0o644)
	if _, err := coretest.Call(t, env, &Edit{}, `{"file_path":"w.txt","old_string":"other","new_string":"mine"}`); err == nil || err.Code != core.CodeConflict {
		t.Fatalf("want conflict, got %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "other" {
		t.Errorf("file changed despite the conflict: %q", b)
	}
}

func TestMultiEditDryRunStatistics(t *testing.T) {
	env := coretest.Env(t, "edit")
	p := writeFile(t, env, "m.go", "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n")
	res, err := coretest.Call(t, env, &Edit{}, `{"file_path":"m.go","dry_run":true,"edits":[
		{"old_string":"return 1","new_string":"return 10"},
		{"old_string":"func bb() {\n\treturn 2","new_string":"func b() {\n\treturn 20","fuzzy_match":true}]}`)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Data.(EditResult)
	if !r.DryRun || len(r.Edits) != 2 || r.FuzzyCount != 1 || r.FuzzyAvg < 0.7 || r.BytesDelta != 2 {
		t.Fatalf("dry run result %+v", r)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "return 1\n") {
		t.Error("dry run wrote the file")
	}
}

func TestWriteModesAndLinks(t *testing.T) {
	env := coretest.Env(t, "write")
	p := writeFile(t, env, "run.sh", "#!/bin/sh\n")
	os.Chmod(p, 0o755)
	res, err := coretest.Call(t, env, &Write{CreateDirectories: true}, `{"file_path":"run.sh","content":"#!/bin/sh\necho hi\n"}`)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Data.(WriteResult); r.Created || r.Bytes != 18 {
		t.Errorf("result %+v", r)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755 kept", fi.Mode().Perm())
	}
	outside := t.TempDir()
	os.Symlink(filepath.Join(outside, "x"), filepath.Join(coretest.Root(env), "out-link"))
	if _, err := coretest.Call(t, env, &Write{}, `{"file_path":"out-link","content":"x"}`); err == nil || err.Code != core.CodeOutsideWorkspace {
		t.Fatalf("symlink out: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Fatal("wrote outside the workspace through a symlink")
	}
}

func TestLsSortAndLimit(t *testing.T) {
	env := coretest.Env(t, "ls")
	writeFile(t, env, "d/big", strings.Repeat("b", 300))
	writeFile(t, env, "d/small", "s")
	writeFile(t, env, "d/mid", strings.Repeat("m", 20))
	os.MkdirAll(filepath.Join(coretest.Root(env), "d", "zdir"), 0o755)
	res, err := coretest.Call(t, env, &Ls{}, `{"path":"d","sort_by":"size"}`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range res.Data.(LsResult).Entries {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "zdir,big,mid,small" {
		t.Errorf("size order with directories first: %v", names)
	}
	res, _ = coretest.Call(t, env, &Ls{}, `{"path":"d","limit":2,"reverse":true,"directories_first":false}`)
	if r := res.Data.(LsResult); len(r.Entries) != 2 || r.More != 2 || r.Entries[0].Name != "zdir" {
		t.Errorf("limit/reverse: %+v", r)
	}
}

// TestLsTreeOrderPatternAndSpill pins the tree view: pre-order, each folder sorted
// (directories first), levels and relative paths, a pattern keeping folders with a
// match inside, the limit and the sidecar holding the whole listing in the same order.
func TestLsTreeOrderPatternAndSpill(t *testing.T) {
	env := coretest.Env(t, "ls")
	for _, f := range []string{"t/b.go", "t/a.txt", "t/sub/z.go", "t/sub/y.md", "t/sub/deep/x.go", "t/empty/.keep", "t/zz/w.md"} {
		writeFile(t, env, f, "x")
	}
	show := func(r LsResult) string {
		var b []string
		for _, e := range r.Entries {
			b = append(b, fmt.Sprintf("%d:%s:%s:%s", e.level, e.Name, e.Path, e.Type))
		}
		return strings.Join(b, " ")
	}
	res, err := coretest.Call(t, env, &Ls{}, `{"path":"t","depth":2}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "0:empty:empty:dir 0:sub:sub:dir 1:deep:sub/deep:dir 1:y.md:sub/y.md:file 1:z.go:sub/z.go:file 0:zz:zz:dir 1:w.md:zz/w.md:file 0:a.txt:a.txt:file 0:b.go:b.go:file"
	if got := show(res.Data.(LsResult)); got != want {
		t.Errorf("depth 2:\n got %s\nwant %s", got, want)
	}
	res, _ = coretest.Call(t, env, &Ls{}, `{"path":"t","depth":3,"pattern":"*.go"}`)
	want = "0:sub:sub:dir 1:deep:sub/deep:dir 2:x.go:sub/deep/x.go:file 1:z.go:sub/z.go:file 0:b.go:b.go:file"
	if got := show(res.Data.(LsResult)); got != want || res.Data.(LsResult).Total != 5 {
		t.Errorf("depth 3, *.go:\n got %s\nwant %s", got, want)
	}
	res, _ = coretest.Call(t, env, &Ls{}, `{"path":"t","depth":3,"limit":3,"sort_by":"name","reverse":true}`)
	r := res.Data.(LsResult)
	want = "0:zz:zz:dir 1:w.md:zz/w.md:file 0:sub:sub:dir"
	if got := show(r); got != want || r.Total != 10 || r.More != 7 || !res.Truncated {
		t.Fatalf("limit 3, reversed:\n got %s (total %d, more %d)\nwant %s", got, r.Total, r.More, want)
	}
	spill, rerr := os.ReadFile(res.OutputPath)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if want := "zz/\nzz/w.md\nsub/\nsub/deep/\nsub/deep/x.go\nsub/z.go\nsub/y.md\nempty/\nb.go\na.txt\n"; string(spill) != want {
		t.Errorf("sidecar:\n%s\nwant\n%s", spill, want)
	}
}

// TestWalkBudgetFromEnv: AGENTBOX_WALK_BUDGET replaces the time budget of ls, glob and
// grep; a spent budget gives a partial result marked truncated with the reason, and a
// value that is not a positive duration leaves the applets' own budgets.
func TestWalkBudgetFromEnv(t *testing.T) {
	env := coretest.Env(t, "search")
	for i := 0; i < 300; i++ {
		writeFile(t, env, fmt.Sprintf("d%d/f%03d.txt", i%3, i), "needle\n")
	}
	base := env.Getenv
	budget := ""
	env.Getenv = func(k string) string {
		if k == "AGENTBOX_WALK_BUDGET" {
			return budget
		}
		return base(k)
	}
	calls := []struct {
		cmd core.Command
		req string
	}{
		{&Ls{}, `{"depth":3}`},
		{&Glob{}, `{"pattern":"**/*.txt"}`},
		{&Grep{}, `{"pattern":"needle","head_limit":1000}`},
	}
	partial := func(d any) string {
		switch r := d.(type) {
		case LsResult:
			return r.Partial
		case GlobResult:
			return r.Partial
		case GrepResult:
			return r.Partial
		}
		return "?"
	}
	for _, b := range []string{"1ns", "soon", "-1s"} {
		budget = b
		for _, c := range calls {
			res, err := coretest.Call(t, env, c.cmd, c.req)
			if err != nil {
				t.Fatalf("%T with budget %s: %v", c.cmd, b, err)
			}
			got := partial(res.Data)
			if b == "1ns" {
				// A grep that found nothing before its budget ran out has nothing to keep:
				// it is truncated, and no empty sidecar is named.
				if gr, ok := res.Data.(GrepResult); ok && gr.FilesMatched == 0 {
					if got != "time budget of 1ns exhausted" || !res.Truncated || res.OutputPath != "" {
						t.Errorf("grep with budget %s and nothing found: partial %q, truncated %v, output_path %q", b, got, res.Truncated, res.OutputPath)
					}
					continue
				}
				if got != "time budget of 1ns exhausted" || !res.Truncated || res.OutputPath == "" {
					t.Errorf("%T with budget %s: partial %q, truncated %v, output_path %q", c.cmd, b, got, res.Truncated, res.OutputPath)
				}
			} else if got != "" || res.Truncated {
				t.Errorf("%T with the invalid budget %q: partial %q, truncated %v; want the default budget", c.cmd, b, got, res.Truncated)
			}
		}
	}
}

func TestSkillFrontMatter(t *testing.T) {
	meta, body, err := parseFrontMatter([]byte("---\nname: a\ndescription: 'does b'\n---\nbody\n"))
	if err != nil || meta["name"] != "a" || meta["description"] != "does b" || body != "body\n" {
		t.Fatalf("%v %q %v", meta, body, err)
	}
	for _, bad := range []string{"no front", "---\nname: a\n", "---\njust words\n---\n"} {
		if _, _, err := parseFrontMatter([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestDocumentedDefaultsMatchCode: the defaults in the schemas (which prompt, help and
// man pages show) are the constants the code enforces.
func TestDocumentedDefaultsMatchCode(t *testing.T) {
	checks := []struct {
		cmd   any
		field string
		want  string
	}{
		{&Read{}, "limit", fmt.Sprint(ReadDefaultLimit)},
		{&Read{}, "max_bytes", fmt.Sprint(ReadDefaultMaxOut)},
		{&Edit{}, "fuzzy_threshold", fmt.Sprint(textedit.DefaultThreshold)},
		{&EditOp{}, "fuzzy_threshold", fmt.Sprint(textedit.DefaultThreshold)},
		{&Ls{}, "limit", fmt.Sprint(LsDefaultLimit)},
		{&Glob{}, "limit", fmt.Sprint(GlobDefaultLimit)},
		{&Grep{}, "head_limit", fmt.Sprint(GrepDefaultHeadLimit)},
		{&Bash{}, "timeout", fmt.Sprint(BashDefaultTimeoutMs)},
		{&Bash{}, "wait_ms", fmt.Sprint(BashDefaultWaitMs)},
		{&Fetch{}, "timeout_ms", fmt.Sprint(FetchDefaultTimeoutMs)},
		{&Fetch{}, "max_bytes", fmt.Sprint(FetchDefaultMaxBytes)},
		{&Search{}, "max_results", fmt.Sprint(SearchDefaultResults)},
	}
	for _, c := range checks {
		f := core.ParamsOf(c.cmd).Lookup(c.field)
		if f == nil || f.Default != c.want {
			t.Errorf("%T.%s: documented default %v, code uses %s", c.cmd, c.field, f, c.want)
		}
	}
	if f := core.ParamsOf(&Edit{}).Lookup("edits"); f.Constraints["maxItems"] != fmt.Sprint(textedit.MaxEdits) {
		t.Errorf("edits maxItems %q, code allows %d", f.Constraints["maxItems"], textedit.MaxEdits)
	}
	if f := core.ParamsOf(&Bash{}).Lookup("timeout"); f.Constraints["max"] != fmt.Sprint(BashMaxTimeoutMs) {
		t.Errorf("bash timeout max %q, code allows %d", f.Constraints["max"], BashMaxTimeoutMs)
	}
	// Every value an applet's New fills in is the documented default, so a constant
	// changed in one place but not the other fails here.
	for _, s := range All {
		cmd := s.New()
		got, _ := core.ToJSONValue(cmd)
		for _, f := range core.ParamsOf(cmd).Fields {
			v, set := got.(map[string]any)[f.Name]
			if set && f.HasDefault && fmt.Sprint(v) != f.Default {
				t.Errorf("%s.%s: documented default %q, New() sets %v", s.Name, f.Name, f.Default, v)
			}
		}
	}
}

func TestEditUTF16(t *testing.T) {
	env := coretest.Env(t, "edit")
	p := writeFile(t, env, "u.txt", string([]byte{0xFF, 0xFE, 'a', 0, '=', 0, '1', 0, '\n', 0}))
	res, err := coretest.Call(t, env, &Edit{}, `{"file_path":"u.txt","old_string":"a=1","new_string":"a=2"}`)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != string([]byte{0xFF, 0xFE, 'a', 0, '=', 0, '2', 0, '\n', 0}) || res.Data.(EditResult).Encoding != "utf-16le" {
		t.Fatalf("UTF-16 edit: %q", got)
	}
}

// TestReadHugeSingleLine: a line far longer than any buffer is cut, not loaded whole.
func TestReadHugeSingleLine(t *testing.T) {
	env := coretest.Env(t, "read")
	writeFile(t, env, "min.js", strings.Repeat("a", 3<<20)+"\nsecond\n")
	res, err := coretest.Call(t, env, &Read{}, `{"file_path":"min.js"}`)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Data.(ReadResult)
	if r.TotalLines != 2 || !strings.Contains(r.Content, "more bytes") || !strings.Contains(r.Content, "     2\tsecond") || !res.Truncated {
		t.Fatalf("huge line: total %d truncated %v content %.200q", r.TotalLines, res.Truncated, r.Content)
	}
	// The sidecar keeps the line's first MiB and says so where it stops (it ended there
	// without a word).
	side, rerr := os.ReadFile(res.OutputPath)
	if rerr != nil || !strings.Contains(string(side), fmt.Sprintf("[line cut here too, after %d bytes: %d more bytes", 1<<20, 3<<20-1<<20)) || !strings.HasSuffix(string(side), "     2\tsecond\n") {
		t.Fatalf("sidecar: %v, %d bytes, ends %q", rerr, len(side), side[max(0, len(side)-200):])
	}
}

// sequential applies edits in order, each to the result of the one before, and still
// all or nothing: a later edit that does not match leaves the file as it was.
func TestEditSequential(t *testing.T) {
	env := coretest.Env(t, "edit")
	path := filepath.Join(coretest.Root(env), "s.txt")
	if err := os.WriteFile(path, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := coretest.Call(t, env, &Edit{}, `{"file_path":"s.txt","edits":[{"old_string":"x = 1","new_string":"x = 2"},{"old_string":"x = 2","new_string":"x = 3"}]}`); err == nil {
		t.Error("without sequential, the second edit must not see the first's result")
	}
	res, err := coretest.Call(t, env, &Edit{}, `{"file_path":"s.txt","sequential":true,"edits":[{"old_string":"x = 1","new_string":"x = 2"},{"old_string":"x = 2","new_string":"x = 3"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "x = 3\n" {
		t.Errorf("content %q", b)
	}
	if r := res.Data.(EditResult); len(r.Edits) != 2 || r.Edits[1].Index != 1 {
		t.Errorf("applied %+v", r.Edits)
	}
	_, err = coretest.Call(t, env, &Edit{}, `{"file_path":"s.txt","sequential":true,"edits":[{"old_string":"x = 3","new_string":"x = 4"},{"old_string":"nowhere","new_string":"y"}]}`)
	if err == nil || err.Code != core.CodeNoMatch || !strings.Contains(err.Message, "edit 1") {
		t.Errorf("a failing later edit: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "x = 3\n" {
		t.Errorf("a failed sequence changed the file: %q", b)
	}
}
