package core

import (
	"os"
	"path/filepath"
	"testing"
	"time"
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
