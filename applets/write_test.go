package applets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core/coretest"
)

// TestWriteKeepsTheFileFormat: overwriting keeps the replaced file's encoding and BOM
// whatever content's line endings, and its line endings where content's are plain LF
// (most lines CRLF counts as CRLF); keep_format false writes content as given. Cases
// from two red teams: a UTF-16 file given CRLF content became UTF-8, and one stray LF
// line turned a Windows file's endings to LF.
func TestWriteKeepsTheFileFormat(t *testing.T) {
	cases := []struct{ name, file, content, want string }{
		{"UTF-16 with CRLF content", "\xff\xfea\x00\r\x00\n\x00", `x\r\ny\r\n`, "\xff\xfex\x00\r\x00\n\x00y\x00\r\x00\n\x00"},
		{"UTF-16 with content's own BOM", "\xff\xfea\x00\r\x00\n\x00", `\ufeffx\ny\n`, "\xff\xfex\x00\r\x00\n\x00y\x00\r\x00\n\x00"},
		{"UTF-16BE", "\xfe\xff\x00a\x00\n", `x\n`, "\xfe\xff\x00x\x00\n"},
		{"UTF-8 BOM with CRLF content", "\xef\xbb\xbfa\nb\n", `x\r\ny\r\n`, "\xef\xbb\xbfx\r\ny\r\n"},
		{"mostly CRLF", "a\r\nb\r\nc\nd\r\n", `x\ny\nz\n`, "x\r\ny\r\nz\r\n"},
		{"mostly LF", "a\nb\nc\r\nd\n", `x\ny\n`, "x\ny\n"},
		{"CR lines", "a\rb\r", `x\ny\n`, "x\ry\r"},
		{"LF stays LF", "a\nb\n", `x\r\ny\n`, "x\r\ny\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := coretest.Env(t, "write")
			p := filepath.Join(coretest.Root(env), "f.txt")
			if err := os.WriteFile(p, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := coretest.Call(t, env, &Write{}, fmt.Sprintf(`{"file_path":"f.txt","content":"%s"}`, c.content)); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(p); string(got) != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
	env := coretest.Env(t, "write")
	p := filepath.Join(coretest.Root(env), "f.txt")
	if err := os.WriteFile(p, []byte("a\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := coretest.Call(t, env, &Write{}, `{"file_path":"f.txt","content":"x\n","keep_format":false}`); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "x\n" {
		t.Errorf("keep_format false: %q", got)
	}
}

// TestEditReportsTheFileItLeaves: final_newline describes the edited file (removing the
// last line break said true), and sequential edits that undo each other are refused
// instead of rewriting the file unchanged (a third red team).
func TestEditReportsTheFileItLeaves(t *testing.T) {
	env := coretest.Env(t, "edit")
	p := filepath.Join(coretest.Root(env), "nl.txt")
	if err := os.WriteFile(p, []byte("x\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := coretest.Call(t, env, &Edit{}, `{"file_path":"nl.txt","old_string":"y\n","new_string":"z"}`)
	if err != nil || res.Data.(EditResult).FinalNewline {
		t.Fatalf("final_newline after removing it: %+v %v", res, err)
	}
	before, _ := os.Stat(p)
	_, err = coretest.Call(t, env, &Edit{}, `{"file_path":"nl.txt","sequential":true,"edits":[{"old_string":"z","new_string":"Z"},{"old_string":"Z","new_string":"z"}]}`)
	if err == nil || !strings.Contains(err.Message, "together change nothing") {
		t.Fatalf("edits that undo each other: %v", err)
	}
	if after, _ := os.Stat(p); !os.SameFile(before, after) {
		t.Error("the file was rewritten")
	}
}
