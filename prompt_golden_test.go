package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/core"
	"github.com/agentbox/agentbox/prompt"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/prompt (scripts/gen does this)")

// goldenCase is one checked-in `agentbox prompt` output.
type goldenCase struct {
	dialect, format string
	strict          bool
}

// path is where the case's golden file lives: testdata/prompt/FORMAT[-strict].EXT for
// agentbox's own names, testdata/prompt/DIALECT/FORMAT.EXT for the other dialects.
func (c goldenCase) path() string {
	name := c.format
	if c.strict {
		name += "-strict"
	}
	if c.format == "markdown" {
		name += ".md"
	} else {
		name += ".json"
	}
	if c.dialect != "agentbox" {
		return filepath.Join("testdata", "prompt", c.dialect, name)
	}
	return filepath.Join("testdata", "prompt", name)
}

// goldenCases: every format and every strict variant in agentbox's names; the full
// catalog (json) and the markdown section in every other dialect.
func goldenCases() []goldenCase {
	var cases []goldenCase
	for _, f := range prompt.Formats {
		cases = append(cases, goldenCase{"agentbox", f, false})
	}
	for _, f := range prompt.StrictFormats {
		cases = append(cases, goldenCase{"agentbox", f, true})
	}
	for _, d := range core.NewTable(applets.All).Dialects()[1:] {
		cases = append(cases, goldenCase{d, "json", false}, goldenCase{d, "markdown", false})
	}
	return cases
}

// TestPromptGoldens keeps `agentbox prompt` output checked in, so a change to a
// description, default or schema shows up in review; scripts/gen rewrites them, and this
// test fails while they are stale.
func TestPromptGoldens(t *testing.T) {
	for _, c := range goldenCases() {
		tools, err := prompt.Catalog(applets.All, c.dialect, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := prompt.Render(tools, c.format, c.strict)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		path := c.path()
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
			t.Errorf("%s is stale: `agentbox prompt --format %s --dialect %s` (strict %v) changed; run scripts/gen and review the diff", path, c.format, c.dialect, c.strict)
		}
	}
}
