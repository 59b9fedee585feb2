package shell

import (
	"regexp"
	"slices"
	"strings"
)

// Tools with a language of their own that can run shell commands: sed's e command,
// vim's :!cmd, sqlite3's .shell, m4's syscmd, make's recipes. What their literal
// programs show on the line is analysed as the commands it runs; a program computed
// at run time is left alone (sed "s/$A/$B/" is everyday work), except where the tool
// is told to run text it reads (sed's s///e), which cannot be known.

// embedded analyses the commands name's own program runs; true when name is one of
// these tools.
func (z *analyzer) embedded(name string, args []word, proto SimpleCommand, stdin *word) bool {
	switch name {
	case "sed", "gsed":
		scripts, sandbox := sedScripts(args, stdin)
		if sandbox {
			return true // --sandbox refuses e, r and w
		}
		for _, s := range scripts {
			if !s.known {
				continue
			}
			cmds, patternSpace := sedRuns(s.s)
			for _, c := range cmds {
				z.script(word{s: c, known: true}, "sed e", proto)
			}
			if patternSpace {
				z.unknown("sed's e runs the text it reads as a command, which cannot be known before it runs")
			}
		}
		return true
	case "vi", "vim", "nvim", "ex", "view", "vim.basic", "vim.tiny", "gvim", "evim", "rvim":
		for _, c := range exCommands(name, args, stdin) {
			z.exCommand(name, c, proto)
		}
		return true
	case "sqlite3", "sqlite":
		texts := slices.Clone(args) // -cmd's value and the SQL operands alike
		if stdin != nil {
			texts = append(texts, *stdin)
		}
		for _, t := range texts {
			for _, m := range sqliteShell.FindAllStringSubmatch(t.s, -1) {
				z.script(word{s: strings.Trim(m[1]+m[2], `'"`), known: t.known}, name+" ."+"shell", proto)
			}
		}
		return true
	case "m4", "gm4":
		if stdin == nil || !stdin.known || !m4ReadsStdin(args) {
			return true
		}
		for _, m := range m4Syscmd.FindAllStringSubmatch(stdin.s, -1) {
			z.script(word{s: strings.NewReplacer("`", "", "'", "").Replace(m[1]), known: true}, "m4 syscmd", proto)
		}
		return true
	case "make", "gmake", "remake":
		for _, text := range makePrograms(args, stdin) {
			for _, r := range makeRecipes(text) {
				z.script(word{s: r, known: true}, "make", proto)
			}
		}
		return true
	}
	return false
}

// sedScripts are sed's scripts: each -e and --expression, a script read from standard
// input (-f -), else the first operand. sandbox reports --sandbox.
func sedScripts(args []word, stdin *word) (scripts []word, sandbox bool) {
	explicit := false
	fromFile := func(f word) {
		explicit = true
		if slices.Contains(stdinFiles, f.s) && stdin != nil {
			scripts = append(scripts, *stdin)
		}
	}
	var operands []word
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a.s == "--sandbox":
			sandbox = true
		case a.s == "--":
			operands = append(operands, args[k+1:]...)
			k = len(args)
		case strings.HasPrefix(a.s, "--expression="):
			scripts, explicit = append(scripts, word{s: a.s[len("--expression="):], known: a.known}), true
		case strings.HasPrefix(a.s, "--file="):
			fromFile(word{s: a.s[len("--file="):], known: a.known})
		case (a.s == "--expression" || a.s == "--file" || a.s == "--line-length") && k+1 < len(args):
			k++
			if a.s == "--expression" {
				scripts, explicit = append(scripts, args[k]), true
			} else if a.s == "--file" {
				fromFile(args[k])
			}
		case strings.HasPrefix(a.s, "--"):
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
			// A cluster of short options: -ne SCRIPT, -nf FILE, -i.bak, -l 80.
			for j := 1; j < len(a.s); j++ {
				c := a.s[j]
				if c == 'i' {
					break // -i[SUFFIX]
				}
				if c != 'e' && c != 'f' && c != 'l' {
					continue
				}
				val := word{s: a.s[j+1:], known: a.known}
				if val.s == "" && k+1 < len(args) {
					k++
					val = args[k]
				}
				switch c {
				case 'e':
					scripts, explicit = append(scripts, val), true
				case 'f':
					fromFile(val)
				}
				break
			}
		default:
			operands = append(operands, a)
		}
	}
	if !explicit && len(operands) > 0 {
		scripts = append(scripts, operands[0])
	}
	return scripts, sandbox
}

// sedRuns finds the commands a sed script runs: e COMMAND runs COMMAND; e alone and
// the s command's e flag run the pattern space (the input's text) as a command.
func sedRuns(s string) (cmds []string, patternSpace bool) {
	toEOL := func(i int) int {
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			return i + j
		}
		return len(s)
	}
	for i := 0; i < len(s); {
		for i < len(s) && strings.IndexByte(" \t\n;{}", s[i]) >= 0 {
			i++
		}
		if i >= len(s) {
			break
		}
		i = skipSedAddress(s, i)
		if i >= len(s) {
			break
		}
		if s[i] == '{' {
			i++ // a block: its commands follow
			continue
		}
		c := s[i]
		i++
		switch c {
		case 's', 'y':
			if i >= len(s) {
				return cmds, patternSpace
			}
			d := s[i]
			i = skipDelimited(s, i+1, d)
			i = skipDelimited(s, i, d)
			for c == 's' && i < len(s) && isAlnum(s[i]) {
				if s[i] == 'w' {
					i = toEOL(i) // s///w FILE: the file name runs to the end of the line
					break
				}
				if s[i] == 'e' {
					patternSpace = true
				}
				i++
			}
		case 'e':
			end := toEOL(i)
			if cmd := strings.TrimSpace(s[i:end]); cmd != "" {
				cmds = append(cmds, cmd)
			} else {
				patternSpace = true
			}
			i = end
		case 'a', 'i', 'c':
			// Text to the end of the line, continued by a trailing backslash.
			for {
				end := toEOL(i)
				i = end
				if end == len(s) || end == 0 || s[end-1] != '\\' {
					break
				}
				i++
			}
		case 'r', 'R', 'w', 'W', ':', '#':
			i = toEOL(i)
		default:
			for i < len(s) && strings.IndexByte(";\n}", s[i]) < 0 {
				i++
			}
		}
	}
	return cmds, patternSpace
}

// skipSedAddress skips a command's address (3, $, /re/I, \%re%, 1~2, addr,+3) and
// its negation.
func skipSedAddress(s string, i int) int {
	for part := 0; part < 2 && i < len(s); part++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9' || part == 1 && (c == '+' || c == '~'):
			i++
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case c == '$':
			i++
		case c == '/' || c == '\\' && i+1 < len(s):
			d := byte('/')
			if c == '\\' {
				d = s[i+1]
				i++
			}
			i = skipDelimited(s, i+1, d)
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if part == 1 || i >= len(s) || s[i] != ',' {
			break
		}
		i++
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '!') {
		i++
	}
	return i
}

// skipDelimited returns the index after the next unescaped d from i.
func skipDelimited(s string, i int, d byte) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case d:
			return i + 1
		}
		i++
	}
	return len(s)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// exCommands are the ex commands vim is given: -c CMD, --cmd CMD, +CMD, and in ex
// mode (ex, vim -e, vim -es) the lines of a standard input the line shows.
func exCommands(name string, args []word, stdin *word) []word {
	var out []word
	exMode := name == "ex"
	for k, a := range args {
		switch {
		case (a.s == "-c" || a.s == "--cmd") && k+1 < len(args):
			out = append(out, args[k+1])
		case strings.HasPrefix(a.s, "-c") && len(a.s) > 2:
			out = append(out, word{s: a.s[2:], known: a.known})
		case strings.HasPrefix(a.s, "+") && len(a.s) > 1 && strings.Trim(a.s[1:], "0123456789") != "" && a.s[1] != '/':
			out = append(out, word{s: a.s[1:], known: a.known})
		case a.s == "-e" || a.s == "-es" || a.s == "-Es" || a.s == "-E":
			exMode = true
		}
	}
	if exMode && stdin != nil && stdin.known {
		for _, l := range strings.Split(stdin.s, "\n") {
			out = append(out, word{s: l, known: true})
		}
	}
	return out
}

// exCommand analyses one vim ex command: :!CMD, :r !CMD, :w !CMD, :{range}!FILTER and
// :terminal CMD run CMD; system('CMD') runs CMD; :py3, :perl, :ruby and :lua run
// their code; :w FILE, :saveas FILE and :w >> FILE write FILE.
func (z *analyzer) exCommand(name string, w word, proto SimpleCommand) {
	if !w.known {
		return
	}
	for _, m := range shellCall.FindAllStringSubmatch(w.s, -1) {
		z.script(word{s: strings.Join(m[1:], ""), known: true}, name+" system()", proto)
	}
	c := strings.TrimLeft(w.s, ": \t")
	for {
		// Modifiers that precede a command: silent!, sil, keepalt, noautocmd.
		m := exModifier.FindString(c)
		if m == "" {
			break
		}
		c = strings.TrimLeft(c[len(m):], ": \t")
	}
	c = strings.TrimLeft(c, "%.$,0123456789'<>+- \t") // a range
	if strings.HasPrefix(c, "!") {
		z.script(word{s: c[1:], known: true}, name+" :!", proto)
		return
	}
	cmd := c
	for cmd != "" && isAlnum(cmd[0]) {
		cmd = cmd[1:]
	}
	verb, rest := c[:len(c)-len(cmd)], cmd
	bang := strings.HasPrefix(rest, "!")
	switch {
	case exAbbrev(verb, "r", "read") || exAbbrev(verb, "w", "write") || exAbbrev(verb, "wq", "wq") || exAbbrev(verb, "x", "xit") || exAbbrev(verb, "sav", "saveas") || exAbbrev(verb, "up", "update"):
		if strings.HasPrefix(strings.TrimLeft(rest, " \t"), "!") && !bang {
			z.script(word{s: strings.TrimLeft(rest, " \t")[1:], known: true}, name+" :"+verb+" !", proto)
			return
		}
		target := strings.TrimSpace(strings.TrimPrefix(rest, "!"))
		target = strings.TrimSpace(strings.TrimPrefix(target, ">>"))
		if target != "" && !exAbbrev(verb, "r", "read") {
			z.writesTo(name, target, proto)
		}
	case exAbbrev(verb, "ter", "terminal"):
		z.script(word{s: strings.TrimSpace(rest), known: true}, name+" :terminal", proto)
	case exAbbrev(verb, "py", "python") || exAbbrev(verb, "py3", "python3") || exAbbrev(verb, "pyx", "pythonx") || verb == "perl" || exAbbrev(verb, "rub", "ruby") || verb == "lua":
		lang := map[string]string{"perl": "perl", "lua": "lua"}[verb]
		if strings.HasPrefix(verb, "r") {
			lang = "ruby"
		} else if lang == "" {
			lang = "python3"
		}
		z.oneLiner(lang, []word{{s: "-c", known: true}, {s: strings.TrimSpace(rest), known: true}}, proto, nil)
	}
}

var exModifier = regexp.MustCompile(`^(?:sil(?:e(?:n(?:t)?)?)?!?|keepa(?:lt)?|noa(?:utocmd)?|keepj(?:umps)?|lockm(?:arks)?|exe(?:cute)?)\b`)

// exAbbrev reports verb as one of the spellings of an ex command: its shortest form
// or any longer prefix of its full name.
func exAbbrev(verb, short, full string) bool {
	return len(verb) >= len(short) && strings.HasPrefix(full, verb)
}

// writesTo records that a tool writes target, for the watchdog to judge as it judges
// a redirection.
func (z *analyzer) writesTo(name, target string, proto SimpleCommand) {
	sc := proto
	sc.Context = "wrapper:" + name
	sc.Argv = []string{name}
	sc.Redirects = append(slices.Clip(sc.Redirects), Redirect{Op: ">>", Target: target})
	z.add(sc)
}

// sqliteShell finds sqlite3's dot commands that run a shell command: .shell CMD,
// .system CMD, and the '|CMD' form of .output, .once, .read and .import.
var sqliteShell = regexp.MustCompile(`(?m)^\s*\.(?:shell|system)\s+(.*)$|(?m)^\s*\.(?:output|once|read|import|excel)\s+['"]?\|([^'"\n]*)`)

// m4Syscmd finds m4's syscmd(CMD) and esyscmd(CMD).
var m4Syscmd = regexp.MustCompile(`e?syscmd\(([^)]*)\)`)

// m4ReadsStdin reports m4 reading its input from standard input: no file operands,
// or - among them.
func m4ReadsStdin(args []word) bool {
	files := false
	for _, a := range args {
		if a.s == "-" || slices.Contains(stdinFiles, a.s) {
			return true
		}
		if !strings.HasPrefix(a.s, "-") {
			files = true
		}
	}
	return !files
}

// makePrograms are the makefile texts a make line shows: --eval TEXT and a makefile
// read from standard input (-f -).
func makePrograms(args []word, stdin *word) []string {
	var out []string
	for k, a := range args {
		val, ok := word{}, false
		switch {
		case (a.s == "--eval" || a.s == "-E") && k+1 < len(args):
			val, ok = args[k+1], true
		case strings.HasPrefix(a.s, "--eval="):
			val, ok = word{s: a.s[len("--eval="):], known: a.known}, true
		case (a.s == "-f" || a.s == "--file" || a.s == "--makefile") && k+1 < len(args) && slices.Contains(stdinFiles, args[k+1].s),
			a.s == "--file=-" || a.s == "--makefile=-" || a.s == "-f-":
			if stdin != nil {
				val, ok = *stdin, true
			}
		}
		if ok && val.known {
			out = append(out, val.s)
		}
	}
	return out
}

// makeRecipes are the shell commands a makefile's text runs: its recipe lines (after a
// tab, or after the ; of a rule line) and its $(shell ...) calls.
func makeRecipes(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "$(shell ")
		if j < 0 {
			break
		}
		start := i + j + len("$(shell ")
		depth, end := 1, start
		for end < len(text) && depth > 0 {
			switch text[end] {
			case '(':
				depth++
			case ')':
				depth--
			}
			end++
		}
		out = append(out, text[start:max(start, end-1)])
		i = end
	}
	for _, line := range strings.Split(text, "\n") {
		recipe, ok := strings.CutPrefix(line, "\t")
		if !ok {
			colon := strings.IndexByte(line, ':')
			if colon < 0 || strings.HasPrefix(line[colon:], ":=") || strings.HasPrefix(line[colon:], "::=") {
				continue
			}
			if _, after, found := strings.Cut(line[colon:], ";"); found {
				recipe, ok = after, true
			}
		}
		if ok {
			out = append(out, strings.TrimLeft(recipe, "@-+ \t"))
		}
	}
	for k := range out {
		out[k] = makeExpand(out[k])
	}
	return out
}

// makeExpand turns a recipe into the shell line make hands to the shell: $$ is $, and
// make's own references ($(CC), ${DIR}, $@) become $1, a value the analysis cannot
// know, so that rm -rf $(DIR) is judged as the worst DIR could be.
func makeExpand(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		if r[i] != '$' || i+1 >= len(r) {
			b.WriteByte(r[i])
			continue
		}
		i++
		switch r[i] {
		case '$':
			b.WriteByte('$')
		case '(', '{':
			open, closer, depth := r[i], map[byte]byte{'(': ')', '{': '}'}[r[i]], 1
			for i+1 < len(r) && depth > 0 {
				i++
				switch r[i] {
				case open:
					depth++
				case closer:
					depth--
				}
			}
			b.WriteString("$1")
		default:
			b.WriteString("$1")
		}
	}
	return b.String()
}
