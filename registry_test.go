package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/core"
)

// TestRegistry checks the applet table: unique names, a parser and a compiling schema
// for every applet, a one-line summary, and an end-to-end script per applet.
func TestRegistry(t *testing.T) {
	seen := map[string]string{}
	for _, s := range applets.All {
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			if prev, dup := seen[strings.ToLower(n)]; dup && prev != s.Name {
				t.Errorf("name %q of %s is already used by %s", n, s.Name, prev)
			}
			seen[strings.ToLower(n)] = s.Name
		}
		if s.Summary == "" || strings.Contains(s.Summary, "\n") || s.Kind == "" || s.New == nil {
			t.Errorf("%s: needs a one-line Summary, a Kind and a constructor", s.Name)
		}
		cmd := s.New()
		if _, err := core.NewParser(&s, "agentbox "+s.Name, cmd, io.Discard, io.Discard); err != nil {
			t.Errorf("%s: kong parser: %v", s.Name, err)
		}
		p := core.ParamsOf(cmd)
		if err := p.Validate(map[string]any{"__probe__": true}); err == nil || core.AsError(err).Code != core.CodeInvalidParams {
			t.Errorf("%s: schema does not compile or accepts unknown fields: %v", s.Name, err)
		}
		for _, f := range p.Fields {
			if f.Help == "" {
				t.Errorf("%s: field %s has no help text (the model reads it)", s.Name, f.Name)
			}
		}
		scripts, _ := filepath.Glob(filepath.Join("testdata", "script", s.Name+"*.txtar"))
		if len(scripts) == 0 {
			t.Errorf("%s: no testdata/script/%s*.txtar end-to-end script", s.Name, s.Name)
		}
	}
	if _, err := os.Stat("main.go"); err != nil {
		t.Fatal(err)
	}
}
