// Package flags builds an applet's command-line parser (kong) from its parameter
// struct, for the front end and for the man page and completion generators, which
// must not link the rest of the front end.
package flags

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/agentbox/agentbox/core"
	"github.com/alecthomas/kong"
)

type kongExit int

// Stdio is what the parser takes from the process.
type Stdio struct {
	Stdin           io.Reader
	Stdout, Stderr  io.Writer
	StdinIsTerminal bool
	StdinIsData     bool // a pipe or a file (see cli.Host)
}

// Parse fills cmd from the command line with kong (shell mode only: JSON mode never
// builds the parser, which keeps an agent's per-call start-up small). It then runs the
// same schema validation a JSON request gets. exit >= 0 means the call is over (help was
// printed).
func Parse(spec *core.Spec, prog string, cmd core.Command, args []string, host Stdio) (exit int, err error) {
	parser, err := NewParser(spec, prog, cmd, host.Stdout, host.Stderr)
	if err != nil {
		return -1, core.Errorf(core.CodeInternal, "building the command-line parser for %s failed: %v", spec.Name, err)
	}
	defer func() {
		if r := recover(); r != nil {
			if code, ok := r.(kongExit); ok {
				exit, err = int(code), nil
				return
			}
			panic(r)
		}
	}()
	if r, ok := cmd.(core.ShellArgsRewriter); ok {
		args = r.RewriteShellArgs(args)
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		return -1, core.Errorf(core.CodeInvalidParams, "%v; run `agentbox %s --help` for the flags", err, spec.Name)
	}
	if sd, ok := cmd.(core.ShellDefaulter); ok {
		given := map[string]bool{}
		for _, p := range kctx.Path {
			if p.Flag != nil {
				given[p.Flag.Name] = true
			}
		}
		sd.ShellDefaults(func(flag string) bool { return given[flag] })
	}
	if ss, ok := cmd.(core.ShellStdin); ok && host.StdinIsData && host.Stdin != nil {
		ss.ShellStdin(host.Stdin)
	}
	if si, ok := cmd.(core.ShellInput); ok {
		if err := si.ReadShellInput(host.Stdin, host.StdinIsTerminal); err != nil {
			return -1, err
		}
	}
	v, err := core.ToJSONValue(cmd)
	if err != nil {
		return -1, core.Errorf(core.CodeInternal, "%v", err)
	}
	if err := core.ParamsOf(cmd).Validate(v); err != nil {
		return -1, err
	}
	if pc, ok := cmd.(core.RequestChecker); ok {
		present := map[string]bool{}
		for _, p := range kctx.Path {
			if p.Flag != nil {
				present[strings.ReplaceAll(p.Flag.Name, "-", "_")] = true
			}
		}
		if err := pc.CheckRequest(present); err != nil {
			return -1, err
		}
	}
	return -1, nil
}

// NewParser builds the kong parser of an applet. The man page and completion generators
// use it too.
func NewParser(spec *core.Spec, prog string, cmd core.Command, stdout, stderr interface {
	Write([]byte) (int, error)
}) (*kong.Kong, error) {
	desc := spec.Description
	if desc == "" {
		desc = spec.Summary
	}
	return kong.New(cmd,
		kong.Name(prog),
		kong.Description(desc),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(kongExit(code)) }),
		kong.NamedMapper("json", jsonMapper{}),
		kong.ValueFormatter(helpValue),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, WrapUpperBound: 100}),
		kong.Help(func(opts kong.HelpOptions, ctx *kong.Context) error {
			if err := kong.DefaultHelpPrinter(opts, ctx); err != nil {
				return err
			}
			fmt.Fprintf(ctx.Stdout, "\nGlobal flags: --json, --text, --root DIR, --session ID, --mode MODE, --manifest FILE, --color WHEN, --dialect D\n")
			if spec.Example != "" {
				fmt.Fprintf(ctx.Stdout, "\nJSON call (what an agent sends on stdin):\n  echo '%s' | agentbox %s\n", spec.Example, spec.Name)
			}
			fmt.Fprintf(ctx.Stdout, "\nJSON fields: %s\n", core.ParamsOf(cmd).AcceptedNames())
			return nil
		}),
	)
}

func helpValue(v *kong.Value) string {
	s := kong.DefaultHelpValueFormatter(v)
	if v.Enum != "" && !strings.Contains(s, "one of") {
		s += " (one of: " + strings.ReplaceAll(v.Enum, ",", ", ") + ")"
	}
	if v.HasDefault && v.Default != "" && !v.IsBool() {
		s += " (default: " + v.Default + ")"
	}
	return s
}

// jsonMapper lets a structured parameter (an array of edits, an env map) be given on the
// command line as JSON: --edits '[{"old_string":"a","new_string":"b"}]'.
type jsonMapper struct{}

func (jsonMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	var raw string
	if err := ctx.Scan.PopValueInto("json", &raw); err != nil {
		return err
	}
	ptr := reflect.New(target.Type())
	if err := json.Unmarshal([]byte(raw), ptr.Interface()); err != nil {
		return fmt.Errorf("--%s takes JSON: %v", ctx.Value.Name, err)
	}
	target.Set(ptr.Elem())
	return nil
}
