package shell

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Scripts the line writes and then runs: printf 'rm -rf ~' > x.sh; bash x.sh runs what
// printf wrote, as surely as bash -c would. The analysis keeps the text of every file
// the line writes by redirection or tee when the line shows it, and analyses that text
// where a shell, source, an interpreter or a direct ./x.sh runs the file. A file the
// line wrote with text it cannot show (a download, a generator's output) is judged as
// unknown code when it is run: it fails closed, like bash -c "$(...)".

// writtenKey is how a written file is known: its path from the line's working
// directory when that is known, else as written (lexically: a file written and run
// on one line is spelled alike, and this runs for every command).
func (z *analyzer) writtenKey(p string) string {
	if !path.IsAbs(p) && z.cwd != "" {
		return path.Join(z.cwd, p)
	}
	return path.Clean(p)
}

// recordWrites notes the files a command writes and what it writes into them: a
// redirection of what it prints, tee of what it reads, cp of a file the line wrote,
// and a downloader's or filter's output file (unknown text).
func (z *analyzer) recordWrites(argv []word, reds []Redirect, stdin *word) {
	if len(argv) == 0 || !argv[0].known {
		return
	}
	text := printed(argv, stdin)
	for _, r := range reds {
		if r.Partial || r.Target == "" || !(r.Fd == "" || r.Fd == "1") || !strings.HasPrefix(r.Op, ">") && r.Op != "&>" && r.Op != "&>>" {
			continue
		}
		z.write(r.Target, text, strings.HasSuffix(r.Op, ">>"))
	}
	name := base(argv[0].s)
	var args []string
	for _, a := range argv[1:] {
		args = append(args, a.s)
	}
	switch name {
	case "tee":
		appendTo := slices.Contains(args, "-a") || slices.Contains(args, "--append")
		for _, f := range operandsOf(args) {
			z.write(f, stdin, appendTo)
		}
	case "cp", "install", "mv":
		ops := operandsOf(args)
		if len(ops) == 2 {
			if slices.Contains(stdinFiles, ops[0]) {
				z.write(ops[1], stdin, false) // curl ... | cp /dev/stdin x.sh
			} else if strings.HasPrefix(ops[0], "/dev/fd/") || strings.HasPrefix(ops[0], "/proc/") {
				z.write(ops[1], &word{}, false) // cp <(cmd) x.sh: what cmd prints, not known here
			} else if src, ok := z.written[z.writtenKey(ops[0])]; ok {
				z.write(ops[1], &src, false)
			}
		}
	case "sponge":
		for _, f := range operandsOf(args) {
			z.write(f, stdin, slices.Contains(args, "-a"))
		}
	case "tar", "bsdtar", "unzip", "git":
		// A tree fetched from the network: curl ... | tar xz, git clone URL DIR. What
		// runs from it later on the line is downloaded code.
		if dir, ok := fetchedTree(name, args, stdin); ok {
			z.fetched = append(z.fetched, z.writtenKey(dir))
		}
	case "dd":
		for _, a := range args {
			if of, ok := strings.CutPrefix(a, "of="); ok {
				z.write(of, stdin, false)
			}
		}
	case "curl", "wget", "aria2c", "http", "xh", "sort", "uniq", "shuf", "openssl", "pv", "socat":
		for _, f := range writeTargets(name, args) {
			z.write(f, nil, false) // curl -o x.sh, sort -o f: text the line does not show
		}
	}
}

// write records that the line wrote text (nil: unknown) into f, or appended it.
func (z *analyzer) write(f string, text *word, appendTo bool) {
	if f == "" || f == "/dev/null" || strings.HasPrefix(f, "/dev/") {
		return
	}
	if z.written == nil {
		z.written = map[string]word{}
	}
	k := z.writtenKey(f)
	w := word{}
	if text != nil {
		w = *text
	}
	if prev, ok := z.written[k]; ok && appendTo {
		w = word{s: prev.s + w.s, known: prev.known && w.known}
	}
	z.written[k] = w
}

// writtenText is the text the line wrote into f, and whether it wrote f at all; a
// file in a tree the line fetched counts as written with unknown text.
func (z *analyzer) writtenText(f string) (word, bool) {
	if f == "" {
		return word{}, false
	}
	k := z.writtenKey(f)
	if w, ok := z.written[k]; ok {
		return w, ok
	}
	for _, d := range z.fetched {
		if k == d || strings.HasPrefix(k, strings.TrimSuffix(d, "/")+"/") {
			return word{}, true
		}
	}
	return word{}, false
}

// fetchedTree is the folder a command fills from the network: an archive extracted
// from a pipe the line does not show (curl URL | tar xz), a clone of a remote URL.
func fetchedTree(name string, args []string, stdin *word) (string, bool) {
	if name == "git" {
		sub, rest := gitSubcommand(args)
		ops := operandsOf(rest)
		if sub != "clone" || len(ops) == 0 || !strings.Contains(ops[0], "://") && !strings.Contains(ops[0], "@") {
			return "", false
		}
		if len(ops) >= 2 {
			return ops[1], true
		}
		return strings.TrimSuffix(path.Base(strings.TrimRight(ops[0], "/")), ".git"), true
	}
	if stdin == nil || stdin.known || !extracts(name, args) {
		return "", false
	}
	if dir := extractInto(name, args); dir != "" {
		return dir, true
	}
	return ".", true
}

// runFile analyses running a file the line wrote: its text as a script of the language
// its #! line names (a shell when there is none), or, unknown, as code that cannot be
// known.
func (z *analyzer) runFile(runner, f string, proto SimpleCommand) bool {
	text, ok := z.writtenText(f)
	if !ok {
		// Run before the line wrote it, it may still be what the line writes: a
		// background job that waits ((sleep 1; bash f) & printf ... > f). Looked at
		// again at the end of the line (lateRuns).
		if !z.lateCheck && (path.IsAbs(f) || z.cwd != "") {
			z.lateRuns = append(z.lateRuns, lateRun{runner: runner, file: z.writtenKey(f), proto: proto})
		}
		return false
	}
	if !text.known {
		z.unknown(fmt.Sprintf("%s runs %s, which the line wrote with text it does not show", runner, f))
		return true
	}
	lang := runner
	if first, _, _ := strings.Cut(text.s, "\n"); strings.HasPrefix(first, "#!") {
		fields := strings.Fields(strings.TrimPrefix(first, "#!"))
		if len(fields) > 0 {
			lang = base(fields[0])
			if lang == "env" && len(fields) > 1 {
				lang = base(fields[1])
			}
		}
	}
	switch {
	case shells[lang] || lang == "source" || lang == ".":
		z.script(text, runner+" "+f, proto)
	case codeRunners[lang] || strings.HasPrefix(lang, "python"):
		z.oneLiner(lang, []word{{s: "-c", known: true}, text}, proto, nil)
	default:
		z.script(text, runner+" "+f, proto)
	}
	return true
}

// buildFile analyses the commands a build file the line wrote makes its tool run: a
// makefile's or justfile's recipes, package.json's scripts, the Python of setup.py and
// conftest.py, CMake's execute_process.
func (z *analyzer) buildFile(f, text string, proto SimpleCommand) {
	switch base := path.Base(f); {
	case strings.EqualFold(base, "Makefile") || base == "GNUmakefile":
		for _, r := range makeRecipes(text) {
			z.script(word{s: r, known: true}, base, proto)
		}
	case strings.EqualFold(base, "justfile"):
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				z.script(word{s: strings.TrimLeft(l, " \t@-"), known: true}, base, proto)
			}
		}
	case base == "package.json":
		var pkg struct{ Scripts map[string]string }
		if json.Unmarshal([]byte(text), &pkg) != nil {
			z.unknown("npm runs the scripts of " + f + ", which the line wrote and which do not parse")
		}
		for _, s := range pkg.Scripts {
			z.script(word{s: s, known: true}, base, proto)
		}
	case strings.HasSuffix(base, ".py"):
		z.codeLiterals("python3", text, proto)
	case base == "CMakeLists.txt":
		for _, m := range cmakeCommand().FindAllStringSubmatch(text, -1) {
			z.script(word{s: m[1], known: true}, base, proto)
		}
	default:
		z.unknown(fmt.Sprintf("the build runs %s, which the line wrote", f))
	}
}

// cmakeCommand finds the COMMAND of execute_process and add_custom_command.
var cmakeCommand = lazyRegexp(`COMMAND\s+([^)\n]*)`)

// binDirs are the folders commands are found in by name.
var binDirs = []string{"/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"}

// pathHasDot reports a PATH the line set that looks in the working folder (., or an
// empty entry).
func (z *analyzer) pathHasDot(proto SimpleCommand) bool {
	val := ""
	for _, e := range proto.Env {
		if e == "PATH" {
			return true // set to what cannot be known: it may hold "."
		}
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			val = v
		}
	}
	if v, ok := z.vars["PATH"]; ok {
		if len(v) != 1 || !v[0].known {
			return true
		}
		val = v[0].s
	}
	for _, d := range strings.Split(val, ":") {
		if d == "." || d == "./" || d == "" && val != "" || d == z.cwd {
			return true
		}
	}
	return false
}

// buildFiles are the files a build tool runs code from, in the folder it runs in.
var buildFiles = map[string][]string{"make": {"Makefile", "makefile", "GNUmakefile"}, "gmake": {"Makefile", "GNUmakefile"},
	"pip": {"setup.py", "pyproject.toml"}, "pip3": {"setup.py", "pyproject.toml"}, "npm": {"package.json"},
	"yarn": {"package.json"}, "pnpm": {"package.json"}, "cargo": {"build.rs", "Cargo.toml"}, "cmake": {"CMakeLists.txt"},
	"just": {"justfile", "Justfile"}, "rake": {"Rakefile"}, "gradle": {"build.gradle", "build.gradle.kts"},
	"mvn": {"pom.xml"}, "tox": {"tox.ini"}, "nox": {"noxfile.py"}, "pytest": {"conftest.py"}, "task": {"Taskfile.yml"}}

// runsWritten analyses a command that runs a file the line wrote: ./x.sh directly, or
// an interpreter or source given it as its script.
func (z *analyzer) runsWritten(argv []word, proto SimpleCommand) {
	name := base(argv[0].s)
	if strings.Contains(argv[0].s, "/") {
		if z.runFile(argv[0].s, argv[0].s, proto) {
			return
		}
	}
	if !strings.Contains(argv[0].s, "/") {
		for k := range z.written {
			// curl -o /usr/local/bin/tool URL && tool; echo ... > x; PATH=.:$PATH x
			if path.Base(k) == name && (slices.Contains(binDirs, path.Dir(k)) || path.Dir(k) == z.cwd && z.pathHasDot(proto)) {
				z.runFile(name, k, proto)
			}
		}
	}
	for _, f := range buildFiles[name] {
		// printf ... > Makefile && make, curl -o Makefile URL && make: the build runs
		// what the line wrote.
		text, ok := z.writtenText(f)
		switch {
		case !ok:
		case !text.known:
			z.unknown(fmt.Sprintf("%s runs %s, which the line wrote with text it does not show", name, f))
		default:
			z.buildFile(f, text.s, proto)
		}
	}
	if !shells[name] && name != "source" && name != "." && !codeRunners[name] && !strings.HasPrefix(name, "python") {
		return
	}
	for k, a := range argv[1:] {
		if a.s == "-c" || a.s == "-e" {
			return // the program is on the line
		}
		if strings.HasPrefix(a.s, "-") || k > 0 && (argv[k].s == "-o" || argv[k].s == "-O") {
			continue
		}
		if a.known {
			z.runFile(name, a.s, proto)
		}
		return
	}
}
