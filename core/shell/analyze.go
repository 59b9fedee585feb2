// Package shell analyses bash command lines before they run and judges them with a
// watchdog.
//
// Analyze parses a line with mvdan.cc/sh/v3/syntax (bash dialect) and reports every
// simple command it would run, wherever it sits: in && / || / ; chains, pipes,
// subshells, blocks, loops and conditionals, command and process substitutions
// (also inside parameter defaults, arithmetic and here-documents), function bodies,
// trap and alias bodies, and behind wrappers. A wrapper (sudo, env, timeout, nohup,
// xargs, find -exec, eval, bash -c, watch, su -c, busybox ...) is reported itself
// and the command it runs is reported again as its own SimpleCommand with Context
// "wrapper:<name>"; script strings given to eval, sh -c, su -c, watch, trap, alias
// and shells fed by a here-document are parsed recursively (to a bounded depth).
//
// Words are reduced to the literal text bash would see after quote removal ('a'"b"\c,
// $'\x72m' and brace expansion included). A word whose value depends on run time
// ($VAR, $(cmd), globs are kept literally) keeps only its literal prefix, so
// `rm -rf /$X` is still seen as removing "/...". When such a word is a command
// name, the line is marked Uncertain with a reason: nothing can say what it runs.
// Unparseable lines and lines with control or invisible format characters are
// Uncertain too. The analyser never executes anything.
//
// Check (watchdog.go) applies a configurable list of dangerous-command rules to an
// Analysis and returns allow, flag or deny with a reason.
package shell

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Analysis is what Analyze found in one command line.
type Analysis struct {
	// Commands lists every simple command, outermost first within each statement.
	Commands []SimpleCommand
	// Uncertain holds reasons the analysis cannot be trusted to be complete
	// (computed command names, unparseable input, control characters, ...).
	Uncertain []string
}

// SimpleCommand is one command a line runs.
type SimpleCommand struct {
	// Argv holds the literal words after quote removal and wrapper unwrapping. A word
	// with run-time expansions keeps its literal prefix only.
	Argv []string
	// Redirects are the command's redirections (for a wrapped command, the
	// wrapper's, which it inherits).
	Redirects []Redirect
	// Context says where the command sits: "" at top level, or the innermost of
	// "pipe", "subshell", "cmdsubst", "procsubst", "function", "coproc", "trap",
	// "alias", "wrapper:<name>" (e.g. "wrapper:sudo", "wrapper:bash").
	Context string

	// Extensions beyond Argv/Redirects/Context, for the watchdog:

	// Partial[i] is true when Argv[i] is only the literal prefix of a word computed
	// at run time ($X, $(cmd)); nil when every word is fully literal.
	Partial []bool
	// Pipeline numbers the pipeline the command is a stage of (commands with the
	// same non-zero number share one pipeline, in order); 0 outside pipelines.
	Pipeline int
	// Background is set for a command run with &.
	Background bool
	// Func names the innermost function whose body holds the command.
	Func string
}

// Redirect is one redirection.
type Redirect struct {
	Op     string // >, >>, <, <>, &>, &>>, >|, >&, <&, <<, <<-, <<<
	Target string // file (literal prefix if computed), fd for >& and <&; "" for here-documents and here-strings
	Fd     string // explicit fd number before the operator ("2" in 2>err), "" if none
	// Partial is true when Target is only the literal prefix of a word computed at
	// run time (> "$F", > /etc/$F).
	Partial bool
}

// Limits that keep the analysis bounded on hostile input.
const (
	maxDepth    = 8    // nested re-parses (eval "bash -c '...'")
	maxCommands = 4096 // simple commands in one analysis
	maxBraces   = 64   // words produced by one brace expansion
)

// word is an argument after quote removal: its literal value (or literal prefix)
// and whether that value is the whole word.
type word struct {
	s     string
	known bool
}

type analyzer struct {
	a       *Analysis
	depth   int
	pipes   int
	inherit frame         // pipeline and function a nested script's commands belong to
	feed    map[int]*word // per pipeline: the known text the latest stage prints
	reasons map[string]bool
}

// Analyze parses line as bash and reports every simple command in it. It returns an
// error only when the line cannot be parsed at all; the Analysis is non-nil even
// then (marked Uncertain), so a caller may judge it either way.
func Analyze(line string) (*Analysis, error) {
	z := &analyzer{a: &Analysis{}, reasons: map[string]bool{}}
	if r, ok := controlChar(line); ok {
		z.uncertain(fmt.Sprintf("the line contains the control or invisible character %U; write it with $'\\x..' escapes if it is meant", r))
	}
	if err := z.parse(line, ""); err != nil {
		return z.a, err
	}
	return z.a, nil
}

// controlChar reports the first byte or rune that could hide text from a reader:
// C0/C1 controls other than tab and newline, DEL, invalid UTF-8, and Unicode format
// characters (bidi overrides, zero-width spaces).
func controlChar(s string) (rune, bool) {
	for i, r := range s {
		switch {
		case r == '\t' || r == '\n':
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return rune(s[i]), true
			}
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, unicode.Is(unicode.Cf, r):
			return r, true
		}
	}
	return 0, false
}

func (z *analyzer) uncertain(reason string) {
	if !z.reasons[reason] {
		z.reasons[reason] = true
		z.a.Uncertain = append(z.a.Uncertain, reason)
	}
}

// parse analyses src (a whole line, or a script string found in one) with ctx as
// the context of its top-level commands.
func (z *analyzer) parse(src, ctx string) error {
	if z.depth > maxDepth {
		z.uncertain("scripts nested too deeply to analyse")
		return nil
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		z.uncertain("unparseable: " + err.Error())
		return fmt.Errorf("cannot parse the command line as bash: %v; check quoting and brackets", err)
	}
	z.depth++
	defer func() { z.depth-- }()
	z.walk(f, frame{ctx: ctx, pipe: z.inherit.pipe, fn: z.inherit.fn})
	return nil
}

// frame is what walk knows about the nodes above the current one.
type frame struct {
	ctx    string
	pipe   int    // id of the innermost pipeline, 0 outside one
	fn     string // innermost enclosing function
	inPipe bool   // this node is a pipe operator, so its operands are pipeline stages
}

// walk visits every node under root, keeping a stack of frames so each statement
// knows where it sits.
func (z *analyzer) walk(root syntax.Node, top frame) {
	stack := []frame{top}
	syntax.Walk(root, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		cur := stack[len(stack)-1]
		next := cur
		next.inPipe = false
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				next.ctx, next.inPipe = "pipe", true
				// a | b | c nests pipe operators; they form one pipeline.
				if len(stack) < 2 || !stack[len(stack)-2].inPipe {
					z.pipes++
					next.pipe = z.pipes
				}
			}
		case *syntax.Subshell:
			next.ctx = "subshell"
		case *syntax.CmdSubst:
			next.ctx, next.pipe = "cmdsubst", 0
		case *syntax.ProcSubst:
			next.ctx, next.pipe = "procsubst", 0
		case *syntax.FuncDecl:
			next.ctx, next.pipe, next.fn = "function", 0, ""
			if n.Name != nil {
				next.fn = n.Name.Value
			}
		case *syntax.CoprocClause:
			next.ctx = "coproc"
		case *syntax.TimeClause:
			next.ctx = "wrapper:time"
		case *syntax.Stmt:
			z.stmt(n, cur)
		}
		stack = append(stack, next)
		return true
	})
}

// stmt records the simple command of a statement (if it is one), with its
// redirections, and unwraps it. Nested statements are reached by walk.
func (z *analyzer) stmt(st *syntax.Stmt, f frame) {
	var reds []Redirect
	var stdin *word // literal text of a here-document or here-string feeding the command
	for _, r := range st.Redirs {
		rd := Redirect{Op: r.Op.String()}
		if r.N != nil {
			rd.Fd = r.N.Value
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				w := z.word(r.Hdoc, true)
				stdin = &w
			} else {
				stdin = &word{known: true}
			}
		case syntax.WordHdoc:
			if r.Word != nil {
				w := z.word(r.Word, false)
				w.s += "\n"
				stdin = &w
			}
		default:
			if r.Word != nil {
				w := z.word(r.Word, false)
				rd.Target, rd.Partial = w.s, !w.known
			}
		}
		reds = append(reds, rd)
	}
	proto := SimpleCommand{Redirects: reds, Context: f.ctx, Pipeline: f.pipe, Background: st.Background, Func: f.fn}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		var argv []word
		for _, w := range cmd.Args {
			argv = append(argv, z.words(w)...)
		}
		if len(argv) == 0 {
			if len(reds) > 0 {
				z.add(proto)
			}
			return
		}
		z.command(argv, proto, stdin)
	case *syntax.DeclClause:
		argv := []word{{s: cmd.Variant.Value, known: true}}
		for _, as := range cmd.Args {
			argv = append(argv, z.assign(as))
		}
		z.command(argv, proto, stdin)
	default: // compound commands, or a statement that is only redirections (> f)
		if len(reds) > 0 {
			// Redirections of a compound command ({ ...; } > f) apply to all of it.
			z.add(proto)
		}
	}
}

// assign renders a declaration argument as bash would pass it (name=value).
func (z *analyzer) assign(as *syntax.Assign) word {
	if as.Name == nil {
		if as.Value != nil {
			return z.word(as.Value, false)
		}
		return word{known: true}
	}
	w := word{s: as.Name.Value, known: as.Index == nil}
	if as.Naked {
		return w
	}
	if as.Append {
		w.s += "+"
	}
	w.s += "="
	if as.Value != nil {
		v := z.word(as.Value, false)
		w.s += v.s
		w.known = w.known && v.known
	} else if as.Array != nil {
		w.known = false
	}
	return w
}

func (z *analyzer) add(c SimpleCommand) bool {
	if len(z.a.Commands) >= maxCommands {
		z.uncertain(fmt.Sprintf("more than %d commands; the rest were not analysed", maxCommands))
		return false
	}
	z.a.Commands = append(z.a.Commands, c)
	return true
}

// command records one simple command and, when it is a wrapper, what it runs. proto
// carries everything but Argv.
func (z *analyzer) command(argv []word, proto SimpleCommand, stdin *word) {
	if len(argv) == 0 {
		return
	}
	if !argv[0].known {
		shown := argv[0].s
		if shown == "" {
			shown = "an expansion"
		}
		z.uncertain(fmt.Sprintf("the command name is computed at run time (%s...)", shown))
	}
	sc := proto
	sc.Argv = make([]string, len(argv))
	sc.Partial = nil
	for i, w := range argv {
		sc.Argv[i] = w.s
		if !w.known {
			if sc.Partial == nil {
				sc.Partial = make([]bool, len(argv))
			}
			sc.Partial[i] = true
		}
	}
	if !z.add(sc) {
		return
	}
	stage := proto.Context == "pipe" && proto.Pipeline != 0
	if stage && stdin == nil {
		stdin = z.feed[proto.Pipeline] // what the previous stage prints, if known
	}
	if argv[0].known {
		z.unwrap(argv, proto, stdin)
	}
	if stage {
		if z.feed == nil {
			z.feed = map[int]*word{}
		}
		z.feed[proto.Pipeline] = feedOf(argv, sc.Redirects, stdin)
	}
}

// feedOf is the text a pipeline stage writes, when it is a literal echo, printf or
// cat of a here-document (echo 'rm -rf /' | sh); nil otherwise.
func feedOf(argv []word, reds []Redirect, stdin *word) *word {
	for _, r := range reds {
		if r.Fd == "" && strings.HasPrefix(r.Op, ">") {
			return nil // stdout goes elsewhere
		}
	}
	args := argv[1:]
	switch base(argv[0].s) {
	case "echo":
		for len(args) > 0 && (args[0].s == "-n" || args[0].s == "-e" || args[0].s == "-E" || args[0].s == "-ne" || args[0].s == "-en") {
			args = args[1:]
		}
		w := join(args)
		w.s += "\n"
		return &w
	case "printf":
		if len(args) == 0 {
			return nil
		}
		w := word{s: ansiC(args[0].s), known: args[0].known}
		return &w
	case "cat":
		if len(args) == 0 {
			return stdin
		}
	}
	return nil
}

// script analyses a script string handed to a wrapper (eval, sh -c, ...); its
// commands inherit the wrapper's pipeline and function.
func (z *analyzer) script(w word, wrapper string, proto SimpleCommand) {
	if !w.known {
		z.uncertain(fmt.Sprintf("%s runs a script computed at run time", wrapper))
	}
	if w.s == "" {
		return
	}
	saved := z.inherit
	z.inherit = frame{pipe: proto.Pipeline, fn: proto.Func}
	_ = z.parse(w.s, "wrapper:"+wrapper)
	z.inherit = saved
}

// word reduces a word to its literal value, recursing into nothing: nested
// substitutions are reached by walk. inHdoc selects here-document quoting rules.
func (z *analyzer) word(w *syntax.Word, inHdoc bool) word {
	var b strings.Builder
	known := true
	var parts func(ps []syntax.WordPart, quoted bool) bool
	parts = func(ps []syntax.WordPart, quoted bool) bool {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				// A leading ~ stays as written; the watchdog knows it means home.
				unescape(&b, p.Value, quoted)
			case *syntax.SglQuoted:
				if p.Dollar {
					b.WriteString(ansiC(p.Value))
				} else {
					b.WriteString(p.Value)
				}
			case *syntax.DblQuoted:
				if !parts(p.Parts, true) {
					return false
				}
			case *syntax.ParamExp:
				// $HOME at the start of a word is the home directory, written "~"
				// so paths under it read like the watchdog's lists.
				if b.Len() != 0 || !isPlainParam(p, "HOME") {
					known = false
					return false
				}
				b.WriteString("~")
			default:
				known = false
				return false
			}
		}
		return true
	}
	parts(w.Parts, inHdoc)
	return word{s: b.String(), known: known}
}

// words expands braces in w (bounded) and reduces each result.
func (z *analyzer) words(w *syntax.Word) []word {
	if !hasBrace(w) {
		return []word{z.word(w, false)}
	}
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if !syntax.SplitBraces(cp) {
		return []word{z.word(w, false)}
	}
	var out []word
	for ew, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(out) >= maxBraces {
			z.uncertain("a brace expansion is too large to analyse")
			break
		}
		out = append(out, z.word(ew, false))
	}
	if len(out) == 0 {
		return []word{z.word(w, false)}
	}
	return out
}

func isPlainParam(p *syntax.ParamExp, name string) bool {
	return p.Param != nil && p.Param.Value == name && p.NestedParam == nil && !p.Excl && !p.Length &&
		!p.Width && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Names == 0 && p.Exp == nil
}

func hasBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// unescape writes v with backslash quoting removed: unquoted, a backslash escapes
// any character; in double quotes (and here-documents) only $ ` " \ and newline.
func unescape(b *strings.Builder, v string, quoted bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			n := v[i+1]
			if n == '\n' {
				i++
				continue
			}
			if !quoted || strings.IndexByte("$`\"\\", n) >= 0 {
				i++
				c = n
			}
		}
		b.WriteByte(c)
	}
}

// ansiC decodes the body of a $'...' string the way bash does.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// base is a command name without its directory (/usr/bin/sudo -> sudo).
func base(name string) string {
	if strings.Contains(name, "/") {
		return path.Base(name)
	}
	return name
}
