package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/prompt"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/prompt (scripts/gen does this)")

// TestPromptGoldens keeps `agentbox prompt --format F` for every format checked in, so a
// change to a description, default or schema shows up in review; scripts/gen rewrites
// them, and this test fails while they are stale.
func TestPromptGoldens(t *testing.T) {
	tools, err := prompt.Catalog(applets.All, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range prompt.Formats {
		got, err := prompt.Render(tools, format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		ext := ".json"
		if format == "markdown" {
			ext = ".md"
		}
		path := filepath.Join("testdata", "prompt", format+ext)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v; run scripts/gen to create the golden files", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: `agentbox prompt --format %s` changed; run scripts/gen and review the diff", path, format)
		}
	}
}
