package shell

import (
	"slices"
	"strings"

	"github.com/google/shlex"
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
		z.sed(args, proto, stdin)
	case "vi", "vim", "nvim", "ex", "view", "vim.basic", "vim.tiny", "gvim", "evim", "rvim":
		z.vim(name, args, proto, stdin)
	case "sqlite3", "sqlite":
		z.sqlite(name, args, proto, stdin)
	case "m4", "gm4":
		z.m4(args, proto, stdin)
	case "make", "gmake", "remake":
		z.make(args, proto, stdin)
	case "gdb", "lldb":
		z.debugger(name, args, proto)
		return false // gdb --args CMD: runners finds CMD
	case "emacs", "emacsclient":
		for k, a := range args {
			code, ok := "", false
			switch {
			case (a.s == "--eval" || a.s == "-eval" || a.s == "-e") && k+1 < len(args):
				code, ok = args[k+1].s, args[k+1].known
			case strings.HasPrefix(a.s, "--eval="):
				code, ok = a.s[len("--eval="):], a.known
			}
			if ok {
				z.oneLiner("emacs", []word{{s: "-e", known: true}, {s: code, known: true}}, proto, nil)
				// Lisp that writes, copies, moves or deletes a file names it in a string
				// (the thirteenth red team: (write-file "~/.bashrc")); one computed
				// there cannot be known.
				for _, m := range elispWrite().FindAllStringSubmatch(code, -1) {
					if m[1] == "" && m[2] != "" {
						z.unknown("emacs writes a file whose name the program computes, which cannot be known before it runs")
						continue
					}
					for _, f := range elispString().FindAllStringSubmatch(m[0], -1) {
						z.writesTo("emacs", f[1], proto)
					}
				}
			}
		}
	default:
		return false
	}
	return true
}

// programFile is the text of a program a tool reads from a file it is given (sed -f F,
// make -f F, vim -S F): standard input's when F names it, the text the line wrote into
// F; a process substitution or a file written with text the line does not show is
// unknown, and marked so. A file on disk that the line did not write is not read.
func (z *analyzer) programFile(tool string, f word, stdin *word) (word, bool) {
	switch {
	case slices.Contains(stdinFiles, f.s):
		if stdin == nil {
			return word{}, false
		}
		if !stdin.known {
			z.unknown(tool + " reads its program from standard input, which cannot be known before it runs")
		}
		return *stdin, stdin.known
	case !f.known || strings.HasPrefix(f.s, "/dev/fd/"):
		z.unknown(tool + " reads its program from a process substitution or a computed name, which cannot be known before it runs")
		return word{}, false
	}
	if text, ok := z.writtenText(f.s); ok {
		if !text.known {
			z.unknown(tool + " reads its program from " + f.s + ", which the line wrote with text it does not show")
		}
		return text, text.known
	}
	return word{}, false
}

// sed analyses the commands sed's scripts run (e, s///e).
func (z *analyzer) sed(args []word, proto SimpleCommand, stdin *word) {
	scripts, files, sandbox := sedScripts(args)
	if sandbox {
		return // --sandbox refuses e, r and w
	}
	for _, f := range files {
		if text, ok := z.programFile("sed -f", f, stdin); ok {
			scripts = append(scripts, text)
		} else {
			// A script file on disk may write or run anything: no allow rule covers it.
			z.uncertain("sed -f reads its script from " + f.s + ", which the line does not show, and a script may write files (w) or run commands (e)")
		}
	}
	for _, s := range scripts {
		if !s.known {
			// A script computed at run time may write or run anything: no allow rule
			// covers it (the sixteenth red team: sed -n "$(cat f)").
			z.uncertain("sed's script is computed at run time, and a script may write files (w) or run commands (e)")
			continue
		}
		cmds, patternSpace, writes := sedProgram(s.s)
		for _, c := range cmds {
			z.script(word{s: c, known: true}, "sed e", proto)
		}
		for _, f := range writes {
			z.writesTo("sed", f, proto) // a script from -f too (echo 'w F' | sed -f -)
		}
		if patternSpace {
			z.unknown("sed's e runs the text it reads as a command, which cannot be known before it runs")
		}
	}
}

// vim analyses the ex commands vim is given: -c, --cmd, +cmd, -S and -s files, and
// standard input in ex mode.
func (z *analyzer) vim(name string, args []word, proto SimpleCommand, stdin *word) {
	cmds, exMode := exCommands(name, args, stdin)
	if exMode && stdin != nil && !stdin.known {
		z.unknown(name + " runs the ex commands it reads from a pipe, which cannot be known before it runs")
	}
	for k, a := range args {
		if (a.s == "-S" || a.s == "-s" || a.s == "-u") && k+1 < len(args) && args[k+1].s != "NONE" {
			if text, ok := z.programFile(name+" "+a.s, args[k+1], stdin); ok {
				for _, l := range strings.Split(text.s, "\n") {
					cmds = append(cmds, word{s: l, known: true})
				}
			}
		}
	}
	for _, c := range cmds {
		z.exCommand(name, c, proto, stdin, 0)
	}
}

// sqlite analyses sqlite3's dot commands that run shell commands, in its operands,
// -cmd values, -init file and standard input, and the editor edit() starts.
func (z *analyzer) sqlite(name string, args []word, proto SimpleCommand, stdin *word) {
	texts := slices.Clone(args) // -cmd's value and the SQL operands alike
	if stdin != nil {
		texts = append(texts, *stdin)
	}
	for k, a := range args {
		if a.s == "-init" && k+1 < len(args) {
			if text, ok := z.programFile(name+" -init", args[k+1], stdin); ok {
				texts = append(texts, text)
			}
		}
	}
	for _, t := range texts {
		for _, m := range sqliteShell().FindAllStringSubmatch(t.s, -1) {
			cmd := strings.ReplaceAll(strings.Join(m[1:], ""), "''", "'") // SQL's doubled quote
			z.script(word{s: strings.Trim(cmd, `'"`), known: t.known}, name+" .shell", proto)
		}
		if sqliteUnknown().MatchString(t.s) {
			z.unknown(name + " writes a file it computes or loads an extension (native code), which the line does not show")
		}
		// .output, .once, .log, .backup, .save FILE and VACUUM INTO, ATTACH 'FILE' write
		// FILE (a twelfth red team rewrote the user config with .output), .read and
		// .import read a file whose commands cannot be seen from here.
		for _, m := range sqliteWrite().FindAllStringSubmatch(t.s, -1) {
			if f := sqliteFile(strings.Trim(strings.Join(m[1:], ""), `'"`)); f != "" && !strings.HasPrefix(f, "|") && f != "stdout" && f != "stderr" && f != ":memory:" {
				z.writesTo(name, f, proto)
			}
		}
		if sqliteRead().MatchString(t.s) {
			z.unknown(name + " .read runs the commands of a file the line does not show")
		}
	}
	if slices.ContainsFunc(args, func(a word) bool {
		return a.s == "-A" || strings.HasPrefix(a.s, "-A") && len(a.s) > 2 || a.s == "--archive"
	}) {
		// sqlite3 -A: an archive's members, extracted where its -C says (the fifteenth
		// red team extracted .bashrc into home), named by the archive.
		z.unknown(name + " -A extracts or changes files an archive names, which the line does not show")
	}
	// The database file is written (created, or changed by the SQL).
	for k := 0; k < len(args); k++ {
		a := args[k].s
		switch {
		case a == "-init" || a == "-cmd" || a == "-separator" || a == "-newline" || a == "-nullvalue" || a == "-vfs" || a == "-maxsize" || a == "-mmap" || a == "-pagecache" || a == "-lookaside" || a == "-heap":
			k++
		case strings.HasPrefix(a, "-"):
		default:
			if f := sqliteFile(a); f != ":memory:" && f != "" {
				z.writesTo(name, f, proto)
			}
			k = len(args)
		}
	}
}

// m4 analyses m4's syscmd and esyscmd in its standard input, its -D definitions and
// the files the line wrote for it.
func (z *analyzer) m4(args []word, proto SimpleCommand, stdin *word) {
	var texts []word
	if stdin != nil && stdin.known && m4ReadsStdin(args) {
		texts = append(texts, *stdin)
	}
	for _, a := range args {
		switch {
		case strings.HasPrefix(a.s, "-D") || strings.HasPrefix(a.s, "--define"):
			texts = append(texts, a)
		case !strings.HasPrefix(a.s, "-"):
			if text, ok := z.programFile("m4", a, nil); ok {
				texts = append(texts, text)
			}
		}
	}
	for _, t := range texts {
		for _, m := range m4Syscmd().FindAllStringSubmatch(t.s, -1) {
			z.script(word{s: strings.NewReplacer("`", "", "'", "").Replace(m[1]), known: t.known}, "m4 syscmd", proto)
		}
	}
}

// make analyses the recipes of the makefile text the line shows (--eval, -f - fed a
// literal, a -f file the line wrote) and the shell make runs them with (SHELL=,
// .SHELLFLAGS=).
func (z *analyzer) make(args []word, proto SimpleCommand, stdin *word) {
	// MAKEFLAGS and GNUMAKEFLAGS, in the environment or as an argument, are options
	// and assignments make reads as its own (the thirteenth red team hid --eval there).
	flagVars := slices.Clone(proto.Env)
	for _, a := range args {
		flagVars = append(flagVars, a.s)
	}
	for _, e := range flagVars {
		n, v, ok := strings.Cut(e, "=")
		n = strings.TrimRight(n, ":+?!") // MAKEFLAGS+=...
		if ok && (makeCommandVariables[n] || makeFlagVariables[n]) {
			if makeFlagVariables[n] {
				v = "true " + v // its words follow a command in the rule's line
			}
			z.script(word{s: v, known: true}, "make "+n, proto)
		}
		if ok && (n == "MAKEFLAGS" || n == "GNUMAKEFLAGS") {
			// make splits the value its own way: a $(shell ...) anywhere in it counts.
			for _, r := range makeRecipes(v) {
				z.script(word{s: r, known: true}, "make "+n, proto)
			}
			words, err := shlex.Split(v)
			if err != nil {
				z.unknown(n + " holds options that cannot be read")
				continue
			}
			extra := []word{{s: "make", known: true}}
			for _, w := range words {
				if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
					w = "-" + w // MAKEFLAGS=ks: single-letter flags without their dash
				}
				extra = append(extra, word{s: w, known: true})
			}
			args = append(slices.Clip(args), splitOptions(extra)[1:]...)
		}
	}
	for _, a := range args {
		// A variable given on the command line: NAME:=VALUE expands VALUE at once
		// ($(shell CMD) runs), NAME!=CMD runs CMD, NAME=VALUE when it is used.
		name, op, val, ok := makeAssignment(a.s)
		if !ok || name == "MAKEFLAGS" || name == "GNUMAKEFLAGS" || name == "SHELL" || name == ".SHELLFLAGS" {
			continue
		}
		if !a.known {
			z.unknown("make is given a variable whose value cannot be known, and make expands it")
			continue
		}
		if op == "!=" {
			z.script(word{s: val, known: true}, "make "+name+"!=", proto)
		}
		for _, r := range makeRecipes(val) {
			z.script(word{s: r, known: true}, "make", proto)
		}
		for _, f := range makeFileWrites(val) {
			z.writesTo("make", f, proto)
		}
	}
	texts := makePrograms(args, stdin)
	shell, flags := "", ""
	for k, a := range args {
		switch {
		case (a.s == "-f" || a.s == "--file" || a.s == "--makefile") && k+1 < len(args):
			if text, ok := z.programFile("make -f", args[k+1], stdin); ok && !slices.Contains(stdinFiles, args[k+1].s) {
				texts = append(texts, text.s)
			}
		case strings.HasPrefix(a.s, "SHELL="):
			shell = a.s[len("SHELL="):]
		case strings.HasPrefix(a.s, ".SHELLFLAGS="):
			flags = a.s[len(".SHELLFLAGS="):]
		}
	}
	for _, text := range texts {
		for _, r := range makeRecipes(text) {
			z.script(word{s: r, known: true}, "make", proto)
		}
	}
	if shell != "" || flags != "" {
		// Every recipe runs as SHELL .SHELLFLAGS RECIPE.
		if shell == "" {
			shell = "/bin/sh"
		}
		if flags == "" {
			flags = "-c"
		}
		z.script(word{s: shell + " " + flags + " :", known: true}, "make SHELL", proto) // the recipe itself is the project's
	}
}

// debugger analyses the commands gdb and lldb are given on the line (-ex, -o): shell
// and ! commands, pipe, and python.
func (z *analyzer) debugger(name string, args []word, proto SimpleCommand) {
	for k, a := range args {
		cmd, ok := word{}, false
		// gdb takes its long options with one dash or two, and a value after = or
		// apart (the fifteenth red team: -eval-command=, --ex=, -init-eval-command=).
		n, v, hasVal := strings.Cut(a.s, "=")
		if strings.HasPrefix(n, "--") {
			n = n[1:]
		}
		switch n {
		case "-ex", "-iex", "-eval-command", "-init-eval-command", "-o", "-one-line", "-O", "-one-line-before-file", "-k",
			"-source-before-file", "-s":
			if n == "-s" && name != "lldb" {
				break // gdb's -s is a symbol file
			}
			if hasVal {
				cmd, ok = word{s: v, known: a.known}, true
			} else if k+1 < len(args) {
				cmd, ok = args[k+1], true
			}
		}
		if !ok || !cmd.known {
			continue
		}
		c := strings.TrimSpace(cmd.s)
		c = strings.TrimSpace(strings.TrimPrefix(c, "platform"))
		switch {
		case strings.HasPrefix(c, "!"):
			z.script(word{s: c[1:], known: true}, name+" !", proto)
		case strings.HasPrefix(c, "shell ") || strings.HasPrefix(c, "she "):
			_, rest, _ := strings.Cut(c, " ")
			z.script(word{s: rest, known: true}, name+" shell", proto)
		case strings.HasPrefix(c, "pipe ") || strings.HasPrefix(c, "| "):
			if _, rest, found := strings.Cut(c, "|"); found && strings.HasPrefix(c, "pipe") {
				z.script(word{s: rest, known: true}, name+" pipe", proto)
			} else if found {
				if _, rest2, ok := strings.Cut(rest, "|"); ok {
					z.script(word{s: rest2, known: true}, name+" pipe", proto)
				}
			}
		case strings.HasPrefix(c, "python ") || strings.HasPrefix(c, "py ") || strings.HasPrefix(c, "pi ") || strings.HasPrefix(c, "script "):
			_, code, _ := strings.Cut(c, " ")
			z.oneLiner("python3", []word{{s: "-c", known: true}, {s: code, known: true}}, proto, nil)
		case strings.HasPrefix(c, "make "):
			z.script(word{s: c, known: true}, name+" make", proto)
		}
	}
}

// sedScripts are sed's scripts (each -e and --expression, else the first operand)
// and the files it reads scripts from (-f); sandbox reports --sandbox.
func sedScripts(args []word) (scripts, files []word, sandbox bool) {
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
			scripts = append(scripts, word{s: a.s[len("--expression="):], known: a.known})
		case strings.HasPrefix(a.s, "--file="):
			files = append(files, word{s: a.s[len("--file="):], known: a.known})
		case (a.s == "--expression" || a.s == "--file" || a.s == "--line-length") && k+1 < len(args):
			k++
			if a.s == "--expression" {
				scripts = append(scripts, args[k])
			} else if a.s == "--file" {
				files = append(files, args[k])
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
					scripts = append(scripts, val)
				case 'f':
					files = append(files, val)
				}
				break
			}
		default:
			operands = append(operands, a)
		}
	}
	if len(scripts) == 0 && len(files) == 0 && len(operands) > 0 {
		scripts = append(scripts, operands[0])
	}
	return scripts, files, sandbox
}

// sedRuns finds the commands a sed script runs: e COMMAND runs COMMAND; e alone and
// the s command's e flag run the pattern space (the input's text) as a command.
func sedRuns(s string) (cmds []string, patternSpace bool) {
	cmds, patternSpace, _ = sedProgram(s)
	return cmds, patternSpace
}

// sedWrites are the files a sed script writes: its w and W commands and s///w.
func sedWrites(s string) []string {
	_, _, writes := sedProgram(s)
	return writes
}

// sedProgram reads a sed script's commands: the shell commands its e commands run,
// whether an e runs text it reads (s///e, e alone), and the files it writes.
func sedProgram(s string) (cmds []string, patternSpace bool, writes []string) {
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
				return cmds, patternSpace, writes
			}
			d := s[i]
			i = skipDelimited(s, i+1, d, c == 's') // s/[/]*//: a bracket expression may hold d
			i = skipDelimited(s, i, d, false)
			for c == 's' && i < len(s) && isAlnum(s[i]) {
				if s[i] == 'w' {
					end := toEOL(i) // s///w FILE: the file name runs to the end of the line
					if f := strings.TrimSpace(s[i+1 : end]); f != "" {
						writes = append(writes, f)
					}
					i = end
					break
				}
				if s[i] == 'e' {
					patternSpace = true
				}
				i++
			}
		case 'e':
			if strings.HasPrefix(s[i:], "\\\n") {
				i += 2 // e\ and the command on the next line
			}
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
		case 'w', 'W':
			end := toEOL(i)
			if f := strings.TrimSpace(s[i:end]); f != "" {
				writes = append(writes, f)
			}
			i = end
		case 'r', 'R', '#':
			i = toEOL(i)
		case ':':
			// A label ends at the line's end or, in GNU sed, at a semicolon (:a;e CMD).
			for i < len(s) && s[i] != '\n' && s[i] != ';' {
				i++
			}
		default:
			for i < len(s) && strings.IndexByte(";\n}", s[i]) < 0 {
				i++
			}
		}
	}
	return cmds, patternSpace, writes
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
			i = skipDelimited(s, i+1, d, true)
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

// skipDelimited returns the index after the next unescaped d from i. In a regular
// expression (regex), a bracket expression may hold d: [/] does not end /re/.
func skipDelimited(s string, i int, d byte, regex bool) int {
	for i < len(s) {
		switch {
		case s[i] == '\\':
			i += 2
			continue
		case regex && s[i] == '[':
			j := i + 1
			if j < len(s) && s[j] == '^' {
				j++
			}
			if j < len(s) && s[j] == ']' {
				j++
			}
			for j < len(s) && s[j] != ']' {
				// [:alpha:], [.a.], [=a=] inside the brackets hold their own ] (the
				// seventeenth red team: [[:alpha:]/] hid a w and an e).
				if s[j] == '[' && j+1 < len(s) && strings.IndexByte(":.=", s[j+1]) >= 0 {
					if k := strings.Index(s[j+2:], string(s[j+1])+"]"); k >= 0 {
						j += 2 + k + 2
						continue
					}
				}
				j++
			}
			if j < len(s) {
				i = j + 1
				continue
			}
		case s[i] == d:
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
func exCommands(name string, args []word, stdin *word) ([]word, bool) {
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
	return out, exMode
}

// exCommand analyses one vim ex command line: commands joined by | each; :!CMD,
// :r !CMD, :w !CMD, :{range}!FILTER and :terminal CMD run CMD; system() and the job
// functions run their command; :py3, :perl, :ruby and :lua run their code; :execute
// and :normal run the commands they spell; :set makeprg= and the like name a command;
// :source of standard input runs its lines; :w FILE and :saveas FILE write FILE.
func (z *analyzer) exCommand(name string, w word, proto SimpleCommand, stdin *word, depth int) {
	if !w.known || depth > 4 {
		return
	}
	for _, m := range shellCall().FindAllStringSubmatch(w.s, -1) {
		z.script(word{s: strings.Join(m[1:], ""), known: true}, name+" system()", proto)
	}
	for _, m := range vimLibcall().FindAllStringSubmatch(w.s, -1) {
		z.script(word{s: m[1] + m[2], known: true}, name+" libcall()", proto)
	}
	if vimJobList().MatchString(w.s) {
		z.unknown(name + " starts a job from a list the line does not spell out")
	}
	// Functions and commands that write a file they name (a twelfth red team:
	// writefile([...], expand("~/.bashrc"))), and delete(), which removes one.
	for _, m := range vimWriteFile().FindAllStringSubmatch(w.s, -1) {
		if f := strings.Join(m[1:], ""); f != "" {
			z.writesTo(name, f, proto)
		}
	}
	if vimComputedFile().MatchString(w.s) {
		z.unknown(name + " writes or deletes a file whose name it computes (writefile(), delete(), mksession, redir, verbosefile)")
	}
	for _, c := range splitBar(w.s) {
		z.exOne(name, c, proto, stdin, depth)
	}
}

// exOne analyses one ex command (no bar).
func (z *analyzer) exOne(name, c string, proto SimpleCommand, stdin *word, depth int) {
	c = strings.TrimLeft(c, ": \t")
	for {
		m := exModifier().FindString(c)
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
	rest := c
	for rest != "" && isAlnum(rest[0]) {
		rest = rest[1:]
	}
	verb := c[:len(c)-len(rest)]
	bang := strings.HasPrefix(rest, "!")
	arg := strings.TrimSpace(strings.TrimPrefix(rest, "!"))
	switch {
	case exAbbrev(verb, "r", "read") || exAbbrev(verb, "w", "write") || exAbbrev(verb, "wq", "wq") || exAbbrev(verb, "x", "xit") || exAbbrev(verb, "sav", "saveas") || exAbbrev(verb, "up", "update"):
		if t := strings.TrimLeft(rest, " \t"); strings.HasPrefix(t, "!") && !bang {
			z.script(word{s: t[1:], known: true}, name+" :"+verb+" !", proto)
			if f := strings.Fields(t[1:]); !exAbbrev(verb, "r", "read") && len(f) > 0 && (shells[base(f[0])] || codeRunners[base(f[0])]) {
				// :w !sh runs the buffer, which the line builds as it likes (red team:
				// -c "norm irm -f x" -c "w !sh").
				z.unknown(name + "'s :w !" + base(f[0]) + " runs the text being edited, which cannot be known here")
			}
			return
		}
		target := strings.TrimSpace(strings.TrimPrefix(arg, ">>"))
		if target != "" && !exAbbrev(verb, "r", "read") {
			z.writesTo(name, target, proto)
		}
	case exAbbrev(verb, "ter", "terminal"):
		z.script(word{s: arg, known: true}, name+" :terminal", proto)
	case exAbbrev(verb, "exe", "execute"):
		if s, ok := vimString(arg); ok {
			z.exCommand(name, word{s: s, known: true}, proto, stdin, depth+1)
		} else {
			z.unknown(name + " :execute runs a command computed at run time")
		}
	case exAbbrev(verb, "norm", "normal"):
		// Keys that type an ex command: normal! :!rm -rf ~<CR>.
		if _, cmd, ok := strings.Cut(arg, ":"); ok {
			for _, l := range strings.FieldsFunc(cmd, func(r rune) bool { return r == '\r' || r == '\n' }) {
				z.exCommand(name, word{s: l, known: true}, proto, stdin, depth+1)
			}
		}
	case exAbbrev(verb, "se", "set") || exAbbrev(verb, "setl", "setlocal") || exAbbrev(verb, "setg", "setglobal"):
		for _, m := range vimPrgOption().FindAllStringSubmatch(arg, -1) {
			z.script(word{s: strings.ReplaceAll(m[1], `\ `, " "), known: true}, name+" :set", proto)
		}
	case exAbbrev(verb, "so", "source") || exAbbrev(verb, "ru", "runtime"):
		if text, ok := z.programFile(name+" :source", word{s: arg, known: true}, stdin); ok {
			for _, l := range strings.Split(text.s, "\n") {
				z.exCommand(name, word{s: l, known: true}, proto, nil, depth+1)
			}
		}
	case exAbbrev(verb, "py", "python") || exAbbrev(verb, "py3", "python3") || exAbbrev(verb, "pyx", "pythonx") || verb == "perl" || exAbbrev(verb, "rub", "ruby") || verb == "lua":
		lang := map[string]string{"perl": "perl", "lua": "lua"}[verb]
		if strings.HasPrefix(verb, "r") {
			lang = "ruby"
		} else if lang == "" {
			lang = "python3"
		}
		z.oneLiner(lang, []word{{s: "-c", known: true}, {s: arg, known: true}}, proto, nil)
	}
}

// splitBar splits an ex command line at its | separators, but not inside quotes nor
// after a command that takes the rest of the line (:!, :r !, :w !, :normal).
func splitBar(s string) []string {
	var out []string
	start, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '\\':
			i++ // an escaped bar belongs to the command
		case c == '|':
			seg := strings.TrimLeft(s[start:i], ": \t")
			if takesRest().MatchString(seg) {
				return append(out, s[start:])
			}
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

var (
	exModifier = lazyRegexp(`^(?:sil(?:e(?:n(?:t)?)?)?|keepa(?:lt)?|noa(?:utocmd)?|keepj(?:umps)?|lockm(?:arks)?|vert(?:ical)?|bel(?:owright)?|abo(?:veleft)?|tab|hid(?:e)?|uns(?:ilent)?|nos(?:wapfile)?|san(?:dbox)?|verb(?:ose)?)!?(?:\s+|$)`)
	// Commands whose argument runs to the end of the line, bars included.
	takesRest = lazyRegexp(`^(?:[%.$,0-9'<>+\-\s]*!|(?:r|re|rea|read|w|wr|wri|writ|write)\s+!|norm(?:a(?:l)?)?!?\s)`)
	// :set makeprg=CMD and the other options that name a command.
	vimPrgOption = lazyRegexp(`(?:makeprg|mp|grepprg|gp|shell|sh|equalprg|ep|formatprg|fp|keywordprg|kp|diffexpr|patchexpr)[+^]?=((?:\\ |[^ ])+)`)
	// libcall("libc.so.6", "system", "CMD").
	vimLibcall = lazyRegexp(`libcall(?:nr)?\s*\([^,]+,\s*["']system["']\s*,\s*(?:"([^"]*)"|'([^']*)')`)
	// job_start([...]) with a list that is not all literals.
	vimJobList = lazyRegexp(`(?:job_start|jobstart|term_start|termopen)\s*\(\s*\[[^\]]*[$a-zA-Z_][^\]"']*\]`)
)

// vimString is the value of a vim string literal ("...\r" with escapes, '...'), when
// the expression is only that.
func vimString(expr string) (string, bool) {
	expr = strings.TrimSpace(expr)
	if len(expr) < 2 {
		return "", false
	}
	switch q := expr[0]; {
	case q == '\'' && expr[len(expr)-1] == '\'' && !strings.Contains(expr[1:len(expr)-1], "'"):
		return expr[1 : len(expr)-1], true
	case q == '"' && expr[len(expr)-1] == '"':
		body := expr[1 : len(expr)-1]
		var b strings.Builder
		for i := 0; i < len(body); i++ {
			if body[i] == '"' {
				return "", false // two strings joined
			}
			if body[i] == '\\' && i+1 < len(body) {
				i++
				switch body[i] {
				case 'r':
					b.WriteByte('\r')
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(body[i])
				}
				continue
			}
			b.WriteByte(body[i])
		}
		return b.String(), true
	}
	return "", false
}

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

// sqliteShell finds sqlite3's dot commands that run a shell command: .shell CMD and
// .system CMD (any prefix of two letters or more), the '|CMD' form of .output, .once,
// .read and .import, and SQL's edit(TEXT, EDITOR), which runs EDITOR.
// sqliteWrite matches sqlite3's commands that write a file: .output, .once, .log,
// .backup, .save, .dump's redirection aside; VACUUM INTO and ATTACH of a file.
var sqliteWrite = lazyRegexp(`(?m)^\s*\.(?:o|on|onc|once|ou|out|outp|outpu|output|log|ba|bac|back|backu|backup|sav|save|tr|tra|trac|trace|cl|clo|clon|clone|op|ope|open)\s+(?:--?\w+\s+)*(?:'([^'\n]*)'|"([^"\n]*)"|(\S+))|(?i)\bvacuum\s+(?:\w+\s+)?into\s+(?:'([^']*)'|"([^"]*)")|(?i)\battach\s+(?:database\s+)?(?:'([^']*)'|"([^"]*)")|(?i)\bwritefile"?\s*\(\s*(?:'([^']*)'|"([^"]*)")`)

// sqliteUnknown matches what sqlite3 runs or writes that a literal does not name: a
// computed writefile() target, extensions (.load, load_extension(): native code),
// a computed VACUUM INTO or ATTACH file.
var sqliteUnknown = lazyRegexp(`(?i)\bwritefile"?\s*\(\s*[^'"\s]|(?i)\bwritefile"?\s*\(\s*(?:'[^']*'|"[^"]*")\s*\|\||(?m)^\s*\.cd\s|(?m)^\s*\.ar(?:c|ch|chi|chiv|chive)?\s|\bload_extension\s*\(|(?m)^\s*\.(?:lo|loa|load)\s|(?i)\b(?:vacuum\s+(?:\w+\s+)?into|attach(?:\s+database)?)\s+[^'"\s]`)

// elispWrite matches Emacs Lisp that writes a file: the call with its string arguments
// (group 1) or the first argument when it is not a string (group 2).
var elispWrite = lazyRegexp(`\((?:write-file|write-region|append-to-file|copy-file|rename-file|make-symbolic-link|add-name-to-file|delete-file|delete-directory|with-temp-file|f-write-text|f-write|f-append-text)\s+(?:[^()"]*?\s)?(?:("[^"]*"(?:\s+"[^"]*")*)|([^\s()"]+|\())`)

// elispString is one Lisp string literal.
var elispString = lazyRegexp(`"([^"]*)"`)

// sqliteFile is the file a database name opens: a URI filename (file:PATH?mode=rwc)
// is its path.
func sqliteFile(name string) string {
	if rest, ok := strings.CutPrefix(name, "file:"); ok {
		rest, _, _ = strings.Cut(rest, "?")
		rest, _, _ = strings.Cut(rest, "#")
		if after, ok := strings.CutPrefix(rest, "//"); ok {
			if i := strings.IndexByte(after, '/'); i >= 0 {
				rest = after[i:] // file://localhost/PATH
			}
		}
		return rest
	}
	return name
}

// sqliteRead matches .read FILE (not .read |CMD, which sqliteShell reads).
var sqliteRead = lazyRegexp(`(?m)^\s*\.(?:rea|read)\s+['"]?[^|'"\s]`)

// vimWriteFile matches vim's writes to a literal file: writefile(..., "F"),
// :mksession F, :mkvimrc F, :wviminfo F, :redir > F, set verbosefile=F.
var vimWriteFile = lazyRegexp(`writefile\s*\([^,]*,\s*(?:expand\s*\(\s*)?(?:"([^"]*)"|'([^']*)')|(?:^|[|:\s])(?:mks|mksession|mkv|mkvimrc|mkvie|mkview|wv|wviminfo|wsh|wshada)!?\s+(\S+)|redir!?\s*>>?\s*(\S+)|verbosefile=(\S+)`)

// vimComputedFile matches vim's file writers and deleters given a computed name.
var vimComputedFile = lazyRegexp(`writefile\s*\([^,]*,\s*[a-zA-Z_]\w*\s*[,)]|\bdelete\s*\(`)

var sqliteShell = lazyRegexp(`(?m)^\s*\.(?:sh|she|shel|shell|sy|sys|syst|syste|system)\s+(.*)$|(?m)^\s*\.(?:o|on|onc|once|ou|out|outp|outpu|output|rea|read|imp|impo|impor|import|e|ex|exc|exce|excel)\s+['"]?\|([^'"\n]*)|\bedit\s*\(\s*(?:'(?:[^']|'')*'|"[^"]*"|[^,()]+)\s*,\s*(?:'((?:[^']|'')*)'|"([^"]*)")`)

// m4Syscmd finds m4's syscmd(CMD) and esyscmd(CMD).
var m4Syscmd = lazyRegexp(`e?syscmd\(([^)]*)\)`)

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

// makeCalls are the arguments of make's $(FUNC ...) and ${FUNC ...} calls in text.
func makeCalls(text, fn string) []string {
	var out []string
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "$("+fn+" ")
		open, shut := byte('('), byte(')')
		if k := strings.Index(text[i:], "${"+fn+" "); k >= 0 && (j < 0 || k < j) {
			j, open, shut = k, '{', '}' // ${shell ...} is $(shell ...) (the fifteenth red team)
		}
		if j < 0 {
			break
		}
		start := i + j + len(fn) + 3
		depth, end := 1, start
		for end < len(text) && depth > 0 {
			switch text[end] {
			case open:
				depth++
			case shut:
				depth--
			}
			end++
		}
		out = append(out, text[start:max(start, end-1)])
		i = end
	}
	return out
}

// makeFileWrites are the files make's $(file >F,...) and $(file >>F,...) write.
func makeFileWrites(text string) []string {
	var out []string
	for _, arg := range makeCalls(text, "file") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(arg), ">"); ok {
			f, _, _ = strings.Cut(strings.TrimPrefix(f, ">"), ",")
			out = append(out, strings.TrimSpace(f))
		}
	}
	return out
}

// makeCommandVariables are the variables make's built-in rules run as commands, and
// makeFlagVariables those they put into a command line: make CC='rm -rf ~' x runs it
// through the rule for x.c (the fifteenth red team), and CFLAGS='; CMD' runs CMD.
var makeCommandVariables = map[string]bool{"CC": true, "CXX": true, "CPP": true, "AS": true, "LD": true, "AR": true,
	"FC": true, "PC": true, "CO": true, "GET": true, "LEX": true, "YACC": true, "TEX": true, "MAKEINFO": true,
	"RM": true, "M2C": true, "CWEAVE": true, "CTANGLE": true, "LINT": true, "TANGLE": true, "WEAVE": true,
	"TEXI2DVI": true, "OBJC": true, "MAKE": true}
var makeFlagVariables = map[string]bool{"CFLAGS": true, "CXXFLAGS": true, "CPPFLAGS": true, "LDFLAGS": true,
	"LDLIBS": true, "ARFLAGS": true, "ASFLAGS": true, "FFLAGS": true, "LFLAGS": true, "YFLAGS": true, "LOADLIBES": true}

// makeAssignment splits a make command-line variable assignment (NAME=V, NAME:=V,
// NAME::=V, NAME:::=V, NAME!=V, NAME?=V, NAME+=V).
func makeAssignment(arg string) (name, op, val string, ok bool) {
	i := strings.IndexByte(arg, '=')
	if i <= 0 || strings.HasPrefix(arg, "-") {
		return "", "", "", false
	}
	name = arg[:i]
	j := len(name)
	for j > 0 && strings.IndexByte(":!?+", name[j-1]) >= 0 {
		j--
	}
	op, name = name[j:]+"=", strings.TrimSpace(name[:j])
	if name == "" || strings.ContainsAny(name, " \t$()") {
		return "", "", "", false
	}
	return name, op, arg[i+1:], true
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
	out := makeCalls(text, "shell")
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
