package core

import (
	"context"
	"io"
)

// The optional interfaces below are how an applet adapts to a person at a shell; the
// front end (cli) calls them in shell mode only.

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
