package applets

import (
	"encoding/json"
	"os"
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
