package applets

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

func TestPatchDryRunAndConflict(t *testing.T) {
	env := coretest.Env(t, "patch")
	p := writeFile(t, env, "a.txt", "one\r\ntwo\r\n")
	req, _ := json.Marshal(map[string]any{"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** End Patch\n", "dry_run": true})
	res, err := coretest.Call(t, env, &Patch{}, string(req))
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Data.(PatchResult); !r.DryRun || len(r.Files) != 1 || r.Files[0].Added != 1 {
		t.Fatalf("dry run: %+v", r)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\r\ntwo\r\n" {
		t.Fatalf("dry run wrote: %q", b)
	}
	// Applied for real: CRLF kept.
	req, _ = json.Marshal(map[string]any{"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** End Patch\n"})
	if _, err := coretest.Call(t, env, &Patch{}, string(req)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\r\nTWO\r\n" {
		t.Fatalf("applied: %q", b)
	}
	// Changed behind the session's back: conflict, nothing written.
	os.WriteFile(p, []byte("one\r\nTWO\r\nthree\r\n"), 0o644)
	req, _ = json.Marshal(map[string]any{"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n"})
	if _, err := coretest.Call(t, env, &Patch{}, string(req)); err == nil || err.Code != core.CodeConflict {
		t.Fatalf("want conflict, got %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\r\nTWO\r\nthree\r\n" {
		t.Fatalf("written despite the conflict: %q", b)
	}
}

// read, edit and patch share one meaning of binary (core/textfmt, issue 21): a file one
// of them refuses as binary the others refuse too, and nothing is written.
func TestOneMeaningOfBinary(t *testing.T) {
	env := coretest.Env(t, "patch")
	files := map[string]struct {
		content string
		binary  bool
	}{
		"nul.txt":     {"one\n\x00two\n", true},
		"control.txt": {"one\n\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\n", true},
		"plain.txt":   {"one\ntwo\n", false},
		"colour.txt":  {"one\n\x1b[31mtwo\x1b[0m\n", false},
	}
	for name, f := range files {
		p := writeFile(t, env, name, f.content)
		want := func(applet string, err *core.Error) {
			t.Helper()
			if f.binary && (err == nil || err.Code != core.CodeBinaryFile) {
				t.Errorf("%s %s: %v, want binary_file", applet, name, err)
			}
			if !f.binary && err != nil {
				t.Errorf("%s %s: %v, want it done", applet, name, err)
			}
			if b, _ := os.ReadFile(p); f.binary && string(b) != f.content {
				t.Errorf("%s %s wrote %q", applet, name, b)
			}
		}
		_, err := coretest.Call(t, env, &Read{}, `{"file_path":"`+name+`"}`)
		want("read", err)
		_, err = coretest.Call(t, env, &Edit{}, `{"file_path":"`+name+`","old_string":"one","new_string":"ONE"}`)
		want("edit", err)
		first := "ONE" // edit changed it
		if f.binary {
			first = "one"
		}
		req, _ := json.Marshal(map[string]any{"patch": "*** Begin Patch\n*** Update File: " + name + "\n@@\n-" + first + "\n+1\n*** End Patch\n"})
		_, err = coretest.Call(t, env, &Patch{}, string(req))
		want("patch", err)
	}
	// UTF-16 with a byte order mark is text for read and edit; patch, which works on
	// UTF-8 lines, refuses it and says to use edit.
	writeFile(t, env, "wide.txt", "\xFF\xFEo\x00n\x00e\x00\n\x00")
	req, _ := json.Marshal(map[string]any{"patch": "*** Begin Patch\n*** Update File: wide.txt\n@@\n-one\n+1\n*** End Patch\n"})
	if _, err := coretest.Call(t, env, &Patch{}, string(req)); err == nil || err.Code != core.CodeBinaryFile || !strings.Contains(err.Message, "edit") {
		t.Errorf("patch of UTF-16: %v, want binary_file naming edit", err)
	}
	if _, err := coretest.Call(t, env, &Read{}, `{"file_path":"wide.txt"}`); err != nil {
		t.Errorf("read of UTF-16: %v", err)
	}
}
