package core

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Sidecar files older than the configured age are removed by a later spill, at most
// once an hour (issue 17.1); newer ones stay, and every sidecar is 0600.
func TestSpillSweep(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	s, err := NewSession(t.TempDir(), "sweep", func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	s.SidecarMaxAge = 6 * time.Hour
	first, err := s.Spill("read", []byte("first"))
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(filepath.Dir(first), "grep-old.txt")
	if err := os.WriteFile(old, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	past := now.Add(-7 * time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(first, now, now); err != nil {
		t.Fatal(err)
	}
	// Within the hour: no sweep yet, so the old file is still there.
	if _, err := s.Spill("read", []byte("second")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("swept before an hour passed: %v", err)
	}
	now = now.Add(61 * time.Minute)
	if _, err := s.Spill("read", []byte("third")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("a sidecar older than SidecarMaxAge survived the sweep")
	}
	fi, err := os.Stat(first)
	if err != nil {
		t.Fatalf("a recent sidecar was swept: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("sidecar mode %v, want 0600", fi.Mode().Perm())
	}
	for v, want := range map[string]time.Duration{"": DefaultSidecarMaxAge, "6h": 6 * time.Hour, "2": 2 * time.Hour, "junk": DefaultSidecarMaxAge, "-1h": DefaultSidecarMaxAge} {
		if got := ParseMaxAge(v); got != want {
			t.Errorf("ParseMaxAge(%q) = %v, want %v", v, got, want)
		}
	}
}

// An error envelope stays under MaxErrorEnvelope whatever its message and details
// carry (issue 17.4), and says what it cut.
func TestErrorEnvelopeBounded(t *testing.T) {
	lines := make([]int, 200000)
	for i := range lines {
		lines[i] = i + 1
	}
	e := Errorf(CodeAmbiguousMatch, "%s", strings.Repeat("é", 1<<20)).WithDetails(map[string]any{
		"lines": lines, "path": strings.Repeat("p", 1<<20), "nested": map[string]any{"s": strings.Repeat("z", 100000)}})
	var buf bytes.Buffer
	if err := ErrorEnvelope(e, 1).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.Len() >= MaxErrorEnvelope {
		t.Fatalf("error envelope of %d bytes", buf.Len())
	}
	var env Envelope
	if err := json.Unmarshal(buf.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(env.ErrorText, "bytes cut") || !utf8.ValidString(env.ErrorText) {
		t.Errorf("error_text not clipped cleanly: %.100q", env.ErrorText)
	}
	if env.Metadata["error_code"] != string(CodeAmbiguousMatch) {
		t.Errorf("error_code lost: %v", env.Metadata["error_code"])
	}
	// A small error is left as it is.
	small := ErrorEnvelope(Errorf(CodeNotFound, "x does not exist").WithDetails(map[string]any{"lines": []int{1, 2}}), 1)
	if small.ErrorText != "x does not exist" || len(small.Metadata["details"].(map[string]any)["lines"].([]int)) != 2 {
		t.Errorf("a small error changed: %+v", small)
	}
}

func TestStampNeedsHashAndSameMetadata(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	old := FileStamp{Path: "/f", Size: 10, ModTime: now.Add(-time.Hour), CTime: now.Add(-time.Hour), Inode: 7, Device: 1}
	if old.NeedsHash(now) {
		t.Error("an hour-old file is not racy")
	}
	for name, st := range map[string]FileStamp{
		"mtime in the window":  {Size: 10, ModTime: now.Add(-time.Second), CTime: now.Add(-time.Hour), Inode: 7},
		"ctime in the window":  {Size: 10, ModTime: now.Add(-time.Hour), CTime: now.Add(-time.Second), Inode: 7},
		"mtime in the future":  {Size: 10, ModTime: now.Add(time.Hour), CTime: now.Add(-time.Hour), Inode: 7},
		"no inode or ctime":    {Size: 10, ModTime: now.Add(-time.Hour)},
		"exactly at the edges": {Size: 10, ModTime: now.Add(-RacyWindow), CTime: now.Add(-time.Hour), Inode: 7},
	} {
		if !st.NeedsHash(now) {
			t.Errorf("%s: want NeedsHash", name)
		}
	}
	if !old.SameMetadata(old) {
		t.Error("a stamp has the same metadata as itself")
	}
	legacy := FileStamp{Size: 10, ModTime: old.ModTime} // a record written before ctime and inode were kept
	if !legacy.SameMetadata(old) || !old.SameMetadata(legacy) {
		t.Error("fields a record lacks are not compared")
	}
	for name, change := range map[string]func(*FileStamp){
		"size":   func(s *FileStamp) { s.Size++ },
		"mtime":  func(s *FileStamp) { s.ModTime = s.ModTime.Add(time.Nanosecond) },
		"ctime":  func(s *FileStamp) { s.CTime = s.CTime.Add(time.Nanosecond) },
		"inode":  func(s *FileStamp) { s.Inode++ },
		"device": func(s *FileStamp) { s.Device++ },
	} {
		other := old
		change(&other)
		if old.SameMetadata(other) {
			t.Errorf("a different %s is a different version", name)
		}
	}
}
