package shell

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/shlex"
)

// wrapSpec says how to find the command a wrapper runs: skip its options (some of
// which take an argument), NAME=VALUE words where allowed, then a fixed number of
// operands; what is left is the command.
type wrapSpec struct {
	argOpts  string         // short options that take an argument (-u root, -uroot)
	longArgs []string       // long options that take the next word when written without =
	longN    map[string]int // long options that take more than one word (bwrap --bind SRC DEST)
	assigns  bool           // NAME=VALUE words may come before the command
	operands int            // operands before the command (timeout's duration, chroot's root)
	script   string         // a short option whose argument is a shell script (su -c)
	longScr  string         // the long form of script (--command)
}

// wrappers run their operands as a command. Shells, eval, find, xargs-like and
// script-taking tools are handled in unwrap itself.
var wrappers = sync.OnceValue(func() map[string]wrapSpec {
	return map[string]wrapSpec{
		"sudo":             {argOpts: "ugCDhprtUTc", longArgs: []string{"user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "other-user", "command-timeout", "chroot"}, assigns: true},
		"doas":             {argOpts: "uC"},
		"pkexec":           {longArgs: []string{"user"}},
		"run0":             {argOpts: "uDg", longArgs: []string{"user", "group", "chdir", "unit", "property", "description", "slice", "setenv", "nice", "machine"}},
		"env":              {argOpts: "uCP", longArgs: []string{"unset", "chdir"}, assigns: true},
		"nohup":            {},
		"setsid":           {},
		"timeout":          {argOpts: "sk", longArgs: []string{"signal", "kill-after"}, operands: 1},
		"nice":             {argOpts: "n", longArgs: []string{"adjustment"}},
		"ionice":           {argOpts: "cnp", longArgs: []string{"class", "classdata", "pid", "pgid", "uid"}},
		"renice":           {argOpts: "ngpu"},
		"chrt":             {argOpts: "T", operands: 1},
		"taskset":          {operands: 1},
		"numactl":          {argOpts: "NmCpPil"},
		"stdbuf":           {argOpts: "ioe", longArgs: []string{"input", "output", "error"}},
		"chroot":           {longArgs: []string{"userspec", "groups"}, operands: 1},
		"command":          {},
		"builtin":          {},
		"exec":             {argOpts: "a"},
		"time":             {argOpts: "fo", longArgs: []string{"format", "output"}},
		"strace":           {argOpts: "eoOpPsSuabEIX"},
		"ltrace":           {argOpts: "eoOpPsSuabEIXnAD"},
		"valgrind":         {},
		"unshare":          {argOpts: "SG", longArgs: []string{"setuid", "setgid"}},
		"nsenter":          {argOpts: "tSG", longArgs: []string{"target", "setuid", "setgid"}},
		"prlimit":          {argOpts: "p", longArgs: []string{"pid"}},
		"cgexec":           {argOpts: "g"},
		"firejail":         {},
		"unbuffer":         {},
		"caffeinate":       {},
		"eatmydata":        {},
		"fakeroot":         {},
		"chronic":          {},
		"nocache":          {},
		"torsocks":         {},
		"proxychains":      {argOpts: "f"},
		"proxychains4":     {argOpts: "f"},
		"xvfb-run":         {argOpts: "nfespw"},
		"dbus-run-session": {},
		"systemd-run":      {argOpts: "pEMu", longArgs: []string{"property", "setenv", "unit", "uid", "gid", "description", "slice", "working-directory", "machine", "nice"}},
		"faketime":         {argOpts: "", operands: 1},
		"flock":            {argOpts: "wE", longArgs: []string{"timeout", "conflict-exit-code"}, operands: 1, script: "c", longScr: "command"},
		"su":               {argOpts: "gGsw", longArgs: []string{"group", "supp-group", "shell", "whitelist-environment"}, script: "c", longScr: "command", operands: -1},
		"runuser":          {argOpts: "ugGsw", longArgs: []string{"user", "group", "supp-group", "shell", "whitelist-environment"}, script: "c", longScr: "command", operands: -1},
		"sg":               {script: "c", operands: -1},
		"script":           {argOpts: "EIOBTm", longArgs: []string{"echo", "log-in", "log-out", "log-io", "log-timing", "logging-format"}, script: "c", longScr: "command", operands: -1},
		"watch":            {argOpts: "nqd", longArgs: []string{"interval", "chgexit"}, operands: -2},
		"xargs":            {argOpts: "IaLndPsE", longArgs: []string{"arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}},
		"busybox":          {},
		"rlwrap":           {argOpts: "aAbCcDefFgHlmNoOpPqrRsStvwWz"},
		"catchsegv":        {},
		"dbus-launch":      {},
		"chpst":            {argOpts: "ugUeblmdoptcfn"},
		"daemonize":        {argOpts: "aceEolpuv"},
		"sshpass":          {argOpts: "pfde"},
		"proot":            {argOpts: "rbwqkR", longArgs: []string{"rootfs", "bind", "cwd"}},
		"toybox":           {},
		"bwrap": {longArgs: []string{"args", "argv0", "userns", "userns2", "pidns", "uid", "gid", "hostname", "chdir", "unsetenv",
			"lock-file", "sync-fd", "remount-ro", "exec-label", "file-label", "proc", "dev", "tmpfs", "mqueue", "dir", "seccomp",
			"add-seccomp-fd", "block-fd", "userns-block-fd", "info-fd", "json-status-fd", "cap-add", "cap-drop", "perms", "size",
			"overlay-src", "tmp-overlay", "ro-overlay"},
			longN: map[string]int{"setenv": 2, "bind": 2, "bind-try": 2, "dev-bind": 2, "dev-bind-try": 2, "ro-bind": 2,
				"ro-bind-try": 2, "file": 2, "bind-data": 2, "ro-bind-data": 2, "symlink": 2, "chmod": 2, "overlay": 3}},
		"flatpak-spawn": {},
		// A fourth red team's: architecture, session, privilege and init wrappers.
		"setarch":             {argOpts: "", operands: 1},
		"linux32":             {},
		"linux64":             {},
		"ssh-agent":           {argOpts: "aEPt"},
		"systemd-inhibit":     {longArgs: []string{"what", "who", "why", "mode"}},
		"setpriv":             {},
		"gosu":                {operands: 1},
		"su-exec":             {operands: 1},
		"tini":                {argOpts: "pe"},
		"dumb-init":           {},
		"dotenv":              {argOpts: "fvce"},
		"distrobox-host-exec": {},
		"runcon":              {argOpts: "turl", operands: 1},
		"catatonit":           {},
		"entr":                {argOpts: "s"},
	}
})

// shells run a script given with -c, a script file, or their standard input.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"ash": true, "yash": true, "posh": true, "fish": true, "rbash": true, "csh": true, "tcsh": true,
	"nu": true, "elvish": true, "xonsh": true, "busybox-sh": true,
}

// unwrap reports the command a wrapper runs, recursively (sudo env nohup rm ...).
func (z *analyzer) unwrap(argv []word, proto SimpleCommand, stdin *word) {
	name := base(argv[0].s)
	if procExe().MatchString(argv[0].s) {
		name = "bash" // /proc/self/exe is the shell running the line
	}
	args := argv[1:]
	inner := proto
	inner.Context = "wrapper:" + name
	if name == "strace" || name == "ltrace" {
		// -o |CMD and -o !CMD pipe the trace into a shell command (red team).
		for k, a := range args {
			v := ""
			if (a.s == "-o" || a.s == "--output") && k+1 < len(args) {
				v = args[k+1].s
			} else if after, ok := strings.CutPrefix(a.s, "--output="); ok {
				v = after
			}
			if strings.HasPrefix(v, "|") || strings.HasPrefix(v, "!") {
				z.script(word{s: v[1:], known: args[min(k+1, len(args)-1)].known}, name+" -o", proto)
			}
		}
	}
	if z.builtinRunners(name, args, inner, proto, stdin) || z.embedded(name, args, proto, stdin) || z.runners(name, args, inner, proto, stdin) {
		return
	}
	if spec, ok := wrappers()[name]; ok {
		z.wrapped(name, args, spec, inner, proto, stdin)
	}
}

// builtinRunners analyses what shells, eval, ssh, git, source, interpreters' one-liners,
// mapfile, trap, alias and find run; true when name is one of them.
func (z *analyzer) builtinRunners(name string, args []word, inner, proto SimpleCommand, stdin *word) bool {
	switch {
	case shells[name]:
		z.shell(name, args, proto, stdin)
	case name == "eval":
		if len(args) > 0 && args[0].s == "--" {
			args = args[1:] // eval -- 'cmd'
		}
		z.script(join(args), "eval", proto)
	case name == "ssh":
		// ssh HOST COMMAND...: the command runs on HOST (localhost is this machine),
		// joined into one line as sshd hands it to the remote shell; -o ProxyCommand
		// runs here.
		z.runners(name, args, inner, proto, stdin)
		if rest := sshCommand(args); len(rest) > 0 {
			if rest[0].s == "--" {
				rest = rest[1:]
			}
			z.script(join(rest), "ssh", proto)
		}
	case name == "git":
		z.gitConfigCommands(args, proto)
		z.gitEnvConfig(proto)
		z.gitRuns(args, proto)
	case name == "source" || name == ".":
		z.sourced(name, args, proto, stdin)
	case codeRunners[name] || strings.HasPrefix(name, "python") || strings.HasPrefix(name, "lua5"):
		z.oneLiner(name, args, proto, stdin)
	case name == "mapfile" || name == "readarray":
		// mapfile -C CALLBACK runs CALLBACK every -c lines.
		for k, a := range args {
			if a.s == "-C" && k+1 < len(args) {
				z.script(args[k+1], name+" -C", proto)
			}
		}
	case name == "trap":
		if len(args) > 0 && args[0].s == "--" {
			args = args[1:]
		}
		if len(args) > 0 && args[0].s != "-" && !strings.HasPrefix(args[0].s, "-") {
			z.script(args[0], "trap", proto)
			if !z.lateCheck {
				z.traps = append(z.traps, args[0]) // analysed again at the end (late)
			}
		}
	case name == "alias":
		z.alias(args, proto)
	case name == "cmake" && len(args) > 1 && args[0].s == "-E":
		z.cmakeTool(args[1:], inner, proto, stdin)
	case name == "install" && slices.ContainsFunc(args, func(a word) bool { return a.s == "-d" || a.s == "--directory" }):
		// install -d -m MODE DIR sets DIR's mode as chmod would.
		for k, a := range args {
			if (a.s == "-m" || a.s == "--mode") && k+1 < len(args) {
				var dirs []word
				for _, d := range args {
					if !strings.HasPrefix(d.s, "-") && d.s != args[k+1].s {
						dirs = append(dirs, d)
					}
				}
				z.command(append([]word{{s: "chmod", known: true}, args[k+1]}, dirs...), inner, nil)
			}
		}
		return false
	case name == "capsh":
		// capsh ... -- ARGS runs bash ARGS.
		for k, a := range args {
			if a.s == "--" {
				z.shell("bash", args[k+1:], proto, stdin)
				break
			}
		}
	case name == "compgen" || name == "complete":
		// compgen -C CMD runs CMD to generate completions.
		for k, a := range args {
			if a.s == "-C" && k+1 < len(args) {
				z.script(args[k+1], name+" -C", proto)
			}
			if a.s == "-W" && k+1 < len(args) {
				z.evaluated([]word{args[k+1]}, "compgen -W expands its word list, here") // its $(...) runs
			}
		}
	case name == "find" || name == "gfind" || name == "fd" || name == "fdfind":
		z.findExec(name, args, proto)
	default:
		return false
	}
	return true
}

// gitConfigCommands analyses git -c core.pager=CMD (and the other keys that name a
// command, and alias.X=!CMD): git runs CMD.
func (z *analyzer) gitConfigCommands(args []word, proto SimpleCommand) {
	for k := 0; k+1 < len(args); k++ {
		kv, known := "", args[k].known
		switch {
		case args[k].s == "-c":
			kv, known = args[k+1].s, args[k+1].known
			k++
		case args[k].s == "--config-env":
			// --config-env KEY=VAR: KEY takes the value of $VAR (seventh red team:
			// X='rm f' git --config-env=core.fsmonitor=X status ran rm).
			kv, known = z.configEnv(args[k+1], proto)
			k++
		case strings.HasPrefix(args[k].s, "--config-env="):
			kv, known = z.configEnv(word{s: args[k].s[len("--config-env="):], known: args[k].known}, proto)
		case args[k].s == "-C" || args[k].s == "--git-dir" || args[k].s == "--work-tree" || args[k].s == "--namespace":
			k++
			continue
		case strings.HasPrefix(args[k].s, "-c"):
			kv = args[k].s[2:]
		default:
			if !strings.HasPrefix(args[k].s, "-") {
				return // the subcommand: its own -c is not git's
			}
			continue
		}
		if key, val, ok := strings.Cut(kv, "="); ok {
			z.gitConfigValue(key, val, known, "git -c ", proto)
		}
	}
}

// gitConfigValue analyses one configuration value git is given on the line (by -c,
// --config-env or the environment): the command it runs, where the key names one.
func (z *analyzer) gitConfigValue(key, val string, known bool, how string, proto SimpleCommand) {
	key = strings.ToLower(key)
	switch {
	case gitCommandKey(key) || strings.HasPrefix(key, "alias.") && strings.HasPrefix(val, "!"):
		z.script(word{s: strings.TrimPrefix(val, "!"), known: known}, how+key, proto)
	case key == "core.hookspath" && val != "" && val != "/dev/null":
		z.unknown(how + "core.hooksPath=" + val + " runs the hooks in that folder, which the line does not show")
	case (strings.HasSuffix(key, ".url") || strings.HasSuffix(key, ".pushurl") || strings.HasSuffix(key, ".insteadof") ||
		strings.HasSuffix(key, ".pushinsteadof")) && strings.HasPrefix(strings.ToLower(val), "ext::"):
		// A remote whose URL is ext::CMD runs CMD on fetch (the thirteenth red team).
		z.command(extArgv(val[len("ext::"):], known), proto, nil)
	case strings.HasPrefix(key, "url.") && strings.Contains(key, "ext::"):
		// url.ext::CMD.insteadOf=https://: the URL git is given becomes ext::CMD.
		base := strings.TrimPrefix(key, "url.")
		base = base[:strings.LastIndexByte(base, '.')]
		if cmd, ok := strings.CutPrefix(base[strings.Index(base, "ext::"):], "ext::"); ok {
			z.command(extArgv(cmd, known), proto, nil)
		}
	case key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path"):
		z.unknown(how + key + "=" + val + " loads a config file whose commands the line does not show")
	case key == "init.templatedir" && val != "" && how != "git -c ":
		// git -c init.templateDir is a write of .git/hooks (gitRepoWrites), which asks;
		// from the environment it is not seen there.
		z.unknown(how + "init.templateDir=" + val + " copies that folder's hooks into .git/hooks, which the line does not show")
	}
}

// gitEnvConfig analyses the configuration git takes from its environment:
// GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n, and
// GIT_CONFIG_PARAMETERS (what git -c passes to the gits it runs). The thirteenth red
// team set core.fsmonitor to rm -rf ~ that way, where the -c spelling was refused.
func (z *analyzer) gitEnvConfig(proto SimpleCommand) {
	for _, e := range proto.Env {
		// A config file or git's own programs from elsewhere: what they run is not on
		// the line (the fifteenth red team wrote a config and pointed git at it).
		n, v, _ := strings.Cut(e, "=")
		switch n {
		case "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG":
			if v != "/dev/null" && v != "" {
				z.unknown(n + "=" + v + " makes git read a config file whose commands the line does not show; use GIT_CONFIG_GLOBAL=/dev/null or git -c")
			}
		case "GIT_EXEC_PATH":
			z.unknown("GIT_EXEC_PATH=" + v + " makes git run its subcommands from another folder")
		}
	}
	get := func(name string) (val string, known, set bool) {
		_, onLine := z.vars[name]
		if !onLine && !slices.ContainsFunc(proto.Env, func(e string) bool { return strings.HasPrefix(e, name+"=") }) {
			if z.ctx.Getenv == nil {
				return "", true, false
			}
			if _, inEnv := z.ctx.Getenv(name); !inEnv {
				return "", true, false
			}
		}
		kv, known := z.configEnv(word{s: "k=" + name, known: true}, proto)
		return strings.TrimPrefix(kv, "k="), known, true
	}
	if n, known, set := get("GIT_CONFIG_COUNT"); set {
		count, err := strconv.Atoi(strings.TrimSpace(n))
		if !known || err != nil || count > 100 {
			z.unknown("GIT_CONFIG_COUNT=" + n + " gives git configuration the line does not show")
			count = 0
		}
		for i := 0; i < count; i++ {
			k, kk, _ := get("GIT_CONFIG_KEY_" + strconv.Itoa(i))
			v, vk, _ := get("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
			if !kk {
				z.unknown("a GIT_CONFIG_KEY_n the line does not show")
				continue
			}
			z.gitConfigValue(k, v, vk, "GIT_CONFIG_KEY_"+strconv.Itoa(i)+"=", proto)
		}
	}
	if ps, known, set := get("GIT_CONFIG_PARAMETERS"); set && ps != "" {
		pairs, err := shlex.Split(ps)
		if !known || err != nil {
			z.unknown("GIT_CONFIG_PARAMETERS gives git configuration the line does not show")
			return
		}
		for _, kv := range pairs {
			if k, v, ok := strings.Cut(kv, "="); ok {
				z.gitConfigValue(k, v, true, "GIT_CONFIG_PARAMETERS ", proto)
			}
		}
	}
}

// configEnv turns git's --config-env KEY=VAR into KEY=VALUE, VALUE what $VAR holds for
// the command (its own X=... first); known is false where that cannot be known.
func (z *analyzer) configEnv(w word, proto SimpleCommand) (string, bool) {
	key, name, ok := strings.Cut(w.s, "=")
	if !ok || !w.known {
		return w.s, false
	}
	for _, e := range proto.Env {
		if n, v, ok := strings.Cut(e, "="); n == name {
			return key + "=" + v, ok
		}
	}
	if vals, ok := z.value(name); ok && len(vals) == 1 && vals[0].known {
		return key + "=" + vals[0].s, true
	}
	return key + "=", false
}

// alias analyses the commands alias NAME=VALUE defines, and records them for the rest
// of the line (a value ending in a blank makes the next word an alias too).
func (z *analyzer) alias(args []word, proto SimpleCommand) {
	for _, a := range args {
		i := strings.IndexByte(a.s, '=')
		if i <= 0 {
			continue
		}
		z.script(word{s: a.s[i+1:], known: a.known}, "alias", proto)
		var words []word
		for _, f := range strings.Fields(a.s[i+1:]) {
			words = append(words, word{s: f, known: a.known})
		}
		if len(words) == 0 {
			continue
		}
		if z.aliases == nil {
			z.aliases = map[string][]word{}
		}
		z.aliases[a.s[:i]] = words
		if strings.HasSuffix(a.s, " ") || strings.HasSuffix(a.s, "\t") {
			if z.aliasSpace == nil {
				z.aliasSpace = map[string]bool{}
			}
			z.aliasSpace[a.s[:i]] = true
		}
	}
}

// wrapped analyses the command a wrapper of the wrappers table runs: after its options
// (a script option runs a script instead), NAME=VALUE words and fixed operands.
func (z *analyzer) wrapped(name string, args []word, spec wrapSpec, inner, proto SimpleCommand, stdin *word) {
	i, done := z.wrapperOptions(name, args, spec, &inner, proto)
	if done {
		return
	}
	opts, rest := args[:min(i, len(args))], args[min(i, len(args)):]
	if (name == "sudo" || name == "doas") && slices.ContainsFunc(opts, func(a word) bool {
		return a.s == "-s" || a.s == "-i" || a.s == "--shell" || a.s == "--login"
	}) {
		if len(rest) > 0 {
			// sudo -s CMD: the shell runs CMD with its words escaped; sudo versions
			// differ, so it is judged both as those words and as one line.
			z.command(rest, inner, stdin)
			z.script(join(rest), name, proto)
		} else {
			z.shell("bash", nil, proto, stdin) // sudo -s: a shell reading standard input
		}
		return
	}
	z.wrapperDir(name, opts, &inner)
	if name == "env" {
		inner.Env = append(slices.Clip(inner.Env), envUnsets(opts)...)
	}
	// exec replaces the shell that holds a calling agentbox's pins, so an environment
	// cleared on the way (exec -c, exec env -i) leaves an agentbox it runs none to find:
	// decided as changing them.
	if name == "exec" && slices.ContainsFunc(opts, func(a word) bool {
		return a.s == "-c" || strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "c") && !strings.HasPrefix(a.s, "--")
	}) ||
		name == "env" && proto.Context == "wrapper:exec" && slices.ContainsFunc(opts, func(a word) bool { return a.s == "-i" || a.s == "--ignore-environment" || a.s == "-" }) {
		inner.Env = append(slices.Clip(inner.Env), "AGENTBOX_MODE_CEILING")
	}
	if name == "flock" && len(rest) > spec.operands && (rest[spec.operands].s == "-c" || rest[spec.operands].s == "--command") {
		// flock FILE -c COMMAND: the option may follow the lock file.
		if spec.operands+1 < len(rest) {
			z.script(rest[spec.operands+1], name, proto)
		}
		return
	}
	switch spec.operands {
	case -1: // su user [-c cmd]: nothing to run but a login shell unless -c comes later
		z.loginCommand(name, opts, rest, inner, proto, stdin)
		return
	case -2: // watch joins its operands into a sh -c script
		z.script(join(rest), name, proto)
		return
	default:
		rest = rest[min(spec.operands, len(rest)):]
	}
	if name == "xargs" {
		z.xargs(args, rest, inner, stdin)
		return
	}
	if len(rest) > 0 {
		z.command(rest, inner, stdin)
	}
}

// wrapperOptions skips a wrapper's options and NAME=VALUE words (added to inner's
// environment) and returns the index of its first operand; done when an option ran a
// script (su -c CMD, env -S 'CMD') and nothing is left to analyse.
func (z *analyzer) wrapperOptions(name string, args []word, spec wrapSpec, inner *SimpleCommand, proto SimpleCommand) (int, bool) {
	i := 0
	for i < len(args) {
		a := args[i]
		s := a.s
		if !a.known && strings.HasPrefix(s, "-") {
			z.unknown(name + " has options or a script computed at run time")
		}
		if s == "--" {
			return i + 1, false
		}
		if spec.assigns && isAssign(s) {
			entry := s
			if !a.known {
				entry, _, _ = strings.Cut(s, "=")
			}
			inner.Env = append(slices.Clip(inner.Env), entry)
			i++
			continue
		}
		if strings.HasPrefix(s, "--") && len(s) > 2 {
			opt, val, hasVal := strings.Cut(s[2:], "=")
			if spec.longScr != "" && opt == spec.longScr {
				if hasVal {
					z.script(word{s: val, known: a.known}, name, proto)
				} else if i+1 < len(args) {
					z.script(args[i+1], name, proto)
				}
				return i, true
			}
			if name == "env" && opt == "split-string" {
				z.envSplit(val, hasVal, args[i+1:], a.known, proto)
				return i, true
			}
			i++
			if !hasVal && contains(spec.longArgs, opt) {
				i++
			}
			if !hasVal {
				i += spec.longN[opt]
			}
			continue
		}
		if len(s) < 2 || s[0] != '-' {
			return i, false
		}
		i++
		for j := 1; j < len(s); j++ {
			c := s[j]
			if spec.script != "" && c == spec.script[0] {
				if j+1 < len(s) {
					z.script(word{s: s[j+1:], known: a.known}, name, proto)
				} else if i < len(args) {
					z.script(args[i], name, proto)
				}
				return i, true
			}
			if name == "env" && c == 'S' {
				z.envSplit(s[j+1:], j+1 < len(s), args[i:], a.known, proto)
				return i, true
			}
			if strings.IndexByte(spec.argOpts, c) >= 0 {
				if j == len(s)-1 {
					i++ // the argument is the next word
				}
				break
			}
		}
	}
	return i, false
}

// wrapperDir sets where the wrapped command runs: env -C DIR, sudo -D DIR, --chdir,
// --working-directory, flatpak-spawn --directory.
func (z *analyzer) wrapperDir(name string, opts []word, inner *SimpleCommand) {
	for k := 0; k < len(opts); k++ {
		a, dir, found := opts[k].s, "", false
		switch {
		case (name == "env" && a == "-C" || (name == "sudo" || name == "run0") && a == "-D") && k+1 < len(opts):
			dir, found = opts[k+1].s, opts[k+1].known
			if !opts[k+1].known {
				inner.Dir, inner.DirUnknown = "", true
			}
		case strings.HasPrefix(a, "--chdir=") || strings.HasPrefix(a, "--working-directory=") || name == "flatpak-spawn" && strings.HasPrefix(a, "--directory="):
			_, dir, _ = strings.Cut(a, "=")
			found = opts[k].known
		case (a == "--chdir" || a == "--working-directory") && k+1 < len(opts):
			dir, found = opts[k+1].s, opts[k+1].known
		}
		if found {
			if inner.Dir = z.resolve(dir); inner.Dir == "" {
				inner.DirUnknown = true
			}
		}
	}
}

// loginCommand analyses what su, runuser and sg run: a -c script among the operands,
// runuser -u USER COMMAND, sg GROUP 'CMD'; else a login shell, which runs nothing the
// line shows.
func (z *analyzer) loginCommand(name string, opts, rest []word, inner, proto SimpleCommand, stdin *word) {
	if name == "runuser" && slices.ContainsFunc(opts, func(a word) bool {
		return a.s == "-u" || a.s == "--user" || strings.HasPrefix(a.s, "--user=") || strings.HasPrefix(a.s, "-u") && len(a.s) > 2
	}) {
		z.command(rest, inner, stdin) // runuser -u USER COMMAND runs COMMAND, as sudo does
		return
	}
	for k, a := range rest {
		if (a.s == "-c" || a.s == "--command") && k+1 < len(rest) {
			z.script(rest[k+1], name, proto)
		} else if v, ok := strings.CutPrefix(a.s, "--command="); ok {
			z.script(word{s: v, known: a.known}, name, proto)
		}
	}
	if name == "sg" && len(rest) >= 2 && !strings.HasPrefix(rest[1].s, "-") {
		z.script(join(rest[1:]), name, proto) // sg GROUP 'CMD'
	}
	if stdin != nil && !slices.ContainsFunc(rest, func(a word) bool { return a.s == "-c" || strings.HasPrefix(a.s, "--command") }) {
		z.shell("sh", nil, proto, stdin) // su with no command: a login shell reading standard input
	}
}

// xargs analyses the command xargs runs with what it reads: the lines or words the
// feed prints when the line shows them, else an operand that cannot be known, which
// the watchdog judges as the worst it could be (echo / | xargs rm -rf).
func (z *analyzer) xargs(args, rest []word, inner SimpleCommand, stdin *word) {
	for i, a := range args {
		// xargs -a FILE reads its input from FILE, not stdin.
		var file *word
		switch {
		case (a.s == "-a" || a.s == "--arg-file") && i+1 < len(args):
			file = &args[i+1]
		case strings.HasPrefix(a.s, "--arg-file="):
			file = &word{s: a.s[len("--arg-file="):], known: a.known}
		case strings.HasPrefix(a.s, "-a") && len(a.s) > 2 && !strings.HasPrefix(a.s, "--"):
			file = &word{s: a.s[2:], known: a.known}
		}
		if file != nil {
			stdin = &word{} // a file's text is not known here
			if file.known {
				if text, ok := z.written[z.writtenKey(file.s)]; ok {
					stdin = &text
				}
			}
		}
	}
	if len(rest) == 0 {
		z.command([]word{{s: "echo", known: true}}, inner, nil)
		return
	}
	if repl, ok := xargsReplace(args); ok {
		// xargs -I{} puts each input line where {} stands.
		var lines []string
		if stdin != nil && stdin.known {
			lines = strings.Split(strings.TrimRight(stdin.s, "\n"), "\n")
		}
		if len(lines) == 0 {
			lines = []string{""}
		}
		for _, line := range lines[:min(len(lines), maxBraces)] {
			one := make([]word, len(rest))
			for k, a := range rest {
				one[k] = a
				if i := strings.Index(a.s, repl); i >= 0 {
					if stdin != nil && stdin.known {
						one[k] = word{s: strings.ReplaceAll(a.s, repl, line), known: a.known}
					} else {
						one[k] = word{s: a.s[:i]} // known up to the replaced part
					}
				}
			}
			z.command(one, inner, stdin)
		}
		return
	}
	if !slices.ContainsFunc(args, func(a word) bool {
		return strings.HasPrefix(a.s, "-I") || strings.HasPrefix(a.s, "--replace") || a.s == "-i"
	}) {
		if stdin != nil && stdin.known {
			for _, f := range strings.Fields(stdin.s) {
				rest = append(rest, word{s: f, known: true})
			}
		} else {
			rest = append(rest, word{})
		}
	}
	z.command(rest, inner, stdin)
}

// scriptOptions are options whose value is a shell command the tool runs: nodemon
// --exec CMD, rsync -e CMD, tar --to-command=CMD, ssh -o ProxyCommand=CMD, man -P CMD,
// zip -TT CMD, entr -s CMD, npx -c CMD, nix-shell --run CMD (vim's -c is an ex command:
// see exCommand).
var scriptOptions = map[string][]string{
	"nodemon": {"--exec", "-x"}, "entr": {"-s"}, "npx": {"-c", "--call"}, "nix-shell": {"--run", "--command"},
	"rsync": {"-e", "--rsh", "--rsync-path"}, "tar": {"--to-command", "--checkpoint-action=exec", "-I", "--use-compress-program", "--info-script", "-F", "--new-volume-script", "--rsh-command"},
	"sort": {"--compress-program"},
	// An eleventh red team's: split --filter, dpkg's and aria2c's hooks, ncat's shells.
	"split": {"--filter"}, "dpkg": {"--pre-invoke", "--post-invoke"},
	"aria2c": {"--on-download-complete", "--on-download-error", "--on-download-start", "--on-download-pause", "--on-download-stop", "--on-bt-download-complete"},
	"ncat":   {"--sh-exec", "-c", "--lua-exec"}, "nc": {"-c", "--sh-exec"}, "git-instaweb": {"--browser", "-b"},
	"bsdtar": {"--use-compress-program"}, "zip": {"-TT", "--unzip-command"}, "man": {"-P", "--pager", "-H", "--html"},
	"bat": {"--pager"}, "delta": {"--pager"}, "rg": {"--pre"}, "ripgrep": {"--pre"},
	"ssh": {"-oProxyCommand", "-oLocalCommand", "-oKnownHostsCommand"}, "scp": {"-S", "-oProxyCommand"},
	"sftp": {"-S", "-D", "-oProxyCommand"}, "watchexec": {"-s", "--shell"},
	"fzf":            {"--preview", "--bind"},
	"nc.traditional": {"-c"}, "netcat": {"-c"},
}

// sshOption is the value of the ssh_config option key in an -o argument ("Key=Value",
// "Key Value", "KEY = Value": ssh reads the key in any case).
func sshOption(arg, key string) (string, bool) {
	arg = strings.TrimLeft(arg, " \t") // ssh skips blanks before the key (the fifteenth red team)
	if len(arg) < len(key) || !strings.EqualFold(arg[:len(key)], key) {
		return "", false
	}
	rest := arg[len(key):]
	trimmed := strings.TrimLeft(rest, " \t")
	if v, ok := strings.CutPrefix(trimmed, "="); ok {
		return strings.TrimLeft(v, " \t"), true
	}
	if trimmed != rest {
		return trimmed, true // a blank, no "="
	}
	return "", false
}

// moreRunners covers an eleventh red team's programs that run a command the line
// names: logsave LOG CMD, lckdo LOCK CMD, ifne CMD, ccache CMD, distcc CMD, perf
// stat|record|trace CMD, hyperfine 'CMD'..., pee and mispipe 'CMD'..., npm exec -c,
// go run|test -exec PROG and build -toolexec PROG, gcc -wrapper PROG,ARGS, apt-get -o
// ...::Pre-Invoke::=CMD, socat EXEC:/SYSTEM: addresses, lftp and dc's !CMD, and
// run-parts, whose scripts the line does not show.
func (z *analyzer) moreRunners(name string, args []word, inner, proto SimpleCommand, stdin *word) bool {
	operands := func(from int, valueOpts string) []word {
		for k := from; k < len(args); k++ {
			a := args[k].s
			switch {
			case a == "--":
				return args[k+1:]
			case len(a) == 2 && a[0] == '-' && strings.IndexByte(valueOpts, a[1]) >= 0:
				k++
			case strings.HasPrefix(a, "-"):
			default:
				return args[k:]
			}
		}
		return nil
	}
	switch name {
	case "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd":
		// nc -e PROG serves PROG to the network: a shell there runs what the other end
		// sends (the thirteenth red team: nc -e /bin/sh host port).
		for k, a := range args {
			if (a.s == "-e" || a.s == "--exec") && k+1 < len(args) {
				z.command([]word{args[k+1]}, inner, &word{})
			} else if v, ok := strings.CutPrefix(a.s, "--exec="); ok {
				z.command([]word{{s: v, known: a.known}}, inner, &word{})
			}
		}
		return false
	case "cargo":
		// cargo --config 'target.T.runner=[...]' (or a build wrapper, a linker) runs
		// that command with what it builds (the thirteenth red team).
		for k, a := range args {
			v, ok := "", false
			if a.s == "--config" && k+1 < len(args) {
				v, ok = args[k+1].s, args[k+1].known
			} else if after, found := strings.CutPrefix(a.s, "--config="); found {
				v, ok = after, a.known
			} else {
				continue
			}
			key, val, isKV := strings.Cut(v, "=")
			key = strings.ToLower(strings.TrimSpace(key))
			if !isKV || !(strings.HasSuffix(key, ".runner") || strings.Contains(key, "rustc-wrapper") ||
				strings.Contains(key, "rustc-workspace-wrapper") || strings.HasSuffix(key, ".linker") || key == "build.rustc") {
				continue
			}
			val = strings.TrimSpace(val)
			switch {
			case !ok:
				z.unknown("cargo --config " + key + " names a command the line does not show")
			case strings.HasPrefix(val, "["):
				if argv := literals(val); len(argv) > 0 {
					z.command(argv, inner, nil)
				}
			default:
				z.script(word{s: strings.Trim(val, `"'`), known: true}, "cargo --config "+key, proto)
			}
		}
		return false
	case "ctest":
		// ctest --build-and-test ... --test-command CMD ARGS... runs CMD.
		for k, a := range args {
			if a.s == "--test-command" && k+1 < len(args) {
				z.command(args[k+1:], inner, stdin)
				return true
			}
		}
		return false
	case "dtach":
		// dtach -n SOCKET [options] CMD...: runs CMD.
		for k := 0; k < len(args); k++ {
			if a := args[k].s; (a == "-n" || a == "-c" || a == "-A" || a == "-N") && k+1 < len(args) {
				rest := args[k+2:]
				for len(rest) > 0 && strings.HasPrefix(rest[0].s, "-") {
					if (rest[0].s == "-e" || rest[0].s == "-r") && len(rest) > 1 {
						rest = rest[1:]
					}
					rest = rest[1:]
				}
				if len(rest) > 0 {
					z.command(rest, inner, stdin)
				}
				return true
			}
		}
		return false
	case "npx", "bunx", "pnpx":
		// npx CMD ARGS runs CMD, a package's or one on PATH (npx rm -rf ~ ran rm).
		if slices.ContainsFunc(args, func(a word) bool { return a.s == "-c" || a.s == "--call" || strings.HasPrefix(a.s, "--call=") }) {
			return false // -c is scriptOptions'
		}
		if rest := operands(0, "p"); len(rest) > 0 {
			z.command(rest, inner, stdin)
		}
		return true
	case "rustup", "pyenv", "rbenv", "nodenv", "goenv", "plenv", "jenv", "asdf":
		// rustup run TOOLCHAIN CMD, pyenv exec CMD, asdf exec CMD.
		for k, a := range args {
			if a.s == "run" && name == "rustup" && k+2 < len(args) {
				z.command(args[k+2:], inner, stdin)
				return true
			}
			if a.s == "exec" && name != "rustup" && k+1 < len(args) {
				z.command(args[k+1:], inner, stdin)
				return true
			}
		}
		return false
	case "gdb", "cgdb", "lldb":
		// gdb runs the program it is given (file, run, exec-wrapper, set args, call
		// system()) and the command files it reads: what it runs is not followed.
		for k, a := range args {
			if (a.s == "-x" || a.s == "-ex" || a.s == "--ex" || a.s == "-eval-command" || a.s == "--eval-command" || a.s == "-o" || a.s == "--one-line" || a.s == "-s" || a.s == "--source") && k+1 < len(args) {
				v := strings.TrimSpace(args[k+1].s)
				if a.s == "-x" || a.s == "--source" || gdbRuns().MatchString(v) || !args[k+1].known {
					z.unknown(name + " runs a program or commands the line does not spell out (file, call, exec-wrapper, a command file); ask the user to allow this exact line")
					return false
				}
			}
		}
		// The program it debugs runs, with arguments set args may give it.
		for k := 0; k < len(args); k++ {
			a := args[k]
			switch {
			case a.s == "--args" || a.s == "--":
				return false // argvOptions has gdb --args
			case slices.Contains([]string{"-x", "-ex", "--ex", "-eval-command", "-o", "-s", "-p", "--pid", "-c", "--core", "-cd", "-d", "-b", "-i", "--interpreter", "-tty", "-iex"}, a.s):
				k++
			case strings.HasPrefix(a.s, "-"):
			default:
				z.command([]word{a, {}}, inner, nil)
				return false
			}
		}
		return false
	case "logsave", "lckdo":
		if rest := operands(0, ""); len(rest) > 1 {
			z.command(rest[1:], inner, stdin)
		}
		return true
	case "ifne", "ccache", "distcc":
		if rest := operands(0, ""); len(rest) > 0 {
			z.command(rest, inner, stdin)
		}
		return true
	case "perf":
		if len(args) > 0 && slices.Contains([]string{"stat", "record", "trace", "kvm", "mem", "lock", "sched", "c2c"}, args[0].s) {
			if rest := operands(1, "eoptrxGCIFcmaAdDLSjuk"); len(rest) > 0 {
				z.command(rest, inner, stdin)
			}
		}
		return true
	case "hyperfine":
		for k := 0; k < len(args); k++ {
			a := args[k].s
			switch {
			case (a == "-p" || a == "--prepare" || a == "-c" || a == "--cleanup" || a == "-s" || a == "--setup" || a == "--conclude") && k+1 < len(args):
				z.script(args[k+1], name+" "+a, proto)
				k++
			case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			case strings.HasPrefix(a, "-") && k+1 < len(args) && slices.Contains(hyperfineValueOptions, a):
				if a == "-S" || a == "--shell" {
					z.command([]word{args[k+1]}, inner, nil)
				}
				k++
			case strings.HasPrefix(a, "-"):
			default:
				z.script(args[k], name, proto) // each command it times, run by a shell
			}
		}
		return true
	case "pee", "mispipe":
		for _, a := range operands(0, "") {
			z.script(a, name, proto)
		}
		return true
	case "npm", "pnpm", "yarn":
		if name == "pnpm" && slices.ContainsFunc(args, func(a word) bool { return a.s == "-c" || a.s == "--shell-mode" }) {
			// pnpm -c exec 'CMD', pnpm exec --shell-mode 'CMD': a shell runs CMD (the
			// thirteenth red team).
			if k := slices.IndexFunc(args, func(a word) bool { return a.s == "exec" }); k >= 0 {
				for _, a := range args[k+1:] {
					if !strings.HasPrefix(a.s, "-") {
						z.script(a, name+" exec --shell-mode", proto)
						break
					}
				}
			}
		}
		if len(args) > 1 && (args[0].s == "exec" || args[0].s == "x" || args[0].s == "dlx") {
			for k, a := range args[1:] {
				if (a.s == "-c" || a.s == "--call") && k+2 < len(args) {
					z.script(args[k+2], name+" exec "+a.s, proto)
				} else if v, ok := strings.CutPrefix(a.s, "--call="); ok {
					z.script(word{s: v, known: a.known}, name+" exec --call", proto)
				}
			}
		}
		return false
	case "go":
		// The program runs the built binary with the run's arguments.
		for k, a := range args {
			val, ok := "", false
			switch {
			case (a.s == "-exec" || a.s == "-toolexec" || a.s == "--exec" || a.s == "--toolexec") && k+1 < len(args):
				val, ok = args[k+1].s, args[k+1].known
			case strings.HasPrefix(a.s, "-exec=") || strings.HasPrefix(a.s, "-toolexec="):
				_, val, _ = strings.Cut(a.s, "=")
				ok = a.known
			default:
				continue
			}
			if !ok {
				z.unknown("go -exec runs a program computed at run time")
				continue
			}
			rest := ""
			for _, o := range args[min(k+2, len(args)):] {
				rest += " " + shellQuoteWord(o.s)
			}
			z.script(word{s: val + ` "$(:)"` + rest, known: true}, "go "+a.s, proto)
		}
		return false
	case "gcc", "g++", "cc", "c++", "clang", "clang++":
		for k, a := range args {
			if a.s == "-wrapper" && k+1 < len(args) {
				var argv []word
				for _, f := range strings.Split(args[k+1].s, ",") {
					argv = append(argv, word{s: f, known: args[k+1].known})
				}
				z.command(append(argv, word{}), inner, nil) // the wrapper, then the compiler's own command
			}
		}
		return false
	case "apt-get", "apt":
		for k, a := range args {
			v := ""
			if a.s == "-o" && k+1 < len(args) {
				v = args[k+1].s
			} else if after, ok := strings.CutPrefix(a.s, "-o"); ok && after != "" {
				v = after
			} else if after, ok := strings.CutPrefix(a.s, "--option="); ok {
				v = after
			}
			if key, cmd, ok := strings.Cut(v, "="); ok && strings.Contains(strings.ToLower(key), "invoke") {
				z.script(word{s: cmd, known: true}, name+" -o "+key, proto)
			}
		}
		return false
	case "socat":
		for _, a := range args {
			low := strings.ToLower(a.s)
			for _, p := range []string{"exec:", "system:"} {
				if strings.HasPrefix(low, p) {
					cmd, _, _ := strings.Cut(a.s[len(p):], ",")
					z.script(word{s: cmd, known: a.known}, "socat "+p, proto)
				}
			}
		}
		return true
	case "lftp", "dc":
		for k, a := range args {
			if (a.s == "-c" || a.s == "-e") && k+1 < len(args) {
				for _, part := range strings.Split(args[k+1].s, ";") {
					if t := strings.TrimSpace(part); strings.HasPrefix(t, "!") {
						z.script(word{s: t[1:], known: args[k+1].known}, name+" !", proto)
					}
				}
			}
		}
		return true
	case "run-parts":
		if !slices.ContainsFunc(args, func(a word) bool { return a.s == "--test" || a.s == "--list" }) {
			z.unknown("run-parts runs every program in a folder, which the line does not show")
		}
		return true
	}
	return false
}

// gdbRuns matches gdb commands that start or call a program, or log to a file.
var gdbRuns = lazyRegexp(`^(?:call|p|print|file|exec-file|target|set\s+(?:exec-wrapper|args|logging|history|startup-with-shell)|python|py|pi|shell|!|pipe|\||source|define|eval)\b`)

// hyperfineValueOptions are hyperfine's options that take a value.
var hyperfineValueOptions = []string{"-r", "--runs", "-w", "--warmup", "-m", "--min-runs", "-M", "--max-runs", "-n", "--command-name",
	"-L", "--parameter-list", "-P", "--parameter-scan", "-D", "--parameter-step-size", "-S", "--shell", "-u", "--time-unit",
	"-o", "--output", "--export-json", "--export-csv", "--export-markdown", "--export-asciidoc", "--export-orgmode", "--style",
	"--sort", "-i", "--input"}

// shellQuoteWord quotes s for a shell line, as one word.
func shellQuoteWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./~=:,+-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// argvOptions are options after which the rest of the line is a command the tool
// runs: xterm -e CMD..., gdb --args CMD..., nix develop -c CMD..., watchexec -- CMD.
var argvOptions = map[string][]string{
	"xterm": {"-e"}, "gnome-terminal": {"--"}, "konsole": {"-e"}, "gdb": {"--args"}, "nix": {"-c", "--command"},
	"watchexec": {"--"}, "screen": {"-dm", "-dmS", "-d", "-m"}, "systemd-nspawn": {"--"},
}

// subcommandRunners run the command that follows their subcommand (and its options):
// npm exec -- CMD, uv run CMD, poetry run CMD, bundle exec CMD, conda run -n E CMD.
var subcommandRunners = map[string][]string{
	"npm": {"exec", "x"}, "yarn": {"exec", "dlx"}, "pnpm": {"exec", "dlx"}, "uv": {"run"}, "poetry": {"run"},
	"pipenv": {"run"}, "pdm": {"run"}, "hatch": {"run"}, "conda": {"run"}, "mamba": {"run"}, "micromamba": {"run"},
	"pixi": {"run"}, "bundle": {"exec"}, "toolbox": {"run"}, "direnv": {"exec"}, "docker": {}, "parallel": {},
	"sem": {}, "tmux": {"new", "new-session", "new-window", "split-window", "run-shell", "respawn-pane"},
	"distrobox": {"enter"}, "mise": {"exec", "x"}, "asdf": {"exec"}, "opam": {"exec"}, "stack": {"exec"},
	"devbox": {"run"}, "rye": {"run"}, "podman": {}, "op": {"run"}, "aws-vault": {"exec"}, "machinectl": {"shell"},
}

// runnerValueOptions are the runners' options that take a value.
var runnerValueOptions = map[string]bool{"-n": true, "--name": true, "-p": true, "--prefix": true, "--with": true,
	"--python": true, "-e": true, "--env": true, "--project": true, "-C": true, "--directory": true, "-t": true,
	"-s": true, "-c": true, "-x": true, "-y": true, "-F": true, "-L": true, "--environment": true, "-w": true}

// runners finds the command a task runner, terminal, debugger or package runner runs
// (see scriptOptions, argvOptions, subcommandRunners); true when name is one.
func (z *analyzer) runners(name string, args []word, inner, proto SimpleCommand, stdin *word) bool {
	handled := false
	for _, o := range scriptOptions[name] {
		for k, a := range args {
			val, ok := "", false
			switch {
			case strings.HasPrefix(o, "-o") && len(o) > 2:
				// ssh's -o KEY=VALUE, -oKEY=VALUE: ssh_config takes the key in any
				// case and "KEY VALUE" with a blank too (the thirteenth red team).
				switch {
				case a.s == "-o" && k+1 < len(args):
					val, ok = sshOption(args[k+1].s, o[2:])
				case strings.HasPrefix(a.s, "-o") && len(a.s) > 2:
					val, ok = sshOption(a.s[2:], o[2:])
				}
			case a.s == o && k+1 < len(args):
				val, ok = args[k+1].s, true
			case strings.HasPrefix(a.s, o+"="):
				val, ok = a.s[len(o)+1:], true
			case !strings.HasPrefix(o, "--") && strings.HasPrefix(a.s, o) && len(a.s) > len(o) && !strings.HasPrefix(a.s, "--"):
				val, ok = a.s[len(o):], true // -TTcmd, -ecmd: the value attached
			case strings.HasPrefix(o, "--") && strings.HasPrefix(a.s, "--"):
				// getopt_long takes an unambiguous abbreviation (zip --unzip-comm=CMD,
				// rsync --rs=CMD).
				if n, v, hasVal := strings.Cut(a.s, "="); len(n) >= 4 && n != o && strings.HasPrefix(o, n) {
					if hasVal {
						val, ok = v, true
					} else if k+1 < len(args) {
						val, ok = args[k+1].s, true
					}
				}
			}
			if !ok {
				continue
			}
			handled = true
			z.script(word{s: val, known: true}, name+" "+o, proto)
		}
	}
	if opts, ok := argvOptions[name]; ok {
		for k, a := range args {
			if slices.Contains(opts, a.s) && k+1 < len(args) {
				rest := args[k+1:]
				if name == "screen" && len(rest) > 0 && a.s == "-dmS" {
					rest = rest[1:] // the session name
				}
				for name == "screen" && len(rest) > 0 && strings.HasPrefix(rest[0].s, "-") {
					rest = rest[1:] // screen -d -m CMD
				}
				z.command(rest, inner, stdin)
				return true
			}
		}
	}
	if name == "start-stop-daemon" {
		z.startStopDaemon(args, inner, stdin)
		return true
	}
	if z.moreRunners(name, args, inner, proto, stdin) {
		return true
	}
	subs, ok := subcommandRunners[name]
	if !ok {
		return handled
	}
	switch name {
	case "parallel", "sem":
		z.parallel(name, args, inner, proto, stdin)
		return true
	case "docker", "podman":
		z.container(args, inner)
		return false
	}
	for k, a := range args {
		if !slices.Contains(subs, a.s) {
			if strings.HasPrefix(a.s, "-") {
				continue
			}
			return handled // another subcommand
		}
		rest := args[k+1:]
		i := 0
		for i < len(rest) && strings.HasPrefix(rest[i].s, "-") {
			if rest[i].s == "--" {
				i++
				break
			}
			if runnerValueOptions[rest[i].s] {
				i++
			}
			i++
		}
		if (name == "direnv" || name == "aws-vault" || name == "machinectl") && i < len(rest) {
			i++ // direnv exec DIR CMD, aws-vault exec PROFILE -- CMD, machinectl shell HOST CMD
			if i < len(rest) && rest[i].s == "--" {
				i++
			}
		}
		if name == "tmux" {
			// tmux new -d 'CMD': the last operand is a shell command.
			if len(rest) > 0 && !strings.HasPrefix(rest[len(rest)-1].s, "-") {
				z.script(rest[len(rest)-1], "tmux", proto)
			}
			return true
		}
		if i < len(rest) {
			z.command(rest[i:], inner, stdin)
		}
		return true
	}
	return handled
}

// cmakeTool analyses cmake -E: its portable commands are rm, cp, mv, ln and tar by
// other names, and env and chdir run a command.
func (z *analyzer) cmakeTool(args []word, inner, proto SimpleCommand, stdin *word) {
	w := func(s string) word { return word{s: s, known: true} }
	rest := args[1:]
	switch args[0].s {
	case "rm":
		z.command(append([]word{w("rm")}, rest...), inner, nil)
	case "remove_directory":
		z.command(append([]word{w("rm"), w("-rf")}, rest...), inner, nil)
	case "remove":
		z.command(append([]word{w("rm"), w("-f")}, rest...), inner, nil)
	case "copy", "copy_if_different":
		z.command(append([]word{w("cp")}, rest...), inner, nil)
	case "copy_directory", "copy_directory_if_different":
		z.command(append([]word{w("cp"), w("-r")}, rest...), inner, nil)
	case "rename":
		z.command(append([]word{w("mv")}, rest...), inner, nil)
	case "create_symlink", "create_hardlink":
		z.command(append([]word{w("ln"), w("-s")}, rest...), inner, nil)
	case "tar":
		z.command(append([]word{w("tar")}, rest...), inner, nil)
	case "touch", "touch_nocreate":
		z.command(append([]word{w("touch")}, rest...), inner, nil)
	case "env":
		z.unwrap(append([]word{w("env")}, rest...), proto, stdin)
	case "time":
		// cmake -E time CMD... runs CMD (the thirteenth red team).
		if len(rest) > 0 {
			z.command(rest, inner, stdin)
		}
	case "chdir":
		if len(rest) > 1 {
			in := inner
			if in.Dir = z.resolve(rest[0].s); in.Dir == "" || !rest[0].known {
				in.DirUnknown = true
			}
			z.command(rest[1:], in, stdin)
		}
	}
}

// containerValueOptions are docker run's and podman run's options that take a value.
var containerValueOptions = map[string]bool{"-v": true, "--volume": true, "--mount": true, "-e": true, "--env": true,
	"--env-file": true, "-w": true, "--workdir": true, "--name": true, "-p": true, "--publish": true, "--network": true,
	"--net": true, "-u": true, "--user": true, "--entrypoint": true, "-l": true, "--label": true, "--platform": true,
	"--pull": true, "--cpus": true, "-m": true, "--memory": true, "--restart": true, "--add-host": true, "--device": true,
	"--cap-add": true, "--cap-drop": true, "--security-opt": true, "--tmpfs": true, "-h": true, "--hostname": true,
	"--gpus": true, "--ipc": true, "--pid": true, "--shm-size": true, "--ulimit": true, "--log-driver": true,
	"--log-opt": true, "--dns": true, "--expose": true, "--label-file": true, "--link": true, "--cidfile": true,
	"--group-add": true, "--runtime": true, "--stop-signal": true, "--sysctl": true, "--userns": true,
	"--volumes-from": true, "-a": true, "--attach": true, "--cpu-shares": true, "-c": true, "--cpuset-cpus": true}

// container analyses docker run and podman run: the command the container runs acts
// on the host's files through its bind mounts, so with each mount's path inside the
// container replaced by the host folder (docker run -v ~:/h alpine rm -rf /h is rm
// -rf ~) it is judged as a command on the host. A command that touches no mount
// acts on the container's own files and is left alone.
func (z *analyzer) container(args []word, inner SimpleCommand) {
	k := 0
	for k < len(args) && strings.HasPrefix(args[k].s, "-") {
		k++ // docker's own options
	}
	if k < len(args) && args[k].s == "container" {
		k++
	}
	if k >= len(args) || args[k].s != "run" && args[k].s != "create" {
		return
	}
	mounts := map[string]string{} // inside -> host
	k++
	for ; k < len(args); k++ {
		a := args[k].s
		if !strings.HasPrefix(a, "-") {
			break // the image
		}
		opt, val, hasVal := strings.Cut(a, "=")
		if !hasVal && containerValueOptions[opt] && k+1 < len(args) {
			k++
			val = args[k].s
		}
		switch opt {
		case "--privileged":
			mounts["/dev"] = "/dev" // the host's devices, disks among them
		case "--device":
			host, in, _ := strings.Cut(val, ":")
			if in == "" {
				in = host
			}
			mounts[path.Clean(strings.SplitN(in, ":", 2)[0])] = host
		case "-v", "--volume":
			parts := strings.Split(val, ":")
			if len(parts) >= 2 && (len(parts) < 3 || !strings.Contains(parts[2], "ro")) {
				mounts[path.Clean(parts[1])] = parts[0]
			}
		case "--mount":
			var src, dst string
			ro := false
			for _, f := range strings.Split(val, ",") {
				key, v, _ := strings.Cut(f, "=")
				switch key {
				case "source", "src":
					src = v
				case "target", "destination", "dst":
					dst = v
				case "readonly", "ro":
					ro = v != "false"
				}
			}
			if src != "" && dst != "" && !ro {
				mounts[path.Clean(dst)] = src
			}
		}
	}
	if k+1 >= len(args) || len(mounts) == 0 {
		return
	}
	cmd := slices.Clone(args[k+1:])
	mapped := false
	for in, host := range mounts {
		// The path as a word, or inside one (sh -c 'rm -rf /h').
		re := regexp.MustCompile(`(^|[\s'"=:;&|(])` + regexp.QuoteMeta(in) + `(/|$|[\s'";&|)])`)
		for i, a := range cmd {
			if strings.Contains(a.s, in) && re.MatchString(a.s) {
				cmd[i] = word{s: re.ReplaceAllString(a.s, "${1}"+strings.ReplaceAll(host, "$", "$$")+"${2}"), known: a.known}
				mapped = true
			}
		}
	}
	if mapped {
		z.command(cmd, inner, nil)
	}
}

// startStopDaemon analyses start-stop-daemon --start --exec PROG -- ARGS: it runs PROG ARGS.
func (z *analyzer) startStopDaemon(args []word, inner SimpleCommand, stdin *word) {
	var prog *word
	for k, a := range args {
		if (a.s == "--exec" || a.s == "-x" || a.s == "--startas" || a.s == "-a") && k+1 < len(args) {
			prog = &args[k+1]
		}
		if a.s == "--" && prog != nil {
			z.command(append([]word{*prog}, args[k+1:]...), inner, stdin)
			return
		}
	}
	if prog != nil {
		z.command([]word{*prog}, inner, stdin)
	}
}

// parallel analyses parallel CMD ::: ARGS (and sem): CMD runs with each argument, or
// with arguments read from stdin, which cannot be known.
func (z *analyzer) parallel(name string, args []word, inner, proto SimpleCommand, stdin *word) {
	var cmd, vals []word
	inVals := false
	for _, a := range args {
		switch {
		case a.s == ":::" || a.s == "::::":
			inVals = true
		case inVals:
			vals = append(vals, a)
		case strings.HasPrefix(a.s, "-") && len(cmd) == 0:
		default:
			cmd = append(cmd, a)
		}
	}
	if len(cmd) == 0 {
		// parallel with no command runs each line it reads, and each value after :::,
		// as a command line (the thirteenth red team: parallel ::: 'rm -rf ~').
		for _, v := range vals[:min(len(vals), maxBraces)] {
			z.script(v, name, proto)
		}
		switch {
		case stdin != nil && stdin.known:
			z.script(*stdin, name, proto)
		case stdin != nil:
			z.unknown(name + " runs the command lines it reads from a pipe, which cannot be known before it runs")
		}
		return
	}
	if len(cmd) == 1 && strings.Contains(cmd[0].s, " ") {
		z.script(join(append(cmd, vals...)), name, proto)
		return
	}
	if !inVals {
		vals = []word{{}} // arguments from stdin: unknown
	}
	for _, v := range vals[:min(len(vals), maxBraces)] {
		z.command(append(slices.Clone(cmd), v), inner, nil)
	}
}

// gitRunsOptions are git subcommands' options whose value is a shell command git runs:
// git rebase --exec CMD, git difftool --extcmd CMD, git grep -O CMD, git filter-branch
// --tree-filter CMD, and the like.
var gitRunsOptions = map[string][]string{
	"rebase":        {"-x", "--exec"},
	"difftool":      {"-x", "--extcmd"},
	"grep":          {"-O", "--open-files-in-pager"},
	"filter-branch": {"--tree-filter", "--index-filter", "--msg-filter", "--commit-filter", "--env-filter", "--parent-filter", "--tag-name-filter", "--setup"},
	// The program run at the other end of a local or ssh transport: git clone -u CMD.
	"clone":     {"-u", "--upload-pack"},
	"fetch":     {"--upload-pack"},
	"pull":      {"--upload-pack"},
	"ls-remote": {"--upload-pack"},
	"push":      {"--receive-pack", "--exec"},
	"archive":   {"--exec"},
	// git send-email runs these (and --smtp-server when it is a path).
	"send-email": {"--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd", "--smtp-server"},
}

// gitRuns finds the commands a git subcommand runs: its command-valued options, git
// bisect run CMD..., git submodule foreach CMD.
func (z *analyzer) gitRuns(args []word, proto SimpleCommand) {
	sub := -1
	for k := 0; k < len(args); k++ {
		s := args[k].s
		if s == "-c" || s == "-C" || s == "--git-dir" || s == "--work-tree" || s == "--config-env" || s == "--namespace" {
			k++
			continue
		}
		if !strings.HasPrefix(s, "-") {
			sub = k
			break
		}
	}
	if sub < 0 {
		return
	}
	rest := args[sub+1:]
	switch args[sub].s {
	case "bisect":
		if len(rest) > 1 && rest[0].s == "run" {
			z.command(rest[1:], proto, nil)
		}
		return
	case "submodule":
		for k, a := range rest {
			if a.s == "foreach" {
				cmd := rest[k+1:]
				for len(cmd) > 0 && cmd[0].known && strings.HasPrefix(cmd[0].s, "-") {
					cmd = cmd[1:] // --quiet, --recursive (red team: the command hid behind them)
				}
				if len(cmd) > 0 {
					z.script(join(cmd), "git submodule foreach", proto)
				}
			}
		}
		return
	}
	for _, a := range rest {
		// ext::CMD ARGS is a remote helper that runs CMD (% escapes a space).
		if cmd, ok := strings.CutPrefix(a.s, "ext::"); ok {
			z.command(extArgv(cmd, a.known), proto, nil)
		}
	}
	opts := gitRunsOptions[args[sub].s]
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		for _, o := range opts {
			switch {
			case a.s == o && k+1 < len(rest):
				z.script(rest[k+1], "git "+args[sub].s+" "+o, proto)
			case strings.HasPrefix(a.s, o+"=") && strings.HasPrefix(o, "--"):
				z.script(word{s: a.s[len(o)+1:], known: a.known}, "git "+args[sub].s+" "+o, proto)
			case strings.HasPrefix(o, "--") && strings.HasPrefix(a.s, "--") && len(a.s) >= 4 && a.s != o:
				// git takes any unambiguous abbreviation of a long option (red team: git
				// grep --open=CMD, git rebase --ex CMD).
				name, val, hasVal := strings.Cut(a.s, "=")
				if len(name) >= 4 && strings.HasPrefix(o, name) {
					switch {
					case hasVal:
						z.script(word{s: val, known: a.known}, "git "+args[sub].s+" "+o, proto)
					case k+1 < len(rest):
						z.script(rest[k+1], "git "+args[sub].s+" "+o, proto)
					}
				}
			case len(o) == 2 && strings.HasPrefix(a.s, o) && len(a.s) > 2 && !strings.HasPrefix(a.s, "--"):
				z.script(word{s: a.s[2:], known: a.known}, "git "+args[sub].s+" "+o, proto)
			}
		}
	}
}

// shell finds what a shell runs: the -c script, or its standard input when that is a
// here-document. A script file cannot be seen from here.
func (z *analyzer) shell(name string, args []word, proto SimpleCommand, stdin *word) {
	cflag, sflag := false, false
	i := 0
	for i < len(args) {
		a := args[i]
		s := a.s
		if !a.known && (s == "" || s[0] == '-' || s[0] == '+') {
			z.unknown(name + " has options or a script computed at run time")
			return
		}
		if s == "--" || s == "-" {
			i++
			break
		}
		if strings.HasPrefix(s, "--") {
			i++
			if s == "--rcfile" || s == "--init-file" {
				i++
			}
			continue
		}
		if len(s) > 1 && (s[0] == '-' || s[0] == '+') {
			i++
			for _, c := range s[1:] {
				switch c {
				case 'c':
					cflag = true
				case 's':
					sflag = true
				case 'o', 'O':
					i++
				}
			}
			continue
		}
		break
	}
	rest := args[min(i, len(args)):]
	fromStdin := sflag || len(rest) == 0 || slices.Contains(stdinFiles, rest[0].s)
	switch {
	case cflag:
		if len(rest) > 0 {
			if stdin != nil {
				// The script's commands read the shell's input (bash -c bash <<< 'cmd').
				if z.fds == nil {
					z.fds = map[string]*word{}
				}
				saved, had := z.fds["0"]
				z.fds["0"] = stdin
				defer func() {
					if had {
						z.fds["0"] = saved
					} else {
						delete(z.fds, "0")
					}
				}()
			}
			z.script(rest[0], name, proto)
		}
	case slices.ContainsFunc(args, func(a word) bool { return a.s == "--help" || a.s == "--version" }):
	case len(rest) > 0 && strings.HasPrefix(rest[0].s, "/dev/fd/") && !slices.Contains(stdinFiles, rest[0].s):
		z.unknown(name + " runs a script from a process substitution, which cannot be known before it runs")
	case fromStdin && stdin == nil && len(rest) > 0:
		// bash /dev/stdin with nothing on the line feeding it: what it reads is unknown.
		z.unknown(name + " runs a script read from standard input, which cannot be known before it runs")
	case fromStdin && stdin != nil && stdin.known:
		z.script(*stdin, name, proto)
	case fromStdin && stdin != nil:
		z.unknown(name + " runs a script read from a pipe, which cannot be known before it runs")
	}
}

// findExec reports the commands of find's -exec/-execdir/-ok/-okdir and fd's
// -x/--exec/-X/--exec-batch.
func (z *analyzer) findExec(name string, args []word, proto SimpleCommand) {
	inner := proto
	inner.Context = "wrapper:" + name
	for i := 0; i < len(args); i++ {
		switch args[i].s {
		case "-exec", "-execdir", "-ok", "-okdir", "-x", "--exec", "-X", "--exec-batch":
			if (name == "find" || name == "gfind") && strings.HasPrefix(args[i].s, "-x") ||
				(name == "fd" || name == "fdfind") && strings.HasPrefix(args[i].s, "-e") && args[i].s != "--exec" && args[i].s != "--exec-batch" {
				continue
			}
			end := len(args)
			for j := i + 1; j < len(args); j++ {
				if args[j].s == ";" || args[j].s == "+" && (name == "find" || name == "gfind") {
					end = j
					break
				}
			}
			if end > i+1 {
				z.command(args[i+1:end], inner, nil)
			}
			i = end
		}
	}
}

// envSplit handles env -S 'cmd args' (the string is split into words, then the
// remaining operands follow).
func (z *analyzer) envSplit(val string, attached bool, rest []word, known bool, proto SimpleCommand) {
	if !attached {
		if len(rest) == 0 {
			return
		}
		val, known = rest[0].s, rest[0].known
		rest = rest[1:]
	}
	line := val
	for _, r := range rest {
		line += " " + quote(r.s)
		known = known && r.known
	}
	z.script(word{s: line, known: known}, "env", proto)
}

func join(ws []word) word {
	out := word{known: true}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.s
		out.known = out.known && w.known
	}
	out.s = strings.Join(parts, " ")
	return out
}

// quote renders s as one shell word.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isAssign(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	if strings.HasPrefix(s, "BASH_FUNC_") && strings.HasSuffix(s[:i], "%%") {
		return true // an exported function: env 'BASH_FUNC_ls%%=() { ...; }' bash -c ls
	}
	for k, c := range s[:i] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// xargsReplace is the replace-string of xargs -I R (-IR, -i, --replace[=R]), if set.
func xargsReplace(args []word) (string, bool) {
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case len(a.s) == 2 && strings.Contains("aLndPsE", a.s[1:]) && a.s[0] == '-':
			k++ // an option's own argument (-a FILE), not the command
		case strings.HasPrefix(a.s, "--") && !strings.Contains(a.s, "=") && a.s != "--" && a.s != "--replace" &&
			slices.Contains([]string{"--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var", "--eof"}, a.s):
			k++
		case a.s == "-I" && k+1 < len(args):
			return args[k+1].s, args[k+1].s != ""
		case strings.HasPrefix(a.s, "-I") && len(a.s) > 2:
			return a.s[2:], true
		case a.s == "-i" || a.s == "--replace":
			return "{}", true
		case strings.HasPrefix(a.s, "--replace="):
			return strings.TrimPrefix(a.s, "--replace="), true
		case a.s == "--" || !strings.HasPrefix(a.s, "-"):
			return "", false
		}
	}
	return "", false
}

// stdinFiles are the names a script can be read from standard input through.
var stdinFiles = []string{"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"}

// sourced analyses what source FILE (. FILE) runs: standard input's text (a here-string,
// a printed literal), and a process substitution or a computed name as unknown code. A
// script file is not read: real scripts are full of what a line's analysis must judge
// as unknown (computed names, eval), so a file's content would refuse ordinary work.
func (z *analyzer) sourced(name string, args []word, proto SimpleCommand, stdin *word) {
	if len(args) == 0 {
		return
	}
	f := args[0]
	switch {
	case f.known && f.s == setupScript:
		// source <(kubectl completion bash): a tool's own set-up, as with eval "$(...)".
	case !f.known || strings.HasPrefix(f.s, "/dev/fd/") && !slices.Contains(stdinFiles, f.s):
		z.unknown(name + " runs a script computed at run time (a process substitution or an expansion)")
	case slices.Contains(stdinFiles, f.s):
		if stdin != nil && stdin.known {
			z.script(*stdin, name, proto)
		} else {
			z.unknown(name + " runs a script read from standard input, which cannot be known before it runs")
		}
	}
}

// codeRunners are the interpreters whose one-liners (-c, -e, an awk program) can run
// shell commands or delete trees from a string literal.
var codeRunners = map[string]bool{"perl": true, "ruby": true, "node": true, "nodejs": true, "php": true,
	"awk": true, "gawk": true, "mawk": true, "nawk": true, "bun": true, "deno": true, "lua": true, "luajit": true,
	"Rscript": true, "R": true, "julia": true, "tclsh": true, "pypy": true, "pypy3": true, "ipython": true,
	"ipython3": true, "irb": true, "pwsh": true, "powershell": true, "guile": true, "expect": true, "wish": true}

var procExe = lazyRegexp(`^/proc/(self|\d+)/exe$`)

var (
	// A shell command in a string literal handed to a function that runs one:
	// system("rm -rf /"), os.system('...'), exec('...'), execSync("..."), popen, qx.
	shellCall = lazyRegexp(`(?:system|popen|exec|execSync|spawnSync|check_output|check_call|getoutput|getstatusoutput|qx|run|call|Popen|spawn|passthru|shell_exec|proc_open|execute|execFileSync|exec_command|systemlist|jobstart|job_start|termopen|term_start|shell-command|shell-command-to-string|async-shell-command|call-process-shell-command|start-process-shell-command)\s*\(?\s*[fFrRbB]{0,2}(?:"""([\s\S]*?)"""|'''([\s\S]*?)'''|"([^"]*)"|'([^']*)'|q\(([^)]*)\))`)
	// What follows a command string that makes it longer at run time: "rm -rf " + home,
	// "rm -rf %s" % d, "...".format(d).
	joinedLater = lazyRegexp(`^\s*(?:\+|%|\.format\(|\.\.|\.\s*\$)`)
	// Perl's pipes and word lists: open(F, "CMD|"), open(my $f, "-|", "CMD"),
	// system qw(rm -rf /).
	perlPipe = lazyRegexp(`open\s*\(?\s*[^,;]+,\s*["'](?:-\||\|-)["']\s*,\s*(?:"([^"]*)"|'([^']*)')|open\s*\(?\s*[^,;]+,\s*(?:"\|?([^"|]*)\|?"|'\|?([^'|]*)\|?')\s*[,)]?`)
	wordList = lazyRegexp(`(?:system|exec)\s*\(?\s*qw\s*(?:\(([^)]*)\)|\[([^\]]*)\]|\{([^}]*)\}|/([^/]*)/)`)
	// awk's pipes: print "CMD" | "sh", "CMD" | getline, print | "CMD".
	awkPipe = lazyRegexp(`"([^"]*)"\s*\|\s*"(?:sh|bash|zsh|dash|/bin/sh|/bin/bash)"|"([^"]*)"\s*\|&?\s*getline|\|&?\s*"([^"]*)"`)
	// Python's os.spawnlp(os.P_WAIT, "rm", "rm", "-rf", "/") and os.execlp("rm", "rm", ...).
	osSpawn = lazyRegexp(`os\.(?:spawn|exec)[lv]p?e?\s*\(\s*(?:os\.P_\w+\s*,\s*)?((?:"[^"]*"|'[^']*')(?:\s*,\s*(?:"[^"]*"|'[^']*'))*)`)
	// Tcl's exec and expect's spawn: exec rm -rf /etc.
	tclExec = lazyRegexp(`(?:^|[\s;\[{])(?:exec|spawn)\s+([^;\]\n}]+)`)
	// Commands in backticks or quote-like operators: perl and ruby `rm -rf /`, qx{},
	// %x(), julia run(`...`).
	backtick = lazyRegexp("`([^`]*)`|qx\\{([^}]*)\\}|%x\\(([^)]*)\\)|qx\\(([^)]*)\\)")
	// A command given as a list of literals: subprocess.run(['rm','-rf','/']),
	// spawnSync("rm", ["-rf", "/"]), os.execvp("rm", ["rm", ...]), Bun.spawnSync([...]).
	argList  = lazyRegexp(`\[\s*((?:(?:"[^"]*"|'[^']*')\s*,\s*)+(?:"[^"]*"|'[^']*'))\s*,?\s*\]`)
	listItem = lazyRegexp(`"([^"]*)"|'([^']*)'`)
	// A program and its arguments given apart: spawnSync("rm", ["-rf", "/"]), perl
	// exec "rm", "-rf", "/", system("rm", "-rf", "/").
	progArgs = lazyRegexp(`(?:spawn|spawnSync|execFile|execFileSync|Popen|execvp|execv|execl|run|exec|system)\s*\(?\s*((?:"[^"]*"|'[^']*')(?:\s*,\s*(?:"[^"]*"|'[^']*'|\[[^\]]*\]))+)`)
	// A tree deleted from a string literal: shutil.rmtree('/'), FileUtils.rm_rf("/"),
	// rmtree "/", fs.rmSync('/', {recursive: true}), remove_tree('/'), unlink("/",
	// recursive=TRUE), Remove-Item -Recurse /; the home folder by any spelling.
	treeDelete = lazyRegexp(`(?:rmtree|rm_rf|rm_r|remove_tree|rmSync|rmdirSync|removeSync|RemoveAll|\.rm|\brm|delete-directory|unlink|Remove-Item\s+-Recurse(?:\s+-Force)?|rmdir)\s*\(?\s*(?:path\s*=\s*)?(?:"([^"]*)"|'([^']*)'|(os\.path\.expanduser\(\s*['"]~['"]\s*\)|(?:__import__\(\s*['"]os['"]\s*\)|os)\.environ\[\s*['"]HOME['"]\s*\]|(?:os\.getenv|os\.environ\.get)\(\s*['"]HOME['"]\s*\)|Path\(\s*['"]~['"]\s*\)\.expanduser\(\)|process\.env(?:\.HOME|\[\s*['"]HOME['"]\s*\])|(?:pathlib\.)?Path\.home\(\)|(?:(?:require\(\s*['"]os['"]\s*\)|os)\.)?homedir\(\)|Dir\.home|ENV\[['"]HOME['"]\]|\$ENV\{HOME\}|/))`)
	// A file opened for writing from a string literal: open('/etc/passwd', 'w'),
	// appendFileSync("~/.bashrc"), perl open F, '>>', '/x' or open(F, ">/x").
	fileWrite = lazyRegexp(`print[^>|]*>>?\s*"([^"]+)"|(?:open\s*\(\s*(?:"([^"]*)"|'([^']*)')\s*,\s*(?:"|')(?:[wa]|r\+)|(?:appendFileSync|writeFileSync|appendFile|writeFile|File\.write|file_put_contents)\s*\(\s*(?:"([^"]*)"|'([^']*)')|open\s*\(?\s*\w+\s*,\s*(?:"|')>>?(?:"|')\s*,\s*(?:"([^"]*)"|'([^']*)')|open\s*\(?\s*\w+\s*,\s*(?:"|')>>?\s*([^"']+)(?:"|'))`)
	// A copy, move or link between two literal paths; a pathlib write; perl's
	// remove_tree or rmtree of a q(...) literal.
	fileCopy       = lazyRegexp(`(shutil\.(?:copy2?|copyfile|move|copytree)|os\.(?:rename|replace|symlink|link)|copyFileSync|renameSync|cpSync|symlinkSync|linkSync|File::Copy::(?:copy|move)|\bcopy|\bmove|\brename)\s*\(?\s*("[^"]*"|'[^']*'|qq?\([^)]*\))\s*,\s*("[^"]*"|'[^']*'|qq?\([^)]*\))`)
	pathWrite      = lazyRegexp(`Path\(\s*("[^"]*"|'[^']*')\s*\)\s*\.(?:write_text|write_bytes|touch|symlink_to|hardlink_to|rename|replace|unlink|rmdir|chmod|open\(\s*["'][wa])`)
	perlQuotedTree = lazyRegexp(`(?:remove_tree|rmtree|rmdir)\s*\(?\s*qq?\(([^)]*)\)`)
	// An alias of a tree deleter: from shutil import rmtree as r.
	rmtreeAlias = lazyRegexp(`import\s+(?:rmtree|rm_rf|remove_tree)\s+as\s+(\w+)`)
	// A command taken from a variable: awk's system(c), os.system(cmd).
	computedCommand = lazyRegexp(`(?:^|[^.\w])(?:system|os\.system|os\.popen|shell_exec|passthru|execSync)\s*\(\s*[A-Za-z_$][\w$]*\s*\)`)
	// awk's system(.
	awkSystem = lazyRegexp(`\bsystem\s*\(`)
	// awk's CMD | getline where CMD does not end in a string literal, and output piped
	// into a shell (all of it, and what print writes from one literal).
	awkPrintPipe        = lazyRegexp(`\bprintf?\b[^;{}\n|]*\|&?\s*([A-Za-z_]\w*)\s*(?:[;}\n]|$)`)
	awkPrintFile        = lazyRegexp(`\bprintf?\b[^;{}\n>]*>>?\s*"([^"]+)"`)
	awkGetlineComputed  = lazyRegexp(`(?:^|[^"\s])\s*\|&?\s*getline`)
	awkIntoShell        = lazyRegexp(`\|&?\s*"\s*(?:/usr)?(?:/bin/)?(?:sh|bash|zsh|dash|ksh|mksh|busybox sh)\b[^"]*"`)
	awkLiteralIntoShell = lazyRegexp(`printf?\s*\(?\s*"[^"]*"\s*\)?\s*\|&?\s*"\s*(?:/usr)?(?:/bin/)?(?:sh|bash|zsh|dash|ksh|mksh|busybox sh)\b[^"]*"`)
	// perl's unlink glob("/etc/*"), php's array_map('unlink', glob(...)).
	unlinkGlob = lazyRegexp(`unlink[\s(,'"]*glob\s*\(?\s*(?:"([^"]*)"|'([^']*)')`)
	// An f-string's replacement field: f"rm -rf {d}".
	fString = lazyRegexp(`\{[^{}]*\}`)
	// A reference to the home folder, and a file opened or written for writing.
	homeRef   = lazyRegexp(`(?i)home|expanduser|~/`)
	writeMode = lazyRegexp(`['"](?:[wa]b?\+?|r\+b?)['"]|['"]\+?>>?|appendFile|writeFile|write_text|write_bytes|File\.write|file_put_contents|shutil\.copy|copyfile|symlink|\.rename\(|\.replace\(`)
	// A run of string literals joined by +, / or a comma: ".ssh" / "authorized_keys".
	literalRun = lazyRegexp(`(?:"[^"\n]*"|'[^'\n]*')(?:\s*[,/+]\s*(?:"[^"\n]*"|'[^'\n]*'))*`)
	// Signals to every process: os.kill(-1, 9), kill 9, -1, process.kill(-1).
	killAll = lazyRegexp(`kill(?:pg)?\s*\(\s*-?1\s*[,)]|kill\s+['"]?\w+['"]?\s*(?:,|=>)\s*-?1\b|Process\.kill\(\s*[^,]+,\s*-?1\s*\)|process\.kill\(\s*-?1\b`)
)

// oneLiner analyses what an interpreter's one-liner shows as literals: each shell
// command handed to system() and the like, and each tree deleted by name, as the line
// rm -rf PATH would be. What it computes at run time is beyond a line's analysis.
func (z *analyzer) oneLiner(name string, args []word, proto SimpleCommand, stdin *word) {
	var code []string
	own := false
	if c, ok := z.clusteredCode(name, args, proto); ok {
		code = append(code, c...)
		own = true
	}
	for k, a := range args {
		switch {
		case (a.s == "-c" || a.s == "-e" || a.s == "-E" || a.s == "-r" || a.s == "--eval" || a.s == "-p" || a.s == "--print" || a.s == "-Command" || a.s == "-command") && k+1 < len(args):
			code = append(code, ansiC(args[k+1].s))
			own = true
		case name == "deno" && a.s == "eval" && k+1 < len(args):
			code = append(code, args[k+1].s)
			own = true
		case strings.HasSuffix(name, "awk") && !strings.HasPrefix(a.s, "-") && (k == 0 || !slices.Contains([]string{"-f", "-v", "-F"}, args[k-1].s)):
			code = append(code, a.s) // awk's program is its first operand
		}
		if strings.HasSuffix(name, "awk") && len(code) > 0 {
			break
		}
	}
	if !own && !strings.HasSuffix(name, "awk") && !ownProgramArgs(args) && stdin != nil && stdin.known {
		// python3 <<'EOF' ... EOF, echo '...' | node: the program is what stdin shows.
		code = append(code, stdin.s)
		sc := proto
		sc.Context = "stdin:" + name
		sc.Argv = []string{name, "-c", stdin.s}
		z.add(sc) // judged as the one-liner it is (fork loops)
	}
	for _, c := range code {
		z.codeLiterals(name, c, proto)
	}
}

// joinLiterals reads a program's string literals as the language does where the
// patterns below would not: an escaped quote inside one ("bash -c \"rm -rf ~\"") is
// a quote, and adjacent literals are one ("r""m -rf ~" in Python and C) (the fifteenth
// red team).
func joinLiterals(c string) string {
	if !strings.Contains(c, `\"`) && !strings.Contains(c, `\'`) && !adjacentLiterals().MatchString(c) {
		return c
	}
	c = strings.NewReplacer(`\"`, "\x01", `\'`, "\x02").Replace(c)
	c = adjacentLiterals().ReplaceAllString(c, "")
	// The escaped quotes come back as quotes of the other kind, inside the literal
	// they stand in: the command text reads the same to a shell.
	return strings.NewReplacer("\x01", "'", "\x02", "'").Replace(c)
}

// adjacentLiterals is the seam between two string literals written side by side.
var adjacentLiterals = lazyRegexp(`"[ \t]*"|'[ \t]*'`)

// clusteredCode is the program text an interpreter is given in the spellings the plain
// -e/-c reading misses (the fifteenth red team): perl's and ruby's -we, -nle, -e'CODE'
// clusters and perl's -M'MOD;CODE' (use MOD;CODE) and PERL5OPT, python's -Sc and
// -c'CODE' and python -m timeit's statements, node's --eval=CODE and -pe.
func (z *analyzer) clusteredCode(name string, args []word, proto SimpleCommand) ([]string, bool) {
	var out []string
	lang := ""
	switch {
	case name == "perl" || strings.HasPrefix(name, "perl5"):
		lang = "perl"
	case name == "ruby":
		lang = "ruby"
	case strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy"):
		lang = "python"
	case name == "node" || name == "nodejs" || name == "bun":
		lang = "node"
	default:
		return nil, false
	}
	if lang == "perl" {
		for _, e := range proto.Env {
			if v, ok := strings.CutPrefix(e, "PERL5OPT="); ok {
				var opts []word
				for _, f := range strings.Fields(v) {
					opts = append(opts, word{s: f, known: true})
				}
				args = append(opts, args...) // read first, in their order
			}
		}
	}
	for k := 0; k < len(args); k++ {
		a := args[k].s
		next := func() string {
			if k+1 < len(args) {
				return args[k+1].s
			}
			return ""
		}
		if lang == "node" {
			if v, ok := strings.CutPrefix(a, "--eval="); ok {
				out = append(out, v)
			} else if v, ok := strings.CutPrefix(a, "--print="); ok {
				out = append(out, v)
			} else if a == "-pe" || a == "-ep" {
				out = append(out, next())
			}
			continue
		}
		if lang == "python" && a == "-m" && next() == "timeit" {
			for _, w := range args[k+2:] {
				if !strings.HasPrefix(w.s, "-") {
					out = append(out, w.s) // each statement it times runs
				}
			}
			break
		}
		if !strings.HasPrefix(a, "-") {
			break // the script: what follows is its arguments
		}
		if len(a) < 2 || a[1] == '-' {
			continue
		}
	cluster:
		for j := 1; j < len(a); j++ {
			c := a[j]
			rest := a[j+1:]
			switch {
			case (lang == "perl" || lang == "ruby") && (c == 'e' || c == 'E'), lang == "python" && c == 'c':
				if rest != "" {
					out = append(out, rest)
				} else {
					out = append(out, next())
					k++
				}
				break cluster
			case lang == "perl" && (c == 'M' || c == 'm'):
				mod := rest
				if mod == "" {
					mod = next()
					k++
				}
				if strings.ContainsAny(mod, ";( \t'\"") {
					// -M'5;system ...': perl reads use 5;system ...; code where a module's
					// name belongs is read as code, and what it computes is not known.
					out = append(out, "use "+mod+";")
					if strings.Contains(mod, ";") {
						z.unknown("perl -M" + mod + " runs code after the module's name, which is not read here; put the code in -e")
					}
				}
				break cluster
			case lang == "perl" && (c == 'l' || c == '0'):
				for j+1 < len(a) && a[j+1] >= '0' && a[j+1] <= '9' {
					j++
				}
			case lang == "perl" && strings.IndexByte("IixCdD", c) >= 0,
				lang == "python" && strings.IndexByte("WXm", c) >= 0, lang == "ruby" && strings.IndexByte("rICEKTx", c) >= 0:
				break cluster // a value follows, attached or not
			}
		}
	}
	return out, len(out) > 0
}

// codeLiterals analyses what one program text in another language shows as literals:
// the shell commands it hands to system() and the like, the command lists it spawns,
// the trees it deletes, the files it writes, the processes it kills.
func (z *analyzer) codeLiterals(name, c string, proto SimpleCommand) {
	c = joinLiterals(c)
	inner := proto
	inner.Context = "wrapper:" + name
	for _, m := range shellCall().FindAllStringSubmatchIndex(c, -1) {
		cmd, fstring := "", false
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 {
				cmd += c[m[g]:m[g+1]]
				q := strings.LastIndexAny(c[:m[g]], `"'`)
				fstring = q > 0 && (c[q-1] == 'f' || c[q-1] == 'F')
			}
		}
		if fstring {
			cmd = fString().ReplaceAllString(cmd, `"$$(:)"`) // f"rm -rf {d}": computed
		}
		if joinedLater().MatchString(c[m[1]:]) {
			cmd += ` "$(:)"` // "rm -rf " + home: the rest is computed
		}
		z.script(word{s: cmd, known: true}, name, proto)
	}
	for _, re := range []*regexp.Regexp{perlPipe(), awkPipe()} {
		for _, m := range re.FindAllStringSubmatch(c, -1) {
			if cmd := strings.Join(m[1:], ""); strings.TrimSpace(cmd) != "" {
				z.script(word{s: cmd, known: true}, name, proto)
			}
		}
	}
	for _, m := range wordList().FindAllStringSubmatch(c, -1) {
		var argv []word
		for _, f := range strings.Fields(strings.Join(m[1:], "")) {
			argv = append(argv, word{s: f, known: true})
		}
		if len(argv) > 0 {
			z.command(argv, inner, nil)
		}
	}
	for _, m := range osSpawn().FindAllStringSubmatch(c, -1) {
		if argv := literals(m[1]); len(argv) > 1 {
			z.command(argv[1:], inner, nil) // the program, then its argv with argv[0]
		}
	}
	if name == "tclsh" || name == "expect" || name == "wish" {
		for _, m := range tclExec().FindAllStringSubmatch(c, -1) {
			z.script(word{s: m[1], known: true}, name+" exec", proto)
		}
	}
	for _, m := range backtick().FindAllStringSubmatch(c, -1) {
		z.script(word{s: strings.Join(m[1:], ""), known: true}, name, proto)
	}
	for _, m := range argList().FindAllStringSubmatch(c, -1) {
		if argv := literals(m[1]); len(argv) > 0 {
			z.command(argv, inner, nil)
		}
	}
	for _, m := range progArgs().FindAllStringSubmatch(c, -1) {
		argv := literals(m[1])
		if len(argv) > 1 && argv[0].s == argv[1].s {
			argv = argv[1:] // execvp("rm", ["rm", ...]): the name, then argv with argv[0]
		}
		if len(argv) > 0 {
			z.command(argv, inner, nil)
		}
	}
	if m := rmtreeAlias().FindStringSubmatch(c); m != nil {
		// from shutil import rmtree as r; r("/"): the alias deletes trees too.
		c = regexp.MustCompile(`\b`+regexp.QuoteMeta(m[1])+`\s*\(`).ReplaceAllString(c, "rmtree(")
	}
	for _, m := range treeDelete().FindAllStringSubmatch(c, -1) {
		target := m[1] + m[2]
		if m[3] != "" {
			target = m[3]
			if target != "/" {
				target = "~" // the home folder, spelled in the language
			}
		}
		z.command([]word{{s: "rm", known: true}, {s: "-rf", known: true}, {s: target, known: true}}, inner, nil)
	}
	for _, m := range fileWrite().FindAllStringSubmatch(c, -1) {
		sc := inner
		sc.Argv = []string{name}
		sc.Redirects = append(slices.Clip(sc.Redirects), Redirect{Op: ">>", Target: strings.TrimSpace(strings.Join(m[1:], ""))})
		z.add(sc)
	}
	// Copies, moves, links and pathlib writes between literal paths (an eleventh red
	// team: shutil.copy("in", "~/.bashrc"), os.rename(".git", ...), Path(x).write_text,
	// File::Copy, copyFileSync): a move's source goes as surely as its destination
	// comes; perl's remove_tree(q(...)) deletes a tree.
	for _, m := range fileCopy().FindAllStringSubmatch(c, -1) {
		targets := []string{unquoteLiteral(m[3])}
		if low := strings.ToLower(m[1]); strings.Contains(low, "move") || strings.Contains(low, "rename") || strings.Contains(low, "replace") {
			targets = append(targets, unquoteLiteral(m[2])) // moved or renamed away: mv's rules judge it
			z.command([]word{{s: "mv", known: true}, {s: unquoteLiteral(m[2]), known: true}, {s: unquoteLiteral(m[3]), known: true}}, inner, nil)
		} else if strings.Contains(low, "link") {
			// A link the line makes is a write of the file it names, as with ln (a twelfth
			// red team: os.symlink("~/.bashrc", "P"); echo >> P).
			targets = append(targets, unquoteLiteral(m[2]))
		}
		for _, t := range targets {
			sc := inner
			sc.Argv = []string{name}
			sc.Redirects = append(slices.Clip(sc.Redirects), Redirect{Op: ">>", Target: t})
			z.add(sc)
		}
		if strings.Contains(m[1], "copytree") || strings.Contains(m[1], "cpSync") {
			z.command([]word{{s: "cp", known: true}, {s: "-r", known: true}, {s: unquoteLiteral(m[2]), known: true}, {s: unquoteLiteral(m[3]), known: true}}, inner, nil)
		}
	}
	for _, m := range pathWrite().FindAllStringSubmatch(c, -1) {
		sc := inner
		sc.Argv = []string{name}
		sc.Redirects = append(slices.Clip(sc.Redirects), Redirect{Op: ">>", Target: unquoteLiteral(m[1])})
		z.add(sc)
	}
	for _, m := range perlQuotedTree().FindAllStringSubmatch(c, -1) {
		z.command([]word{{s: "rm", known: true}, {s: "-rf", known: true}, {s: m[1], known: true}}, inner, nil)
	}
	if homeRef().MatchString(c) && writeMode().MatchString(c) {
		// open(os.path.expanduser("~") + "/.bashrc", "a"), Path.home() / ".ssh" /
		// "authorized_keys": a start-up file written by a path built from home.
		for _, f := range homeFiles(c) {
			z.writesTo(name, f, proto)
		}
	}
	if computedCommand().MatchString(c) {
		z.unknown(name + "'s system() runs a command held in a variable, which cannot be known before it runs")
	}
	if strings.HasSuffix(name, "awk") {
		// CMD | getline runs CMD, as system() does; a command held in a variable or
		// built there cannot be known (the thirteenth red team: c="rm -rf ~"; c |
		// getline). Text printed into a shell runs too, literal or not.
		if awkGetlineComputed().MatchString(c) {
			z.unknown(name + " runs a command it builds through | getline, which cannot be known before it runs")
		}
		if len(awkIntoShell().FindAllString(c, -1)) > len(awkLiteralIntoShell().FindAllString(c, -1)) {
			z.unknown(name + " prints text the program computes into a shell, which cannot be known before it runs")
		}
		for _, m := range awkPrintPipe().FindAllStringSubmatch(c, -1) {
			if m[1] != "getline" {
				z.unknown(name + " prints into a command held in a variable, which cannot be known before it runs")
			}
		}
		// print > "FILE" writes FILE (the fifteenth red team: ~/.bashrc).
		for _, m := range awkPrintFile().FindAllStringSubmatch(c, -1) {
			z.writesTo(name, m[1], proto)
		}
		// awk joins adjacent strings: system("r" "m -f x") runs rm (red team). The
		// literals a system() argument starts with are its command; what follows them is
		// computed (system("echo " $1): echo of something), and an argument that starts
		// with no whole command word cannot be known.
		for _, loc := range awkSystem().FindAllStringIndex(c, -1) {
			lits, rest := awkLiterals(c[loc[1]:])
			switch {
			case !rest:
				z.script(word{s: lits, known: true}, name+" system()", proto)
			case strings.ContainsAny(strings.TrimLeft(lits, " \t"), " \t"):
				z.script(word{s: lits + ` "$(:)"`, known: true}, name+" system()", proto)
			default:
				z.unknown(name + "'s system() runs a command the program builds, which cannot be known before it runs")
			}
		}
	}
	for _, m := range unlinkGlob().FindAllStringSubmatch(c, -1) {
		z.command([]word{{s: "rm", known: true}, {s: "-f", known: true}, {s: m[1] + m[2], known: true}}, inner, nil)
	}
	if killAll().MatchString(c) {
		z.command([]word{{s: "kill", known: true}, {s: "-9", known: true}, {s: "-1", known: true}}, inner, nil)
	}
}

// unquoteLiteral is a string literal's text: "x", 'x', q(x) or qq(x).
func unquoteLiteral(s string) string {
	switch {
	case strings.HasPrefix(s, "qq(") && strings.HasSuffix(s, ")"):
		return s[3 : len(s)-1]
	case strings.HasPrefix(s, "q(") && strings.HasSuffix(s, ")"):
		return s[2 : len(s)-1]
	case len(s) >= 2 && (s[0] == '"' || s[0] == '\''):
		return s[1 : len(s)-1]
	}
	return s
}

// awkLiterals reads an awk expression from its start (after "system("): the string
// literals it starts with, joined as awk joins them, and whether anything but them
// comes before its closing parenthesis.
func awkLiterals(s string) (lits string, rest bool) {
	var b strings.Builder
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) || s[i] == ')' {
			return b.String(), false
		}
		if s[i] != '"' {
			return b.String(), true
		}
		i++
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
			} else {
				b.WriteByte(s[i])
			}
			i++
		}
		i++
	}
}

// homeFiles are the dot files below home a one-liner's literals name: each literal
// and each run of joined literals, read from its first "/." after a home reference
// ("$ENV{HOME}/.bashrc", f"{os.environ['HOME']}/.profile") or as a path below home.
func homeFiles(code string) []string {
	var out []string
	consider := func(s string) {
		s = strings.TrimLeft(s, "+> ")
		if i := strings.LastIndex(s, "}/."); i >= 0 {
			s = s[i+1:]
		} else if i := strings.Index(s, "HOME/."); i >= 0 {
			s = s[i+4:]
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(s, "~"), "/")
		if len(rel) > 1 && rel[0] == '.' && rel[1] != '.' && rel[1] != '/' {
			out = append(out, "~/"+path.Clean(rel))
		}
	}
	for _, run := range literalRun().FindAllString(code, -1) {
		var parts []string
		for _, it := range listItem().FindAllStringSubmatch(run, -1) {
			consider(it[1] + it[2])
			parts = append(parts, it[1]+it[2])
		}
		if len(parts) > 1 {
			consider(strings.Join(parts, "/"))
		}
	}
	return out
}

// literals are the string literals of a list ("rm", '-rf', "/") as known words.
func literals(list string) []word {
	var out []word
	for _, it := range listItem().FindAllStringSubmatch(list, -1) {
		out = append(out, word{s: it[1] + it[2], known: true})
	}
	return out
}

// ownProgramArgs reports an interpreter given a script file to run (a first operand
// that is not an option, -, or a standard-input file).
func ownProgramArgs(args []word) bool {
	for _, a := range args {
		if a.s == "-" || slices.Contains(stdinFiles, a.s) {
			return false
		}
		if !strings.HasPrefix(a.s, "-") {
			return true
		}
	}
	return false
}

// extArgv splits the command of git's ext:: remote helper into its words: a space
// separates them, "% " is a space inside one, "%%" a percent sign.
func extArgv(cmd string, known bool) []word {
	var out []word
	var b strings.Builder
	for i := 0; i < len(cmd); i++ {
		switch {
		case cmd[i] == '%' && i+1 < len(cmd) && (cmd[i+1] == ' ' || cmd[i+1] == '%'):
			b.WriteByte(cmd[i+1])
			i++
		case cmd[i] == ' ':
			if b.Len() > 0 {
				out = append(out, word{s: b.String(), known: known})
				b.Reset()
			}
		default:
			b.WriteByte(cmd[i])
		}
	}
	if b.Len() > 0 {
		out = append(out, word{s: b.String(), known: known})
	}
	return out
}

// gitCommandKeys are git config keys whose value is a command git runs.
var gitCommandKeys = map[string]bool{"core.pager": true, "core.editor": true, "core.fsmonitor": true,
	"core.sshcommand": true, "core.askpass": true, "diff.external": true, "sequence.editor": true,
	"credential.helper": true, "gpg.program": true, "core.gitproxy": true, "uploadpack.packobjectshook": true,
	"core.alternaterefscommand": true,
	// The fifteenth red team's: imap-send's tunnel, ssh signing's key command, add -p's
	// filter, send-email's address and mail commands.
	"imap.tunnel": true, "gpg.ssh.defaultkeycommand": true, "interactive.difffilter": true,
	"sendemail.sendmailcmd": true, "sendemail.tocmd": true, "sendemail.cccmd": true, "sendemail.headercmd": true}

// gitCommandKey reports a git config key whose value is a command git runs: the fixed
// ones, and the sections' command keys (pager.*, filter.*.clean/smudge/process,
// remote.*.uploadpack, mergetool.*.cmd, diff.*.textconv, gpg.*.program).
func gitCommandKey(key string) bool {
	if gitCommandKeys[key] || strings.HasPrefix(key, "pager.") {
		return true
	}
	last := key[strings.LastIndexByte(key, '.')+1:]
	switch last {
	case "clean", "smudge", "process", "uploadpack", "receivepack", "cmd", "command", "textconv", "program",
		"helper", "sshcommand", "proxy", "editor", "askpass", "driver":
		return strings.Count(key, ".") >= 1 && !strings.HasPrefix(key, "http.")
	}
	return false
}

// sshCommand is the remote command of an ssh call: what follows the destination.
func sshCommand(args []word) []word {
	withValue := "BbcDEeFIiJLlmOoPpQRSWw"
	for k := 0; k < len(args); k++ {
		a := args[k].s
		if a == "--" {
			k++
			if k < len(args) {
				return args[k+1:]
			}
			return nil
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if strings.IndexByte(withValue, a[len(a)-1]) >= 0 && len(a) == 2 {
				k++
			}
			continue
		}
		return args[k+1:] // a is the destination
	}
	return nil
}

// envUnsets are the variables of agentbox's own that env's options take out of the
// command's environment (-u NAME, --unset=NAME), as env entries: an agentbox the
// command runs is pinned to this one's policy by them, so taking one out is decided as
// setting it. (env -i, common in builds, is left to the nested agentbox, which finds
// the pins in its ancestors' environment.)
func envUnsets(opts []word) []string {
	var out []string
	for k := 0; k < len(opts); k++ {
		a := opts[k]
		var name word
		switch {
		case (a.s == "-u" || a.s == "--unset") && k+1 < len(opts):
			name = opts[k+1]
			k++
		case strings.HasPrefix(a.s, "--unset="):
			name = word{s: strings.TrimPrefix(a.s, "--unset="), known: a.known}
		case a.known && strings.HasPrefix(a.s, "-u") && len(a.s) > 2:
			name = word{s: a.s[2:], known: true}
		default:
			continue
		}
		switch {
		case !name.known:
			out = append(out, "*")
		case strings.HasPrefix(name.s, "AGENTBOX_"):
			out = append(out, name.s)
		}
	}
	return out
}
