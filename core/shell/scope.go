package shell

// Where what bash does differs from reading the line top to bottom, one place after
// another; each was a red team's way past the gate.
//
// A subshell ( ( ), $( ), ` `, <( ), coproc, a pipeline's stages, a command run with
// &, a script given to sh -c) starts from the shell's state and loses what it changes:
// x=rm; (x=ls); $x runs rm. The analyser saves its state where one starts and puts it
// back where it ends. The last stage of a pipeline runs in the shell itself under
// shopt -s lastpipe, so what it changes is kept as well as lost: both values are
// candidates.
//
// Arithmetic evaluates text again: the subscript of an array reference in it is
// expanded, and a command substitution there runs, even when the text came from a
// quoted word or a variable ([[ 'a[$(cmd)]' -eq 0 ]], x='a[$(cmd)]'; (( x ))). Text
// that is known is analysed for those commands (latent); a value that cannot be known
// makes the line uncertain, so that no allow rule lets it through unasked.
//
// Paths: where the line may go one way or another (if, case, && and ||, a loop's body,
// run round after round until nothing changes), each way is analysed from the state it
// starts in, and the state after is all of theirs together. What may run later, or
// never, or not keep what it sets (a function's body, local, a trap or alias body,
// an assignment to a read-only variable) adds to what a variable held (store).
//
// Evaluators: bash runs what some values hold: ${x@P} (after decoding \044 into $),
// ${!x} and declare -n (a subscript), PS4 under set -x, compgen -W. Known values have
// those commands analysed; a value that cannot be known is refused (evaluated).
//
// Bounds: a value past 64 KB or 64 candidates is unknown, and loops stop being
// followed after a number of rounds, so that no line makes the analysis itself run
// away (x=$x$x in forty branches had taken 22 GB).

import (
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// scope is the state a subshell starts from.
type scope struct {
	vars       map[string][]word
	attrs      map[string]varAttr
	readonly   map[string]bool
	namerefs   map[string]string
	cwd        string
	cwdLost    bool
	exported   []string
	aliases    map[string][]word
	aliasSpace map[string]bool
	funcs      map[string]*funcDef
	// maybe: the subshell may be the shell itself (a pipeline's last stage under
	// lastpipe), so what it changed stays possible.
	maybe bool
}

// enterScope saves the state a subshell starts from.
func (z *analyzer) enterScope(maybe bool) *scope {
	return &scope{vars: maps.Clone(z.vars), attrs: maps.Clone(z.attrs), readonly: maps.Clone(z.readonly), namerefs: maps.Clone(z.namerefs), cwd: z.cwd, cwdLost: z.cwdLost,
		exported: slices.Clip(z.exported), aliases: maps.Clone(z.aliases), aliasSpace: maps.Clone(z.aliasSpace),
		funcs: maps.Clone(z.funcs), maybe: maybe}
}

// leaveScope ends a subshell: its changes are lost, or for a maybe-subshell kept
// beside what was there before.
func (z *analyzer) leaveScope(s *scope) {
	if !s.maybe {
		z.vars, z.attrs, z.readonly, z.namerefs, z.cwd, z.cwdLost = s.vars, s.attrs, s.readonly, s.namerefs, s.cwd, s.cwdLost
		z.exported, z.aliases, z.aliasSpace, z.funcs = s.exported, s.aliases, s.aliasSpace, s.funcs
		return
	}
	after := z.vars
	z.vars = s.vars
	changed := map[string]bool{}
	for name, vals := range after {
		if before, ok := s.vars[name]; !ok || !slices.Equal(before, vals) {
			changed[name] = true
		}
	}
	for name := range s.vars {
		if _, ok := after[name]; !ok {
			changed[name] = true // unset in the stage
		}
	}
	for name := range changed {
		if slices.Contains(positionalNames, name) {
			// Lists of fields, not values: either list may hold, which no one list is.
			z.positionalUnknown()
			continue
		}
		before, ok := z.value(name)
		if !ok {
			before = []word{{}}
		}
		vals, ok := after[name]
		if !ok {
			vals = []word{{}} // unset: what the environment holds, unknown here
		}
		merged := unionWords(slices.Clone(before), vals)
		if len(merged) > maxBraces {
			z.uncertain("a variable takes too many values to follow")
			merged = []word{{}}
		}
		z.vars[name] = merged
	}
	for name, b := range s.attrs {
		if a := z.attrs[name]; a != b {
			// Either may hold: the stricter reading of both.
			if a.letterCase != b.letterCase {
				a.letterCase = attrUnknownCase
			}
			a.integer = a.integer || b.integer
			if z.attrs == nil {
				z.attrs = map[string]varAttr{}
			}
			z.attrs[name] = a
		}
	}
	for name, a := range z.attrs {
		if _, ok := s.attrs[name]; !ok && a.letterCase != 0 {
			a.letterCase = attrUnknownCase
			z.attrs[name] = a
		}
	}
	for name, t := range s.namerefs {
		if z.namerefs[name] != t {
			if z.namerefs == nil {
				z.namerefs = map[string]string{}
			}
			z.namerefs[name] = "?" // a reference to one or the other
		}
	}
	for name, t := range z.namerefs {
		if _, ok := s.namerefs[name]; !ok && t != "?" {
			z.namerefs[name] = "?"
		}
	}
	// A read-only mark that may not hold would skip assignments that run.
	for name := range z.readonly {
		if !s.readonly[name] {
			delete(z.readonly, name)
		}
	}
	if z.cwd != s.cwd || z.cwdLost != s.cwdLost {
		z.loseCwd()
	}
	// Exports, aliases and functions of either stay: more is decided, not less.
	for _, e := range s.exported {
		if !slices.Contains(z.exported, e) {
			z.exported = append(z.exported, e)
		}
	}
	for name, def := range s.funcs {
		if _, ok := z.funcs[name]; !ok {
			if z.funcs == nil {
				z.funcs = map[string]*funcDef{}
			}
			z.funcs[name] = def
		}
	}
	for name, a := range s.aliases {
		if _, ok := z.aliases[name]; !ok {
			if z.aliases == nil {
				z.aliases = map[string][]word{}
			}
			z.aliases[name] = a
			if s.aliasSpace[name] {
				if z.aliasSpace == nil {
					z.aliasSpace = map[string]bool{}
				}
				z.aliasSpace[name] = true
			}
		}
	}
}

// inCurrentShell names the script runners whose script runs in the shell itself,
// not in a child: what it sets stays set.
func inCurrentShell(wrapper string) bool {
	switch wrapper {
	case "eval", "trap", "alias", "source", ".":
		return true
	}
	return strings.HasSuffix(wrapper, " -C") // mapfile -C CALLBACK
}

// varAttr is what declare -i, -l, -u and -c said of a variable: they change what every
// assignment to it stores.
type varAttr struct {
	letterCase byte // attrLower, attrUpper, attrCapitalize, attrUnknownCase, or 0
	integer    bool // the value is evaluated as arithmetic
}

// Case attributes.
const (
	attrLower       = 'l'
	attrUpper       = 'u'
	attrCapitalize  = 'c'
	attrUnknownCase = '?'
)

// caseValues applies a case attribute to the values an assignment stores. What bash
// makes of -c, or of an attribute that cannot be known, is not reproduced: the value
// is unknown.
func caseValues(attr byte, vals []word) []word {
	if attr == 0 {
		return vals
	}
	out := make([]word, len(vals))
	for i, v := range vals {
		switch {
		case !v.known:
			out[i] = v
		case attr == attrLower:
			out[i] = word{s: strings.ToLower(v.s), known: true}
		case attr == attrUpper:
			out[i] = word{s: strings.ToUpper(v.s), known: true}
		default:
			out[i] = word{s: v.s, known: false}
		}
	}
	return out
}

// arithUnknown is the uncertainty recorded for a value bash evaluates as arithmetic
// that cannot be known.
const arithUnknown = "bash evaluates a value computed at run time as arithmetic ((( )), [[ -eq ]], a subscript), " +
	"where an array subscript in it runs commands; compare with [ \"$x\" -eq N ] (test does not evaluate it) or write the value out"

// arith checks an arithmetic expression, or a word bash evaluates as one ([[ x -eq y ]]
// operands, subscripts, slice offsets), in the order bash evaluates it: the target of
// an assignment is not read (i=0 in for ((i=0;...)) reads no i) and holds a number
// after.
func (z *analyzer) arith(n syntax.Node) {
	seen := map[string]bool{}
	var eval func(x syntax.Node)
	eval = func(x syntax.Node) {
		switch x := x.(type) {
		case nil:
		case *syntax.ArithmCmd:
			eval(x.X)
		case *syntax.ArithmExp:
			eval(x.X)
		case *syntax.LetClause:
			for _, e := range x.Exprs {
				eval(e)
			}
		case *syntax.CStyleLoop:
			eval(x.Init)
			eval(x.Cond)
			eval(x.Post)
		case *syntax.ParenArithm:
			eval(x.X)
		case *syntax.UnaryArithm:
			eval(x.X)
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				z.arithAssigned(x.X)
				z.storesNumber(x.X)
			}
		case *syntax.BinaryArithm:
			switch x.Op {
			case syntax.Assgn:
				if w, ok := x.X.(*syntax.Word); ok {
					z.targetSubscript(w) // a[i]=...: i is read, a is not
				}
				eval(x.Y)
				z.arithAssigned(x.X)
				z.storesNumber(x.X)
			case syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				eval(x.X)
				eval(x.Y)
				z.arithAssigned(x.X)
				z.storesNumber(x.X)
			default:
				eval(x.X)
				eval(x.Y)
			}
		case *syntax.Word:
			z.arithWord(x, seen)
		}
	}
	eval(n)
}

// arithAssigned refuses arithmetic that assigns bash's command hash or alias table:
// $((BASH_CMDS[ls]=1)) makes ls run ./1 (the thirteenth red team), as the plain
// assignment would.
func (z *analyzer) arithAssigned(x syntax.ArithmExpr) {
	w, ok := x.(*syntax.Word)
	if !ok {
		return
	}
	name := strings.SplitN(w.Lit(), "[", 2)[0]
	if len(w.Parts) == 1 {
		if p, ok := w.Parts[0].(*syntax.ParamExp); ok && p.Param != nil {
			name = p.Param.Value
		}
	}
	if name == "BASH_CMDS" || name == "BASH_ALIASES" {
		z.unknown("arithmetic that assigns " + name + " changes which program a command name runs; write the program's path")
	}
}

// storesNumber records that arithmetic assigned the variable x names: it holds a number.
func (z *analyzer) storesNumber(x syntax.ArithmExpr) {
	if w, ok := x.(*syntax.Word); ok {
		if name := strings.SplitN(w.Lit(), "[", 2)[0]; isEnvName(name) {
			z.vars[name] = []word{{numeric: true}}
		} else if len(w.Parts) == 1 {
			if p, ok := w.Parts[0].(*syntax.ParamExp); ok && p.Param != nil && p.Index != nil {
				z.vars[p.Param.Value] = []word{{}} // an element of an array: the array is no longer one known value
			}
		}
	}
}

// targetSubscript checks the subscript of an assignment's target (a[i] = ...).
func (z *analyzer) targetSubscript(w *syntax.Word) {
	if len(w.Parts) == 1 {
		if p, ok := w.Parts[0].(*syntax.ParamExp); ok && p.Index != nil {
			z.arith(p.Index)
		}
	}
}

// arithWord checks one word of an arithmetic expression: its literal text is
// expression, every variable it expands is evaluated again, and output of a command
// substitution cannot be known.
func (z *analyzer) arithWord(w *syntax.Word, seen map[string]bool) {
	literal := true
	syntax.Walk(w, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.ArithmExp:
			literal = false // a number; its own expression is checked where the walk meets it
			return false
		case *syntax.CmdSubst, *syntax.ProcSubst:
			literal = false
			z.uncertain(arithUnknown) // what it prints is evaluated
			return false
		case *syntax.ParamExp:
			literal = false
			if m.Param != nil && !m.Length && m.Index == nil {
				z.arithVar(m.Param.Value, 0, seen)
			} else if m.Index != nil && m.Param != nil {
				z.arithVar(m.Param.Value, 0, seen) // an element: the array's value, as far as it is known
			}
			return false
		}
		return true
	})
	if literal {
		for _, v := range z.cands(w, false) {
			if v.known {
				z.arithText(v.s, 0, seen)
			}
		}
		return
	}
	syntax.Walk(w, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.ArithmExp, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp:
			return false
		case *syntax.Lit:
			z.arithText(m.Value, 0, seen)
		case *syntax.SglQuoted:
			z.arithText(m.Value, 0, seen)
		}
		return true
	})
}

// arithText checks text bash evaluates as arithmetic: a command substitution in it
// runs (latent), and every variable it names is evaluated in turn.
func (z *analyzer) arithText(s string, depth int, seen map[string]bool) {
	if strings.ContainsAny(s, "$`") {
		z.latent(s)
	}
	if strings.Contains(s, "BASH_CMDS") || strings.Contains(s, "BASH_ALIASES") {
		// Text evaluated again ([[ BASH_CMDS[ls]=1 -eq 1 ]], printf -v 'a[...]'):
		// reading these tables means nothing in arithmetic, assigning them reroutes.
		z.unknown("text bash evaluates as arithmetic names BASH_CMDS or BASH_ALIASES, which an assignment there changes; write the program's path")
	}
	// An assignment in the text is made when bash evaluates it: x=PATH=2; $((x)) sets
	// PATH, and ls then runs ./2/ls (the fifteenth red team, in default mode).
	for _, m := range arithAssignment().FindAllStringSubmatch(s, -1) {
		z.store(m[1]+m[2]+m[3], []word{{numeric: true}})
	}
	for i := 0; i < len(s); {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			if c >= '0' && c <= '9' {
				for i < len(s) && (isNameByte(s[i]) || s[i] == '#') {
					i++ // 0x1f, 16#ff, 64#_a: a number, not a name
				}
				continue
			}
			i++
			continue
		}
		j := i
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		name := s[i:j]
		i = j
		if i > 0 && j-len(name) > 0 && s[j-len(name)-1] == '$' {
			name = "$" + name // $x: a parameter, expanded where the text is
		}
		z.arithVar(strings.TrimPrefix(name, "$"), depth+1, seen)
	}
	if strings.Contains(s, "${") {
		// ${x@P}, ${!x}: what they expand to is not followed here.
		z.uncertain(arithUnknown)
	}
}

// arithAssignment finds the variables arithmetic text assigns: NAME= (not ==),
// NAME[...]=, NAME op=, and ++NAME, NAME++, --NAME, NAME--.
var arithAssignment = lazyRegexp(`([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|<<|>>|\*\*)?=(?:[^=]|$)|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--)`)

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// numericVars are what bash sets to numbers: they evaluate to themselves.
var numericVars = map[string]bool{"?": true, "$": true, "!": true, "#": true, "-": true, "RANDOM": true, "SRANDOM": true,
	"SECONDS": true, "LINENO": true, "PPID": true, "BASHPID": true, "UID": true, "EUID": true, "OPTIND": true,
	"EPOCHSECONDS": true, "EPOCHREALTIME": true, "HISTCMD": true, "COLUMNS": true, "LINES": true, "SHLVL": true}

// arithVar checks a variable arithmetic evaluates: its value is evaluated as an
// expression too, so a value that cannot be known could run anything.
func (z *analyzer) arithVar(name string, depth int, seen map[string]bool) {
	if numericVars[name] || seen[name] {
		return
	}
	seen[name] = true
	if depth > maxDepth {
		z.uncertain(arithUnknown)
		return
	}
	vals, ok := z.value(name)
	if !ok {
		z.uncertain(arithUnknown)
		return
	}
	for _, v := range vals {
		switch {
		case v.numeric:
		case !v.known:
			z.uncertain(arithUnknown)
		default:
			z.arithText(v.s, depth, seen)
		}
	}
}

// nameArgs checks the arguments of the builtins that take a variable's name (read,
// printf -v, unset, declare, test -v, ...): a subscript in the name is evaluated as
// arithmetic.
func (z *analyzer) nameArgs(argv []word) {
	if len(argv) < 2 || !argv[0].known {
		return
	}
	args := argv[1:]
	switch argv[0].s {
	case "read":
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a.known && len(a.s) > 1 && a.s[0] == '-' {
				if strings.ContainsAny(a.s[len(a.s)-1:], "dinNptu") {
					i++ // the option's own argument: a prompt, a delimiter
				}
				continue
			}
			z.subscriptArg(a)
		}
	case "unset", "declare", "typeset", "local", "export", "readonly":
		for _, a := range args {
			if a.known && (strings.HasPrefix(a.s, "-") || strings.HasPrefix(a.s, "+")) {
				continue
			}
			if i := strings.IndexByte(a.s, '='); i >= 0 {
				a = word{s: a.s[:i], known: true} // name=value: the value is no name
			}
			z.subscriptArg(a)
		}
	case "getopts":
		if len(args) >= 2 {
			z.subscriptArg(args[1])
		}
	case "mapfile", "readarray":
		if last := args[len(args)-1]; !last.known || !strings.HasPrefix(last.s, "-") {
			z.subscriptArg(last)
		}
	case "printf", "wait", "test", "[":
		flag := map[string]string{"printf": "-v", "wait": "-p", "test": "-v", "[": "-v"}[argv[0].s]
		for i := 0; i+1 < len(args); i++ {
			if args[i].s == flag || (argv[0].s == "test" || argv[0].s == "[") && args[i].s == "-R" {
				z.subscriptArg(args[i+1])
			}
		}
	}
}

// subscriptArg checks a variable's name bash will use: a subscript in it is
// arithmetic, and a name that cannot be known could carry one.
func (z *analyzer) subscriptArg(a word) {
	i := strings.IndexByte(a.s, '[')
	if !a.known {
		z.uncertain(arithUnknown)
	}
	if i < 0 {
		return
	}
	sub := a.s[i+1:]
	if j := strings.LastIndexByte(sub, ']'); j >= 0 {
		sub = sub[:j]
	}
	z.arithText(sub, 0, map[string]bool{})
}

// multiValued names the variables a command's words expand that may hold more than one
// value (a loop's variable, what a pipeline's last stage may have set): one value at a
// time, not all of them as one command's words.
func (z *analyzer) multiValued(args []*syntax.Word) []string {
	var names []string
	for _, w := range args {
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
				return false
			case *syntax.ParamExp:
				if n.Param != nil {
					name := n.Param.Value
					if name != "@" && name != "*" && len(z.vars[name]) > 1 && !slices.Contains(names, name) {
						names = append(names, name)
					}
				}
			}
			return true
		})
	}
	return names
}

// eachValue runs analyse once for every combination of the values the named variables
// may hold, each holding one value: for x in echo rm; do $x f; done runs echo f, then
// rm f, never echo rm f. Too many combinations to try one by one make the command
// unknown, analysed not at all.
func (z *analyzer) eachValue(names []string, analyse func()) bool {
	combos := 1
	for _, n := range names {
		if combos *= len(z.vars[n]); combos > maxBraces {
			// Its words read together would hide which command runs: not known.
			z.unknown("a command takes too many values to analyse one by one")
			return true
		}
	}
	saved := map[string][]word{}
	for _, n := range names {
		saved[n] = z.vars[n]
	}
	cwd, lost := z.cwd, z.cwdLost
	sameDir, anyLost := "", false
	idx := make([]int, len(names))
	for first := true; ; first = false {
		for i, n := range names {
			z.vars[n] = []word{saved[n][idx[i]]}
		}
		z.cwd, z.cwdLost = cwd, lost
		analyse()
		if first {
			sameDir = z.cwd
		} else if z.cwd != sameDir {
			anyLost = true // cd $d over several values: which one is not known
		}
		anyLost = anyLost || z.cwdLost
		i := 0
		for ; i < len(idx); i++ {
			if idx[i]++; idx[i] < len(saved[names[i]]) {
				break
			}
			idx[i] = 0
		}
		if i == len(idx) {
			break
		}
	}
	for _, n := range names {
		// A variable the command itself set (read $x) keeps what it set.
		if cur := z.vars[n]; len(cur) == 1 && cur[0] == saved[n][len(saved[n])-1] {
			z.vars[n] = saved[n]
		}
	}
	if anyLost {
		z.loseCwd()
	} else {
		z.cwd, z.cwdLost = sameDir, false
	}
	return true
}

// store sets a variable as an assignment bash may run does: not at all when the
// variable is read-only (the assignment fails), beside what it held when the statement
// may not run or not keep it (weak), and always beside what a trap or alias body may set
// at any moment. BASH_ARGV0 is $0 too.
func (z *analyzer) store(name string, vals []word) {
	if t, ok := z.namerefs[name]; ok {
		switch t {
		case "":
			z.namerefs[name] = z.refTo(vals) // declare -n r; r=x: r now stands for x
			return
		case "?":
			z.unknown("an assignment through a reference (declare -n) whose target cannot be known")
			return
		}
		name = z.refTarget(name)
	}
	if z.readonly[name] {
		return
	}
	if name == "BASH_CMDS" || name == "BASH_ALIASES" {
		// bash's command hash and alias tables: a name then runs another program.
		z.unknown("an assignment to " + name + " changes which program a command name runs; use hash -p or alias, which are followed, or write the program's path")
		return
	}
	if len(z.traps) > 0 && !z.lateCheck {
		if z.trapHistory == nil {
			z.trapHistory = map[string][]word{}
		}
		z.trapHistory[name] = unionWords(z.trapHistory[name], vals)
	}
	if name == "PS4" {
		z.evaluated(vals, "PS4 is expanded as a prompt under set -x, and it is")
	}
	if len(vals) > maxBraces {
		z.uncertain("a variable takes too many values to follow")
		vals = []word{{}}
	}
	for i, v := range vals {
		if len(v.s) > maxValueLen {
			vals = slices.Clone(vals)
			vals[i] = word{}
		}
	}
	if z.volatileNow > 0 {
		if z.volatile == nil {
			z.volatile = map[string][]word{}
		}
		z.volatile[name] = unionWords(z.volatile[name], vals)
	}
	if z.weak || z.weakDepth > 0 {
		before, ok := z.value(name)
		if !ok {
			before = []word{{}}
		}
		vals = unionWords(before, vals)
	}
	vals = unionWords(vals, z.volatile[name])
	z.vars[name] = vals
	if name == "BASH_ARGV0" {
		z.vars["0"] = vals
	}
}

// unionWords is a followed by what of b it lacks.
func unionWords(a, b []word) []word {
	if len(b) == 0 {
		return a
	}
	out := slices.Clip(a)
	for _, v := range b {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// State at the branches of a line. Where the line may take one path or another (if,
// case, && and ||, a loop that runs its body any number of times), each path is
// analysed from the state it starts with, in order, and the state after is every path's
// together: x=rm; [[ a == b ]] && x=ls; $x runs rm, and is judged as rm or ls.

// snapshot is a copy of the state now.
func (z *analyzer) snapshot() *scope { return z.enterScope(false) }

// setState makes s the state now; s itself stays as it was, to be set again. A nil s
// (no path reaches here) changes nothing.
func (z *analyzer) setState(s *scope) {
	if s != nil {
		z.leaveScope(s.clone(false))
	}
}

// clone is a copy of s that can be changed without changing s.
func (s *scope) clone(maybe bool) *scope {
	return &scope{vars: maps.Clone(s.vars), attrs: maps.Clone(s.attrs), readonly: maps.Clone(s.readonly), namerefs: maps.Clone(s.namerefs),
		cwd: s.cwd, cwdLost: s.cwdLost, exported: slices.Clip(s.exported), aliases: maps.Clone(s.aliases),
		aliasSpace: maps.Clone(s.aliasSpace), funcs: maps.Clone(s.funcs), maybe: maybe}
}

// join is a state that may be either a or b; nil is no state.
func (z *analyzer) join(a, b *scope) *scope {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	z.setState(a)
	z.leaveScope(b.clone(true))
	return z.snapshot()
}

// andOr analyses X && Y or X || Y: Y starts from the state X succeeded or failed in,
// and the list ends either way. It returns the states of its success and its failure.
func (z *analyzer) andOr(n *syntax.BinaryCmd, f frame) (succ, fail *scope) {
	xs, xf := z.branch(n.X, f)
	if n.Op == syntax.AndStmt {
		z.setState(xs)
		ys, yf := z.branch(n.Y, f)
		return ys, z.join(xf, yf)
	}
	z.setState(xf)
	ys, yf := z.branch(n.Y, f)
	return z.join(xs, ys), yf
}

// branch analyses one statement of an && or || list. A cd that may fail succeeded in
// its success state and left the folder as it was in its failure state; exit and
// return end the line's path (nil: no state).
func (z *analyzer) branch(s *syntax.Stmt, f frame) (succ, fail *scope) {
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) &&
		!s.Background && !s.Coprocess && len(s.Redirs) == 0 {
		succ, fail = z.andOr(b, f)
		if s.Negated {
			succ, fail = fail, succ
		}
		return succ, fail
	}
	leaf := z.branchLeaf
	z.branchLeaf = s
	z.walk(s, f)
	z.branchLeaf = leaf
	succ = z.snapshot()
	fail = succ
	if p := z.cdPending; p != nil {
		z.cdPending = nil
		fail = succ.clone(false)
		fail.cwd, fail.cwdLost = p.dir, p.lost
	}
	if ends(s) {
		return nil, nil
	}
	if s.Negated {
		succ, fail = fail, succ
	}
	return succ, fail
}

// ends reports a statement after which the line's path does not go on: exit, return.
func ends(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || s.Background {
		return false
	}
	switch c.Args[0].Lit() {
	case "exit", "return":
		return true
	}
	return false
}

// cdFrom is where the shell stays when a cd fails.
type cdFrom struct {
	dir  string
	lost bool
}

// isDir reports a folder that exists now.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// skipping notes a DEBUG trap under extdebug, which may skip any command after: from
// then on every assignment and cd may not have happened.
func (z *analyzer) skipping() {
	if z.extdebug && z.debugTrap && !z.skipsCounted {
		z.skipsCounted = true
		z.weakDepth++
	}
}

// ifClause analyses if, elif and else: the conditions in turn, each branch from the
// state its condition left.
func (z *analyzer) ifClause(n *syntax.IfClause, f frame) {
	for _, s := range n.Cond {
		z.walk(s, f)
	}
	none := z.snapshot()
	for _, s := range n.Then {
		z.walk(s, f)
	}
	then := z.snapshot()
	z.setState(none)
	if n.Else != nil {
		z.ifClause(n.Else, f)
	}
	z.setState(z.join(then, z.snapshot()))
}

// caseClause analyses each item from the state before the case (or, after ;& and ;;&,
// also from the item before), and ends in any of them or in none.
func (z *analyzer) caseClause(n *syntax.CaseClause, f frame) {
	z.walk(n.Word, f)
	none := z.snapshot()
	end, from := none, none
	for _, it := range n.Items {
		z.setState(from)
		for _, p := range it.Patterns {
			z.walk(p, f)
		}
		for _, s := range it.Stmts {
			z.walk(s, f)
		}
		after := z.snapshot()
		end = z.join(end, after)
		from = none
		if it.Op == syntax.Fallthrough || it.Op == syntax.Resume {
			from = z.join(none, after)
		}
	}
	z.setState(end)
}

// loop analyses a loop whose head (its condition, or the for's assignment) has just
// run: the body, then post and the head again, round after round, each from every state
// the loop can be in by then, until a round changes nothing (x=ls; y=cat; for ...; do $x
// f; x=$y; y=rm; done runs rm in its third round). A loop that has not settled after
// maxRounds rounds, or once the line's rounds run out, has what it changed made
// unknown. The loop ends after a head; a for over a list that may be empty ends before
// any.
func (z *analyzer) loop(head func(), body []*syntax.Stmt, post func(), f frame, headAssigns bool) {
	var before *scope
	if headAssigns {
		before = z.snapshot() // for x in $EMPTY: no round, x untouched
		head()
	}
	state := z.snapshot()
	end := state
	if before != nil {
		end = z.join(before, state)
	}
	round := func(from *scope) *scope {
		z.setState(from)
		for _, s := range body {
			z.walk(s, f)
		}
		if post != nil {
			post()
		}
		head()
		return z.snapshot()
	}
	for n := 0; ; n++ {
		z.rounds++
		after := round(state)
		end = z.join(end, after)
		next := z.join(state, after)
		if sameState(next, state) {
			break
		}
		if n+1 < maxRounds && z.rounds < maxLineRounds {
			state = next
			continue
		}
		// Not settled: what still changes may hold anything.
		widened := next.clone(false)
		for name, vals := range next.vars {
			if prev, ok := state.vars[name]; !ok || !containsAll(prev, vals) {
				widened.vars[name] = unionWords(vals, []word{{}})
			}
		}
		if z.rounds < maxLineRounds {
			z.rounds++
			end = z.join(end, round(widened))
		} else {
			z.uncertain("loops too many or too deeply nested to follow every round")
		}
		end = z.join(end, widened)
		if widened.cwd != state.cwd || widened.cwdLost != state.cwdLost {
			end.cwd, end.cwdLost = "", true
		}
		break
	}
	z.setState(end)
}

// Rounds of a loop's analysis: for one loop, and for the whole line.
const (
	maxRounds     = 4
	maxLineRounds = 64
)

// sameState reports two states with the same variables' values and folder.
func sameState(a, b *scope) bool {
	if a.cwd != b.cwd || a.cwdLost != b.cwdLost || len(a.vars) != len(b.vars) {
		return false
	}
	for name, av := range a.vars {
		bv, ok := b.vars[name]
		if !ok || !containsAll(av, bv) || !containsAll(bv, av) {
			return false
		}
	}
	return true
}

// containsAll reports whether every value of b is one of a's.
func containsAll(a, b []word) bool {
	for _, v := range b {
		if !slices.Contains(a, v) {
			return false
		}
	}
	return true
}

// arithmetic checks and records an arithmetic expression or command (see arith).
func (z *analyzer) arithmetic(n syntax.Node) {
	if n == nil {
		return
	}
	z.arith(n)
	z.arithAssigns(n)
}

// setPositional is set -- ARGS: the positional parameters, as an assignment.
func (z *analyzer) setPositional(args []word) {
	// A list of fields: set as it is (paths that may not run are joined where they
	// meet, to unknown where they differ).
	for i := len(args) + 1; i <= 9; i++ {
		delete(z.vars, strconv.Itoa(i))
	}
	z.positional(args)
}

// specialBuiltins keep the assignments written before them (x=1 :) in POSIX mode, as
// functions do: what such an assignment sets may outlast the command.
var specialBuiltins = map[string]bool{":": true, ".": true, "break": true, "continue": true, "eval": true, "exec": true,
	"exit": true, "export": true, "readonly": true, "return": true, "set": true, "shift": true, "times": true,
	"trap": true, "unset": true, "source": true}

// maxValueLen bounds a value the analysis follows: longer ones are unknown (x=$x$x, a
// branch at a time, doubled it past 20 GB).
const maxValueLen = 64 << 10

// refTarget is the variable name stands for: itself, or what a reference (declare -n)
// names.
func (z *analyzer) refTarget(name string) string {
	for range 8 {
		t, ok := z.namerefs[name]
		if !ok || t == "" || t == "?" {
			return name
		}
		name = t
	}
	return name
}

// declareRefs records declare -n R=X: R stands for X from now on, and X, a name that
// may carry a subscript, is evaluated where R is used (declare -n r='a[$(cmd)]'; r=1
// runs cmd).
func (z *analyzer) declareRefs(args []*syntax.Assign) {
	if z.namerefs == nil {
		z.namerefs = map[string]string{}
	}
	for _, as := range args {
		if as.Name == nil {
			if as.Value != nil {
				// declare -n "$x"=y: a reference whose name is computed.
				for _, v := range z.cands(as.Value, false) {
					z.evaluated([]word{v}, "declare -n names")
				}
			}
			continue
		}
		name := as.Name.Value
		if as.Value == nil {
			z.namerefs[name] = "" // set by its first assignment
			continue
		}
		z.namerefs[name] = z.refTo(z.cands(as.Value, false))
	}
}

// refTo is the target a reference takes from the values of its assignment, each
// checked as a name bash will evaluate; "?" when it cannot be known.
func (z *analyzer) refTo(vals []word) string {
	target := "?"
	for _, v := range vals {
		if !v.known {
			z.unknown("declare -n makes a reference to a name computed at run time, whose subscript could run any command where the reference is used")
			continue
		}
		z.subscriptArg(v)
		if len(vals) == 1 && isEnvName(v.s) {
			target = v.s
		}
	}
	if z.weak || z.weakDepth > 0 {
		return "?" // a reference that may not have been made
	}
	return target
}

// evaluators checks the expansions that run code a value holds: ${x@P} (prompt
// expansion, which decodes \044 into $ and then runs $(...)), ${!x} (x names a
// variable, whose subscript is evaluated), ${x@E} feeding them.
func (z *analyzer) evaluators(p *syntax.ParamExp) {
	if p.Param == nil {
		return
	}
	name := p.Param.Value
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P") {
		vals, ok := z.value(name)
		if !ok {
			vals = []word{{}}
		}
		z.evaluated(vals, "${"+name+"@P} expands as a prompt")
	}
	if p.Excl && p.Names == 0 && !indexAll(p.Index) {
		// ${!x}: the variable x names, subscript and all.
		vals, ok := z.value(name)
		if !ok {
			vals = []word{{}}
		}
		for _, v := range vals {
			if !v.known {
				z.unknown("${!" + name + "} reads the variable a value computed at run time names, whose subscript could run any command")
				continue
			}
			z.subscriptArg(v)
		}
	}
}

// indexAll reports ${!a[@]} and ${!a[*]}: the array's keys, no indirection.
func indexAll(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

// evaluated checks values bash evaluates as code: one that cannot be known could run
// any command (fail closed); a known one has the command substitutions it spells,
// directly or through backslash escapes, analysed as commands.
func (z *analyzer) evaluated(vals []word, what string) {
	for _, v := range vals {
		if !v.known {
			z.unknown(what + " a value computed at run time, which could run any command")
			continue
		}
		z.latent(v.s)
		if d := decodeEscapes(v.s); d != v.s {
			z.latent(d)
		}
	}
}

// decodeEscapes decodes what prompt expansion and echo -e decode: \NNN octal, \xHH,
// \\; other text stays.
func decodeEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; {
		case c == '\\':
			b.WriteByte('\\')
			i++
		case c == 'x' && i+2 < len(s) && isHex(s[i+2]):
			j := i + 2
			v := 0
			for ; j < len(s) && j < i+4 && isHex(s[j]); j++ {
				v = v*16 + hexVal(s[j])
			}
			b.WriteByte(byte(v))
			i = j - 1
		case c >= '0' && c <= '7':
			j := i + 1
			v := 0
			for ; j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7'; j++ {
				v = v*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// shift moves the positional parameters: shift N drops the first N of what set -- or
// a function's call gave, as far as that is known.
func (z *analyzer) shift(args []word) {
	n := 1
	if len(args) > 0 {
		v, err := strconv.Atoi(args[0].s)
		if !args[0].known || err != nil || v < 0 {
			z.positionalUnknown()
			return
		}
		n = v
	}
	list, ok := z.vars["@"]
	if !ok || slices.ContainsFunc(list, func(w word) bool { return !w.known }) {
		z.positionalUnknown()
		return
	}
	if n > len(list) {
		return // shift fails: nothing moves
	}
	z.positional(list[n:])
	for i := len(list) - n + 1; i <= 9; i++ {
		delete(z.vars, strconv.Itoa(i))
	}
}

// positionalUnknown makes the positional parameters unknown.
func (z *analyzer) positionalUnknown() {
	for _, n := range positionalNames {
		z.vars[n] = []word{{}}
	}
}

var positionalNames = []string{"@", "*", "#", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

// shopt follows the options that change what a line's words match.
func (z *analyzer) shopt(args []word) {
	set := false
	for _, a := range args {
		switch {
		case !a.known:
			// An option the line computes: it may be any of these.
			z.a.NoCaseGlob, z.cdableVars, z.extdebug = true, true, true
		case a.s == "-s":
			set = true
		case a.s == "-u":
			set = false
		case strings.Contains(a.s, "nocaseglob") && set:
			z.a.NoCaseGlob = true
		case strings.Contains(a.s, "cdable_vars") && set:
			z.cdableVars = true
		case strings.Contains(a.s, "extdebug") && set:
			z.extdebug = true
		}
	}
	z.skipping()
}

// NoCase turns a glob pattern into one that matches names in any case, as bash's
// nocaseglob does: each letter becomes a bracket of both cases.
func NoCase(p string) string {
	var b strings.Builder
	inBracket := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			i++
			b.WriteByte(p[i])
		case c == '[' && !inBracket:
			inBracket = true
			b.WriteByte(c)
		case c == ']' && inBracket:
			inBracket = false
			b.WriteByte(c)
		case unicode.IsLetter(rune(c)) && c < utf8.RuneSelf:
			lo, up := strings.ToLower(string(c)), strings.ToUpper(string(c))
			if inBracket {
				b.WriteString(lo + up)
			} else {
				b.WriteString("[" + lo + up + "]")
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// feedFd records a here-document or here-string for descriptor fd: the statement's
// standard input for fd 0, else what <&fd reads in it; a lone exec keeps it for the
// rest of the line (exec 3<<< 'cmd'; bash <&3).
func (z *analyzer) feedFd(st *syntax.Stmt, fd string, w *word, stdin **word) {
	if fd == "0" {
		*stdin = w
	}
	if c, ok := st.Cmd.(*syntax.CallExpr); ok && len(c.Args) == 1 && c.Args[0].Lit() == "exec" {
		if z.fds == nil {
			z.fds = map[string]*word{}
		}
		z.fds[fd] = w
	}
}

// edBang matches an ed command that runs a shell command: w !CMD, r !CMD, e !CMD.
var edBang = lazyRegexp(`^\s*[0-9,.$'a-z+-]*?([wW]q?|[rReE])\s*!(.*)$`)

// edWrite matches an ed command that writes a file: w, W, wq FILE (with an address).
var edWrite = lazyRegexp(`^\s*[0-9,.$'a-z+-]*[wW]q?\s+(\S.*?)\s*$`)

// programsThatRun covers the fourth red team's programs that run code or write files
// where the line shows no command or file: ed's ! and w (its commands come on
// standard input), fc (re-runs the history the line may have filled), git
// --exec-path=DIR (runs its subcommands from DIR), enable -f (loads a library into
// bash). Writes are added to the command's redirections, to be decided as writes.
func (z *analyzer) programsThatRun(argv []word, proto *SimpleCommand, stdin *word) {
	if !argv[0].known {
		return
	}
	if shells[base(argv[0].s)] && slices.ContainsFunc(argv[1:], func(a word) bool {
		return a.known && strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "--") && strings.Contains(a.s, "i")
	}) {
		// An interactive shell saves its history in $HISTFILE when it ends.
		z.writesVar(proto, "HISTFILE", "an interactive shell writes $HISTFILE")
	}
	switch name := base(argv[0].s); name {
	case "ed", "red":
		switch {
		case stdin == nil:
		case !stdin.known:
			z.unknown(name + " runs the commands it reads, here from a source that cannot be known")
		default:
			for _, l := range strings.Split(stdin.s, "\n") {
				if t := strings.TrimSpace(l); strings.HasPrefix(t, "!") {
					z.script(word{s: t[1:], known: true}, name+" !", *proto)
				} else if m := edBang().FindStringSubmatch(l); m != nil {
					// w !CMD feeds the buffer to CMD, which the line builds as it likes;
					// r !CMD and e !CMD run CMD (red team: w !rm ... ran rm).
					z.script(word{s: m[2], known: true}, name+" "+m[1]+" !", *proto)
					if strings.EqualFold(m[1], "w") || strings.EqualFold(m[1], "wq") {
						z.unknown(name + "'s w !CMD feeds the edited text to CMD, which cannot be known here")
					}
				} else if m := edWrite().FindStringSubmatch(l); m != nil {
					proto.Redirects = append(slices.Clip(proto.Redirects), Redirect{Op: ">", Target: m[1]})
				}
			}
		}
	case "set":
		// set -o history: bash saves the history, which the line fills, in $HISTFILE
		// when it ends (a twelfth red team: HISTFILE=~/.bashrc; set -o history).
		for i, a := range argv[1:] {
			if a.s == "-o" && i+2 < len(argv) && argv[i+2].s == "history" || !a.known {
				z.writesVar(proto, "HISTFILE", "set -o history makes bash write $HISTFILE when it ends")
				break
			}
		}
	case "fc":
		if !slices.ContainsFunc(argv[1:], func(a word) bool { return a.known && strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "l") }) {
			z.unknown("fc runs commands again from the history, which the line can fill with anything")
		}
	case "git":
		for _, a := range argv[1:] {
			if !a.known || strings.HasPrefix(a.s, "--exec-path=") {
				if a.known {
					z.unknown("git --exec-path= runs its subcommands from another folder, whose programs cannot be known")
				}
				break
			}
			if !strings.HasPrefix(a.s, "-") {
				break
			}
		}
	case "history":
		// history -w or -a without a file writes $HISTFILE (red team: HISTFILE=.git/config).
		for i, a := range argv[1:] {
			if (a.s == "-w" || a.s == "-a") && (i+2 >= len(argv) || strings.HasPrefix(argv[i+2].s, "-")) {
				z.writesVar(proto, "HISTFILE", "history -"+a.s[1:]+" writes $HISTFILE")
			}
		}
	case "mktemp":
		// mktemp makes its file in $TMPDIR unless told where.
		if !slices.ContainsFunc(argv[1:], func(a word) bool {
			return a.s == "-p" || strings.HasPrefix(a.s, "--tmpdir") || strings.Contains(a.s, "/")
		}) {
			z.writesVar(proto, "TMPDIR", "")
		}
	case "enable":
		if slices.ContainsFunc(argv[1:], func(a word) bool { return !a.known || strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "f") }) {
			z.unknown("enable -f loads a shared library into bash, whose code cannot be known")
		}
	}
}

// inputOf is what a command reads through < WORD, where that decides what a shell
// runs: the text a process substitution prints (when known), the text of a file the line
// wrote, unknown for a descriptor's path; nil for another file (a script run by name).
func (z *analyzer) inputOf(w *syntax.Word) *word {
	if w == nil {
		return nil
	}
	if len(w.Parts) == 1 {
		if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok {
			vals := z.cmdsubst(&syntax.CmdSubst{Stmts: ps.Stmts})
			if len(vals) == 1 && vals[0].known {
				return &word{s: vals[0].s + "\n", known: true}
			}
			return &word{}
		}
	}
	v := z.word(w, false)
	if !v.known {
		return &word{}
	}
	if text, ok := z.written[z.writtenKey(v.s)]; ok {
		return &text
	}
	if strings.HasPrefix(v.s, "/dev/fd/") || strings.HasPrefix(v.s, "/proc/") || v.s == "/dev/stdin" {
		return &word{}
	}
	return nil
}

// writesVar adds the file a variable names (HISTFILE, TMPDIR: the command's own
// variables first) to what the command writes; one that cannot be known is refused
// when why says what writes it.
func (z *analyzer) writesVar(proto *SimpleCommand, name, why string) {
	var vals []word
	for _, e := range proto.Env {
		if n, v, ok := strings.Cut(e, "="); n == name {
			vals = []word{{s: v, known: ok}}
		}
	}
	if vals == nil {
		var ok bool
		if vals, ok = z.value(name); !ok {
			vals = []word{{}}
		}
	}
	for _, v := range vals {
		switch {
		case !v.known && why != "":
			z.unknown(why + ", which cannot be known here")
		case !v.known || v.s == "":
		case name == "TMPDIR":
			proto.Redirects = append(slices.Clip(proto.Redirects), Redirect{Op: ">", Target: strings.TrimRight(v.s, "/") + "/tmp.XXXXXXXXXX"})
		default:
			proto.Redirects = append(slices.Clip(proto.Redirects), Redirect{Op: ">>", Target: v.s})
		}
	}
}

// lateRun is a script a command ran by name before the line wrote it.
type lateRun struct {
	runner, file string
	proto        SimpleCommand
}

// late analyses, at the end of the line, what runs later than it reads: trap bodies
// (an EXIT trap runs after the last command, with the values set after the trap: trap
// '$x f' EXIT; x=rm runs rm), with every value each variable took after the trap was
// set, and scripts run by name that the line writes only after the command that runs
// them, which a background job can wait for.
func (z *analyzer) late() {
	z.lateCheck = true
	for _, r := range z.lateRuns {
		z.runFile(r.runner, r.file, r.proto)
	}
	if len(z.traps) == 0 {
		return
	}
	for name, vals := range z.trapHistory {
		cur, ok := z.value(name)
		if !ok {
			cur = []word{{}}
		}
		z.vars[name] = unionWords(cur, vals)
	}
	if z.trapCwd {
		z.loseCwd()
	}
	for _, body := range z.traps {
		z.script(body, "trap", SimpleCommand{})
	}
}
