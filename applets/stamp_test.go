package applets

import (
	"os"
	"testing"
	"time"

	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/core/coretest"
)

// stampAfterRead reads rel and returns the session's stamp of it.
func stampAfterRead(t *testing.T, env *core.Env, rel, abs string) core.FileStamp {
	t.Helper()
	if _, err := coretest.Call(t, env, &Read{}, `{"file_path":"`+rel+`"}`); err != nil {
		t.Fatal(err)
	}
	st, ok, err := env.Session.LastRead(abs)
	if !ok || err != nil {
		t.Fatalf("no stamp after a read: %v", err)
	}
	return st
}

// A file above the hashing threshold whose timestamps are not racy is stamped by its
// metadata alone; a change that keeps size and mtime still shows in ctime, and is a
// conflict for write and edit until a fresh read.
func TestMetadataStampDetectsChange(t *testing.T) {
	defer func(old int64, clock func() time.Time) { readHashMaxBytes, readClock = old, clock }(readHashMaxBytes, readClock)
	readHashMaxBytes = 8
	readClock = func() time.Time { return time.Now().Add(time.Minute) }
	env := coretest.Env(t, "write")
	p := writeFile(t, env, "big.txt", "0123456789\nabcdefghij\n")
	st := stampAfterRead(t, env, "big.txt", p)
	if st.SHA256 != "" || st.Inode == 0 || st.CTime.IsZero() {
		t.Fatalf("want a metadata stamp with inode and ctime and no hash, got %+v", st)
	}
	// Same size, and the mtime put back: only ctime tells.
	if err := os.WriteFile(p, []byte("0123456789\nABCDEFGHIJ\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime, st.ModTime); err != nil {
		t.Fatal(err)
	}
	if _, err := coretest.Call(t, env, &Write{}, `{"file_path":"big.txt","content":"x"}`); err == nil || err.Code != core.CodeConflict {
		t.Fatalf("write after a same-size, same-mtime change: want conflict, got %v", err)
	}
	if _, err := coretest.Call(t, env, &Edit{}, `{"file_path":"big.txt","old_string":"ABC","new_string":"abc"}`); err == nil || err.Code != core.CodeConflict {
		t.Fatalf("edit after a same-size, same-mtime change: want conflict, got %v", err)
	}
	stampAfterRead(t, env, "big.txt", p)
	if _, err := coretest.Call(t, env, &Edit{}, `{"file_path":"big.txt","old_string":"ABC","new_string":"abc"}`); err != nil {
		t.Fatalf("edit after re-reading: %v", err)
	}
	// edit left a stamp of what it wrote: a write right after it passes.
	if _, err := coretest.Call(t, env, &Write{}, `{"file_path":"big.txt","content":"x"}`); err != nil {
		t.Fatalf("write after an edit: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "x" {
		t.Fatalf("file holds %q", b)
	}
}

// A file changed moments before the read has racy timestamps (a second change in the
// same clock tick would leave them as they are), so the read hashes it whatever its
// size, and content decides: rewriting the same bytes is no conflict, new bytes are.
func TestRacyReadIsHashed(t *testing.T) {
	defer func(old int64) { readHashMaxBytes = old }(readHashMaxBytes)
	readHashMaxBytes = 8
	env := coretest.Env(t, "write")
	p := writeFile(t, env, "big.txt", "0123456789\nabcdefghij\n")
	if st := stampAfterRead(t, env, "big.txt", p); st.SHA256 == "" {
		t.Fatalf("a file written just now must be hashed, got %+v", st)
	}
	if err := os.WriteFile(p, []byte("0123456789\nabcdefghij\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := coretest.Call(t, env, &Edit{}, `{"file_path":"big.txt","old_string":"abc","new_string":"ABC"}`); err != nil {
		t.Fatalf("edit after the same bytes were rewritten: %v", err)
	}
	stampAfterRead(t, env, "big.txt", p)
	if err := os.WriteFile(p, []byte("0123456789\nabcdefghiJ\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := coretest.Call(t, env, &Write{}, `{"file_path":"big.txt","content":"x"}`); err == nil || err.Code != core.CodeConflict {
		t.Fatalf("write after a change: want conflict, got %v", err)
	}
}
