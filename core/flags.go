package core

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"
)

type kongExit int

// ShellInput is implemented by applets that take a parameter from stdin in shell mode
// (write's content, patch's patch text) when the command line did not give it. It runs
// after flag parsing and before validation, so the schema sees the complete request.
type ShellInput interface {
	ReadShellInput(stdin io.Reader, stdinIsTerminal bool) error
}

// ShellDefaulter is implemented by applets whose defaults for a person at a shell differ
// from an agent's (grep shows matching lines, as ripgrep does, where an agent gets the
// file names). given reports whether a flag, by its long name, was on the command line;
// it runs after flag parsing, before validation.
type ShellDefaulter interface {
	ShellDefaults(given func(flag string) bool)
}

// ShellArgsRewriter is implemented by applets whose users type a flag the parser
// reserves (ls -h: human-readable sizes, not help); it rewrites the command line first.
type ShellArgsRewriter interface {
	RewriteShellArgs(args []string) []string
}

// ShellStdin is implemented by applets that read standard input when a person pipes
// data in (grep with no path searches it, as grep and ripgrep do). It is called in
// shell mode when stdin is a pipe or a file, not a terminal or /dev/null.
type ShellStdin interface {
	ShellStdin(r io.Reader)
}

// ShellErrorExiter is implemented by applets whose text-mode failures exit with another
// status than 1, because 1 means something else for the tool they stand in for (grep and
// ripgrep: 1 is "no match", 2 an error).
type ShellErrorExiter interface {
	ShellErrorExit() int
}

// parseFlags fills cmd from the command line with kong (shell mode only: JSON mode never
// builds the parser, which keeps an agent's per-call start-up small). It then runs the
// same schema validation a JSON request gets. exit >= 0 means the call is over (help was
// printed).
func parseFlags(spec *Spec, prog string, cmd Command, args []string, host Host) (exit int, err error) {
	parser, err := NewParser(spec, prog, cmd, host.Stdout, host.Stderr)
	if err != nil {
		return -1, Errorf(CodeInternal, "building the command-line parser for %s failed: %v", spec.Name, err)
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
	if r, ok := cmd.(ShellArgsRewriter); ok {
		args = r.RewriteShellArgs(args)
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		return -1, Errorf(CodeInvalidParams, "%v; run `agentbox %s --help` for the flags", err, spec.Name)
	}
	if sd, ok := cmd.(ShellDefaulter); ok {
		given := map[string]bool{}
		for _, p := range kctx.Path {
			if p.Flag != nil {
				given[p.Flag.Name] = true
			}
		}
		sd.ShellDefaults(func(flag string) bool { return given[flag] })
	}
	if ss, ok := cmd.(ShellStdin); ok && host.StdinIsData && host.Stdin != nil {
		ss.ShellStdin(host.Stdin)
	}
	if si, ok := cmd.(ShellInput); ok {
		if err := si.ReadShellInput(host.Stdin, host.StdinIsTerminal); err != nil {
			return -1, err
		}
	}
	v, err := ToJSONValue(cmd)
	if err != nil {
		return -1, Errorf(CodeInternal, "%v", err)
	}
	if err := ParamsOf(cmd).Validate(v); err != nil {
		return -1, err
	}
	return -1, nil
}

// NewParser builds the kong parser of an applet. The man page and completion generators
// use it too.
func NewParser(spec *Spec, prog string, cmd Command, stdout, stderr interface {
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
			fmt.Fprintf(ctx.Stdout, "\nJSON fields: %s\n", ParamsOf(cmd).AcceptedNames())
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

// ReadAllContext reads r to its end, or to limit bytes, unless ctx ends first: a read
// from a pipe whose writer never closes it must not keep agentbox from stopping on a
// signal. The read that is given up on stays blocked in its goroutine; the process is
// about to exit.
func ReadAllContext(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, limit))
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, Errorf(CodeInterrupted, "interrupted while reading standard input")
	}
}
