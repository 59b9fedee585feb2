package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentbox/agentbox/applets"
	"github.com/agentbox/agentbox/cli"
	"github.com/agentbox/agentbox/cli/flags"
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
		if _, err := flags.NewParser(&s, "agentbox "+s.Name, cmd, io.Discard, io.Discard); err != nil {
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

// TestHelpShowsDefaultsAndExample: `agentbox APPLET --help` shows every parameter's
// default and an example JSON call, and that example is a valid request.
func TestHelpShowsDefaultsAndExample(t *testing.T) {
	for _, s := range applets.All {
		if s.Example == "" {
			t.Errorf("%s: no Example JSON call for --help", s.Name)
			continue
		}
		if err := core.DecodeRequest(strings.NewReader(s.Example), s.New()); err != nil {
			t.Errorf("%s: the --help example %s is refused: %v", s.Name, s.Example, err)
		}
		var stdout, stderr strings.Builder
		root := t.TempDir()
		host := cli.Host{
			Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
			Getenv: func(k string) string {
				return map[string]string{"AGENTBOX_ROOT": root, "HOME": root, "XDG_STATE_HOME": filepath.Join(root, ".state"), "AGENTBOX_HEADLESS": "1"}[k]
			},
			Getwd: func() (string, error) { return root, nil },
			Now:   time.Now,
		}
		if code := cli.Main([]string{"agentbox", s.Name, "--help"}, applets.All, host); code != 0 {
			t.Errorf("%s --help exited %d: %s", s.Name, code, stderr.String())
			continue
		}
		help := strings.Join(strings.Fields(stdout.String()), " ")
		if want := "echo '" + s.Example + "' | agentbox " + s.Name; !strings.Contains(help, want) {
			t.Errorf("%s --help lacks the example call %q:\n%s", s.Name, want, stdout.String())
		}
		for _, f := range core.ParamsOf(s.New()).Fields {
			if !f.HasDefault || f.Default == "" || f.Type.Kind() == reflect.Bool {
				continue
			}
			if want := "(default: " + f.Default + ")"; !strings.Contains(help, want) {
				t.Errorf("%s --help does not show %s's default %s:\n%s", s.Name, f.Name, want, stdout.String())
			}
		}
	}
}
