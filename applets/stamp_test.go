package applets

import (
	"os"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

// A file too large to hash is stamped by size and mtime: a change to either is still a
// conflict for write and edit, and a fresh read clears it.
func TestUnhashedStampStillDetectsChange(t *testing.T) {
	defer func(old int64) { readHashMaxBytes = old }(readHashMaxBytes)
	readHashMaxBytes = 8
	env := coretest.Env(t, "write")
	p := writeFile(t, env, "big.txt", "0123456789\nabcdefghij\n")
	read := func() {
		t.Helper()
		if _, err := coretest.Call(t, env, &Read{}, `{"file_path":"big.txt"}`); err != nil {
			t.Fatal(err)
		}
		if st, ok, _ := env.Session.LastRead(p); !ok || st.SHA256 != "" {
			t.Fatalf("want a stamp without hash, got %+v", st)
		}
	}
	read()
	// Same size, new mtime.
	if err := os.WriteFile(p, []byte("0123456789\nABCDEFGHIJ\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if _, err := coretest.Call(t, env, &Write{}, `{"file_path":"big.txt","content":"x"}`); err == nil || err.Code != core.CodeConflict {
		t.Fatalf("write after a same-size change: want conflict, got %v", err)
	}
	if _, err := coretest.Call(t, env, &Edit{}, `{"file_path":"big.txt","old_string":"ABC","new_string":"abc"}`); err == nil || err.Code != core.CodeConflict {
		t.Fatalf("edit after a same-size change: want conflict, got %v", err)
	}
	read()
	if _, err := coretest.Call(t, env, &Write{}, `{"file_path":"big.txt","content":"x"}`); err != nil {
		t.Fatalf("write after re-reading: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "x" {
		t.Fatalf("file holds %q", b)
	}
}
