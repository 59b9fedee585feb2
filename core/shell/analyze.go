// Package shell analyses bash command lines before they run and judges them with a
// watchdog: the one engine that bash, permit check and the MCP server all reach
// through the gate.
//
// Analyze (analyze.go) parses a line with mvdan.cc/sh/v3/syntax (bash dialect) and
// reports every simple command it would run, wherever it sits: in && / || / ; chains,
// pipes, subshells, blocks, loops and conditionals, command and process substitutions
// (also inside parameter defaults, arithmetic and here-documents), function bodies,
// trap and alias bodies, and behind wrappers. A wrapper (sudo, env, timeout, nohup,
// xargs, find -exec, eval, bash -c, watch, su -c, busybox, task runners ...:
// wrappers.go) is reported itself and the command it runs is reported again as its own
// SimpleCommand with Context "wrapper:<name>"; script strings given to eval, sh -c,
// su -c, interpreters' one-liners and shells fed by a here-document are parsed
// recursively (to a bounded depth), and so are the programs other tools run in their
// own languages where the line shows them (sed's e, vim's :!, sqlite3's .shell, m4's
// syscmd, make's recipes: embedded.go).
//
// Words are reduced to what bash would see, as far as it can be known without running
// anything: quote removal, $'...', brace expansion, the call's environment (HOME, PWD,
// the variables it sets), assignments, cd and set -- earlier on the line, loops over
// literal lists, defaults (${X:-/}), $(echo ...), $(pwd), ~ and ~user, and globs and
// .. resolved against the real file system. What stays unknown (a command
// substitution, read, xargs input) is marked: a word keeps its literal prefix and is
// Partial, and a command name or script that cannot be known is recorded in Unknown.
// Unparseable lines and lines with control or invisible format characters are
// Uncertain. The analyser never executes anything.
//
// Check (watchdog.go, rules.go) judges an Analysis: it refuses what no mode may allow
// (recursive deletes of system and home trees, writes to start-up and system files,
// fork bombs, code from the network, disk tools, kill -1) and fails closed, refusing an
// unknown command name or an unknown operand in a dangerous position; flags what a
// person should look at; and refuses what cannot be analysed at all in strict mode.
package shell

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/shlex"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// Context is what is known about where a line will run: the home directory, the
// working directory and the environment. With it the analyser expands what can be
// known without running anything: $HOME, $PWD and the call's variables, assignments
// and `cd` earlier on the line, `for` loops over literal lists, `set --`, defaults
// (${X:-/} may be /), $(echo ...), $(pwd) and $(mktemp ...). The zero Context knows
// only what the line itself says.
type Context struct {
	Home   string
	Dir    string
	Getenv func(name string) (string, bool)
	// Exported, when Getenv is nil, names the variables of the environment without
	// their values: a line that changes one (let HOME=1) passes it on changed.
	Exported func(name string) bool
}

// Analysis is what Analyze found in one command line.
type Analysis struct {
	// Commands lists every simple command, outermost first within each statement.
	Commands []SimpleCommand
	// Uncertain holds reasons the analysis cannot be trusted to be complete
	// (computed command names, unparseable input, control characters, ...).
	Uncertain []string
	// Unknown lists what cannot be known before the line runs although it decides
	// what runs: a computed command name, a script computed at run time or fed to an
	// interpreter from an unknown source. The watchdog refuses such lines (it fails
	// closed), unlike the other uncertainties, which it only flags.
	Unknown []string
	// Home is the home directory the analysis assumed ("" when unknown).
	Home string
	// Links are the symbolic links the line makes (ln -s TARGET NAME) before later
	// commands use them: absolute link path to absolute target.
	Links map[string]string
	// Copies are programs the line copies (cp /bin/rm d): the copy's name as a later
	// command may spell it, to the program copied.
	Copies map[string]string
	// NoCaseGlob: the line may turn on shopt -s nocaseglob, so its patterns match
	// names in any case (.GI[T]/CONFI[G] is .git/config).
	NoCaseGlob bool
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
	// Typed is Argv as the line spells its options (-vt/x), where Argv has them apart
	// for the analysis (-v -t /x); nil when the two are the same. Rules match what
	// was typed. TypedPartial is Partial for it.
	Typed        []string
	TypedPartial []bool
	// Pipeline numbers the pipeline the command is a stage of (commands with the
	// same non-zero number share one pipeline, in order); 0 outside pipelines.
	Pipeline int
	// Background is set for a command run with &.
	Background bool
	// Func names the innermost function whose body holds the command.
	Func string
	// Dir is the directory the command runs in, after any cd earlier on the line; ""
	// when it cannot be known.
	Dir string
	// DirUnknown is set when the line moved to a folder that cannot be known before it
	// runs (cd "$X", cd -, popd, CDPATH): a relative operand could then be anywhere.
	DirUnknown bool
	// Loop is set for a command inside a loop that never ends by itself (while true,
	// until false, for ((;;))).
	Loop bool
	// Env holds the variables the line sets for this command alone (X=1 cmd, env X=1
	// cmd, sudo X=1 cmd), as NAME=VALUE, or NAME alone when the value is computed: they
	// change what it runs as much as bash's env field does.
	Env []string
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
	// numeric: not known, but a number (what arithmetic stored): arithmetic evaluating
	// it again runs nothing.
	numeric bool
}

type analyzer struct {
	a         *Analysis
	ctx       Context
	cwd       string             // the working directory so far ("" unknown)
	cwdLost   bool               // a cd on the line went somewhere that cannot be known
	exported  []string           // NAME=VALUE the line exported: the environment of every later command
	lastParam []word             // the values of the last ${x:=v}, which x takes
	vars      map[string][]word  // what each variable may hold, as far as the line says
	attrs     map[string]varAttr // declare -i, -l, -u, -c: what an assignment to the variable stores
	readonly  map[string]bool    // readonly, declare -r: later assignments and unsets fail
	volatile  map[string][]word  // values a trap or alias body may set at any later moment
	// weak: the statement being analysed may not run, or may not keep what it sets
	// (a branch, a loop's body, a function's body, local): what it assigns is added to
	// what the variable held, never put in its place.
	weak         bool
	weakDepth    int               // inside a function body, a trap or alias body, or a script run by a statement that may not run
	volatileNow  int               // inside a trap or alias body
	cdPending    *cdFrom           // the statement's cd may fail: where the shell stays then
	branchLeaf   *syntax.Stmt      // the statement an && or || list analyses, which takes cdPending itself
	lineRemoves  bool              // a command on the line so far removes or moves files: a folder there now may be gone
	cdableVars   bool              // shopt -s cdable_vars may be on: cd NAME may go where $NAME says
	physical     bool              // set -P may be on: cd resolves links before ".."
	extdebug     bool              // shopt -s extdebug may be on
	debugTrap    bool              // a DEBUG trap may be set: with extdebug it may skip any command
	skipsCounted bool              // skipping() has made the rest of the line weak
	seen         map[string]bool   // the commands listed, so that none is listed twice
	namerefs     map[string]string // declare -n R=X: R stands for X ("" not yet set, "?" not known)
	fds          map[string]*word  // exec N<<< 'text': what descriptor N reads from now on
	rounds       int               // loop rounds analysed so far (see loop)
	lateRuns     []lateRun         // scripts run by name before the line wrote them (runFile)
	lateCheck    bool              // the end of the line: lateRuns and traps analysed again
	traps        []word            // trap bodies, analysed again at the end with every value set after them
	trapHistory  map[string][]word // every value a variable took after the first trap was set
	trapCwd      bool              // a cd after the first trap: where the trap runs is not known
	depth        int
	pipes        int
	inherit      frame         // pipeline and function a nested script's commands belong to
	feed         map[int]*word // per pipeline: the known text the latest stage prints
	reasons      map[string]bool
	aliases      map[string][]word   // alias NAME=VALUE earlier on the line (shopt -s expand_aliases)
	fdFiles      map[string]Redirect // descriptors exec opened on files (exec 7<FILE)
	aliasSpace   map[string]bool     // aliases whose value ends in a space: the next word is expanded too
	inFunc       bool                // analysing a body no call reached: it runs later, after assignments still to come
	funcs        map[string]*funcDef // functions defined on the line, analysed where they are called
	defined      []namedFunc         // every function defined, in a subshell too: one never called is judged at the end
	written      map[string]word     // files the line wrote, by path: their text when it is known
	envSeen      map[string]bool     // command-valued variables already analysed (CommandVariable)
	fetched      []string            // folders the line filled from the network (curl | tar x, git clone URL)
}

type namedFunc struct {
	name string
	def  *funcDef
}

// funcDef is a function the line defines: its body is analysed at each call, with what
// the line has set by then, as bash runs it (f(){ rm -rf $X; }; X=/; f).
type funcDef struct {
	body   syntax.Node
	calls  int
	active bool // being analysed: a call inside it (recursion) is not expanded again
}

// Analyze parses line as bash and reports every simple command in it. It returns an
// error only when the line cannot be parsed at all; the Analysis is non-nil even
// then (marked Uncertain), so a caller may judge it either way.
func Analyze(line string) (*Analysis, error) { return AnalyzeIn(line, Context{}) }

// AnalyzeIn is Analyze with what is known about where the line runs.
func AnalyzeIn(line string, ctx Context) (*Analysis, error) {
	z := &analyzer{a: &Analysis{Home: ctx.Home}, ctx: ctx, cwd: ctx.Dir, vars: map[string][]word{}, reasons: map[string]bool{}}
	if r, ok := controlChar(line); ok {
		z.uncertain(fmt.Sprintf("the line contains the control or invisible character %U; write it with $'\\x..' escapes if it is meant", r))
	}
	if err := z.parse(line, ""); err != nil {
		return z.a, err
	}
	// Functions no call reached may still run (trap, export -f, a later line): their
	// bodies are judged with nothing known of the variables they use.
	z.late()
	sort.SliceStable(z.defined, func(i, j int) bool { return z.defined[i].name < z.defined[j].name })
	for _, f := range z.defined {
		if f.def.calls == 0 {
			if z.funcs == nil {
				z.funcs = map[string]*funcDef{}
			}
			z.funcs[f.name] = f.def // defined in a subshell: gone by now, judged all the same
			z.callFunc(f.name, frame{ctx: "function", fn: f.name, later: true})
		}
	}
	return z.a, nil
}

// callFunc analyses a function's body as called from a command in frame f.
func (z *analyzer) callFunc(name string, f frame) {
	def := z.funcs[name]
	if def == nil || def.active || z.depth > maxDepth {
		return
	}
	def.active = true
	def.calls++
	saved := z.vars["FUNCNAME"]
	// $FUNCNAME in the body is the function's own name (f(){ $FUNCNAME|$FUNCNAME& }).
	z.vars["FUNCNAME"] = []word{{s: name, known: true}}
	z.depth++
	z.weakDepth++ // a body may return before any of it, and local keeps what it sets
	weak := z.weak
	z.walk(def.body, f)
	z.weak = weak
	z.weakDepth--
	z.depth--
	z.vars["FUNCNAME"] = saved
	if saved == nil {
		delete(z.vars, "FUNCNAME")
	}
	def.active = false
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

// unknown records something that decides what runs and cannot be known.
func (z *analyzer) unknown(reason string) {
	z.uncertain(reason)
	if !slices.Contains(z.a.Unknown, reason) {
		z.a.Unknown = append(z.a.Unknown, reason)
	}
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
		z.unknown("unparseable: " + err.Error() + "; bash may run what cannot be read here, so the line is refused: fix its quoting or brackets")
		// bash parses and runs a script's commands one at a time, so those before the
		// one it cannot parse run (rm -rf ~ on a line, then a stray quote): they are
		// judged as if they were the whole script.
		f = &syntax.File{}
		for s, err := range syntax.NewParser(syntax.Variant(syntax.LangBash)).StmtsSeq(strings.NewReader(src)) {
			if err != nil {
				break
			}
			f.Stmts = append(f.Stmts, s)
		}
		err = fmt.Errorf("cannot parse the command line as bash: %v; check quoting and brackets", err)
	}
	z.depth++
	defer func() { z.depth-- }()
	z.quotesThatDoNotQuote(f)
	z.heredocsReadOtherwise(f, src)
	z.commentsContinued(src)
	z.walk(f, frame{ctx: ctx, pipe: z.inherit.pipe, fn: z.inherit.fn})
	return err
}

// globbedNames is the variable name a word gives a builtin that assigns: bash expands a
// glob there first (the sixteenth red team: printf -v PAT? x set PATH where a file
// named PATH was).
func (z *analyzer) globbedNames(name string) []string {
	if !IsGlob(name) {
		return []string{name}
	}
	if m := z.glob(name); len(m) > 0 {
		out := make([]string, 0, len(m))
		for _, f := range m {
			out = append(out, path.Base(f))
		}
		return out
	}
	// Not matched here (or cannot be: [[:upper:]], \[ are bash's, not this matcher's):
	// the name may be any that a file in the folder has.
	z.uncertain("a variable name written as a glob (" + name + ") is whatever file names it matches in the folder")
	return []string{name}
}

// commentsContinued refuses a comment whose line ends in a backslash: bash ends the
// comment at the line's end and runs the next line, where the parser joins the two and
// reads the next line as the comment's words (the sixteenth red team: echo a # \ then
// rm -rf on the next line was judged as echo's arguments).
func (z *analyzer) commentsContinued(src string) {
	if !strings.Contains(src, "#") || !strings.Contains(src, "\\\n") {
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok {
			start := int(c.Pos().Offset())
			end := strings.IndexByte(src[min(start, len(src)):], '\n')
			if end < 0 {
				return true
			}
			line := src[start : start+end]
			// Any backslash: inside backquotes bash halves them before it reads the
			// comment (the seventeenth red team: `echo # \\` then a line).
			if strings.HasSuffix(line, "\\") {
				z.unknown("a comment ends in a backslash: bash ends the comment there and runs the next line, which the analysis would read as part of the comment; remove the backslash")
			}
		}
		return true
	})
}

// heredocsReadOtherwise flags here-documents whose end bash finds elsewhere than the
// parser (a tenth red team ran commands the analysis had read as a here-document's
// text): a body line that ends in a backslash (bash joins it to the next before it
// compares it with the delimiter), an expansion that spans lines in an unquoted body
// (bash ends the body at the delimiter inside it), a here-document in backquotes (bash
// reads the body from the lines after them), and one in $(...) whose delimiter line
// goes on with ")" (bash ends both there).
func (z *analyzer) heredocsReadOtherwise(f *syntax.File, src string) {
	const why = "a here-document that bash ends elsewhere than it appears to end (a backslash at a line's end, an expansion across lines, backquotes, or its delimiter followed by \")\"): write it plainly, with a quoted delimiter ('EOF')"
	text := func(n syntax.Node) string {
		s, e := int(n.Pos().Offset()), int(n.End().Offset())
		if s < 0 || e > len(src) || s > e {
			return ""
		}
		return src[s:e]
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			syntax.Walk(n, func(m syntax.Node) bool {
				r, ok := m.(*syntax.Redirect)
				if !ok || r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc || r.Word == nil {
					return true
				}
				if n.Backquotes {
					z.unknown(why)
				}
				delim := ""
				syntax.Walk(r.Word, func(w syntax.Node) bool {
					switch w := w.(type) {
					case *syntax.Lit:
						delim += strings.ReplaceAll(w.Value, "\\", "")
					case *syntax.SglQuoted:
						delim += w.Value
					}
					return true
				})
				for _, line := range strings.Split(text(r.Hdoc), "\n") {
					if delim != "" && strings.HasPrefix(strings.TrimLeft(line, "\t"), delim+")") {
						z.unknown(why)
					}
				}
				return true
			})
		case *syntax.Redirect:
			if n.Op != syntax.Hdoc && n.Op != syntax.DashHdoc || n.Hdoc == nil || n.Word == nil {
				return true
			}
			quoted := false
			for _, p := range n.Word.Parts {
				if l, ok := p.(*syntax.Lit); !ok || strings.Contains(l.Value, "\\") {
					quoted = true
				}
			}
			if quoted {
				return true // the body is text: bash reads it byte for byte, as the parser does
			}
			if strings.Contains(text(n.Hdoc), "\\\n") {
				z.unknown(why)
			}
			syntax.Walk(n.Hdoc, func(m syntax.Node) bool {
				switch m.(type) {
				case *syntax.CmdSubst, *syntax.ParamExp, *syntax.ArithmExp:
					if strings.Contains(text(m), "\n") {
						z.unknown(why)
					}
				}
				return true
			})
		}
		return true
	})
}

// quotesThatDoNotQuote flags single quotes around a $ or ` in the word of ${x:-...},
// ${x:+...}, ${x:=...} or ${x:?...}. Within double quotes, a here-document or
// arithmetic, bash keeps such quotes as characters and expands what is between them,
// decoding $'...' first ("${x:-'$(cmd)'}" runs cmd), where the parser reads a quoted
// literal. Outside double quotes they do quote: flagged all the same, as rare.
func (z *analyzer) quotesThatDoNotQuote(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		p, ok := n.(*syntax.ParamExp)
		if !ok || p.Exp == nil || p.Exp.Word == nil {
			return true
		}
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
			syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		default:
			return true
		}
		syntax.Walk(p.Exp.Word, func(m syntax.Node) bool {
			if q, ok := m.(*syntax.SglQuoted); ok && (strings.ContainsAny(q.Value, "$`") || q.Dollar && strings.Contains(q.Value, `\`)) {
				z.unknown("single quotes inside \"${x:-...}\" (or a here-document or arithmetic) do not quote: bash expands the $ or ` between them; write the text without those quotes, or put it in a variable")
			}
			return true
		})
		return true
	})
}

// frame is what walk knows about the nodes above the current one.
type frame struct {
	ctx    string
	pipe   int    // id of the innermost pipeline, 0 outside one
	fn     string // innermost enclosing function
	inPipe bool   // this node is a pipe operator, so its operands are pipeline stages
	loop   bool   // inside a loop that does not end by itself
	bg     bool   // inside a statement run with & (each stage of a | b & runs in the background)
	later  bool   // a function body no call on the line reached (analysed at the end)
	// pipeY is the last stage of the pipe operator this node is (the Y of a | b).
	pipeY *syntax.Stmt
	// feed is the standard input the statements below read unless they redirect it:
	// a compound statement's here-document, the text a pipeline stage is fed.
	feed *word
	// scope is the state saved where the subshell this node starts began; it is put
	// back when the node ends.
	scope *scope
}

// walk visits every node under root, keeping a stack of frames so each statement
// knows where it sits.
func (z *analyzer) walk(root syntax.Node, top frame) {
	if root == nil {
		return
	}
	stack := []frame{top}
	syntax.Walk(root, func(n syntax.Node) bool {
		if n == nil {
			if s := stack[len(stack)-1].scope; s != nil {
				z.leaveScope(s)
			}
			stack = stack[:len(stack)-1]
			return true
		}
		cur := stack[len(stack)-1]
		next := cur
		next.inPipe, next.pipeY, next.scope = false, nil, nil
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.AndStmt || n.Op == syntax.OrStmt {
				succ, fail := z.andOr(n, next)
				z.setState(z.join(succ, fail))
				return false
			}
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				next.ctx, next.inPipe, next.pipeY = "pipe", true, n.Y
				// a | b | c nests pipe operators; they form one pipeline.
				if len(stack) < 2 || !stack[len(stack)-2].inPipe {
					z.pipes++
					next.pipe = z.pipes
				}
			}
		case *syntax.Subshell:
			next.ctx, next.scope = "subshell", z.enterScope(false)
		case *syntax.CmdSubst:
			next.ctx, next.pipe, next.scope = "cmdsubst", 0, z.enterScope(false)
		case *syntax.ProcSubst:
			next.ctx, next.pipe, next.scope = "procsubst", 0, z.enterScope(false)
		case *syntax.FuncDecl:
			if n.Name != nil && n.Body != nil {
				if z.funcs == nil {
					z.funcs = map[string]*funcDef{}
				}
				def := &funcDef{body: n.Body}
				z.funcs[n.Name.Value] = def
				z.defined = append(z.defined, namedFunc{n.Name.Value, def})
				return false // analysed where it is called, or at the end
			}
			next.ctx, next.pipe, next.fn = "function", 0, ""
		case *syntax.CoprocClause:
			// coproc NAME sets the array NAME to the pipe's descriptors, in this shell
			// (BASH_CMDS and PATH too: refused as their other assignments are).
			if n.Name != nil && n.Name.Lit() != "" {
				z.store(n.Name.Lit(), []word{{numeric: true}})
			}
			// Its standard input is a pipe the line writes to later (>&${COPROC[1]}).
			next.ctx, next.scope, next.feed = "coproc", z.enterScope(false), &word{}
		case *syntax.IfClause:
			z.ifClause(n, next)
			return false
		case *syntax.CaseClause:
			z.caseClause(n, next)
			return false
		case *syntax.WhileClause:
			if endless(n) {
				next.loop = true
			}
			head := func() {
				for _, s := range n.Cond {
					z.walk(s, next)
				}
			}
			head()
			z.loop(head, n.Do, nil, next, false)
			return false
		case *syntax.ForClause:
			switch l := n.Loop.(type) {
			case *syntax.WordIter:
				if hugeIteration(l) {
					next.loop = true // for i in {1..100000000}: as good as endless
				}
				for _, w := range l.Items {
					z.walk(w, next) // what the list's substitutions run
				}
				z.loop(func() { z.forIter(l) }, n.Do, nil, next, true)
			case *syntax.CStyleLoop:
				if l.Cond == nil {
					next.loop = true
				}
				z.walk(l.Init, next)
				z.arithmetic(l.Init)
				cond := func() {
					z.walk(l.Cond, next)
					z.arithmetic(l.Cond)
				}
				cond()
				z.loop(cond, n.Do, func() {
					z.walk(l.Post, next)
					z.arithmetic(l.Post)
				}, next, false)
			}
			return false
		case *syntax.TimeClause:
			next.ctx = "wrapper:time"
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
			// let x=1, ((x=1)), $((x+=1)), for ((x=1;...)): x takes a value computed at
			// run time. A quoted word in arithmetic is evaluated again: the command
			// substitution in let 'a[$(cmd)]=1' runs.
			z.arithmetic(n)
		case *syntax.TestClause:
			// [[ s =~ re ]] sets BASH_REMATCH, which value() already leaves unknown.
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				// [[ x -eq y ]] evaluates both sides as arithmetic.
				z.arith(n.X)
				z.arith(n.Y)
			}
		case *syntax.UnaryTest:
			if w, ok := n.X.(*syntax.Word); ok && (n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar) {
				// [[ -v 'a[i]' ]] evaluates the subscript.
				for _, v := range z.cands(w, false) {
					z.subscriptArg(v)
				}
			}
		case *syntax.Assign:
			// a[i]=v, ([i]=v): an indexed array's subscript is arithmetic.
			z.arith(n.Index)
			if n.Array != nil {
				for _, e := range n.Array.Elems {
					z.arith(e.Index)
				}
			}
		case *syntax.ParamExp:
			z.evaluators(n)
			// ${a[i]}, ${x:off:len}: arithmetic too.
			if n.Index != nil {
				z.arith(n.Index)
			}
			if n.Slice != nil {
				z.arith(n.Slice.Offset)
				z.arith(n.Slice.Length)
			}
		case *syntax.Stmt:
			switch {
			case cur.inPipe:
				// Every stage of a pipeline runs in a subshell; the last may run in
				// the shell itself (shopt -s lastpipe).
				next.scope = z.enterScope(n == cur.pipeY)
			case n.Background:
				next.scope = z.enterScope(false) // x=1 & runs in a subshell
			}
			z.weak = z.weakDepth > 0
			if cur.inPipe && n == cur.pipeY && cur.pipe != 0 {
				// A compound stage reads what the stage before prints.
				cur.feed = z.feed[cur.pipe]
				if cur.feed == nil {
					cur.feed = &word{}
				}
			}
			next.feed = z.stmt(n, cur)
			if z.cdPending != nil && n != z.branchLeaf {
				// Not in an && or || list: the next command runs whether cd worked or not.
				if p := z.cdPending; p.dir != z.cwd || p.lost != z.cwdLost {
					z.loseCwd()
				}
				z.cdPending = nil
			}
			if n.Background {
				next.bg = true
			}
		}
		stack = append(stack, next)
		return true
	})
}

// stmt records the simple command of a statement (if it is one), with its
// redirections, and unwraps it. Nested statements are reached by walk.
func (z *analyzer) stmt(st *syntax.Stmt, f frame) (feed *word) {
	z.inFunc = f.later
	reds, stdin := z.redirects(st)
	if stdin == nil && !readsInput(st) {
		// What feeds the statement that holds it ({ bash; } <<< 'cmd'), the previous
		// stage of its pipeline, or an exec earlier on the line (exec <<< 'cmd'; sh).
		stdin = f.feed
		if stdin == nil {
			stdin = z.fds["0"]
		}
	}
	proto := SimpleCommand{Redirects: reds, Context: f.ctx, Pipeline: f.pipe, Background: st.Background || f.bg, Func: f.fn, Dir: z.cwd, DirUnknown: z.cwdLost, Loop: f.loop}
	proto.Env = z.exportedEnv()
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		if names := z.multiValued(cmd.Args); len(names) > 0 && z.eachValue(names, func() { z.callExpr(cmd, proto, reds, stdin) }) {
			return
		}
		z.callExpr(cmd, proto, reds, stdin)
	case *syntax.DeclClause:
		z.declClause(cmd, proto, stdin)
	default: // compound commands, or a statement that is only redirections (> f)
		if len(reds) > 0 {
			// Redirections of a compound command ({ ...; } > f) apply to all of it.
			z.add(proto)
		}
	}
	return stdin
}

// readsInput reports a statement that redirects its standard input itself.
func readsInput(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		if (r.N == nil || r.N.Value == "0") && (r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut || r.Op == syntax.DplIn || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc) {
			return true
		}
	}
	return false
}

// callExpr records a simple command: its assignments, and the command its words make.
func (z *analyzer) callExpr(cmd *syntax.CallExpr, proto SimpleCommand, reds []Redirect, stdin *word) {
	var argv []word
	for _, w := range cmd.Args {
		argv = append(argv, z.words(w)...)
	}
	if len(argv) == 0 {
		// X=value on its own sets X for the rest of the line; a variable already in
		// the environment stays exported, so later commands get the new value.
		for _, as := range cmd.Assigns {
			z.setVar(as)
			if as.Name != nil && z.inherited(as.Name.Value) {
				entry := as.Name.Value
				if vals := z.vars[entry]; len(vals) == 1 && vals[0].known && !as.Append {
					entry += "=" + vals[0].s
				}
				z.exported = append(z.exported, entry)
			}
		}
		if len(reds) > 0 {
			z.add(proto)
		}
		return
	}
	for _, as := range cmd.Assigns {
		if as.Name == nil {
			continue
		}
		entry := as.Name.Value
		if as.Value == nil {
			entry += "="
		} else if vals := z.cands(as.Value, false); len(vals) == 1 && vals[0].known {
			entry += "=" + vals[0].s
		}
		proto.Env = append(slices.Clip(proto.Env), entry)
		if _, isFunc := z.funcs[argv[0].s]; argv[0].known && (specialBuiltins[argv[0].s] || isFunc) {
			// x=1 : keeps x in POSIX mode, and so does x=1 f (a function): either way.
			weak := z.weak
			z.weak = true
			z.setVar(as)
			z.weak = weak
		}
		if (as.Name.Value == "HOME" || as.Name.Value == "CDPATH" || as.Name.Value == "OLDPWD") && len(argv) > 0 && (base(argv[0].s) == "cd" || base(argv[0].s) == "pushd") {
			defer z.loseCwd()
		}
	}
	z.command(argv, proto, stdin)
}

// redirects are a statement's redirections, each value a target may take a target of
// its own (F=~/.profile; > $F), and the literal text of a here-document or
// here-string feeding the command (nil when none).
func (z *analyzer) redirects(st *syntax.Stmt) ([]Redirect, *word) {
	var reds []Redirect
	var stdin *word // literal text of a here-document or here-string feeding the command
	for _, r := range st.Redirs {
		// A here-document's or a target's ${x@P} is expanded before the command runs,
		// with $_ still the last word of the command before (the sixteenth red team:
		// echo '$(cmd)'; cat <<EOF with ${_@P} ran cmd).
		for _, w := range []*syntax.Word{r.Word, r.Hdoc} {
			if w != nil {
				syntax.Walk(w, func(n syntax.Node) bool {
					if p, ok := n.(*syntax.ParamExp); ok {
						z.evaluators(p)
					}
					return true
				})
			}
		}
		rd := Redirect{Op: r.Op.String()}
		if r.N != nil {
			rd.Fd = r.N.Value
			// Closing or replacing the descriptor that holds the calling agentbox's
			// pins ({x}>&- closes the one $x names) would leave an agentbox the line
			// runs without them: decided as setting them.
			closes := (r.Op == syntax.DplOut || r.Op == syntax.DplIn) && r.Word != nil && r.Word.Lit() == "-"
			n, err := strconv.Atoi(rd.Fd) // bash reads 0249 as 249
			if err == nil && n == PinsFD || strings.HasPrefix(rd.Fd, "{") && closes {
				z.unsetsOwn(word{s: PinsVar, known: true})
			}
			if name, ok := strings.CutPrefix(rd.Fd, "{"); ok && !closes {
				// {NAME}>F assigns the descriptor's number to NAME, and {a[SUB]}>F
				// evaluates SUB as arithmetic (the sixteenth red team: {PATH}>, a
				// subscript holding $(cmd), {BASH_CMDS[ls]}>).
				name = strings.TrimSuffix(name, "}")
				if base, sub, isElem := strings.Cut(name, "["); isElem {
					z.arithText(strings.TrimSuffix(sub, "]"), 0, map[string]bool{})
					name = base
					if name == "BASH_CMDS" || name == "BASH_ALIASES" {
						z.unknown("{" + rd.Fd[1:] + " assigns " + name + ", which changes which program a command name runs")
					}
				}
				z.store(name, []word{{numeric: true}})
			}
		}
		fd := "0"
		if r.N != nil {
			fd = r.N.Value
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			w := word{known: true}
			if r.Hdoc != nil {
				w = z.word(r.Hdoc, true)
			}
			z.feedFd(st, fd, &w, &stdin)
			reds = append(reds, rd)
			continue
		case syntax.WordHdoc:
			if r.Word != nil {
				w := z.word(r.Word, false)
				w.s += "\n"
				z.feedFd(st, fd, &w, &stdin)
			}
			reds = append(reds, rd)
			continue
		case syntax.DplIn:
			// <&N: what descriptor N holds; exec 3<<< 'text' gave it text.
			if r.Word != nil && fd == "0" && r.Word.Lit() != "-" {
				if w, ok := z.fds[r.Word.Lit()]; ok {
					stdin = w
				} else if r.Word.Lit() != "0" {
					stdin = &word{}
				}
				if stdin != nil {
					z.feedFd(st, "0", stdin, &stdin) // exec 0<&3: from now on
				}
			}
		case syntax.RdrIn:
			// < <(cmd): what cmd prints; < a file the line wrote: its text; < /dev/fd/N:
			// what the descriptor holds, not known.
			if w := z.inputOf(r.Word); w != nil {
				z.feedFd(st, fd, w, &stdin)
			}
		}
		if r.Word != nil {
			// Every value the target may take is a target (F=~/.profile; > $F).
			for _, w := range z.words(r.Word) {
				one := rd
				one.Target, one.Partial = w.s, !w.known
				reds = append(reds, one)
			}
			if c, ok := st.Cmd.(*syntax.CallExpr); ok && len(c.Args) == 1 && c.Args[0].Lit() == "exec" {
				// exec 7<FILE: descriptor 7 is FILE for the rest of the line.
				if one := reds[len(reds)-1]; opensFile(one.Op) {
					if z.fdFiles == nil {
						z.fdFiles = map[string]Redirect{}
					}
					z.fdFiles[fdOf(one)] = one
				}
			}
			continue
		}
		reds = append(reds, rd)
	}
	return reds, stdin
}

// opensFile reports the redirections that open their target as a file.
func opensFile(op string) bool {
	switch op {
	case "<", ">", ">>", "<>", ">|", "&>", "&>>":
		return true
	}
	return false
}

// fdOf is the descriptor a redirection sets: its number, else 0 for input, 1 for output.
func fdOf(r Redirect) string {
	if r.Fd != "" {
		return r.Fd
	}
	if r.Op == "<" || r.Op == "<>" {
		return "0"
	}
	return "1"
}

// fdPath matches the paths that name one of the process's descriptors: /dev/fd/N,
// /proc/self/fd/N (and $$'s, a thread's), /dev/stdin, /dev/stdout, /dev/stderr.
var fdPath = lazyRegexp(`^/(?:dev/fd/(\d+)|proc/(?:self|thread-self|\$\$|\d+)(?:/task/\d+)?/fd/(\d+)|dev/(stdin|stdout|stderr))$`)

// reopened adds to the command's redirections the file behind a descriptor path it
// writes (red team: exec 7<~/.bashrc; echo x >> /proc/self/fd/7 wrote ~/.bashrc, the
// kernel reopening the file for writing; so did tee -a /dev/stdin < ~/.bashrc). A
// descriptor of another process, or one the line opened on nothing it shows, cannot be
// known.
func (z *analyzer) reopened(words []string, proto *SimpleCommand) {
	var targets []string
	for _, r := range proto.Redirects {
		if isWriteOp(r.Op) {
			targets = append(targets, r.Target)
		}
	}
	targets = append(targets, WriteTargets(words)...)
	for _, t := range targets {
		m := fdPath().FindStringSubmatch(t)
		if m == nil {
			continue
		}
		n := m[1] + m[2] + map[string]string{"stdin": "0", "stdout": "1", "stderr": "2"}[m[3]]
		if strings.HasPrefix(t, "/proc/") && !strings.HasPrefix(t, "/proc/self/") && !strings.HasPrefix(t, "/proc/thread-self/") && !strings.HasPrefix(t, "/proc/$$/") {
			z.unknown("a write through another process's descriptor (" + t + "), whose file cannot be known")
			continue
		}
		var file *Redirect
		for i := len(proto.Redirects) - 1; i >= 0; i-- {
			if r := proto.Redirects[i]; opensFile(r.Op) && fdOf(r) == n && !fdPath().MatchString(r.Target) {
				file = &r
				break
			}
		}
		if file == nil {
			if r, ok := z.fdFiles[n]; ok {
				file = &r
			}
		}
		if file != nil {
			proto.Redirects = append(slices.Clip(proto.Redirects), Redirect{Op: ">>", Target: file.Target, Partial: file.Partial})
		}
	}
}

func isWriteOp(op string) bool {
	switch op {
	case ">", ">>", ">|", "<>", "&>", "&>>":
		return true
	}
	return false
}

// declClause analyses export, declare, typeset, local and readonly: the variables they
// set, and with export (or -x) the environment of every later command on the line.
func (z *analyzer) declClause(cmd *syntax.DeclClause, proto SimpleCommand, stdin *word) {
	argv := []word{{s: cmd.Variant.Value, known: true}}
	exported := cmd.Variant.Value == "export"
	for _, as := range cmd.Args {
		w := z.assign(as)
		argv = append(argv, w)
		if as.Name == nil && w.known && strings.HasPrefix(w.s, "-") && strings.Contains(w.s, "x") {
			exported = true // declare -x, typeset -x
		}
	}
	integer, unexport := false, false
	var letterCase byte
	caseOff := false
	for _, w := range argv[1:] {
		if w.known && strings.HasPrefix(w.s, "-") && strings.Contains(w.s, "i") {
			integer = true // declare -i x=0+1: the value is arithmetic
		}
		if w.known && cmd.Variant.Value != "export" && cmd.Variant.Value != "readonly" && len(w.s) > 1 && (w.s[0] == '-' || w.s[0] == '+') && !strings.Contains(w.s, "=") {
			// declare -l x=TOUCH stores touch; -u upper case, -c capitalised; +l off.
			for _, c := range []byte(w.s[1:]) {
				if c == attrLower || c == attrUpper || c == attrCapitalize {
					if w.s[0] == '+' {
						caseOff = true
					} else {
						letterCase = c
					}
				}
			}
		}
		if w.known && (exported && strings.HasPrefix(w.s, "-") && strings.Contains(w.s, "n") || strings.HasPrefix(w.s, "+") && strings.Contains(w.s, "x")) {
			unexport = true // export -n X, declare +x X: X leaves the environment
		}
	}
	if unexport {
		for _, as := range cmd.Args {
			if as.Name != nil {
				z.unsetsOwn(word{s: as.Name.Value, known: true})
			}
		}
	}
	readonly := cmd.Variant.Value == "readonly"
	for _, w := range argv[1:] {
		if w.known && strings.HasPrefix(w.s, "-") && !strings.Contains(w.s, "=") && strings.Contains(w.s, "r") {
			readonly = true // declare -r, local -r
		}
	}
	nameref := false
	for _, w := range argv[1:] {
		if w.known && strings.HasPrefix(w.s, "-") && !strings.Contains(w.s, "=") && strings.Contains(w.s, "n") && cmd.Variant.Value != "export" {
			nameref = true // declare -n, local -n
		}
	}
	if nameref {
		z.declareRefs(cmd.Args)
		z.command(argv, proto, stdin)
		return
	}
	if cmd.Variant.Value == "local" {
		// local keeps what it sets in the function (and fails outside one).
		z.weakDepth++
		defer func() { z.weakDepth-- }()
	}
	for _, as := range cmd.Args {
		if as.Name != nil && (integer || letterCase != 0 || caseOff) {
			if z.attrs == nil {
				z.attrs = map[string]varAttr{}
			}
			target := z.refTarget(as.Name.Value) // declare -l R, R a reference: X's
			a := z.attrs[target]
			a.integer = a.integer || integer
			if letterCase != 0 {
				a.letterCase = letterCase
			} else if caseOff {
				a.letterCase = 0
			}
			z.attrs[target] = a
		}
		z.setVar(as)
		if readonly && as.Name != nil && !z.weak && z.weakDepth == 0 {
			// Later assignments fail; a mark set where it may not run marks nothing.
			if z.readonly == nil {
				z.readonly = map[string]bool{}
			}
			z.readonly[as.Name.Value] = true
		}
		if exported && as.Name == nil && as.Value != nil {
			// export $x=v, export AGENTBOX${IFS}MODE=v: the name is what the word
			// expands to; a name the line cannot know is recorded as "*".
			if w := z.word(as.Value, false); !w.known || !strings.HasPrefix(w.s, "-") && w.s != "" {
				name, _, _ := strings.Cut(w.s, "=")
				switch {
				case w.known && isEnvName(name):
					z.exported = append(z.exported, w.s)
				case !w.known:
					z.exported = append(z.exported, "*")
				}
			}
		}
		if exported && as.Name != nil {
			// export LD_PRELOAD=...; ls: every later command on the line gets it, as
			// surely as from bash's env field, and is decided the same way.
			entry := as.Name.Value
			if as.Value != nil {
				if vals := z.cands(as.Value, false); len(vals) == 1 && vals[0].known {
					entry += "=" + vals[0].s
				}
			}
			z.exported = append(z.exported, entry)
		}
	}
	z.command(argv, proto, stdin)
}

// wordsOf is argv as strings, with which of them are only a literal prefix (nil when
// none is).
func wordsOf(argv []word) (words []string, partial []bool) {
	words = make([]string, len(argv))
	for i, w := range argv {
		words[i] = w.s
		if !w.known {
			if partial == nil {
				partial = make([]bool, len(argv))
			}
			partial[i] = true
		}
	}
	return words, partial
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
	// A loop's body is analysed more than once: a command seen already is not listed
	// again.
	key := fmt.Sprintf("%q %q %v %v %q %v %v %d %q %q", c.Argv, c.Context, c.Partial, c.Redirects, c.Dir, c.DirUnknown, c.Background, c.Pipeline, c.Func, c.Env)
	if z.seen[key] {
		return true
	}
	if z.seen == nil {
		z.seen = map[string]bool{}
	}
	z.seen[key] = true
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
	if argv[0].known && argv[0].s == "--" && len(argv) > 1 {
		// time -- cmd: bash's time takes -- before the command it times (red team:
		// time -- rm ... was judged as a command named --).
		z.command(argv[1:], proto, stdin)
		return
	}
	if a, ok := z.aliases[argv[0].s]; ok && argv[0].known && proto.Context != "alias" {
		// A name an earlier alias defined runs what the alias says: judged both ways.
		// An alias whose value ends in a space expands the next word as an alias too.
		expanded := append([]word(nil), a...)
		rest := argv[1:]
		for len(rest) > 0 && z.aliasSpace[argv[0].s] {
			next, ok := z.aliases[rest[0].s]
			if !ok || !rest[0].known {
				break
			}
			expanded = append(expanded, next...)
			argv, rest = rest, rest[1:]
		}
		z.command(append(expanded, rest...), proto, stdin)
	}
	if _, ok := z.funcs[argv[0].s]; ok && argv[0].known {
		// The call itself is a command too (f | f &: the fork-bomb shape), then the body
		// runs with the positional parameters the call passes.
		defer func() {
			// The call's arguments are the body's $1...; the caller's come back after.
			names := []string{"@", "*", "#", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
			saved := map[string][]word{}
			for _, n := range names {
				if v, ok := z.vars[n]; ok {
					saved[n] = v
				}
				delete(z.vars, n)
			}
			z.positional(argv[1:])
			z.callFunc(argv[0].s, frame{ctx: "function", fn: argv[0].s, pipe: proto.Pipeline, bg: proto.Background, loop: proto.Loop, feed: stdin})
			for _, n := range names {
				delete(z.vars, n)
				if v, ok := saved[n]; ok {
					z.vars[n] = v
				}
			}
		}()
	}
	if !argv[0].known {
		shown := argv[0].s
		if shown == "" {
			shown = "an expansion"
		}
		z.unknown(fmt.Sprintf("the command name is computed at run time (%s...)", shown))
	} else if IsGlob(argv[0].s) {
		// A globbed command name runs whatever the pattern matches.
		if m := z.glob(argv[0].s); len(m) > 0 {
			for _, name := range m[:min(len(m), maxBraces)] {
				again := append([]word{{s: name, known: true}}, argv[1:]...)
				z.command(again, proto, stdin)
			}
			return
		}
	}
	typed := argv
	argv = z.withOptionVariable(argv, proto)
	argv = splitOptions(argv)
	z.track(argv)
	for _, e := range proto.Env {
		z.envCommand(e, proto)
	}
	for _, a := range argv[1:] {
		// test -v 'a[$(cmd)]', printf -v, read, declare: an array subscript in a
		// literal argument is evaluated, and its command substitution runs.
		if a.known && (strings.Contains(a.s, "[$(") || strings.Contains(a.s, "[`")) {
			z.latent(a.s)
		}
	}
	z.nameArgs(argv)
	z.programsThatRun(argv, &proto, stdin)
	words, _ := wordsOf(argv)
	z.reopened(words, &proto)
	z.logFiles(words, &proto)
	z.gitApplyUnsafe(words, &proto)
	if in := stdin; base(argv[0].s) == "patch" {
		if in == nil && proto.Context == "pipe" && proto.Pipeline != 0 {
			in = z.feed[proto.Pipeline]
		}
		z.patchFeed(argv, &proto, in)
	}
	sc := proto
	if def, ok := z.funcs[argv[0].s]; ok && argv[0].known && def.active {
		// A call back into a function still running (f calls g calls f): recursion,
		// judged as the function calling itself.
		sc.Func = argv[0].s
	}
	sc.Argv, sc.Partial = wordsOf(argv)
	sc.Typed, sc.TypedPartial = nil, nil
	if !slices.Equal(typed, argv) {
		sc.Typed, sc.TypedPartial = wordsOf(typed)
	}
	if !z.add(sc) {
		return
	}
	stage := proto.Context == "pipe" && proto.Pipeline != 0
	if stage && stdin == nil {
		stdin = z.feed[proto.Pipeline] // what the previous stage prints, if known
	}
	if argv[0].known {
		z.runsWritten(argv, proto)
		z.unwrap(argv, proto, stdin)
	}
	z.recordWrites(argv, sc.Redirects, stdin)
	if stage {
		if z.feed == nil {
			z.feed = map[int]*word{}
		}
		// A later stage reads what this one prints: known text, or unknown (never
		// nil, which means "first stage, nothing piped in").
		fed := feedOf(argv, sc.Redirects, stdin)
		if fed == nil {
			fed = &word{}
		}
		z.feed[proto.Pipeline] = fed
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
	return printed(argv, stdin)
}

// printed is what a command prints when the line shows it (echo, printf, cat of its
// standard input), else nil.
func printed(argv []word, stdin *word) *word {
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
		if len(args) > 1 && args[0].s == "-v" {
			return nil // printf -v VAR prints nothing
		}
		if len(args) > 1 && args[0].s == "--" {
			args = args[1:]
		}
		w := printfOutput(args[0], args[1:])
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
		z.unknown(fmt.Sprintf("%s runs a script computed at run time", wrapper))
	}
	if w.s == "" {
		return
	}
	if !inCurrentShell(wrapper) {
		// sh -c, ssh, a tool's own shell: a child process, whose variables and cd
		// are its own; it starts where the command runs (env -C DIR sh -c ...).
		defer z.leaveScope(z.enterScope(false))
		z.cwd, z.cwdLost = proto.Dir, proto.DirUnknown
	}
	weak := z.weak
	defer func() { z.weak = weak }()
	if weak || wrapper == "trap" || wrapper == "alias" {
		// Run by a statement that may not run, or later, or never (a trap, an alias):
		// what the script sets is added to what was there.
		z.weakDepth++
		defer func() { z.weakDepth-- }()
	}
	if wrapper == "trap" || wrapper == "alias" {
		// ... and a trap may fire at any moment after: what it sets stays possible.
		z.volatileNow++
		defer func() { z.volatileNow-- }()
	}
	saved := z.inherit
	z.inherit = frame{pipe: proto.Pipeline, fn: proto.Func}
	// The command's own variables (X=... git -c core.editor='$X') are set for the
	// script it runs.
	restore := map[string][]word{}
	for _, e := range proto.Env {
		name, val, known := strings.Cut(e, "=")
		if !isEnvName(name) {
			continue
		}
		if _, done := restore[name]; !done {
			restore[name] = z.vars[name]
		}
		z.vars[name] = []word{{s: val, known: known}}
	}
	_ = z.parse(w.s, "wrapper:"+wrapper)
	for name, v := range restore {
		if v == nil {
			delete(z.vars, name)
		} else {
			z.vars[name] = v
		}
	}
	z.inherit = saved
}

// word reduces a word to its first possible value; words gives them all.
func (z *analyzer) word(w *syntax.Word, inHdoc bool) word {
	if c := z.cands(w, inHdoc); len(c) > 0 {
		return c[0]
	}
	return word{known: true}
}

// cands reduces a word to the literal values it may take: one, usually; several when
// it uses a variable the line sets more than one way or a default (${X:-/} is X's
// value or /). A value computed at run time keeps only its literal prefix (known
// false). Nested substitutions are reached by walk, not here.
func (z *analyzer) cands(w *syntax.Word, inHdoc bool) []word {
	out := []word{{known: true}}
	appendAll := func(vals []word) {
		var next []word
		for _, o := range out {
			if !o.known {
				next = append(next, o)
				continue
			}
			for _, v := range vals {
				if len(next) >= maxBraces {
					z.uncertain("a word takes too many values to analyse")
					break
				}
				if len(o.s)+len(v.s) > maxValueLen {
					next = append(next, word{}) // x=$x$x doubled 40 times: not followed
					continue
				}
				next = append(next, word{s: o.s + v.s, known: v.known})
			}
		}
		out = next
	}
	lit := func(v string) {
		for i := range out {
			if out[i].known {
				out[i].s += v
			}
		}
	}
	var parts func(ps []syntax.WordPart, quoted bool)
	parts = func(ps []syntax.WordPart, quoted bool) {
		for _, p := range ps {
			switch p := p.(type) {
			case *syntax.Lit:
				// A leading ~ stays as written; the watchdog knows it means home. When
				// the line set HOME, ~ is what it set.
				var b strings.Builder
				unescape(&b, p.Value, quoted)
				v := b.String()
				if home, ok := z.vars["HOME"]; ok && !quoted && p == w.Parts[0] && (p.Value == "~" || strings.HasPrefix(p.Value, "~/")) {
					appendAll(home)
					v = v[1:]
				} else if m := dirTilde().FindStringSubmatch(v); m != nil && !quoted && p == w.Parts[0] {
					// ~+ is $PWD, ~- is $OLDPWD, ~N and ~+N the folder stack.
					switch m[1] {
					case "+", "0", "+0":
						if z.cwd != "" {
							appendAll([]word{{s: z.cwd, known: true}})
						} else {
							appendAll([]word{{}})
						}
					case "-":
						if old, ok := z.vars["OLDPWD"]; ok {
							appendAll(old)
						} else {
							appendAll([]word{{}})
						}
					default:
						appendAll([]word{{}})
					}
					v = v[len(m[0])-len(m[2]):]
				}
				lit(v)
			case *syntax.SglQuoted:
				if p.Dollar {
					lit(ansiC(p.Value))
				} else {
					lit(p.Value)
				}
			case *syntax.DblQuoted:
				parts(p.Parts, true)
			case *syntax.ParamExp:
				vals := z.param(p)
				// $HOME at the start of a word is written "~", so paths under it read
				// like the watchdog's lists.
				if _, set := z.vars["HOME"]; !set && isPlainParam(p, "HOME") && len(out) == 1 && out[0].known && out[0].s == "" {
					vals = []word{{s: "~", known: true}}
				}
				appendAll(vals)
			case *syntax.CmdSubst:
				appendAll(z.cmdsubst(p))
			case *syntax.ArithmExp:
				// $((2-1)): a constant expression has one value; one with variables
				// is computed at run time.
				if n, ok := constArith(p.X); ok {
					lit(strconv.Itoa(n))
				} else {
					appendAll([]word{{}})
				}
			case *syntax.ProcSubst:
				// >(cmd) and <(cmd) are a pipe to cmd, named /dev/fd/N; cmd itself is
				// analysed where the walk reaches it.
				if z.printsSetup(p.Stmts) {
					lit(setupScript)
				} else {
					lit("/dev/fd/63")
				}
			default:
				appendAll([]word{{}})
			}
		}
	}
	parts(w.Parts, inHdoc)
	return out
}

// param is what a parameter expansion may give.
func (z *analyzer) param(p *syntax.ParamExp) []word {
	unknown := []word{{}}
	if p.Param != nil && p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) {
		switch {
		case p.Excl || p.NestedParam != nil:
			z.unknown("${!x:=...} assigns to the variable x names, which cannot be known; assign to it by name")
		case p.Index != nil:
			// ${a[k]:=v} sets one element: what a holds is no longer known, and
			// BASH_CMDS or BASH_ALIASES are refused as their plain assignments are.
			z.store(p.Param.Value, unknown)
		}
	}
	if p.Param == nil || p.NestedParam != nil || p.Excl || p.Length || p.Width || p.Index != nil ||
		p.Slice != nil || p.Repl != nil || p.Names != 0 {
		return unknown
	}
	vals, set := z.value(p.Param.Value)
	if p.Exp == nil {
		if !set {
			return unknown
		}
		return vals
	}
	if z.absent(p.Param.Value) {
		set = false // ${X-/} and ${X=/} take the default when X is not in the environment
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		def := []word{{known: true}}
		if p.Exp.Word != nil {
			def = z.cands(p.Exp.Word, false)
		}
		if p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull {
			// ${x:=v} also sets x for the rest of the line.
			defer func() { z.store(p.Param.Value, z.lastParam) }()
		}
		if set && p.Exp.Op != syntax.DefaultUnsetOrNull && p.Exp.Op != syntax.AssignUnsetOrNull {
			z.lastParam = vals
			return vals
		}
		if set {
			var nonEmpty []word
			for _, v := range vals {
				if !v.known || v.s != "" {
					nonEmpty = append(nonEmpty, v)
				}
			}
			if len(nonEmpty) == len(vals) {
				z.lastParam = vals
				return vals
			}
			z.lastParam = append(nonEmpty, def...)
			return z.lastParam
		}
		if z.absent(p.Param.Value) {
			z.lastParam = def
			return def // known to be unset: the default is the value
		}
		z.lastParam = append(unknown, def...)
		return z.lastParam
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		// ${X:?}: bash stops the command when X is unset (or empty), so whatever
		// runs has X's value.
		if z.absent(p.Param.Value) {
			// The command never runs: bash stops at the expansion. The word stays as
			// written, a name that reaches nothing.
			return []word{{s: "${" + p.Param.Value + ":?}", known: true}}
		}
		if !set {
			return unknown
		}
		return vals
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		if !set || p.Exp.Word == nil {
			return unknown
		}
		pat := z.word(p.Exp.Word, false)
		if !pat.known {
			return unknown
		}
		var out []word
		for _, v := range vals {
			if !v.known {
				out = append(out, v)
				continue
			}
			out = append(out, word{s: trimPattern(v.s, pat.s, p.Exp.Op), known: true})
		}
		return out
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		alt := []word{{known: true}}
		if p.Exp.Word != nil {
			alt = z.cands(p.Exp.Word, false)
		}
		return append([]word{{known: true}}, alt...)
	}
	return unknown
}

// trimPattern is ${v%pat}, ${v%%pat}, ${v#pat} or ${v##pat}: the shortest or longest
// suffix or prefix of v that the glob pat matches, removed.
func trimPattern(v, pat string, op syntax.ParExpOperator) string {
	// In ${v%pat} bash's * matches / too, unlike a pathname glob.
	expr, err := pattern.Regexp(pat, pattern.EntireString)
	if err != nil {
		return v
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return v
	}
	matches := re.MatchString
	switch op {
	case syntax.RemSmallSuffix:
		for i := len(v); i >= 0; i-- {
			if matches(v[i:]) {
				return v[:i]
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= len(v); i++ {
			if matches(v[i:]) {
				return v[:i]
			}
		}
	case syntax.RemSmallPrefix:
		for i := 0; i <= len(v); i++ {
			if matches(v[:i]) {
				return v[i:]
			}
		}
	case syntax.RemLargePrefix:
		for i := len(v); i >= 0; i-- {
			if matches(v[:i]) {
				return v[i:]
			}
		}
	}
	return v
}

// bashPattern rewrites bash's bracket negation [!...] as Go's [^...], so path.Match
// and filepath.Glob read a bash glob as bash does.
func bashPattern(p string) string {
	if !strings.Contains(p, "[!") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			b.WriteByte(p[i])
			i++
			b.WriteByte(p[i])
			continue
		}
		if p[i] == '[' && i+1 < len(p) && p[i+1] == '!' {
			b.WriteString("[^")
			i++
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// value is what the variable name holds, if the line or the context says.
func (z *analyzer) value(name string) ([]word, bool) {
	if target, ok := z.namerefs[name]; ok {
		// declare -n r=x: $r is x's value.
		if target == "" || target == "?" || strings.ContainsRune(target, '[') {
			return []word{{}}, true
		}
		name = target
	}
	if v, ok := z.vars[name]; ok {
		return v, true
	}
	switch name {
	case "BASH_REMATCH", "BASH_COMMAND", "BASH_EXECUTION_STRING", "BASH_ARGV", "BASH_ARGC", "BASH_SOURCE",
		"BASH_LINENO", "REPLY", "RANDOM", "SRANDOM", "LINENO", "SECONDS", "EPOCHSECONDS", "EPOCHREALTIME",
		"PPID", "BASHPID", "PIPESTATUS", "MAPFILE", "COPROC", "OPTARG", "OPTIND", "HISTCMD", "GROUPS",
		"DIRSTACK", "OLDPWD", "COLUMNS", "LINES", "UID", "EUID":
		// Set by bash as the line runs ([[ =~ ]], read, cd, ...): not knowable here.
		if v, ok := z.vars[name]; ok {
			return v, true
		}
		return nil, false
	case "_", "!", "?", "-", "$", "0":
		// Special parameters the line does not set as variables: $_ is the last
		// argument of the command before (tracked in vars when known), $0 is bash.
		switch {
		case name == "0" && z.depth <= 1:
			return []word{{s: "bash", known: true}}, true // the line's own bash -c
		case name == "$":
			// This shell's pid: a process of the line's own, kept as written
			// (/proc/$$/root is judged as /proc/self/root).
			return []word{{s: "$$", known: true}}, true
		case name == "!":
			// The pid of the last job started in the background, and nothing before
			// one is (red team: ~/.bashrc$! is ~/.bashrc).
			return []word{{known: true}, {s: "$!", known: true}}, true
		}
		return nil, false
	case "HOME":
		if z.ctx.Home != "" {
			return []word{{s: z.ctx.Home, known: true}}, true
		}
		return []word{{s: "~", known: true}}, true
	case "PWD":
		if z.cwd != "" {
			return []word{{s: z.cwd, known: true}}, true
		}
	case "BASH":
		// bash sets $BASH to itself whatever the environment says: the line runs in bash.
		return []word{{s: "/bin/bash", known: true}}, true
	}
	if z.inFunc && isEnvName(name) {
		// A function body runs when it is called, after the line may have set the
		// variable (f(){ rm -rf $X; }; X=/; f): what it holds then is not known here.
		return nil, false
	}
	if z.ctx.Getenv != nil {
		if v, ok := z.ctx.Getenv(name); ok {
			return []word{{s: v, known: true}}, true
		}
		if isEnvName(name) {
			return []word{{known: true}}, true // not in the environment: unset, empty
		}
	}
	return nil, false
}

// absent reports a variable the line never sets and the call's environment does not
// hold: unset, as ${X-default} sees it.
func (z *analyzer) absent(name string) bool {
	if _, ok := z.vars[name]; ok || z.inFunc || name == "HOME" || name == "PWD" || z.ctx.Getenv == nil || !isEnvName(name) {
		return false
	}
	_, ok := z.ctx.Getenv(name)
	return !ok
}

func isEnvName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// cmdsubst is what $(...) prints, when that is knowable without running anything:
// echo or printf of literal words, pwd, and mktemp (a fresh name in the temp
// directory). Anything else is unknown.
func (z *analyzer) cmdsubst(cs *syntax.CmdSubst) []word {
	unknown := []word{{}}
	if len(cs.Stmts) != 1 || len(cs.Stmts[0].Redirs) > 0 {
		return unknown
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 {
		return unknown
	}
	var argv []word
	for _, a := range call.Args {
		argv = append(argv, z.word(a, false))
	}
	if !argv[0].known {
		return unknown
	}
	switch base(argv[0].s) {
	case "echo":
		args := argv[1:]
		escapes := false
		for len(args) > 0 && len(args[0].s) > 1 && strings.Trim(args[0].s[1:], "neE") == "" && args[0].s[0] == '-' {
			escapes = escapes || strings.Contains(args[0].s, "e")
			args = args[1:]
		}
		j := join(args)
		if escapes && strings.Contains(j.s, "\\") {
			return unknown // echo -e '\x2f': escapes this analysis does not decode
		}
		return []word{{s: strings.TrimRight(j.s, "\n"), known: j.known}}
	case "printf":
		args := argv[1:]
		if len(args) > 0 && args[0].s == "--" {
			args = args[1:]
		}
		if len(args) == 0 || strings.HasPrefix(args[0].s, "-") {
			return unknown // printf -v ...: prints nothing this analysis follows
		}
		if f := args[0].s; strings.Contains(f, "%b") || strings.Contains(f, "%c") || strings.Contains(f, "%q") || strings.Contains(f, "\\0") {
			return unknown // directives that transform their argument
		}
		out := printfOutput(args[0], args[1:])
		return []word{{s: strings.TrimRight(out.s, "\n"), known: out.known}}
	case "basename", "dirname":
		args := argv[1:]
		if len(args) == 0 || len(args) > 2 || strings.HasPrefix(args[0].s, "-") || !args[0].known {
			return unknown
		}
		if a := args[0].s; a == "~" || strings.HasPrefix(a, "~/") {
			// $HOME is written ~ here: the real folder is what dirname takes apart.
			home, ok := z.value("HOME")
			if !ok || len(home) != 1 || !home[0].known || home[0].s == "~" {
				return unknown
			}
			args = append([]word{{s: home[0].s + a[1:], known: true}}, args[1:]...)
		}
		if base(argv[0].s) == "dirname" {
			if len(args) != 1 {
				return unknown
			}
			return []word{{s: path.Dir(args[0].s), known: true}}
		}
		b := path.Base(args[0].s)
		if len(args) == 2 && args[1].known && b != args[1].s {
			b = strings.TrimSuffix(b, args[1].s)
		}
		return []word{{s: b, known: true}}
	case "pwd":
		if z.cwd != "" {
			return []word{{s: z.cwd, known: true}}
		}
	case "mktemp":
		tmp := "/tmp"
		if z.ctx.Getenv != nil {
			if t, ok := z.ctx.Getenv("TMPDIR"); ok && t != "" {
				tmp = t
			}
		}
		return []word{{s: path.Join(tmp, "tmp.mktemp"), known: true}}
	default:
		if envGenerator(base(argv[0].s), argv[1:]) {
			// eval "$(ssh-agent -s)", eval "$(pyenv init -)": a tool printing the
			// variables and functions of its own set-up, not a command of the agent's.
			return []word{{known: true}}
		}
	}
	return unknown
}

// optionVariables are the variables programs read options from as if typed first on
// their command line (the fifteenth red team: TAR_OPTIONS='--checkpoint-action=exec=CMD',
// ZIPOPT='-TT CMD -T', LESS='-O ~/.bashrc').
var optionVariables = map[string][]string{"tar": {"TAR_OPTIONS"}, "zip": {"ZIPOPT"}, "unzip": {"UNZIP", "UNZIPOPT"},
	"less": {"LESS"}, "xz": {"XZ_DEFAULTS", "XZ_OPT"}, "gzip": {"GZIP"}, "bzip2": {"BZIP2", "BZIP"}, "grep": {"GREP_OPTIONS"},
	"more": {"MORE"}}

// withOptionVariable is argv with the options its program reads from the command's
// environment put before its own; a value that cannot be split is unknown.
func (z *analyzer) withOptionVariable(argv []word, proto SimpleCommand) []word {
	vars := optionVariables[base(argv[0].s)]
	if len(vars) == 0 || !argv[0].known {
		return argv
	}
	for _, e := range proto.Env {
		n, v, _ := strings.Cut(e, "=")
		if !slices.Contains(vars, n) || v == "" {
			continue
		}
		words, err := shlex.Split(v)
		if err != nil {
			z.unknown(n + " holds options that cannot be read")
			continue
		}
		extra := []word{argv[0]}
		for _, w := range words {
			extra = append(extra, word{s: w, known: true})
		}
		argv = append(extra, argv[1:]...)
	}
	return argv
}

// commandVariables are environment variables whose value is a command programs run:
// GIT_SSH_COMMAND='rm -rf ~' git fetch runs it.
var commandVariables = map[string]bool{"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_EDITOR": true, "EDITOR": true,
	"VISUAL": true, "GIT_SEQUENCE_EDITOR": true, "GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true, "PAGER": true,
	"MANPAGER": true, "SYSTEMD_PAGER": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
	"GIT_PROXY_COMMAND": true, "BROWSER": true, "PROMPT_COMMAND": true, "FCEDIT": true, "SUDO_EDITOR": true,
	"RSYNC_RSH": true, "CVS_RSH": true, "LESSOPEN": true, "LESSCLOSE": true, "PS0": true,
	// The thirteenth red team's: rsync's daemon connection, cargo's and rustc's wrappers.
	"RSYNC_CONNECT_PROG": true, "RUSTC_WRAPPER": true, "RUSTC_WORKSPACE_WRAPPER": true, "CARGO_BUILD_RUSTC_WRAPPER": true,
	"CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER": true,
	// The fifteenth's: more programs' pagers.
	"PSQL_PAGER": true, "GH_PAGER": true, "BAT_PAGER": true, "DELTA_PAGER": true, "AWS_PAGER": true,
	"GLAB_PAGER": true, "MYSQL_PAGER": true, "JJ_PAGER": true, "HG_PAGER": true,
	// Prompts an interactive child shell expands (PS1='$(cmd)' bash -i runs cmd).
	"PS1": true, "PS2": true, "PS4": true}

// CommandVariable reports an environment variable whose value is a command line: the
// fixed ones, and cargo's CARGO_TARGET_<TRIPLE>_RUNNER, which runs what cargo builds.
func CommandVariable(name string) bool {
	return commandVariables[name] || strings.HasPrefix(name, "CARGO_TARGET_") && strings.HasSuffix(name, "_RUNNER")
}

// envCommand analyses the value of a command-valued variable a command gets (entry is
// NAME=VALUE), once per line.
func (z *analyzer) envCommand(entry string, proto SimpleCommand) {
	name, val, known := strings.Cut(entry, "=")
	if known && name == "PERL5DB" && val != "" && !z.envSeen[entry] {
		// perl -d runs $PERL5DB as perl code (the thirteenth red team: exec "rm -rf ~").
		if z.envSeen == nil {
			z.envSeen = map[string]bool{}
		}
		z.envSeen[entry] = true
		z.oneLiner("perl", []word{{s: "-e", known: true}, {s: val, known: true}}, proto, nil)
		return
	}
	if !known || !CommandVariable(name) || val == "" || z.envSeen[entry] {
		return
	}
	if z.envSeen == nil {
		z.envSeen = map[string]bool{}
	}
	z.envSeen[entry] = true
	if name == "LESSOPEN" || name == "LESSCLOSE" {
		val = strings.TrimPrefix(strings.TrimLeft(val, "|"), "-") // less drops a "-" after the pipe (it also filters stdin)
	}
	z.script(word{s: val, known: true}, name, proto)
}

// exportedEnv is the environment the line has changed for the commands after: what it
// exported, and every variable it set that was already in the environment, which bash
// passes on with its new value (HOME=1; let PATH=1; (( X=2 )); read HOME; for HOME in).
func (z *analyzer) exportedEnv() []string {
	var out []string
	if len(z.exported) > 0 {
		out = slices.Clone(z.exported)
	}
	var changed []string
	for name, vals := range z.vars {
		if !isEnvName(name) || !z.inherited(name) || slices.ContainsFunc(out, func(e string) bool {
			n, _, _ := strings.Cut(e, "=")
			return n == name
		}) {
			continue
		}
		entry := name
		if len(vals) == 1 && vals[0].known {
			entry += "=" + vals[0].s
		}
		changed = append(changed, entry)
	}
	slices.Sort(changed)
	return append(out, changed...)
}

// arithAssigns marks the variables an arithmetic expression assigns as unknown.
func (z *analyzer) arithAssigns(n syntax.Node) {
	syntax.Walk(n, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.BinaryArithm:
			switch m.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
				syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
				if w, ok := m.X.(*syntax.Word); ok {
					z.store(strings.SplitN(w.Lit(), "[", 2)[0], []word{{numeric: true}})
				}
			}
		case *syntax.UnaryArithm:
			if m.Op == syntax.Inc || m.Op == syntax.Dec {
				if w, ok := m.X.(*syntax.Word); ok {
					z.store(w.Lit(), []word{{numeric: true}})
				}
			}
		}
		return true
	})
}

// patchFeed decides what patch writes when it is fed a diff the line shows (printf ...
// | patch -p0, a here-document): the files the diff names, as its redirections (red
// team: .git/config).
func (z *analyzer) patchFeed(argv []word, proto *SimpleCommand, in *word) {
	if in == nil || !in.known {
		return
	}
	dir := ""
	var prefix, basePrefix, suffix string // backups: -B PREFIX, -Y PREFIX, -z SUFFIX
	for i := 1; i < len(argv); i++ {
		a := argv[i].s
		if v, ok := strings.CutPrefix(a, "--prefix="); ok {
			prefix = v
		} else if v, ok := strings.CutPrefix(a, "--basename-prefix="); ok {
			basePrefix = v
		} else if v, ok := strings.CutPrefix(a, "--suffix="); ok {
			suffix = v
		}
		switch {
		case len(a) == 2 && a[0] == '-' && strings.IndexByte(optionSpecs["patch"].value, a[1]) >= 0:
			if a == "-i" {
				return // the diff is a file
			}
			if a == "-d" && i+1 < len(argv) {
				dir = argv[i+1].s // patch -d DIR: the names are below DIR
				if !argv[i+1].known {
					return
				}
			}
			if i+1 < len(argv) {
				switch a {
				case "-B":
					prefix = argv[i+1].s
				case "-Y":
					basePrefix = argv[i+1].s
				case "-z":
					suffix = argv[i+1].s
				}
			}
			i++ // the option's value (splitOptions made -p1 -p 1)
		case strings.HasPrefix(a, "--directory="):
			dir = strings.TrimPrefix(a, "--directory=")
		case strings.HasPrefix(a, "--input"):
			return
		case a == "--" || !strings.HasPrefix(a, "-"):
			return // a file to patch: WriteTargets has it
		}
	}
	proto.Redirects = slices.Clone(proto.Redirects)
	for _, f := range diffTargets(in.s) {
		if dir != "" && !path.IsAbs(f) {
			f = strings.TrimSuffix(dir, "/") + "/" + f
		}
		proto.Redirects = append(proto.Redirects, Redirect{Op: ">", Target: f})
		// The backups of what it patches (the thirteenth red team: -b -B ~/ put the
		// workspace's .bashrc, as patched, in the home folder).
		for _, b := range []string{prefix + f, path.Join(path.Dir(f), basePrefix+path.Base(f)), f + suffix} {
			if b != f && (prefix != "" || basePrefix != "" || suffix != "") {
				proto.Redirects = append(proto.Redirects, Redirect{Op: ">", Target: b})
			}
		}
	}
}

// logFileVars are variables whose value is a file programs write (a log, a history),
// and logFileOptions options of the same kind: GIT_TRACE=~/.bashrc git status wrote
// it (a twelfth red team), as did VALGRIND_OPTS=--log-file=F and ssh -E F.
var logFileVars = []string{"GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "PIP_LOG", "PIP_LOG_FILE", "SSLKEYLOGFILE", "LESSHISTFILE", "NODE_REPL_HISTORY", "SQLITE_HISTORY", "MYSQL_HISTFILE",
	"PSQL_HISTORY", "PYTHON_HISTORY", "GNUPLOT_HISTORY", "R_HISTFILE", "REDISCLI_HISTFILE"}

// logFiles adds to the command's writes the files its variables and options name for
// logs and histories.
func (z *analyzer) logFiles(words []string, proto *SimpleCommand) {
	vals := map[string]string{}
	for _, e := range z.exported {
		if k, v, ok := strings.Cut(e, "="); ok {
			vals[k] = v
		}
	}
	for _, e := range proto.Env {
		if k, v, ok := strings.Cut(e, "="); ok {
			vals[k] = v
		}
	}
	pathLike := func(v string) bool {
		return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, ".") || strings.Contains(v, "/")
	}
	add := func(f string) {
		proto.Redirects = append(slices.Clip(proto.Redirects), Redirect{Op: ">>", Target: f})
	}
	for k, v := range vals {
		// Every GIT_TRACE* names a file git appends to (the thirteenth red team found
		// GIT_TRACE_REFS and GIT_TRACE_FSMONITOR missing from a list).
		if (slices.Contains(logFileVars, k) || strings.HasPrefix(k, "GIT_TRACE")) && pathLike(v) {
			add(v)
		}
	}
	if v, ok := vals["LESS"]; ok {
		// less, the pager git, man and the rest run, logs what it shows into -O FILE
		// (the fifteenth red team: LESS='-O ~/.bashrc' git log).
		if words, err := shlex.Split(v); err == nil {
			for _, f := range writeTargets("less", words) {
				add(f)
			}
		}
	}
	if v, ok := vals["NODE_OPTIONS"]; ok {
		// node's options from the environment, as on its command line: the warnings'
		// file and its report and profile folders (the thirteenth red team).
		for _, f := range strings.Fields(v) {
			for _, o := range []string{"--redirect-warnings=", "--report-directory=", "--report-filename=", "--diagnostic-dir=",
				"--cpu-prof-dir=", "--heap-prof-dir=", "--prof-process-output="} {
				if after, ok := strings.CutPrefix(f, o); ok && pathLike(after) {
					if strings.HasSuffix(o, "dir=") || strings.HasSuffix(o, "directory=") {
						after = strings.TrimSuffix(after, "/") + "/x"
					}
					add(after)
				}
			}
		}
	}
	if v, ok := vals["VALGRIND_OPTS"]; ok {
		for _, f := range strings.Fields(v) {
			if after, ok := strings.CutPrefix(f, "--log-file="); ok {
				add(after)
			} else if after, ok := strings.CutPrefix(f, "--xml-file="); ok {
				add(after)
			}
		}
	}
	switch base(words[0]) {
	case "ssh", "scp", "sftp":
		for k, a := range words[1:] {
			switch {
			case a == "-E" && k+2 < len(words):
				add(words[k+2])
			case strings.HasPrefix(a, "-E") && len(a) > 2:
				add(a[2:])
			}
			opt := ""
			if a == "-o" && k+2 < len(words) {
				opt = words[k+2]
			} else if strings.HasPrefix(a, "-o") {
				opt = a[2:]
			}
			// A host key file and a master's control socket are files ssh writes;
			// ssh_config reads "Key=Value" and "Key Value" in any case.
			for _, key := range []string{"UserKnownHostsFile", "ControlPath"} {
				if v, ok := sshOption(opt, key); ok && pathLike(v) {
					add(v)
				}
			}
			if a == "-S" && k+2 < len(words) && pathLike(words[k+2]) {
				add(words[k+2])
			}
		}
	case "git":
		for k, a := range words[1:] {
			if a == "-c" && k+2 < len(words) {
				if key, v, ok := strings.Cut(words[k+2], "="); ok && strings.HasPrefix(strings.ToLower(key), "trace2.") && strings.HasSuffix(strings.ToLower(key), "target") && pathLike(v) {
					add(v)
				}
			}
		}
	}
}

// gitApplyUnsafe decides what git apply --unsafe-paths writes (a path out of the work
// tree too) where the line wrote the diff: the files it names, below --directory (an
// eleventh red team: ../home/.bashrc).
func (z *analyzer) gitApplyUnsafe(words []string, proto *SimpleCommand) {
	if base(words[0]) != "git" {
		return
	}
	sub, rest := gitSubcommand(words[1:])
	if sub != "apply" || !slices.Contains(rest, "--unsafe-paths") {
		return
	}
	dir := ""
	for _, a := range rest {
		if v, ok := strings.CutPrefix(a, "--directory="); ok {
			dir = v
		}
	}
	for _, f := range operandsOf(rest) {
		text, ok := z.written[z.writtenKey(f)]
		if !ok || !text.known {
			z.unknown("git apply --unsafe-paths writes where its diff says, which the line does not show")
			continue
		}
		proto.Redirects = slices.Clone(proto.Redirects)
		for _, t := range diffTargets(text.s) {
			if dir != "" && !path.IsAbs(t) {
				t = strings.TrimSuffix(dir, "/") + "/" + t
			}
			proto.Redirects = append(proto.Redirects, Redirect{Op: ">", Target: t})
		}
	}
}

// diffTargets are the files a diff's headers name (---, +++, ***, diff --git, Index:),
// each with every leading folder stripped in turn, as patch -pN may take it.
func diffTargets(diff string) []string {
	var out []string
	for _, line := range strings.Split(diff, "\n") {
		var names []string
		switch {
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "*** "):
			name, _, _ := strings.Cut(line[4:], "\t")
			names = append(names, strings.TrimSpace(name))
		case strings.HasPrefix(line, "diff --git "):
			names = strings.Fields(line[len("diff --git "):])
		case strings.HasPrefix(line, "Index: "):
			names = append(names, strings.TrimSpace(line[len("Index: "):]))
		}
		for _, n := range names {
			n = strings.Trim(n, `"`)
			for n != "" && n != "/dev/null" && len(out) < maxBraces {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
				_, rest, ok := strings.Cut(strings.TrimLeft(n, "/"), "/")
				if !ok {
					break
				}
				n = rest
			}
		}
	}
	return out
}

// IsGlob reports whether bash would take s, unquoted, as a pattern: a * or ?, or a [
// with a ] after it (a lone [, as in `[ -f x ]`, is a plain word).
func IsGlob(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	i := strings.IndexByte(s, '[')
	return i >= 0 && strings.IndexByte(s[i+1:], ']') >= 0
}

// constArith evaluates an arithmetic expression made of number literals only.
func constArith(x syntax.ArithmExpr) (n int, ok bool) {
	constant := true
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst:
			constant = false
		case *syntax.Lit:
			// A number starts with a digit (0x1f, 36#zz); anything else is a variable's
			// name, which an assignment (x=1, x++) would also write.
			if n.Value == "" || n.Value[0] < '0' || n.Value[0] > '9' {
				constant = false
			}
		}
		return constant
	})
	if !constant {
		return 0, false
	}
	defer func() {
		if recover() != nil {
			n, ok = 0, false // 1=2: an assignment to no variable; bash fails it too
		}
	}()
	n, err := expand.Arithm(&expand.Config{}, x)
	return n, err == nil
}

// setupScript names a process substitution that prints a tool's own shell set-up
// (source <(kubectl completion bash)). It is no file's name: /dev/fd holds only numbers.
const setupScript = "/dev/fd/63 (set-up)"

// printsSetup reports statements that are one call of an envGenerator.
func (z *analyzer) printsSetup(stmts []*syntax.Stmt) bool {
	if len(stmts) != 1 || len(stmts[0].Redirs) > 0 {
		return false
	}
	call, ok := stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 {
		return false
	}
	argv := make([]word, len(call.Args))
	for k, a := range call.Args {
		if argv[k] = z.word(a, false); !argv[k].known {
			return false
		}
	}
	return envGenerator(base(argv[0].s), argv[1:])
}

// envGenerator reports the shell set-up commands READMEs have people eval or source:
// they print their own tool's variables, functions or completions.
func envGenerator(name string, args []word) bool {
	sub := ""
	if len(args) > 0 {
		sub = args[0].s
	}
	if sub == "completion" || sub == "completions" || sub == "--completion" || name == "register-python-argcomplete" {
		return true // kubectl completion bash, rustup completions zsh, pip completion --bash
	}
	switch name {
	case "ssh-agent":
		return true
	case "pyenv", "rbenv", "nodenv", "goenv", "jenv", "zoxide", "starship", "thefuck", "atuin", "mcfly", "oh-my-posh":
		return sub == "init"
	case "fzf":
		return sub == "--bash" || sub == "--zsh" || sub == "--fish"
	case "direnv":
		return sub == "hook"
	case "conda", "micromamba", "mamba":
		return strings.HasPrefix(sub, "shell.")
	case "opam", "fnm":
		return sub == "env"
	case "brew":
		return sub == "shellenv"
	case "mise", "rtx":
		return sub == "activate"
	case "keychain":
		return sub == "--eval"
	}
	return false
}

// setVar records an assignment (X=value, export X=value) for the rest of the line.
func (z *analyzer) setVar(as *syntax.Assign) {
	if as == nil || as.Name == nil {
		return
	}
	name := as.Name.Value
	attr := z.attrs[z.refTarget(name)]
	switch {
	case as.Naked:
		return
	case attr.integer:
		// declare -i x; x=$v: the value is evaluated as arithmetic, and a number is stored.
		if as.Value != nil {
			z.arith(as.Value)
		}
		z.store(name, []word{{numeric: true}})
	case as.Index != nil || as.Array != nil || as.Append:
		z.store(name, []word{{}})
	case as.Value == nil:
		z.store(name, []word{{known: true}})
	default:
		z.store(name, caseValues(attr.letterCase, z.cands(as.Value, false)))
		// A value that spells a command substitution runs it wherever bash evaluates
		// the value again: arithmetic on an array subscript ($((x)) with x='a[$(cmd)]'),
		// ${x@P}, PS4 under set -x, eval.
		for _, v := range z.vars[name] {
			if v.known {
				z.latent(v.s)
			}
		}
	}
}

// latent analyses the commands a string spells in $(...) or `...` that bash would run
// if the string were evaluated again, as commands of the line.
func (z *analyzer) latent(s string) {
	for {
		i := strings.Index(s, "$(")
		j := strings.IndexByte(s, '`')
		switch {
		case i >= 0 && (j < 0 || i < j):
			end := strings.LastIndexByte(s, ')')
			if end <= i+2 {
				return
			}
			z.script(word{s: s[i+2 : end], known: true}, "latent", SimpleCommand{})
			s = s[end+1:]
		case j >= 0:
			k := strings.IndexByte(s[j+1:], '`')
			if k < 0 {
				return
			}
			z.script(word{s: s[j+1 : j+1+k], known: true}, "latent", SimpleCommand{})
			s = s[j+2+k:]
		default:
			return
		}
	}
}

// forIter sets a for loop's variable to every item of a literal list.
func (z *analyzer) forIter(l *syntax.WordIter) {
	if l.Name == nil {
		return
	}
	if z.inherited(l.Name.Value) {
		z.exported = append(z.exported, l.Name.Value) // for HOME in ...: exported, value unknown
	}
	var vals []word
	for _, w := range l.Items {
		for _, v := range z.words(w) {
			// for p in /proc/[0-9]*: the loop runs over what the pattern matches.
			if v.known && !quotedPart(w) && strings.ContainsAny(v.s, "*?[") {
				if m := z.glob(v.s); len(m) > 0 {
					for _, f := range m[:min(len(m), maxBraces)] {
						vals = append(vals, word{s: f, known: true})
					}
					continue
				}
			}
			vals = append(vals, v)
		}
	}
	if len(l.Items) == 0 && !l.InPos.IsValid() {
		vals, _ = z.value("@")
	}
	if len(vals) == 0 {
		vals = []word{{}}
	}
	z.store(l.Name.Value, vals)
}

// track follows what a command changes for the rest of the line: cd, set --, read,
// unset.
func (z *analyzer) track(argv []word) {
	name := base(argv[0].s)
	args := argv[1:]
	// $_ is the last argument of the command before.
	defer func() { z.store("_", []word{argv[len(argv)-1]}) }()
	switch name {
	case "cd", "pushd":
		z.trackCd(name, args)
	case "popd":
		if !slices.ContainsFunc(args, func(a word) bool { return a.s == "-n" }) {
			// It leaves the folder for one the stack holds: OLDPWD is where it was (red
			// team: pushd ~; popd; rm -rf ~- removed home).
			old := []word{{}}
			if z.cwd != "" && !z.cwdLost {
				old = []word{{s: z.cwd, known: true}}
			}
			z.store("OLDPWD", old)
			z.loseCwd()
		}
	case "set":
		for i, a := range args {
			// set -P, set -o physical: cd resolves links first.
			if !a.known || strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "--") && strings.Contains(a.s, "P") ||
				a.s == "-o" && i+1 < len(args) && (!args[i+1].known || args[i+1].s == "physical") {
				z.physical = true
			}
		}
		if len(args) > 0 && args[0].s == "--" {
			z.setPositional(args[1:])
		} else if len(args) > 0 && args[0].known && !strings.HasPrefix(args[0].s, "-") && !strings.HasPrefix(args[0].s, "+") {
			z.setPositional(args)
		}
	case "shopt":
		z.shopt(args)
	case "rm", "rmdir", "mv", "unlink", "rename", "find", "rsync", "git", "shred", "trash", "gio", "tar", "unzip":
		z.lineRemoves = true
	case "trap":
		for _, a := range args {
			if !a.known || a.s == "DEBUG" {
				z.debugTrap = true
			}
		}
		z.skipping()
	case "ln":
		z.trackLink(args)
	case "mount":
		// mount --bind SRC DST: DST is SRC from now on, as a link would be.
		if slices.ContainsFunc(args, func(a word) bool {
			return a.s == "--bind" || a.s == "--rbind" || a.s == "-B" || a.s == "-R" || a.s == "bind" || a.s == "rbind" || strings.Contains(a.s, "bind")
		}) {
			var ops []word
			for k, a := range args {
				if !strings.HasPrefix(a.s, "-") && !(k > 0 && args[k-1].s == "-o") {
					ops = append(ops, a)
				}
			}
			if len(ops) == 2 {
				z.trackLink([]word{{s: "-s", known: true}, ops[0], ops[1]})
			}
		}
	case "cp", "install":
		z.trackCopy(args)
	case "hash":
		// hash -p PATH NAME: NAME runs PATH from now on.
		for k := 0; k+2 < len(args); k++ {
			if args[k].s == "-p" && args[k+1].known && args[k+2].known {
				if z.aliases == nil {
					z.aliases = map[string][]word{}
				}
				z.aliases[args[k+2].s] = []word{args[k+1]}
			}
		}
	case "printf":
		// printf -v NAME sets NAME to what it formats: unknown to this analysis.
		for k := 0; k+1 < len(args); k++ {
			if args[k].s == "-v" && args[k+1].known {
				for _, n := range z.globbedNames(args[k+1].s) {
					z.store(strings.SplitN(n, "[", 2)[0], []word{{}})
				}
			}
		}
	case "shift":
		z.shift(args)
	case "read", "mapfile", "readarray", "getopts":
		for _, a := range args {
			if !a.known {
				continue
			}
			for _, n := range z.globbedNames(a.s) {
				if isEnvName(n) {
					z.store(n, []word{{}})
				}
			}
		}
		if len(args) == 0 {
			z.store("REPLY", []word{{}})
		}
	case "unset":
		for _, a := range args {
			if a.known && isEnvName(a.s) {
				z.store(a.s, []word{{known: true}})
			}
			z.unsetsOwn(a)
		}
	}
}

// PinsFD is the descriptor an agentbox's bash holds its pins at (the settings of
// nestedEnv, in a sealed memory file: see core/proc's sealPins): a nested agentbox reads them
// there when a command cleared its environment and left its shell's process group
// (setsid -f env -i agentbox ...). PinsVar names the line's closing or replacing it,
// decided as setting one of agentbox's own variables.
const (
	PinsFD  = 249
	PinsVar = "AGENTBOX_PINS"
)

// unsetsOwn records a variable the line takes out of the environment of its later
// commands when it is one of agentbox's own (AGENTBOX_*, or a name the line cannot
// know): an agentbox a command runs is pinned to this one's policy by them, so taking
// one out is decided as setting it (unset, env -u, env -i, export -n).
func (z *analyzer) unsetsOwn(a word) {
	switch {
	case !a.known:
		z.exported = append(z.exported, "*")
	case strings.HasPrefix(a.s, "AGENTBOX_"):
		z.exported = append(z.exported, a.s)
	}
}

// trackCd follows cd and pushd: the working directory the next commands run in
// (unknown when the operand is, or CDPATH or the stack decides), and OLDPWD.
func (z *analyzer) trackCd(name string, args []word) {
	if len(z.traps) > 0 {
		z.trapCwd = true // a trap that runs after this cd runs where it went
	}
	// A cd that fails leaves the shell where it was, and the line goes on: unless the
	// folder is there now and nothing on the line could have removed it, the cd is one
	// that may fail (cdPending), after which the next command runs in either folder,
	// but for the commands of an && list after it (red team: cd /; cd /missing; rm -rf
	// usr).
	defer func(prev string, lost bool) {
		switch {
		case z.cwd == prev && z.cwdLost == lost:
		case z.cwd != "" && z.cwd == z.ctx.Home && !z.lineRemoves:
			// Home is there: a cd to it is taken as done.
		case z.cwdLost || z.lineRemoves || z.cdableVars || !isDir(z.cwd):
			z.cdPending = &cdFrom{dir: prev, lost: lost}
		}
	}(z.cwd, z.cwdLost)
	for _, a := range args {
		// cd -P follows links before "..": where that leads is not followed here.
		if a.known && strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "P") || z.physical {
			for _, b := range args {
				if strings.Contains(b.s, "..") {
					defer z.loseCwd()
					break
				}
			}
			break
		}
	}
	if z.weak {
		// A cd that may not run: the folder is one of two.
		defer func(prev string, lost bool) {
			if z.cwd != prev || z.cwdLost != lost {
				z.loseCwd()
			}
		}(z.cwd, z.cwdLost)
	}
	if z.cwd != "" {
		defer func(prev string) { z.store("OLDPWD", []word{{s: prev, known: true}}) }(z.cwd)
	} else {
		defer func() { z.store("OLDPWD", []word{{}}) }()
	}
	var ops []word
	noChange := false
	for _, a := range args {
		if a.known && strings.HasPrefix(a.s, "-") && a.s != "-" {
			noChange = noChange || name == "pushd" && a.s == "-n"
			continue
		}
		ops = append(ops, a)
	}
	_, cdpath := z.vars["CDPATH"]
	if !cdpath && z.ctx.Getenv != nil {
		v, ok := z.ctx.Getenv("CDPATH")
		cdpath = ok && v != ""
	}
	switch {
	case noChange:
	case len(ops) == 0 && name == "pushd":
		z.loseCwd() // pushd alone swaps the top two folders of the stack
	case len(ops) == 0:
		if home, ok := z.vars["HOME"]; ok {
			if len(home) == 1 && home[0].known {
				z.cwd = z.resolve(home[0].s)
			} else {
				z.loseCwd()
			}
		} else {
			z.cwd = z.ctx.Home
		}
	case !ops[0].known || ops[0].s == "-" || strings.HasPrefix(ops[0].s, "+") || strings.HasPrefix(ops[0].s, "-"):
		z.loseCwd()
	case cdpath && !path.IsAbs(ops[0].s) && !strings.HasPrefix(ops[0].s, ".") && !strings.HasPrefix(ops[0].s, "~"):
		z.loseCwd() // CDPATH decides where a relative name leads
	default:
		z.cwd = z.resolve(ops[0].s)
		if z.cwd == "" {
			z.loseCwd()
		}
	}
}

// trackLink follows ln -s TARGET NAME: later commands that go through NAME reach TARGET.
func (z *analyzer) trackLink(args []word) {
	symbolic := false
	var ops []string
	for _, a := range args {
		switch {
		case !a.known:
			return
		case a.s == "-s" || a.s == "--symbolic" || strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "--") && strings.Contains(a.s, "s"):
			symbolic = true
		case !strings.HasPrefix(a.s, "-"):
			ops = append(ops, a.s)
		}
	}
	if symbolic && len(ops) == 1 {
		// ln -s TARGET makes ./basename(TARGET) (the fifteenth red team: ln -s /etc,
		// then a write into etc/cron.d).
		ops = append(ops, path.Base(ops[0]))
	}
	if symbolic && len(ops) == 2 && z.cwd != "" {
		name := ops[1]
		if !path.IsAbs(name) {
			name = path.Join(z.cwd, name)
		}
		target := ops[0]
		if (target == "~" || strings.HasPrefix(target, "~/")) && z.ctx.Home != "" {
			target = path.Join(z.ctx.Home, target[1:])
		}
		if !path.IsAbs(target) {
			target = path.Join(path.Dir(name), target)
		}
		if z.a.Links == nil {
			z.a.Links = map[string]string{}
		}
		z.a.Links[path.Clean(name)] = path.Clean(target)
	}
}

// trackCopy follows cp and install of a program: after cp /bin/rm d, ./d is rm.
func (z *analyzer) trackCopy(args []word) {
	var ops []string
	for _, a := range args {
		if !a.known {
			return
		}
		if !strings.HasPrefix(a.s, "-") {
			ops = append(ops, a.s)
		}
	}
	if len(ops) == 2 {
		if z.a.Copies == nil {
			z.a.Copies = map[string]string{}
		}
		dst := ops[1]
		for _, spelling := range []string{dst, "./" + strings.TrimPrefix(dst, "./"), path.Join(z.cwd, dst)} {
			z.a.Copies[spelling] = ops[0]
		}
	}
}

// inherited reports a variable the command inherits exported: one bash always has
// (PATH, HOME) or one the call's environment holds.
func (z *analyzer) inherited(name string) bool {
	switch name {
	case "PATH", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "SHELL", "USER", "LANG":
		return true
	case "TEXTDOMAIN", "TEXTDOMAINDIR", "EXECIGNORE", "GLOBIGNORE", "BASH_COMPAT", "BASH_LOADABLES_PATH":
		// bash's own: they act on the shell itself, exported or not, so setting one is
		// decided as exporting it (policy.CodeLoadingEnv lists them).
		return true
	}
	if z.ctx.Getenv != nil {
		_, ok := z.ctx.Getenv(name)
		return ok
	}
	return z.ctx.Exported != nil && z.ctx.Exported(name)
}

// loseCwd records that the line moved to a folder that cannot be known.
func (z *analyzer) loseCwd() {
	z.cwd, z.cwdLost = "", true
}

func (z *analyzer) positional(args []word) {
	z.vars["@"], z.vars["*"] = args, args
	z.vars["#"] = []word{{s: strconv.Itoa(len(args)), known: true}}
	for i, a := range args {
		z.vars[strconv.Itoa(i+1)] = []word{a}
	}
}

// resolve makes a directory operand absolute against the working directory ("" when
// that cannot be known).
func (z *analyzer) resolve(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home := z.ctx.Home
		if v, ok := z.vars["HOME"]; ok {
			if len(v) != 1 || !v[0].known {
				return ""
			}
			home = v[0].s
		}
		if home == "" {
			return ""
		}
		p = home + p[1:]
	}
	if !path.IsAbs(p) {
		if z.cwd == "" {
			return ""
		}
		p = path.Join(z.cwd, p)
	}
	return path.Clean(p)
}

// glob matches a pattern against the real file system, as bash would before running
// the command; nil when nothing matches (bash then passes the pattern as it is).
func (z *analyzer) glob(pattern string) []string {
	abs := pattern
	if !path.IsAbs(abs) {
		if z.cwd == "" {
			return nil
		}
		abs = path.Join(z.cwd, abs)
	}
	pat := bashPattern(abs)
	if z.a.NoCaseGlob {
		pat = NoCase(pat)
	}
	return globVariants(pat)
}

// endless reports a while or until loop whose condition is a constant true (or, for
// until, false): it ends only if its body breaks out.
func endless(w *syntax.WhileClause) bool {
	if len(w.Cond) != 1 {
		return false
	}
	switch c := w.Cond[0].Cmd.(type) {
	case *syntax.ArithmCmd:
		// (( 1 )): a non-zero constant is true.
		if lit, ok := c.X.(*syntax.Word); ok && !w.Until {
			n := lit.Lit()
			return n != "" && strings.Trim(n, "0123456789") == "" && strings.Trim(n, "0") != ""
		}
	case *syntax.TestClause:
		// [[ word ]]: a non-empty constant string is true.
		if lit, ok := c.X.(*syntax.Word); ok && !w.Until {
			return lit.Lit() != ""
		}
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return false
		}
		lits := make([]string, len(c.Args))
		for i, a := range c.Args {
			if lits[i] = a.Lit(); lits[i] == "" && a.Parts != nil {
				if _, quoted := a.Parts[0].(*syntax.SglQuoted); !quoted {
					return false // computed: could be anything
				}
				lits[i] = "'" // a quoted constant
			}
		}
		if w.Until {
			return len(lits) == 1 && lits[0] == "false"
		}
		switch lits[0] {
		case "sleep":
			return len(lits) == 2 // sleep N succeeds every time
		case "true", ":", "echo", "printf":
			return len(lits) == 1 || lits[0] == "echo" || lits[0] == "printf" && len(lits) > 1
		case "[":
			// [ 1 ], [ x ]: one non-empty constant is true.
			return len(lits) == 3 && lits[2] == "]" && lits[1] != ""
		case "test":
			return len(lits) == 2 && lits[1] != ""
		}
	}
	return false
}

// words expands braces in w (bounded) and reduces each result to every value it may
// take; alternatives count as further words (judged as operands, the worst decides).
func (z *analyzer) words(w *syntax.Word) []word {
	if unquotedExpansion(w) {
		// Field splitting: X="rm -rf /"; sudo $X runs rm with two operands.
		var out []word
		ifs, ifsKnown := z.ifs()
		for _, c := range z.cands(w, false) {
			if !ifsKnown {
				out = append(out, word{}) // split on characters the line chose at run time
				continue
			}
			fields := strings.FieldsFunc(c.s, func(r rune) bool { return strings.ContainsRune(ifs, r) })
			if c.known && len(fields) == 0 && !quotedPart(w) {
				continue // $EMPTY unquoted is no word at all: $EMPTY rm -rf ~ runs rm
			}
			if !c.known || len(fields) <= 1 {
				out = append(out, c)
				continue
			}
			for _, f := range fields {
				out = append(out, word{s: f, known: true})
			}
		}
		return out
	}
	if !hasBrace(w) {
		return z.cands(w, false)
	}
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if !syntax.SplitBraces(cp) {
		return z.cands(w, false)
	}
	var out []word
	for ew, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(out) >= maxBraces {
			z.uncertain("a brace expansion is too large to analyse")
			break
		}
		out = append(out, z.cands(ew, false)...)
	}
	if len(out) == 0 {
		return z.cands(w, false)
	}
	return out
}

// dirTilde matches bash's directory tildes at a word's start: ~+, ~-, ~N, ~+N, ~-N.
var dirTilde = lazyRegexp(`^~([+-][0-9]*|[0-9]+)(/|$)`)

// quotedPart reports a word with a quoted part ("", ”, "$X"), which stays a word even
// when it is empty.
func quotedPart(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.DblQuoted, *syntax.SglQuoted:
			return true
		}
	}
	return false
}

// ifs is what unquoted expansions are split on: IFS as the line set it, else bash's
// default; false when the line set it to something computed.
func (z *analyzer) ifs() (string, bool) {
	v, ok := z.vars["IFS"]
	if !ok {
		return " \t\n", true
	}
	if len(v) != 1 || !v[0].known {
		return "", false
	}
	return v[0].s, true
}

// unquotedExpansion reports a word with a parameter expansion or command
// substitution outside double quotes, whose value bash splits into fields.
func unquotedExpansion(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst:
			return true
		}
	}
	return false
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

// ansiC decodes the body of a $'...' string the way bash does, which ends the string
// at a NUL it decodes (rm$'\0' is rm).
func ansiC(s string) string {
	var b nulEnds
	for i := 0; i < len(s) && !b.ended; i++ {
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

// nulEnds is a strings.Builder that keeps nothing from a NUL byte on.
type nulEnds struct {
	strings.Builder
	ended bool
}

func (b *nulEnds) WriteByte(c byte) error {
	if c == 0 {
		b.ended = true
	}
	if b.ended {
		return nil
	}
	return b.Builder.WriteByte(c)
}

func (b *nulEnds) WriteRune(r rune) (int, error) {
	if r == 0 {
		b.ended = true
	}
	if b.ended {
		return 0, nil
	}
	return b.Builder.WriteRune(r)
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

// hugeIteration reports a for loop over a brace range of more than a hundred thousand
// numbers: started in the background in its body, a process per number is a fork bomb.
func hugeIteration(l *syntax.WordIter) bool {
	for _, w := range l.Items {
		// for i in $(seq 1 1000000): as many rounds as seq prints.
		if len(w.Parts) == 1 {
			if cs, ok := w.Parts[0].(*syntax.CmdSubst); ok && len(cs.Stmts) == 1 {
				if call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Args) >= 2 && call.Args[0].Lit() == "seq" {
					if n, err := strconv.Atoi(call.Args[len(call.Args)-1].Lit()); err == nil && n >= 10_000 {
						return true
					}
				}
			}
		}
		lit := w.Lit()
		i := strings.Index(lit, "{")
		j := strings.Index(lit, "..")
		k := strings.Index(lit, "}")
		if i < 0 || j < i || k < j {
			continue
		}
		from, err1 := strconv.Atoi(lit[i+1 : j])
		to, err2 := strconv.Atoi(strings.SplitN(lit[j+2:k], "..", 2)[0])
		if err1 == nil && err2 == nil && (to-from >= 9_999 || from-to >= 9_999) {
			return true
		}
	}
	return false
}

// printfOutput is what printf FORMAT ARGS... prints: each directive (%s, %b, %d, ...,
// flags and width ignored) takes the next argument, and the format repeats while
// arguments remain, as printf does. Unknown if any part is.
func printfOutput(format word, args []word) word {
	known := format.known
	for _, a := range args {
		known = known && a.known
	}
	f := ansiC(format.s)
	var b strings.Builder
	next := 0
	for pass := 0; pass == 0 || next < len(args) && pass < 1000; pass++ {
		used := false
		for i := 0; i < len(f); i++ {
			if f[i] != '%' || i+1 == len(f) {
				b.WriteByte(f[i])
				continue
			}
			i++
			if f[i] == '%' {
				b.WriteByte('%')
				continue
			}
			for i < len(f) && strings.IndexByte("-+ #0123456789.", f[i]) >= 0 {
				i++
			}
			used = true
			if next < len(args) {
				b.WriteString(args[next].s)
				next++
			}
		}
		if !used {
			break
		}
	}
	return word{s: b.String(), known: known}
}
