package shell

// Subshells and arithmetic: the two places where what bash does differs most from
// reading the line top to bottom.
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

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// scope is the state a subshell starts from.
type scope struct {
	vars       map[string][]word
	attrs      map[string]varAttr
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
	return &scope{vars: maps.Clone(z.vars), attrs: maps.Clone(z.attrs), cwd: z.cwd, cwdLost: z.cwdLost,
		exported: slices.Clip(z.exported), aliases: maps.Clone(z.aliases), aliasSpace: maps.Clone(z.aliasSpace),
		funcs: maps.Clone(z.funcs), maybe: maybe}
}

// leaveScope ends a subshell: its changes are lost, or for a maybe-subshell kept
// beside what was there before.
func (z *analyzer) leaveScope(s *scope) {
	if !s.maybe {
		z.vars, z.attrs, z.cwd, z.cwdLost = s.vars, s.attrs, s.cwd, s.cwdLost
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
		before, ok := z.value(name)
		if !ok {
			before = []word{{}}
		}
		vals, ok := after[name]
		if !ok {
			vals = []word{{}} // unset: what the environment holds, unknown here
		}
		merged := slices.Clone(before)
		for _, v := range vals {
			if !slices.Contains(merged, v) {
				merged = append(merged, v)
			}
		}
		z.vars[name] = merged
	}
	for name, a := range z.attrs {
		if b := s.attrs[name]; b != a {
			// Either may hold: the stricter reading of both.
			if a.letterCase != b.letterCase {
				a.letterCase = attrUnknownCase
			}
			a.integer = a.integer || b.integer
			z.attrs[name] = a
		}
	}
	if z.cwd != s.cwd || z.cwdLost != s.cwdLost {
		z.loseCwd()
	}
	// Exports, aliases and functions the stage made stay: more is decided, not less.
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
				z.storesNumber(x.X)
			}
		case *syntax.BinaryArithm:
			switch x.Op {
			case syntax.Assgn:
				if w, ok := x.X.(*syntax.Word); ok {
					z.targetSubscript(w) // a[i]=...: i is read, a is not
				}
				eval(x.Y)
				z.storesNumber(x.X)
			case syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				eval(x.X)
				eval(x.Y)
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
// rm f, never echo rm f. False, having run nothing, when there are too many
// combinations to try one by one.
func (z *analyzer) eachValue(names []string, analyse func()) bool {
	combos := 1
	for _, n := range names {
		if combos *= len(z.vars[n]); combos > maxBraces {
			z.uncertain("a command takes too many values to analyse one by one")
			return false
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
